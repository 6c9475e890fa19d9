//! Reading the file of an import, row by row: CSV in whatever encoding and with whatever
//! delimiter a spreadsheet program saved it, or the first (or a named) sheet of an XLSX/ODS
//! workbook. A CSV file is streamed (a few buffers, whatever its size); a workbook's sheet is read
//! whole by calamine, as the cells show them.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek};
use std::path::{Path, PathBuf};

use calamine::{Data, Reader as _};
use encoding_rs::{Decoder, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252};

/// How much of a CSV file is looked at to tell its encoding and delimiter.
const SNIFF: usize = 64 * 1024;

/// Why a file cannot be read, as one sentence that says what to do.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file cannot be opened or read.
    #[error("cannot read {}: {reason}; check the path and its permissions", path.display())]
    Io {
        path: PathBuf,
        /// What the system said.
        reason: String,
    },
    /// The file is not CSV text nor a workbook orgql can read.
    #[error("{} cannot be read as {what} ({reason}); save it again as CSV (UTF-8) or XLSX", path.display())]
    Format {
        path: PathBuf,
        /// What it was read as.
        what: &'static str,
        /// What went wrong.
        reason: String,
    },
    /// The named sheet is not in the workbook.
    #[error("the workbook {} has no sheet named '{sheet}'; its sheets are: {}", path.display(), sheets.join(", "))]
    NoSheet {
        path: PathBuf,
        /// The sheet asked for.
        sheet: String,
        /// The sheets it has.
        sheets: Vec<String>,
    },
    /// Nothing but empty rows.
    #[error("{} has no header row (it is empty); the first row must name the columns", path.display())]
    Empty { path: PathBuf },
}

/// A CSV file's text encoding, as detected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextEncoding {
    /// UTF-8 without a byte order mark.
    Utf8,
    /// UTF-8 starting with a byte order mark (what Excel writes as "CSV UTF-8").
    Utf8Bom,
    /// UTF-16 little-endian with its mark (Excel's "Unicode text").
    Utf16Le,
    /// UTF-16 big-endian with its mark.
    Utf16Be,
    /// Not UTF-8: read as Windows-1252 (what Excel on Windows writes as plain "CSV").
    Windows1252,
}

impl TextEncoding {
    /// Its usual name, for the line that says how the file was read.
    pub fn name(self) -> &'static str {
        match self {
            TextEncoding::Utf8 => "UTF-8",
            TextEncoding::Utf8Bom => "UTF-8 with BOM",
            TextEncoding::Utf16Le => "UTF-16LE",
            TextEncoding::Utf16Be => "UTF-16BE",
            TextEncoding::Windows1252 => "Windows-1252",
        }
    }

    fn decoder(self) -> Decoder {
        match self {
            TextEncoding::Utf8 | TextEncoding::Utf8Bom => UTF_8.new_decoder_with_bom_removal(),
            TextEncoding::Utf16Le => UTF_16LE.new_decoder_with_bom_removal(),
            TextEncoding::Utf16Be => UTF_16BE.new_decoder_with_bom_removal(),
            TextEncoding::Windows1252 => WINDOWS_1252.new_decoder_without_bom_handling(),
        }
    }
}

/// What kind of file was read, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileKind {
    /// CSV text.
    Csv {
        /// Its encoding.
        encoding: TextEncoding,
        /// Its delimiter: `,`, `;` or a tab.
        delimiter: u8,
    },
    /// A sheet of an XLSX/ODS/XLS workbook.
    Workbook {
        /// The sheet read.
        sheet: String,
    },
}

impl FileKind {
    /// `CSV, UTF-8 with BOM, delimited by ';'` or `sheet 'Users'`.
    pub fn describe(&self) -> String {
        match self {
            FileKind::Csv { encoding, delimiter } => {
                let delimiter = match delimiter {
                    b'\t' => "tabs".to_owned(),
                    d => format!("'{}'", *d as char),
                };
                format!("CSV, {}, delimited by {delimiter}", encoding.name())
            }
            FileKind::Workbook { sheet } => format!("sheet '{sheet}'"),
        }
    }
}

