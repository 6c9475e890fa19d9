//! What the results panel asks of the query tabs (its grid's clicks among them).

use super::chart::ChartAsk;

/// What the results panel asks for.
#[derive(Debug, Clone)]
pub enum ResultsIntent {
    /// The next page.
    NextPage,
    /// The previous page.
    PreviousPage,
    /// Every page, appended as it arrives.
    FetchAll,
    /// Stop what is under way.
    Cancel,
    /// Run the query again on the chosen connection (after it changed).
    RunAgain,
    /// Open the export window.
    Export,
    /// Continue the tab's interrupted export.
    ResumeExport,
    /// Put the editor's cursor at a line and column.
    JumpTo(u32, u32),
    /// Copy text to the clipboard.
    CopyText(String),
    /// What the Chart view asks of the worker.
    Chart(ChartAsk),
}
