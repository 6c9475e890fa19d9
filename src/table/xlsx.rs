//! An export as an XLSX workbook (rust_xlsxwriter, its constant-memory mode: each row goes to a
//! temporary file as soon as the next one starts, so 100,000 rows take no more memory than one
//! page): every cell typed as the response gives it — booleans as booleans, numbers as numbers,
//! everything else as text, never a formula (refs keep their leading zeros), lists joined as in
//! the CSV — a bold frozen header, an autofilter, columns as wide as the first page's content, and
//! a second sheet "About" with the query, the connection, the time and the row count. The file
//! appears under its name only when complete; an export cut short is saved as `F.partial` with the
//! rows written so far.

use std::path::{Path, PathBuf};

use rust_xlsxwriter::{Format, Workbook, XlsxError};
use serde_json::Value;

use super::cells::{TypedCell, cell, typed_cell};
use super::file::{CommitError, FileError, OutKind, Partial, check_out};
use crate::query::{Column, ConnectionSite};

/// Whether `path` asks for a workbook (its name ends in `.xlsx`, in any case).
pub fn is_xlsx(path: &Path) -> bool {
    path.extension().is_some_and(|extension| extension.eq_ignore_ascii_case("xlsx"))
}

/// What the "About" sheet says of the export.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct About {
    /// The query as sent.
    pub query: String,
    /// The connection's name.
    pub connection: String,
}

/// The widest a column is made, in characters.
const WIDEST: usize = 60;

/// The number format of boolean cells. Excel shows a boolean cell as TRUE or FALSE whatever its
/// format; LibreOffice (7.4) applies its boolean format to the first rows of a large sheet only
/// and shows the rest as 1 and 0 (seen on a 500-row export): this format says TRUE and FALSE
/// everywhere, in either program.
fn boolean_format() -> Format {
    Format::new().set_num_format("\"TRUE\";\"TRUE\";\"FALSE\"")
}

/// A workbook being written.
pub struct XlsxFile {
    workbook: Workbook,
    out: PathBuf,
    columns: Vec<Column>,
    rows: u64,
    header_written: bool,
    about: About,
    started: chrono::DateTime<chrono::Local>,
}

impl XlsxFile {
    /// Starts a workbook for `out` with `columns`; a pipe or a device is refused (a workbook is
    /// a zip archive, written whole), as are folders and missing folders ([`check_out`]).
    pub fn create(out: &Path, columns: &[Column], about: About) -> Result<Self, FileError> {
        crate::platform::ui_thread::check("export file");
        let error = |reason: String| FileError { path: out.to_path_buf(), reason };
        if check_out(out)? == OutKind::InPlace {
            return Err(error("an XLSX workbook is written whole and cannot go to a pipe or a device".into()));
        }
        let mut workbook = Workbook::new();
        workbook
            .add_worksheet_with_constant_memory()
            .and_then(|sheet| sheet.set_name("Rows"))
            .map_err(|e| error(e.to_string()))?;
        Ok(XlsxFile {
            workbook,
            out: out.to_path_buf(),
            columns: columns.to_vec(),
            rows: 0,
            header_written: false,
            about,
            started: chrono::Local::now(),
        })
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    fn error(&self, e: impl std::fmt::Display) -> FileError {
        FileError { path: self.out.clone(), reason: e.to_string() }
    }

    /// The header, bold and frozen, with the columns as wide as `first`'s cells (the first page:
    /// in constant-memory mode the widths come before the rows).
    fn header(&mut self, first: &[&Value]) -> Result<(), XlsxError> {
        let widths: Vec<usize> = self
            .columns
            .iter()
            .map(|column| {
                let widest = first.iter().map(|node| cell(node, column).chars().count()).max().unwrap_or(0);
                widest.max(column.name.chars().count()).clamp(6, WIDEST) + 2
            })
            .collect();
        let bold = Format::new().set_bold();
        let sheet = self.workbook.worksheet_from_index(0)?;
        for (index, (column, width)) in self.columns.iter().zip(widths).enumerate() {
            let index = u16::try_from(index).map_err(|_| XlsxError::ParameterError("too many columns".into()))?;
            sheet.set_column_width(index, width as f64)?;
            sheet.write_string_with_format(0, index, &column.name, &bold)?;
        }
        sheet.set_freeze_panes(1, 0)?;
        self.header_written = true;
        Ok(())
    }

    /// Writes the nodes of one page; returns how many.
    pub fn write_page(&mut self, data: &Value, site: &ConnectionSite) -> Result<usize, FileError> {
        let nodes: Vec<&Value> = site.nodes(data).collect();
        if !self.header_written {
            self.header(&nodes).map_err(|e| self.error(e))?;
        }
        let first_row = self.rows;
        let columns = std::mem::take(&mut self.columns);
        let boolean = boolean_format();
        let written = (|| -> Result<(), XlsxError> {
            let sheet = self.workbook.worksheet_from_index(0)?;
            for (offset, node) in nodes.iter().enumerate() {
                let row = u32::try_from(first_row + offset as u64 + 1)
                    .map_err(|_| XlsxError::ParameterError("more rows than a sheet holds".into()))?;
                for (index, column) in columns.iter().enumerate() {
                    let index = index as u16;
                    match typed_cell(node, column) {
                        TypedCell::Bool(flag) => {
                            sheet.write_boolean_with_format(row, index, flag, &boolean).map(|_| ())?
                        }
                        TypedCell::Number(number) => sheet.write_number(row, index, number).map(|_| ())?,
                        TypedCell::Text(text) if text.is_empty() => {}
                        // write_string: text is never read as a formula or a number.
                        TypedCell::Text(text) => sheet.write_string(row, index, text).map(|_| ())?,
                    }
                }
            }
            Ok(())
        })();
        self.columns = columns;
        written.map_err(|e| self.error(e))?;
        self.rows += nodes.len() as u64;
        Ok(nodes.len())
    }

    /// Writes rows of text (the grid's rows as shown: their cells are text already).
    pub fn write_texts<'r>(&mut self, rows: impl IntoIterator<Item = &'r super::Row>) -> Result<u64, FileError> {
        if !self.header_written {
            self.header(&[]).map_err(|e| self.error(e))?;
        }
        let mut row_number = self.rows;
        let written = (|| -> Result<(), XlsxError> {
            let sheet = self.workbook.worksheet_from_index(0)?;
            for row in rows {
                row_number += 1;
                let at = u32::try_from(row_number)
                    .map_err(|_| XlsxError::ParameterError("more rows than a sheet holds".into()))?;
                for (index, text) in row.cells().enumerate().filter(|(_, text)| !text.is_empty()) {
                    sheet.write_string(at, index as u16, text)?;
                }
            }
            Ok(())
        })();
        written.map_err(|e| self.error(e))?;
        self.rows = row_number;
        Ok(self.rows)
    }