/// One data row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Its row number as a spreadsheet shows it (the header is row 1 when it is the first).
    pub row: u64,
    /// Its cells, as many as the header has columns (missing ones empty).
    pub cells: Vec<String>,
    /// A cell that holds a spreadsheet error (`#N/A`), said as a reason the row is invalid.
    pub problem: Option<String>,
}

/// An open file: its header, and its rows one at a time.
pub struct Table {
    /// How it is read.
    pub kind: FileKind,
    /// The header's column names, trimmed.
    pub header: Vec<String>,
    rows: Rows,
    path: PathBuf,
    /// Where CSV records start, to number them as a spreadsheet shows them.
    lines: Option<LineCount>,
}

/// Numbers CSV records as a spreadsheet shows them: each line break between records starts a
/// row (an empty line is a row too), a cell over several lines is one row. The csv crate's own
/// line numbers count a CRLF file one short and lag after an empty line, so the breaks are
/// counted here, on the bytes the parser reads, and matched to each record's byte offset.
struct LineCount {
    breaks: std::rc::Rc<std::cell::RefCell<Breaks>>,
    /// Line breaks inside cells so far (they do not start rows).
    inside_cells: u64,
}

/// The offsets of the line-break bytes read ahead of the parser (bounded by its buffer).
#[derive(Default)]
struct Breaks {
    newlines: std::collections::VecDeque<u64>,
    returns: std::collections::VecDeque<u64>,
    /// Newlines before the last record's start, already dropped from `newlines`.
    passed: u64,
}

impl LineCount {
    /// The row of a record that starts at byte `offset` with `cells`: the line its first
    /// character is on, less the breaks inside earlier cells.
    fn row(&mut self, offset: u64, cells: &csv::StringRecord) -> u64 {
        let mut breaks = self.breaks.borrow_mut();
        let mut start = offset;
        // The parser's record starts after the previous terminator: skip the rest of a CRLF
        // and empty lines to the record's first character.
        loop {
            while breaks.newlines.front().is_some_and(|n| *n < start) {
                breaks.newlines.pop_front();
                breaks.passed += 1;
            }
            while breaks.returns.front().is_some_and(|r| *r < start) {
                breaks.returns.pop_front();
            }
            if breaks.newlines.front() == Some(&start) || breaks.returns.front() == Some(&start) {
                start += 1;
            } else {
                break;
            }
        }
        let row = (breaks.passed + 1).saturating_sub(self.inside_cells);
        self.inside_cells += cells.iter().map(|c| c.matches('\n').count() as u64).sum::<u64>();
        row
    }
}

/// A reader that notes where the line breaks are in what it passes on.
struct Noting<R> {
    inner: R,
    offset: u64,
    breaks: std::rc::Rc<std::cell::RefCell<Breaks>>,
}

impl<R: Read> Read for Noting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut breaks = self.breaks.borrow_mut();
        for (i, byte) in buf[..n].iter().enumerate() {
            match byte {
                b'\n' => breaks.newlines.push_back(self.offset + i as u64),
                b'\r' => breaks.returns.push_back(self.offset + i as u64),
                _ => {}
            }
        }
        self.offset += n as u64;
        Ok(n)
    }
}

enum Rows {
    Csv(csv::StringRecordsIntoIter<Box<dyn Read>>),
    Sheet(std::vec::IntoIter<Record>),
    /// An XLSX sheet read on its own thread.
    Streamed(std::sync::mpsc::Receiver<Result<Record, ReadError>>),
}

/// Opens `path`: a workbook when its name ends in `.xlsx`, `.xlsm`, `.xls` or `.ods`, else CSV.
/// `sheet` names the sheet to read (the first one by default; refused for CSV).
pub fn open(path: &Path, sheet: Option<&str>) -> Result<Table, ReadError> {
    let extension = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).unwrap_or_default();
    if matches!(extension.as_str(), "xlsx" | "xlsm" | "xls" | "xlsb" | "ods") {
        return open_workbook(path, sheet);
    }
    if let Some(sheet) = sheet {
        return Err(ReadError::Format {
            path: path.to_path_buf(),
            what: "a workbook",
            reason: format!("it is CSV, which has no sheet '{sheet}'"),
        });
    }
    open_csv(path)
}

