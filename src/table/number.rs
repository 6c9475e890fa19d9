//! Counts as a person reads them: `1200` → `1,200`. One formatter for every count of rows shown
//! (the results grid and the status bar, an import's plan and outcome), here beside the rows it
//! counts so that the window (`crate::ui`) and the domain (`crate::import`) reach the same one.

/// `1200` → `1,200`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::thousands;

    #[test]
    fn groups_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1234), "1,234");
        assert_eq!(thousands(100_000), "100,000");
    }
}
