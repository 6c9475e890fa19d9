//! Streaming connection nodes into a CSV file: RFC 4180 quoting, CRLF records, an optional
//! UTF-8 BOM, and cells guarded against spreadsheet formula injection.

use std::borrow::Cow;
use std::io::{self, Write};

use serde_json::Value;

use super::cells::cells;
use crate::query::{Column, ConnectionSite};

/// The UTF-8 byte order mark, which tells spreadsheet programs the file is UTF-8.
const BOM: &[u8] = "\u{feff}".as_bytes();

/// A CSV writer for a file people open (an import's plan, results and undo file) in the form of
/// the export with `--bom`: the UTF-8 BOM first, so that Excel reads "Seán" as such, and CRLF
/// records. `flexible`: rows may have different lengths.
///
/// # Errors
///
/// When the BOM cannot be written.
pub fn for_people<W: Write>(mut writer: W, flexible: bool) -> io::Result<::csv::Writer<W>> {
    writer.write_all(BOM)?;
    Ok(::csv::WriterBuilder::new().terminator(::csv::Terminator::CRLF).flexible(flexible).from_writer(writer))
}

/// How the CSV is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CsvOptions {
    /// Start the file with a UTF-8 byte order mark (`--bom`).
    pub bom: bool,
    /// Write cells exactly as they are, without the `'` that keeps spreadsheets from running a
    /// cell as a formula (`--raw`).
    pub raw: bool,
}

/// Writing the CSV failed.
#[derive(Debug, thiserror::Error)]
#[error("could not write the CSV ({0}); check that the disk has space and the file is writable")]
pub struct CsvError(#[from] io::Error);

impl From<::csv::Error> for CsvError {
    fn from(error: ::csv::Error) -> Self {
        Self(error.into())
    }
}

/// Writes one CSV row per connection node, as the nodes arrive; nothing is kept beyond the
/// csv crate's write buffer.
pub struct CsvWriter<W: Write> {
    writer: ::csv::Writer<W>,
    columns: Vec<Column>,
    raw: bool,
    rows: u64,
}

impl<W: Write> std::fmt::Debug for CsvWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CsvWriter")
            .field("columns", &self.columns)
            .field("raw", &self.raw)
            .field("rows", &self.rows)
            .finish()
    }
}

impl<W: Write> CsvWriter<W> {
    /// Starts a CSV on `writer`: the BOM when asked, then the header row of column names.
    ///
    /// # Errors
    ///
    /// [`CsvError`] when the underlying writer fails.
    pub fn new(mut writer: W, columns: &[Column], options: CsvOptions) -> Result<Self, CsvError> {
        if options.bom {
            writer.write_all(BOM)?;
        }
        let writer = ::csv::WriterBuilder::new().terminator(::csv::Terminator::CRLF).from_writer(writer);
        let mut this = Self { writer, columns: columns.to_vec(), raw: options.raw, rows: 0 };
        let header: Vec<String> = columns.iter().map(|column| column.name.clone()).collect();
        this.write_record(header)?;
        Ok(this)
    }

    /// Goes on with a CSV whose first `rows` rows (and header, and BOM) `writer` already holds:
    /// what a resumed export appends to.
    ///
    /// # Errors
    ///
    /// None today; the same signature as [`CsvWriter::new`].
    pub fn continuing(writer: W, columns: &[Column], options: CsvOptions, rows: u64) -> Result<Self, CsvError> {
        let writer = ::csv::WriterBuilder::new().terminator(::csv::Terminator::CRLF).from_writer(writer);
        Ok(Self { writer, columns: columns.to_vec(), raw: options.raw, rows })
    }

    /// Writes the row of one node.
    ///
    /// # Errors
    ///
    /// [`CsvError`] when the underlying writer fails.
    pub fn write_node(&mut self, node: &Value) -> Result<(), CsvError> {
        let row = cells(node, &self.columns);
        self.write_record(row)?;
        self.rows += 1;
        Ok(())
    }