impl Table {
    /// Whether the reader loses the tab characters of text cells (ODS: calamine skips
    /// `<text:tab/>`), so that a value differing only by tabs is not a change the file asks for.
    pub fn drops_tabs(&self) -> bool {
        matches!(self.kind, FileKind::Workbook { .. })
            && self.path.extension().is_some_and(|e| e.eq_ignore_ascii_case("ods"))
    }

    /// The next data row (empty rows are skipped); `None` at the end.
    pub fn next_record(&mut self) -> Option<Result<Record, ReadError>> {
        loop {
            let record = match &mut self.rows {
                Rows::Sheet(rows) => rows.next().map(Ok),
                Rows::Streamed(rows) => rows.recv().ok(),
                Rows::Csv(records) => records.next().map(|r| {
                    let r = r.map_err(|e| ReadError::Format {
                        path: self.path.clone(),
                        what: "CSV",
                        reason: e.to_string(),
                    })?;
                    let offset = r.position().map_or(0, |p| p.byte());
                    let row = self.lines.as_mut().map_or(0, |lines| lines.row(offset, &r));
                    Ok(Record { row, cells: r.iter().map(unquote).collect(), problem: None })
                }),
            };
            let csv = matches!(self.rows, Rows::Csv(_));
            match record {
                Some(Ok(mut record)) => {
                    if record.cells.iter().all(|c| c.trim().is_empty()) {
                        continue;
                    }
                    // A CSV row cut short (or run long) by a line break or a separator in an
                    // unquoted cell: its cells are not under their headers, so it changes nothing.
                    // (A workbook's row simply ends at its last filled cell.)
                    if csv && record.cells.len() != self.header.len() && record.problem.is_none() {
                        record.problem = Some(format!(
                            "row {} has {} cell{} where the header has {}: a line break inside an unquoted cell?",
                            record.row,
                            record.cells.len(),
                            if record.cells.len() == 1 { "" } else { "s" },
                            self.header.len()
                        ));
                    }
                    record.cells.resize(self.header.len().max(record.cells.len()), String::new());
                    return Some(Ok(record));
                }
                other => return other,
            }
        }
    }
}

impl Iterator for Table {
    type Item = Result<Record, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_record()
    }
}

/// A cell as orgql's export wrote it: the leading `'` that keeps a spreadsheet from running
/// `=…`, `+…`, `-…`, `@…` as a formula is taken off again.
fn unquote(cell: &str) -> String {
    match cell.strip_prefix('\'') {
        Some(rest) if rest.starts_with(['=', '+', '-', '@', '\t', '\r']) => rest.to_owned(),
        _ => cell.to_owned(),
    }
}

fn io_error(path: &Path, e: &io::Error) -> ReadError {
    ReadError::Io { path: path.to_path_buf(), reason: e.to_string() }
}

/// The encoding of a file that starts with `head`.
pub fn detect_encoding(head: &[u8], whole: bool) -> TextEncoding {
    if head.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return TextEncoding::Utf8Bom;
    }
    if head.starts_with(&[0xFF, 0xFE]) {
        return TextEncoding::Utf16Le;
    }
    if head.starts_with(&[0xFE, 0xFF]) {
        return TextEncoding::Utf16Be;
    }
    match std::str::from_utf8(head) {
        Ok(_) => TextEncoding::Utf8,
        // A character cut at the end of what was looked at is still UTF-8.
        Err(e) if e.error_len().is_none() && !whole => TextEncoding::Utf8,
        Err(_) => TextEncoding::Windows1252,
    }
}

