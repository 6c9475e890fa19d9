//! Numbers in words a person reads: `1,234,567`, `4 min 5 s`, `12.3 KB`.

use std::time::Duration;

/// `1234567` as `1,234,567`: the one formatter, shared with the command line's import plan.
pub use crate::table::thousands;

/// `23 h 12 min`, `4 min 5 s`, `12 s`.
pub fn lifetime(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, (s % 3600) / 60),
    }
}

/// `12.3 KB`.
pub fn size(bytes: usize) -> String {
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..1_048_576 => format!("{:.1} KB", bytes as f64 / 1024.0),
        _ => format!("{:.1} MB", bytes as f64 / 1_048_576.0),
    }
}