    /// Writes one row of cells already flattened (by [`super::cells`]), e.g. the rows a grid shows.
    ///
    /// # Errors
    ///
    /// [`CsvError`] when the underlying writer fails.
    pub fn write_cells<'c>(&mut self, row: impl IntoIterator<Item = &'c str>) -> Result<(), CsvError> {
        let raw = self.raw;
        // The same record as `write_record` writes, without a `String` a cell.
        self.writer.write_record(
            row.into_iter().map(|cell| Field(if raw { Cow::Borrowed(cell) } else { guard_formula(cell) })),
        )?;
        self.rows += 1;
        Ok(())
    }

    /// Writes a row for every node of one page (`data` is the response's `data`; `site` says
    /// where the nodes are) and returns how many it wrote.
    ///
    /// # Errors
    ///
    /// [`CsvError`] when the underlying writer fails.
    pub fn write_page(&mut self, data: &Value, site: &ConnectionSite) -> Result<usize, CsvError> {
        let mut written = 0;
        for node in site.nodes(data) {
            self.write_node(node)?;
            written += 1;
        }
        Ok(written)
    }

    /// How many rows (not counting the header) have been written.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Writes what is buffered through to the underlying writer, and flushes it.
    ///
    /// # Errors
    ///
    /// [`CsvError`] when the underlying writer fails.
    pub fn flush(&mut self) -> Result<(), CsvError> {
        self.writer.flush()?;
        Ok(())
    }

    /// Flushes what is buffered and hands back the underlying writer.
    ///
    /// # Errors
    ///
    /// [`CsvError`] when the underlying writer fails.
    pub fn finish(self) -> Result<W, CsvError> {
        self.writer.into_inner().map_err(|error| CsvError(error.into_error()))
    }

    fn write_record(&mut self, mut record: Vec<String>) -> Result<(), CsvError> {
        if !self.raw {
            for cell in &mut record {
                if let Cow::Owned(guarded) = guard_formula(cell) {
                    *cell = guarded;
                }
            }
        }
        self.writer.write_record(&record)?;
        Ok(())
    }
}

/// A cell as the csv crate takes it.
struct Field<'a>(Cow<'a, str>);