/// Whether the bytes after `head` (read from `rest` to its end) keep it UTF-8: `head` is valid
/// UTF-8 but for a character cut at its end.
fn rest_is_utf8(head: &[u8], rest: &mut impl Read) -> io::Result<bool> {
    let cut = match std::str::from_utf8(head) {
        Ok(_) => 0,
        Err(e) => head.len() - e.valid_up_to(),
    };
    let mut buffer = vec![0u8; SNIFF + 4];
    buffer[..cut].copy_from_slice(&head[head.len() - cut..]);
    let mut kept = cut;
    loop {
        let n = rest.read(&mut buffer[kept..])?;
        let filled = kept + n;
        match std::str::from_utf8(&buffer[..filled]) {
            Ok(_) if n == 0 => return Ok(true),
            Ok(_) => kept = 0,
            Err(e) if e.error_len().is_some() => return Ok(false),
            // A character cut at the end of this buffer: carried over to the next.
            Err(_) if n == 0 => return Ok(false),
            Err(e) => {
                let valid = e.valid_up_to();
                buffer.copy_within(valid..filled, 0);
                kept = filled - valid;
            }
        }
    }
}

/// The delimiter of CSV text whose first line is in `text`: the most frequent of `,`, `;` and
/// tab outside quotes (a comma when none occurs: one column).
pub fn detect_delimiter(text: &str) -> u8 {
    let mut counts = [0usize; 3];
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '"' => quoted = !quoted,
            '\n' | '\r' if !quoted => break,
            ',' if !quoted => counts[0] += 1,
            ';' if !quoted => counts[1] += 1,
            '\t' if !quoted => counts[2] += 1,
            _ => {}
        }
    }
    let best = (0..3).max_by_key(|&i| (counts[i], std::cmp::Reverse(i))).unwrap_or(0);
    if counts[best] == 0 { b',' } else { [b',', b';', b'\t'][best] }
}

fn open_csv(path: &Path) -> Result<Table, ReadError> {
    let mut file = File::open(path).map_err(|e| io_error(path, &e))?;
    let mut head = Vec::with_capacity(SNIFF);
    (&mut file).take(SNIFF as u64).read_to_end(&mut head).map_err(|e| io_error(path, &e))?;
    let whole = head.len() < SNIFF;
    let mut encoding = detect_encoding(&head, whole);
    // A file whose first accented letter comes after what was looked at: the rest is checked
    // too (at the speed of reading it), so that a Windows-1252 file is never read as UTF-8.
    if encoding == TextEncoding::Utf8 && !whole && !rest_is_utf8(&head, &mut file).map_err(|e| io_error(path, &e))? {
        encoding = TextEncoding::Windows1252;
    }
    let mut decoder = encoding.decoder();
    let mut text = String::with_capacity(head.len() * 2 + 16);
    let _ = decoder.decode_to_string(&head, &mut text, whole);
    let delimiter = detect_delimiter(&text);
    file.rewind().map_err(|e| io_error(path, &e))?;
    let decoded: Box<dyn Read> = match encoding {
        // Plain UTF-8 is read as it is (the csv crate checks it); the rest is decoded on the way.
        TextEncoding::Utf8 => Box::new(BufReader::with_capacity(SNIFF, file)),
        other => Box::new(Decoding::new(BufReader::with_capacity(SNIFF, file), other.decoder())),
    };
    let breaks = std::rc::Rc::new(std::cell::RefCell::new(Breaks::default()));
    let input: Box<dyn Read> = Box::new(Noting { inner: decoded, offset: 0, breaks: breaks.clone() });
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .has_headers(false)
        .buffer_capacity(SNIFF)
        .from_reader(input);
    let mut header = csv::StringRecord::new();
    let format_error =
        |e: csv::Error| ReadError::Format { path: path.to_path_buf(), what: "CSV", reason: e.to_string() };
    loop {
        if !reader.read_record(&mut header).map_err(format_error)? {
            return Err(ReadError::Empty { path: path.to_path_buf() });
        }
        if header.iter().any(|c| !c.trim().is_empty()) {
            break;
        }
    }
    let mut lines = LineCount { breaks, inside_cells: 0 };
    lines.row(header.position().map_or(0, |p| p.byte()), &header);
    let header = header.iter().map(|c| c.trim().to_owned()).collect();
    Ok(Table {
        kind: FileKind::Csv { encoding, delimiter },
        header,
        rows: Rows::Csv(reader.into_records()),
        path: path.to_path_buf(),
        lines: Some(lines),
    })
}

