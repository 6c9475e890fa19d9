//! STUB (replaced by the schedule-formats branch).
use serde::{Deserialize, Serialize};
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum When {
    Hourly,
    Daily(u8),
}
#[derive(Debug)]
pub struct WhenError;
impl std::fmt::Display for WhenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bad")
    }
}
impl std::str::FromStr for When {
    type Err = WhenError;
    fn from_str(s: &str) -> Result<When, WhenError> {
        if s == "hourly" {
            Ok(When::Hourly)
        } else if s.contains(':') {
            Ok(When::Daily(7))
        } else {
            Err(WhenError)
        }
    }
}
impl std::fmt::Display for When {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "hourly")
    }
}
impl When {
    pub fn next_after<Tz: chrono::TimeZone>(&self, after: &chrono::DateTime<Tz>) -> chrono::DateTime<Tz> {
        after.clone()
    }
    pub fn describe(&self) -> String {
        String::new()
    }
}
