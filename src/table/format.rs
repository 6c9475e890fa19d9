//! What kind of file an export writes: chosen by the file's extension, or named (the app's
//! Format choice, `orgql export --format`).

use std::path::Path;

use serde::{Deserialize, Serialize};

/// The kind of file an export writes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Comma-separated values (RFC 4180, CRLF, UTF-8).
    #[default]
    Csv,
    /// An Excel workbook (Office Open XML).
    Xlsx,
}

impl Format {
    /// The format a file's name says: `….xlsx` (any case) is a workbook, anything else CSV.
    pub fn of(path: &Path) -> Format {
        match path.extension() {
            Some(extension) if extension.eq_ignore_ascii_case("xlsx") => Format::Xlsx,
            _ => Format::Csv,
        }
    }

    /// The file name extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Xlsx => "xlsx",
        }
    }

    /// What the user reads: "CSV", "Excel workbook".
    pub fn label(self) -> &'static str {
        match self {
            Format::Csv => "CSV",
            Format::Xlsx => "Excel workbook",
        }
    }

    /// The format the name of `path` says, when it says one (`.csv` or `.xlsx`, any case).
    pub fn named_by(path: &Path) -> Option<Format> {
        let extension = path.extension()?;
        [Format::Csv, Format::Xlsx].into_iter().find(|format| extension.eq_ignore_ascii_case(format.extension()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_says_the_format_in_any_case() {
        assert_eq!(Format::of(Path::new("users.XLSX")), Format::Xlsx);
        assert_eq!(Format::of(Path::new("users.csv")), Format::Csv);
        assert_eq!(Format::of(Path::new("/dev/stdout")), Format::Csv);
        assert_eq!(Format::named_by(Path::new("a.Csv")), Some(Format::Csv));
        assert_eq!(Format::named_by(Path::new("a.txt")), None);
    }
}