impl AsRef<[u8]> for Field<'_> {
    fn as_ref(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

/// `cell` with a leading `'` when it begins with `=`, `+`, `-`, `@`, a tab or a carriage return,
/// so that a spreadsheet shows it as text instead of running it as a formula (OWASP, CSV injection).
pub fn guard_formula(cell: &str) -> Cow<'_, str> {
    if cell.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        Cow::Owned(format!("'{cell}"))
    } else {
        Cow::Borrowed(cell)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::locate;
    use serde_json::json;

    #[test]
    fn files_for_people_start_with_a_bom_and_end_lines_with_crlf() {
        let mut csv = for_people(Vec::new(), true).unwrap();
        csv.write_record(["ref", "name"]).unwrap();
        csv.write_record(["u1", "Seán", "extra"]).unwrap();
        let bytes = csv.into_inner().unwrap();
        assert_eq!(bytes, "\u{feff}ref,name\r\nu1,Seán,extra\r\n".as_bytes());
    }

    fn columns(names: &[&str]) -> Vec<Column> {
        names.iter().map(|name| Column { name: name.to_string(), keys: vec![name.to_string()] }).collect()
    }

    fn write(columns: &[Column], nodes: &[Value], options: CsvOptions) -> Vec<u8> {
        let result = CsvWriter::new(Vec::new(), columns, options).and_then(|mut writer| {
            for node in nodes {
                writer.write_node(node)?;
            }
            assert_eq!(writer.rows(), nodes.len() as u64);
            writer.finish()
        });
        match result {
            Ok(bytes) => bytes,
            Err(error) => panic!("{error}"),
        }
    }

    fn read(bytes: &[u8]) -> Vec<Vec<String>> {
        let mut reader = ::csv::ReaderBuilder::new().has_headers(false).from_reader(bytes);
        reader
            .records()
            .map(|record| match record {
                Ok(record) => record.iter().map(str::to_string).collect(),
                Err(error) => panic!("{error}"),
            })
            .collect()
    }

    #[test]
    fn header_in_column_order_then_rows_with_crlf() {
        let cols = columns(&["ref", "name", "isActive"]);
        let bytes = write(&cols, &[json!({"name": "Ann", "ref": "u1", "isActive": true})], CsvOptions::default());
        assert_eq!(String::from_utf8_lossy(&bytes), "ref,name,isActive\r\nu1,Ann,true\r\n");
        assert_eq!(read(&bytes), [["ref", "name", "isActive"], ["u1", "Ann", "true"]]);
    }

    #[test]
    fn quotes_commas_quotes_newlines_and_keeps_unicode() {
        let names = ["Smith, John", "The \"Boss\"", "line one\nline two", "Zoë 🎉", "山田太郎", "Ωμέγα", "عربي"];
        let nodes: Vec<Value> = names.iter().map(|name| json!({"name": name})).collect();
        let bytes = write(&columns(&["name"]), &nodes, CsvOptions::default());
        let text = String::from_utf8_lossy(&bytes);
        assert!(text.contains("\"Smith, John\"\r\n"), "{text}");
        assert!(text.contains("\"The \"\"Boss\"\"\"\r\n"), "{text}");
        assert!(text.contains("\"line one\nline two\"\r\n"), "{text}");
        let rows = read(&bytes);
        assert_eq!(rows.len(), names.len() + 1);
        for (row, name) in rows[1..].iter().zip(names) {
            assert_eq!(row, &[name.to_string()]);
        }
    }

    #[test]
    fn guards_each_formula_prefix_unless_raw() {
        let values = ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx", "a=b", "'quoted"];
        let nodes: Vec<Value> = values.iter().map(|value| json!({"v": value})).collect();
        let guarded = read(&write(&columns(&["v"]), &nodes, CsvOptions::default()));
        let want = ["'=1+1", "'+1", "'-1", "'@SUM(A1)", "'\tx", "'\rx", "a=b", "'quoted"];
        for (row, expected) in guarded[1..].iter().zip(want) {
            assert_eq!(row, &[expected.to_string()]);
        }
        let raw = read(&write(&columns(&["v"]), &nodes, CsvOptions { raw: true, bom: false }));
        for (row, expected) in raw[1..].iter().zip(values) {
            assert_eq!(row, &[expected.to_string()]);
        }
    }

    #[test]
    fn guards_negative_numbers_too_as_the_contract_says() {
        let rows = read(&write(&columns(&["n"]), &[json!({"n": -3})], CsvOptions::default()));
        assert_eq!(rows[1], ["'-3"]);
    }

    #[test]
    fn bom_only_when_asked() {
        let cols = columns(&["name"]);
        let with = write(&cols, &[json!({"name": "x"})], CsvOptions { bom: true, raw: false });
        assert!(with.starts_with(BOM));
        assert_eq!(read(&with[BOM.len()..]), [["name"], ["x"]]);
        let without = write(&cols, &[json!({"name": "x"})], CsvOptions::default());
        assert!(without.starts_with(b"name"));
    }

    #[test]
    fn writes_every_node_of_a_page() {
        let query = "{ paginatedUsers { edges { node { ref groups { name } } } } }";
        let site = match locate(query, None) {
            Ok(site) => site,
            Err(error) => panic!("{error}"),
        };
        let data = json!({"paginatedUsers": {"edges": [
            {"node": {"ref": "u1", "groups": [{"name": "A"}, {"name": "B"}]}},
            {"node": {"ref": "u2", "groups": []}}
        ]}});
        let result = CsvWriter::new(Vec::new(), &site.columns, CsvOptions::default()).and_then(|mut writer| {
            let written = writer.write_page(&data, &site)?;
            assert_eq!((written, writer.rows()), (2, 2));
            writer.finish()
        });
        let bytes = match result {
            Ok(bytes) => bytes,
            Err(error) => panic!("{error}"),
        };
        assert_eq!(read(&bytes), [["ref", "groups.name"], ["u1", "A; B"], ["u2", ""]]);
    }
}