/// A reader that decodes another reader's bytes into UTF-8 as it goes (encoding_rs), with a
/// bounded buffer each side.
struct Decoding<R> {
    inner: R,
    decoder: Decoder,
    input: Vec<u8>,
    start: usize,
    end: usize,
    output: Vec<u8>,
    taken: usize,
    filled: usize,
    done: bool,
}

impl<R: Read> Decoding<R> {
    fn new(inner: R, decoder: Decoder) -> Self {
        Decoding {
            inner,
            decoder,
            input: vec![0; 16 * 1024],
            start: 0,
            end: 0,
            output: vec![0; 48 * 1024 + 16],
            taken: 0,
            filled: 0,
            done: false,
        }
    }
}

impl<R: Read> Read for Decoding<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.taken == self.filled {
            if self.done && self.start == self.end {
                return Ok(0);
            }
            if self.start == self.end {
                let n = self.inner.read(&mut self.input)?;
                self.start = 0;
                self.end = n;
                self.done = n == 0;
            }
            let (_, read, written, _) =
                self.decoder.decode_to_utf8(&self.input[self.start..self.end], &mut self.output, self.done);
            self.start += read;
            self.taken = 0;
            self.filled = written;
        }
        let n = out.len().min(self.filled - self.taken);
        out[..n].copy_from_slice(&self.output[self.taken..self.taken + n]);
        self.taken += n;
        Ok(n)
    }
}

fn open_workbook(path: &Path, sheet: Option<&str>) -> Result<Table, ReadError> {
    let format_error = |reason: String| ReadError::Format { path: path.to_path_buf(), what: "a workbook", reason };
    let workbook = calamine::open_workbook_auto(path).map_err(|e| match e {
        calamine::Error::Io(e) => io_error(path, &e),
        e => format_error(e.to_string()),
    })?;
    let names = workbook.sheet_names();
    let name = match sheet {
        Some(wanted) => names.iter().find(|n| n.as_str() == wanted).cloned().ok_or_else(|| ReadError::NoSheet {
            path: path.to_path_buf(),
            sheet: wanted.to_owned(),
            sheets: names.clone(),
        })?,
        None => names.first().cloned().ok_or_else(|| ReadError::Empty { path: path.to_path_buf() })?,
    };
    let mut workbook = match workbook {
        calamine::Sheets::Xlsx(xlsx) => return stream_xlsx(path, xlsx, name),
        other => other,
    };
    let range = workbook.worksheet_range(&name).map_err(|e| format_error(e.to_string()))?;
    let first_row = u64::from(range.start().map_or(0, |(row, _)| row)) + 1;
    let mut rows = range.rows().enumerate().map(|(i, cells)| {
        let mut problem = None;
        let cells = cells
            .iter()
            .enumerate()
            .map(|(column, cell)| {
                let (text, error) = cell_text(cell);
                if let (Some(error), None) = (error, &problem) {
                    problem = Some(format!("column {} holds the spreadsheet error {error}", column + 1));
                }
                text
            })
            .collect::<Vec<_>>();
        Record { row: first_row + i as u64, cells, problem }
    });
    let header = loop {
        match rows.next() {
            None => return Err(ReadError::Empty { path: path.to_path_buf() }),
            Some(r) if r.cells.iter().all(|c| c.trim().is_empty()) => continue,
            Some(r) => break r.cells.iter().map(|c| c.trim().to_owned()).collect(),
        }
    };
    let rest: Vec<Record> = rows.collect();
    drop(range);
    Ok(Table {
        kind: FileKind::Workbook { sheet: name },
        header,
        rows: Rows::Sheet(rest.into_iter()),
        path: path.to_path_buf(),
        lines: None,
    })
}

