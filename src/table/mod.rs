//! JSON results into rows and columns, and rows into CSV (contract, section 3).

mod cells;
pub mod csv;
mod file;
mod filter;
mod row;

pub use self::cells::{cell, cells};
pub use self::csv::{CsvError, CsvOptions, CsvWriter, guard_formula};
pub use self::file::{CommitError, CsvFile, FileError, OutKind, Partial, check_out};
pub use self::filter::{RowIndex, normalize};
pub use self::row::Row;
