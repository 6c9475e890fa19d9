//! Charts of a result's rows (issue 32), without egui and without I/O: the rows of a grid
//! grouped by a column into a small table (value, count or sum or average, share), which the
//! Chart view draws as bars and as text, copies as TSV and saves as SVG ([`svg`]); and the
//! webhook deliveries binned over time ([`timeline`]). Grouping runs in the worker
//! ([`crate::worker::ChartCommand`]), never on the UI thread.

pub mod svg;
pub mod timeline;

use std::collections::HashMap;

use chrono::{DateTime, Datelike, NaiveDate};

use crate::table::Row;

/// What an empty cell is counted as.
pub const EMPTY: &str = "(empty)";
/// How many cells of a column are read to tell whether it holds dates or numbers.
const SAMPLE: usize = 200;

/// What each bar measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Measure {
    /// How many rows (or list elements) have the value.
    #[default]
    Count,
    /// The sum of a numeric column over the rows with the value.
    Sum(usize),
    /// The average of a numeric column over the rows with the value.
    Average(usize),
}

impl Measure {
    /// The column summed or averaged.
    pub fn column(self) -> Option<usize> {
        match self {
            Measure::Count => None,
            Measure::Sum(c) | Measure::Average(c) => Some(c),
        }
    }
}

/// How dates are grouped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Period {
    #[default]
    Day,
    /// ISO weeks (`2026-W05`), Monday first.
    Week,
    Month,
}

impl Period {
    pub const ALL: [Period; 3] = [Period::Day, Period::Week, Period::Month];

    /// The choice in words.
    pub fn label(self) -> &'static str {
        match self {
            Period::Day => "Per day",
            Period::Week => "Per week",
            Period::Month => "Per month",
        }
    }

    fn key(self, date: NaiveDate) -> String {
        match self {
            Period::Day => date.format("%Y-%m-%d").to_string(),
            Period::Week => {
                let week = date.iso_week();
                format!("{}-W{:02}", week.year(), week.week())
            }
            Period::Month => date.format("%Y-%m").to_string(),
        }
    }
}

/// What a chart of rows asks: group by a column, measure each group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ChartSpec {
    /// The column grouped by.
    pub by: usize,
    pub measure: Measure,
    /// How a column of dates is grouped (ignored for other columns).
    pub period: Period,
    /// Whether the column grouped by holds lists (`a; b`: each value counted); the text of a
    /// cell of any other column is one value, `; ` and all.
    pub by_list: bool,
}

/// What a column holds, read from its first cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    Text,
    /// Every non-empty cell read is a number.
    Number,
    /// Every non-empty cell read is a date or a date and time (RFC 3339).
    Date,
}

/// One bar: a value and what was measured of its rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The value (a date's period for a date column, [`EMPTY`] for empty cells).
    pub value: String,
    /// Rows (or list elements) with the value.
    pub count: u64,
    /// The bar's height: the count, or the sum or average of the measured column.
    pub amount: f64,
    /// The amount's part of all amounts (none for averages).
    pub share: Option<f64>,
    /// Indices of the rows with the value (a row with a list is in each of its elements' groups).
    pub rows: Vec<u32>,
}

/// Rows grouped and measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Tally {
    pub spec: ChartSpec,
    /// What the grouped column held.
    pub kind: ColumnKind,
    /// The groups: by count (or amount) falling for text, in time order for dates.
    pub groups: Vec<Group>,
    /// How many rows were read.
    pub rows: usize,
    /// Rows whose measured cell is not a number (left out of sums and averages).
    pub not_numbers: usize,
    /// The column names of the grouping and of the measure, for titles.
    pub by_name: String,
    pub measure_name: Option<String>,
}

impl Tally {
    /// What the chart shows, in words ("Count by status", "Average of percent by status").
    pub fn title(&self) -> String {
        let by = match self.kind {
            ColumnKind::Date => format!("{} ({})", self.by_name, self.spec.period.label().to_lowercase()),
            _ => self.by_name.clone(),
        };
        match (self.spec.measure, &self.measure_name) {
            (Measure::Sum(_), Some(m)) => format!("Sum of {m} by {by}"),
            (Measure::Average(_), Some(m)) => format!("Average of {m} by {by}"),
            _ => format!("Count by {by}"),
        }
    }