/// Reads an XLSX sheet cell by cell on a thread of its own, a row at a time through a short
/// queue, so that a big sheet is never held whole (only its shared strings are, as calamine
/// keeps them); the thread stops when the table is dropped.
fn stream_xlsx(path: &Path, mut xlsx: calamine::Xlsx<BufReader<File>>, name: String) -> Result<Table, ReadError> {
    let (rows, received) = std::sync::mpsc::sync_channel::<Result<Record, ReadError>>(256);
    let shown = path.to_path_buf();
    let sheet = name.clone();
    let read = move || {
        let fail = |reason: String| Err(ReadError::Format { path: shown.clone(), what: "a workbook", reason });
        let mut cells = match xlsx.worksheet_cells_reader(&sheet) {
            Ok(cells) => cells,
            Err(e) => return drop(rows.send(fail(e.to_string()))),
        };
        let first_column = cells.dimensions().start.1;
        let mut current: Option<Record> = None;
        loop {
            let cell = match cells.next_cell() {
                Ok(Some(cell)) => cell,
                Ok(None) => break,
                Err(e) => return drop(rows.send(fail(e.to_string()))),
            };
            let (row, column) = cell.get_position();
            let row = u64::from(row) + 1;
            if let Some(done) = current.take_if(|r| r.row != row)
                && rows.send(Ok(done)).is_err()
            {
                return;
            }
            let record = current.get_or_insert_with(|| Record { row, cells: Vec::new(), problem: None });
            let index = column.saturating_sub(first_column) as usize;
            let (text, error) = cell_text(&Data::from(cell.get_value().clone()));
            if let (Some(error), None) = (error, &record.problem) {
                record.problem = Some(format!("column {} holds the spreadsheet error {error}", index + 1));
            }
            if record.cells.len() <= index {
                record.cells.resize(index + 1, String::new());
            }
            record.cells[index] = text;
        }
        if let Some(last) = current {
            let _ = rows.send(Ok(last));
        }
    };
    std::thread::Builder::new().name("orgql-xlsx-reader".into()).spawn(read).map_err(|e| io_error(path, &e))?;
    let header = loop {
        match received.recv() {
            Err(_) => return Err(ReadError::Empty { path: path.to_path_buf() }),
            Ok(Err(e)) => return Err(e),
            Ok(Ok(r)) if r.cells.iter().all(|c| c.trim().is_empty()) => continue,
            Ok(Ok(r)) => break r.cells.iter().map(|c| c.trim().to_owned()).collect(),
        }
    };
    Ok(Table {
        kind: FileKind::Workbook { sheet: name },
        header,
        rows: Rows::Streamed(received),
        path: path.to_path_buf(),
        lines: None,
    })
}

/// A cell as the spreadsheet shows it: whole numbers without `.0`, dates as `2024-03-01` (with
/// the time when it has one), text as it is (`00123` stays); an error cell is empty, with its
/// error.
pub fn cell_text(cell: &Data) -> (String, Option<String>) {
    let text = match cell {
        Data::Empty => String::new(),
        Data::String(s) | Data::DateTimeIso(s) | Data::DurationIso(s) => s.clone(),
        Data::Int(i) => i.to_string(),
        Data::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", *f as i64),
        Data::Float(f) => f.to_string(),
        Data::Bool(b) => b.to_string(),
        Data::DateTime(dt) if dt.is_datetime() => {
            let (y, m, d, hh, mm, ss, _) = dt.to_ymd_hms_milli();
            if (hh, mm, ss) == (0, 0, 0) {
                format!("{y:04}-{m:02}-{d:02}")
            } else {
                format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}")
            }
        }
        Data::DateTime(dt) => dt.as_f64().to_string(),
        Data::Error(e) => return (String::new(), Some(format!("#{e:?}"))),
    };
    (text, None)
}

#[cfg(test)]
mod tests;
