//! The query tabs, with one owner: open, close, reopen, reorder and rename them, and route each
//! job's events to the tab that started it (which applies them itself).

use crate::ui::queries::tab::Tab;
use crate::worker::{JobId, WalkId};

/// Closed tabs kept for "Reopen closed tab".
const CLOSED_KEPT: usize = 20;

/// The tabs, the active one, and the recently closed ones.
#[derive(Debug, Clone)]
pub struct Tabs {
    list: Vec<Tab>,
    active: usize,
    closed: Vec<Tab>,
    next_id: u64,
    /// Grows with every change of which tabs there are, their order, titles and the active one
    /// (what a tab holds counts in the tab: [`Tab::touch`]).
    generation: u64,
}

impl Tabs {
    /// Tabs holding `tabs` (at least one is made when empty), `active` clamped.
    pub fn new(tabs: Vec<Tab>, active: usize) -> Self {
        let mut list = tabs;
        if list.is_empty() {
            list.push(Tab::new(1, "Users", crate::ui::queries::tab::SAMPLE_QUERY));
        }
        let next_id = list.iter().map(|tab| tab.id).max().unwrap_or(0) + 1;
        let active = active.min(list.len() - 1);
        Tabs { list, active, closed: Vec::new(), next_id, generation: 0 }
    }

    /// A number that grows whenever anything kept of the tabs changes (see [`Tab::touch`]).
    pub fn generation(&self) -> u64 {
        self.generation + self.list.iter().map(|tab| tab.edits()).sum::<u64>()
    }

    /// The tabs, to change (their ids and order stay).
    pub fn list_mut(&mut self) -> &mut [Tab] {
        &mut self.list
    }

    /// The tabs, in order.
    pub fn list(&self) -> &[Tab] {
        &self.list
    }

    /// How many tabs are open.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether no tab is open (never: closing the last tab opens a new one).
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The index of the active tab.
    pub fn active_index(&self) -> usize {
        self.active
    }

    /// The active tab.
    pub fn active(&self) -> &Tab {
        &self.list[self.active]
    }

    /// The active tab, to change.
    pub fn active_mut(&mut self) -> &mut Tab {
        &mut self.list[self.active]
    }

    /// Makes tab `index` the active one.
    pub fn select(&mut self, index: usize) {
        self.generation += 1;
        if index < self.list.len() {
            self.active = index;
        }
    }

    /// Opens a tab after the last one and makes it active.
    pub fn open(&mut self, title: Option<String>, query: String) -> &mut Tab {
        self.generation += 1;
        let id = self.next_id;
        self.next_id += 1;
        let title = title.unwrap_or_else(|| format!("Query {id}"));
        self.list.push(Tab::new(id, title, query));
        self.active = self.list.len() - 1;
        &mut self.list[self.active]
    }

    /// Closes tab `index`; returns the jobs it had under way (to cancel) and its walk (to end).
    /// The active tab stays active when another closes; closing the active tab activates its
    /// right neighbour (its left one when it was the last). Closing the only tab opens an empty one.
    pub fn close(&mut self, index: usize) -> (Vec<JobId>, Option<WalkId>) {
        if index >= self.list.len() {
            return (Vec::new(), None);
        }
        let mut tab = self.list.remove(index);
        // The closed tab's edits stay counted: the number never goes back.
        self.generation += 1 + tab.edits();
        // Its walk ends too: a reopened tab shows its rows, and runs again to page.
        let jobs = (tab.jobs(), tab.walk.take());
        tab.forget_jobs();
        self.closed.push(tab);
        if self.closed.len() > CLOSED_KEPT {
            self.closed.remove(0);
        }
        if self.list.is_empty() {
            self.open(None, String::new());
            return jobs;
        }
        if index < self.active || self.active >= self.list.len() {
            self.active = self.active.saturating_sub(1);
        }
        jobs
    }