    /// The name of the amount's column in the text table and the TSV.
    pub fn amount_name(&self) -> &'static str {
        match self.spec.measure {
            Measure::Count => "count",
            Measure::Sum(_) => "sum",
            Measure::Average(_) => "average",
        }
    }

    /// The table as tab-separated values with a header, for a spreadsheet: value, count (and
    /// the sum or average), share in percent. Tabs and line breaks inside a value become spaces.
    pub fn tsv(&self) -> String {
        let mut out = String::new();
        let by = clean(&self.by_name);
        match self.spec.measure {
            Measure::Count => out.push_str(&format!("{by}\tcount\tshare\n")),
            _ => out.push_str(&format!("{by}\tcount\t{}\tshare\n", self.amount_name())),
        }
        for group in &self.groups {
            let share = group.share.map(percent).unwrap_or_default();
            match self.spec.measure {
                Measure::Count => out.push_str(&format!("{}\t{}\t{share}\n", clean(&group.value), group.count)),
                _ => out.push_str(&format!(
                    "{}\t{}\t{}\t{share}\n",
                    clean(&group.value),
                    group.count,
                    number(group.amount)
                )),
            }
        }
        out
    }
}

fn clean(text: &str) -> String {
    text.replace(['\t', '\n', '\r'], " ")
}

/// A share as a percent with one decimal (`12.5%`).
pub fn percent(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

/// An amount as written in the table: integers without decimals, others with two.
pub fn number(amount: f64) -> String {
    if amount.fract() == 0.0 && amount.abs() < 1e15 { format!("{amount:.0}") } else { format!("{amount:.2}") }
}

/// A date or a date and time (RFC 3339, or `YYYY-MM-DD` with or without a time after it).
pub fn parse_date(cell: &str) -> Option<NaiveDate> {
    let cell = cell.trim();
    if let Ok(at) = DateTime::parse_from_rfc3339(cell) {
        return Some(at.with_timezone(&chrono::Utc).date_naive());
    }
    let day = cell.get(..10)?;
    let rest = &cell[10..];
    if !(rest.is_empty() || rest.starts_with(['T', ' '])) {
        return None;
    }
    NaiveDate::parse_from_str(day, "%Y-%m-%d").ok()
}

fn parse_number(cell: &str) -> Option<f64> {
    cell.trim().parse::<f64>().ok().filter(|n| n.is_finite())
}

/// What `column` holds, from its first [`SAMPLE`] non-empty cells (none: text).
pub fn column_kind(rows: &[Row], column: usize) -> ColumnKind {
    let mut sample = rows.iter().filter_map(|row| row.cell(column)).filter(|c| !c.trim().is_empty()).take(SAMPLE);
    let Some(first) = sample.next() else { return ColumnKind::Text };
    let mut kind = if parse_number(first).is_some() {
        ColumnKind::Number
    } else if parse_date(first).is_some() {
        ColumnKind::Date
    } else {
        return ColumnKind::Text;
    };
    for cell in sample {
        let fits = match kind {
            ColumnKind::Number => parse_number(cell).is_some(),
            _ => parse_date(cell).is_some(),
        };
        if !fits {
            kind = ColumnKind::Text;
            break;
        }
    }
    kind
}

/// A group while rows are read.
struct Accumulated {
    value: String,
    count: u64,
    sum: f64,
    /// Rows whose measured cell is a number.
    numeric: u64,
    rows: Vec<u32>,
}

impl Accumulated {
    /// Adds a group of `value` to `all`; returns its index.
    fn push(all: &mut Vec<Accumulated>, value: &str) -> usize {
        all.push(Accumulated { value: value.to_owned(), count: 0, sum: 0.0, numeric: 0, rows: Vec::new() });
        all.len() - 1
    }

    /// Counts a row (or one of its list's values) with `amount` measured.
    fn add(&mut self, row: u32, amount: Option<f64>) {
        self.count += 1;
        if let Some(n) = amount {
            self.sum += n;
            self.numeric += 1;
        }
        // A list naming a value twice keeps its row once.
        if self.rows.last() != Some(&row) {
            self.rows.push(row);
        }
    }
}

/// Why rows cannot be charted as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TallyError {
    #[error("the column {0} is not in these rows; choose another")]
    NoColumn(usize),
    #[error("{0} holds no numbers, so it cannot be summed or averaged; choose a column of numbers")]
    NotNumeric(String),
}

