//! JSON results into rows and columns, and rows into CSV (contract, section 3).

mod cells;
pub mod csv;
mod file;
mod filter;
mod format;
mod number;
mod row;
mod xlsx;

pub use self::cells::{LIST_SEPARATOR, TypedCell, cell, cells, holds_list, typed_cell};
pub use self::csv::{CsvError, CsvOptions, CsvWriter, guard_formula};
pub use self::file::{CommitError, CsvFile, FileError, OutKind, Partial, check_out, free_name};
pub use self::filter::{RowIndex, normalize};
pub use self::format::Format;
pub use self::number::thousands;
pub use self::row::Row;
pub use self::xlsx::{About, XlsxFile, is_xlsx};