    /// Reopens the tab closed last, after the others, as it was (without its jobs); false when
    /// none was closed.
    pub fn reopen(&mut self) -> bool {
        self.generation += 1;
        let Some(mut tab) = self.closed.pop() else { return false };
        tab.id = self.next_id;
        self.next_id += 1;
        self.list.push(tab);
        self.active = self.list.len() - 1;
        true
    }

    /// Whether a closed tab can be reopened.
    pub fn can_reopen(&self) -> bool {
        !self.closed.is_empty()
    }

    /// Moves tab `from` to position `to`; the active tab stays the same tab.
    pub fn move_tab(&mut self, from: usize, to: usize) {
        self.generation += 1;
        if from >= self.list.len() || to >= self.list.len() || from == to {
            return;
        }
        let active_id = self.list[self.active].id;
        let tab = self.list.remove(from);
        self.list.insert(to, tab);
        self.active = self.list.iter().position(|tab| tab.id == active_id).unwrap_or(0);
    }

    /// Renames tab `index` (a blank name is refused).
    pub fn rename(&mut self, index: usize, title: &str) {
        self.generation += 1;
        let title = title.trim();
        if let Some(tab) = self.list.get_mut(index)
            && !title.is_empty()
        {
            tab.title = title.to_owned();
        }
    }

    /// The tab that started `job`, if it is still open.
    /// (An export's job too after its Cancel: its last word, what was kept and whether it can be
    /// resumed, still reaches its tab.)
    pub fn of_job(&mut self, job: JobId) -> Option<&mut Tab> {
        self.list
            .iter_mut()
            .find(|tab| tab.jobs().contains(&job) || tab.export.as_ref().is_some_and(|export| export.job == job))
    }

    /// Every tab, to change (for benchmarks and tests).
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Tab> {
        self.list.iter_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tabs(n: usize) -> Tabs {
        let list = (1..=n as u64).map(|id| Tab::new(id, format!("T{id}"), String::new())).collect();
        Tabs::new(list, 0)
    }

    fn titles(tabs: &Tabs) -> Vec<&str> {
        tabs.list().iter().map(|tab| tab.title.as_str()).collect()
    }

    #[test]
    fn closing_a_tab_left_of_the_active_one_keeps_the_active_one() {
        let mut t = tabs(4);
        t.select(2);
        t.close(0);
        assert_eq!(t.active().title, "T3");
        t.close(t.active_index());
        assert_eq!(t.active().title, "T4", "the right neighbour");
        t.close(t.active_index());
        assert_eq!(t.active().title, "T2", "the left one when it was the last");
        t.close(0);
        assert_eq!(titles(&t), ["Query 5"], "closing the only tab opens an empty one");
    }

    #[test]
    fn reopen_brings_back_the_last_closed_tab_with_its_text() {
        let mut t = tabs(3);
        t.list[1].query = "{ paginatedUsers { count } }".into();
        t.close(1);
        assert!(t.reopen());
        assert_eq!(t.active().title, "T2");
        assert_eq!(t.active().query, "{ paginatedUsers { count } }");
        assert!(!t.reopen());
    }

    #[test]
    fn moving_keeps_the_active_tab_and_rename_refuses_blanks() {
        let mut t = tabs(3);
        t.select(0);
        t.move_tab(0, 2);
        assert_eq!(titles(&t), ["T2", "T3", "T1"]);
        assert_eq!(t.active().title, "T1");
        t.rename(0, "  Users  ");
        t.rename(1, "   ");
        assert_eq!(titles(&t), ["Users", "T3", "T1"]);
    }

    #[test]
    fn closing_returns_the_jobs_under_way() {
        let mut t = tabs(2);
        let job = crate::worker::JobIds::default().allocate();
        t.list[1].started(job, crate::worker::Connection::Sandbox);
        assert!(t.of_job(job).is_some());
        assert_eq!(t.close(1), (vec![job], None));
        assert!(t.of_job(job).is_none());
        t.reopen();
        assert!(t.active().running().is_none(), "a reopened tab has no job");
    }
}