/// Groups `rows` (whose columns are `columns`) as `spec` asks. A cell of a list column
/// (`spec.by_list`: `a; b`) counts each of its values; a date column is grouped by `spec.period`; empty cells make the
/// [`EMPTY`] group.
pub fn tally(rows: &[Row], columns: &[String], spec: ChartSpec) -> Result<Tally, TallyError> {
    let by_name = columns.get(spec.by).ok_or(TallyError::NoColumn(spec.by))?.clone();
    let measure_name = match spec.measure.column() {
        Some(c) => {
            let name = columns.get(c).ok_or(TallyError::NoColumn(c))?.clone();
            // Cells that are not numbers are left out (and counted); a column without one is refused.
            if !rows.is_empty() && !rows.iter().any(|row| row.cell(c).and_then(parse_number).is_some()) {
                return Err(TallyError::NotNumeric(name));
            }
            Some(name)
        }
        None => None,
    };
    let kind = column_kind(rows, spec.by);
    // The groups so far: value, count, sum, numeric cells, row indices; found by value.
    let mut acc: Vec<Accumulated> = Vec::new();
    let mut by_value: HashMap<&str, usize> = HashMap::new();
    let mut by_period: HashMap<String, usize> = HashMap::new();
    let mut not_numbers = 0;
    for (i, row) in rows.iter().enumerate() {
        let row_index = u32::try_from(i).unwrap_or(u32::MAX);
        let amount = spec.measure.column().map(|c| row.cell(c).and_then(parse_number));
        if amount == Some(None) {
            not_numbers += 1;
        }
        let amount = amount.flatten();
        let cell = row.cell(spec.by).unwrap_or("");
        if kind == ColumnKind::Date {
            let key = parse_date(cell).map_or_else(|| EMPTY.to_owned(), |d| spec.period.key(d));
            let at = *by_period.entry(key).or_insert_with_key(|key| Accumulated::push(&mut acc, key));
            acc[at].add(row_index, amount);
            continue;
        }
        // A list's values one by one; any other cell whole (`splitn(1, …)` is the whole text).
        let pieces = if spec.by_list { usize::MAX } else { 1 };
        let mut values = if cell.is_empty() { None } else { Some(cell.splitn(pieces, crate::table::LIST_SEPARATOR)) };
        let single = values.is_none().then_some(EMPTY);
        for value in single.into_iter().chain(values.iter_mut().flatten()) {
            let value = if value.is_empty() { EMPTY } else { value };
            let at = match by_value.get(value) {
                Some(at) => *at,
                None => {
                    let at = Accumulated::push(&mut acc, value);
                    by_value.insert(value, at);
                    at
                }
            };
            acc[at].add(row_index, amount);
        }
    }
    let mut groups: Vec<Group> = acc
        .into_iter()
        .map(|Accumulated { value, count, sum, numeric, rows }| {
            let amount = match spec.measure {
                Measure::Count => count as f64,
                Measure::Sum(_) => sum,
                Measure::Average(_) if numeric > 0 => sum / numeric as f64,
                Measure::Average(_) => 0.0,
            };
            Group { value, count, amount, share: None, rows }
        })
        .collect();
    if !matches!(spec.measure, Measure::Average(_)) {
        let total: f64 = groups.iter().map(|g| g.amount).sum();
        for group in &mut groups {
            group.share = Some(if total == 0.0 { 0.0 } else { group.amount / total });
        }
    }
    match kind {
        // In time order, undated rows last.
        ColumnKind::Date => groups.sort_by(|a, b| (a.value == EMPTY, &a.value).cmp(&(b.value == EMPTY, &b.value))),
        _ => groups.sort_by(|a, b| b.amount.total_cmp(&a.amount).then_with(|| a.value.cmp(&b.value))),
    }
    Ok(Tally { spec, kind, groups, rows: rows.len(), not_numbers, by_name, measure_name })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(cells: &[&[&str]]) -> Vec<Row> {
        cells.iter().map(|r| Row::new(r.iter().copied())).collect()
    }

    fn columns() -> Vec<String> {
        vec!["status".into(), "percent".into(), "groups".into(), "createdAt".into()]
    }

    fn sample() -> Vec<Row> {
        rows(&[
            &["done", "100", "Sales; HR", "2026-01-05T10:00:00+00:00"],
            &["open", "20", "Sales", "2026-01-06T23:59:59+00:00"],
            &["done", "100", "", "2026-02-01T00:00:00+00:00"],
            &["open", "x", "HR", "2026-01-05T01:00:00Z"],
            &["", "40", "Sales", ""],
        ])
    }

    #[test]
    fn counts_each_value_most_first_with_shares_and_the_rows_of_each() {
        let tally = tally(&sample(), &columns(), ChartSpec::default()).unwrap();
        let got: Vec<(&str, u64, Vec<u32>)> =
            tally.groups.iter().map(|g| (g.value.as_str(), g.count, g.rows.clone())).collect();
        assert_eq!(got, [("done", 2, vec![0, 2]), ("open", 2, vec![1, 3]), (EMPTY, 1, vec![4])]);
        assert_eq!(tally.groups[0].share, Some(0.4));
        assert_eq!(tally.title(), "Count by status");
        assert_eq!(tally.tsv(), "status\tcount\tshare\ndone\t2\t40.0%\nopen\t2\t40.0%\n(empty)\t1\t20.0%\n");
    }

    #[test]
    fn a_list_cell_counts_each_of_its_values() {
        let tally = tally(&sample(), &columns(), ChartSpec { by: 2, by_list: true, ..ChartSpec::default() }).unwrap();
        let got: Vec<(&str, u64)> = tally.groups.iter().map(|g| (g.value.as_str(), g.count)).collect();
        assert_eq!(got, [("Sales", 3), ("HR", 2), (EMPTY, 1)]);
        assert_eq!(tally.groups[0].rows, [0, 1, 4]);
    }

    #[test]
    fn a_text_holding_the_separator_in_a_column_without_lists_is_one_value() {
        let rows = rows(&[&["Smith; John"], &["Smith; John"], &["Lee"]]);
        let tally = tally(&rows, &["name".into()], ChartSpec::default()).unwrap();
        let got: Vec<(&str, u64)> = tally.groups.iter().map(|g| (g.value.as_str(), g.count)).collect();
        assert_eq!(got, [("Smith; John", 2), ("Lee", 1)]);
    }

    #[test]
    fn sums_and_averages_leave_out_cells_that_are_not_numbers() {
        let sum =
            tally(&sample(), &columns(), ChartSpec { by: 0, measure: Measure::Sum(1), ..Default::default() }).unwrap();
        let got: Vec<(&str, f64)> = sum.groups.iter().map(|g| (g.value.as_str(), g.amount)).collect();
        assert_eq!(got, [("done", 200.0), (EMPTY, 40.0), ("open", 20.0)]);
        assert_eq!(sum.not_numbers, 1);
        let average =
            tally(&sample(), &columns(), ChartSpec { by: 0, measure: Measure::Average(1), ..Default::default() })
                .unwrap();
        let got: Vec<(&str, f64)> = average.groups.iter().map(|g| (g.value.as_str(), g.amount)).collect();
        assert_eq!(got, [("done", 100.0), (EMPTY, 40.0), ("open", 20.0)], "open's 'x' is not averaged as 0");
        assert_eq!(average.groups[0].share, None);
        assert_eq!(average.title(), "Average of percent by status");
        assert!(average.tsv().starts_with("status\tcount\taverage\tshare\ndone\t2\t100\t\n"), "{}", average.tsv());
        let refused = tally(&sample(), &columns(), ChartSpec { by: 1, measure: Measure::Sum(0), ..Default::default() });
        assert_eq!(refused.unwrap_err(), TallyError::NotNumeric("status".into()));
    }

    #[test]
    fn dates_are_counted_per_day_week_or_month_in_time_order() {
        let by = |period| {
            let t = tally(&sample(), &columns(), ChartSpec { by: 3, period, ..Default::default() }).unwrap();
            assert_eq!(t.kind, ColumnKind::Date);
            t.groups.iter().map(|g| (g.value.clone(), g.count)).collect::<Vec<_>>()
        };
        let day = by(Period::Day);
        assert_eq!(
            day,
            [("2026-01-05".into(), 2), ("2026-01-06".into(), 1), ("2026-02-01".into(), 1), (EMPTY.into(), 1)]
        );
        assert_eq!(by(Period::Week), [("2026-W02".into(), 3), ("2026-W05".into(), 1), (EMPTY.into(), 1)]);
        assert_eq!(by(Period::Month), [("2026-01".into(), 3), ("2026-02".into(), 1), (EMPTY.into(), 1)]);
    }

    #[test]
    fn a_missing_column_is_said_not_panicked() {
        let refused = tally(&sample(), &columns(), ChartSpec { by: 9, ..Default::default() });
        assert_eq!(refused.unwrap_err().to_string(), "the column 9 is not in these rows; choose another");
        assert!(tally(&[], &columns(), ChartSpec::default()).unwrap().groups.is_empty());
    }

    #[test]
    fn kinds_are_read_from_the_cells() {
        let rows = sample();
        assert_eq!(column_kind(&rows, 0), ColumnKind::Text);
        assert_eq!(column_kind(&rows, 1), ColumnKind::Text, "one 'x' among numbers");
        assert_eq!(column_kind(&rows[..3], 1), ColumnKind::Number);
        assert_eq!(column_kind(&rows, 3), ColumnKind::Date);
        assert_eq!(parse_date("2026-01-05"), NaiveDate::from_ymd_opt(2026, 1, 5));
        assert_eq!(parse_date("2026-01-05x"), None);
        assert_eq!(parse_date("20"), None);
    }
}