    /// The autofilter and the "About" sheet, then the workbook saved as `path`.
    fn save_as(&mut self, path: &Path) -> Result<(), XlsxError> {
        if !self.header_written {
            self.header(&[])?;
        }
        let last_column = self.columns.len().saturating_sub(1) as u16;
        let last_row = u32::try_from(self.rows).unwrap_or(u32::MAX);
        if !self.columns.is_empty() {
            self.workbook.worksheet_from_index(0)?.autofilter(0, 0, last_row, last_column)?;
        }
        let bold = Format::new().set_bold();
        let about = self.workbook.add_worksheet().set_name("About")?;
        let lines = [
            ("Query", self.about.query.as_str()),
            ("Connection", self.about.connection.as_str()),
            ("Exported at", &self.started.format("%Y-%m-%d %H:%M:%S %:z").to_string()),
            ("Rows", &self.rows.to_string()),
            ("Exported by", concat!("orgql ", env!("CARGO_PKG_VERSION"))),
        ];
        for (row, (name, value)) in lines.iter().enumerate() {
            about.write_string_with_format(row as u32, 0, *name, &bold)?;
            about.write_string(row as u32, 1, *value)?;
        }
        about.set_column_width(0, 14)?;
        about.set_column_width(1, 100)?;
        self.workbook.save(path)
    }

    /// Saves the workbook under its name (through a temporary file beside it, owner-only);
    /// returns the rows written. When that fails, what was written is kept as `F.partial`.
    pub fn commit(mut self) -> Result<u64, CommitError> {
        crate::platform::ui_thread::check("export file");
        let folder = match self.out.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let temp = tempfile::Builder::new().prefix(".orgql-export.").suffix(".xlsx.tmp").tempfile_in(&folder);
        let saved = match temp {
            Ok(temp) => match self.save_as(temp.path()) {
                Ok(()) => temp.persist(&self.out).map(|_| ()).map_err(|e| self.error(e.error)),
                Err(e) => Err(self.error(e)),
            },
            Err(e) => Err(self.error(e)),
        };
        match saved {
            Ok(()) => Ok(self.rows),
            Err(error) => {
                let rows = self.rows;
                Err(CommitError { error, partial: Partial { path: None, rows } })
            }
        }
    }

    /// Saves what was written as `F.partial` (a workbook of its own), and says how many rows
    /// that holds.
    pub fn keep_partial(mut self) -> Partial {
        crate::platform::ui_thread::check("export file");
        let mut name = self.out.as_os_str().to_owned();
        name.push(".partial");
        let path = PathBuf::from(name);
        match self.save_as(&path) {
            Ok(()) => {
                if let Err(e) = crate::platform::private::make_private(&path) {
                    tracing::warn!("the partial workbook could not be made owner-only: {e}");
                }
                Partial { path: Some(path), rows: self.rows }
            }
            Err(e) => {
                tracing::warn!("the partial workbook could not be saved: {e}");
                Partial { path: None, rows: self.rows }
            }
        }
    }
}
