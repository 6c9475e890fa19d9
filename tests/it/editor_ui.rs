//! The query editor's keys, the choice of the operation Run runs, the explorer's operations and
//! the result's views (issue 13, parts 1, 2 and 6), driven as a person would: keys one at a
//! time into the real app on the in-process sandbox.

use egui::accesskit::Role;
use egui::{Key, Modifiers, OutputCommand};
use egui_kittest::kittest::Queryable;
use orgql::ui::View;

use crate::harness::Session;

/// The app with its schema loaded and an empty, focused editor.
fn empty_editor() -> Session {
    let mut s = Session::start();
    s.harness.get_by_label("Query").click();
    s.harness.step();
    s.harness.key_press_modifiers(Modifiers::COMMAND, Key::A);
    s.harness.key_press(Key::Backspace);
    s.harness.step();
    assert_eq!(query(&s), "");
    s
}

fn query(s: &Session) -> String {
    s.app().active_tab().query.clone()
}

/// Types `text` a character at a time (a key a frame, as a person types).
fn type_keys(s: &mut Session, text: &str) {
    for c in text.chars() {
        s.harness.get_by_label("Query").type_text(&c.to_string());
        s.harness.step();
    }
    s.harness.step();
}

fn press(s: &mut Session, key: Key) {
    s.harness.key_press(key);
    s.harness.step();
    s.harness.step();
}

fn chord(s: &mut Session, modifiers: Modifiers, key: Key) {
    s.harness.key_press_modifiers(modifiers, key);
    s.harness.step();
    s.harness.step();
}

fn completions(s: &Session) -> Vec<String> {
    s.app().editor().completions().into_iter().map(str::to_owned).collect()
}

#[test]
fn completion_opens_on_names_only_and_enter_accepts_only_a_suggestion_typed_towards_or_chosen() {
    let mut s = empty_editor();
    type_keys(&mut s, "{ paginatedUsers { edges { node { na");
    s.wait_for("name offered", |h| h.state().editor().completions().contains(&"name"));
    // Typed towards: Enter accepts.
    press(&mut s, Key::Enter);
    assert_eq!(query(&s), "{ paginatedUsers { edges { node { name}}}}");
    // `}` steps over the closer and offers nothing; Enter is a new line, not a name.
    type_keys(&mut s, "}");
    assert!(completions(&s).is_empty(), "nothing offered after `}}`: {:?}", completions(&s));
    press(&mut s, Key::Enter);
    assert_eq!(query(&s), "{ paginatedUsers { edges { node { name}\n}}}");
    // Asked for with Ctrl+Space, nothing typed: Enter is still a new line...
    type_keys(&mut s, "ref ");
    chord(&mut s, Modifiers::COMMAND, Key::Space);
    let offered = completions(&s);
    assert!(offered.len() > 1, "Ctrl+Space offers the node's fields: {offered:?}");
    press(&mut s, Key::Enter);
    assert!(completions(&s).is_empty(), "Enter closed the offer");
    assert!(query(&s).contains("ref \n"), "{}", query(&s));
    // ...and accepts a suggestion moved to with the arrows.
    chord(&mut s, Modifiers::COMMAND, Key::Space);
    let offered = completions(&s);
    press(&mut s, Key::ArrowDown);
    press(&mut s, Key::Enter);
    assert!(query(&s).contains(&format!("\n{}", offered[1])), "{:?} then {}", offered, query(&s));
}

#[test]
fn escape_closes_the_offer_and_the_editor_keeps_the_focus() {
    let mut s = empty_editor();
    type_keys(&mut s, "{ paginatedUsers { co");
    s.wait_for("count offered", |h| h.state().editor().completions().contains(&"count"));
    press(&mut s, Key::Escape);
    assert!(completions(&s).is_empty(), "Esc closed the offer");
    assert!(s.harness.get_by_label("Query").is_focused(), "the editor keeps the focus");
    type_keys(&mut s, "u");
    assert_eq!(query(&s), "{ paginatedUsers { cou}}");
}

#[test]
fn enter_indents_and_brackets_and_quotes_close_and_step_over() {
    let mut s = empty_editor();
    type_keys(&mut s, "query {");
    assert_eq!(query(&s), "query {}");
    press(&mut s, Key::Enter);
    assert_eq!(query(&s), "query {\n  \n}");
    type_keys(&mut s, "user(ref: \"u1");
    assert_eq!(query(&s), "query {\n  user(ref: \"u1\")\n}");
    type_keys(&mut s, "\") {");
    assert_eq!(query(&s), "query {\n  user(ref: \"u1\") {}\n}", "the closers were stepped over");
    press(&mut s, Key::Enter);
    type_keys(&mut s, "name");
    assert_eq!(query(&s), "query {\n  user(ref: \"u1\") {\n    name\n  }\n}");
}

#[test]
fn prettify_keeps_comments_ctrl_slash_comments_lines_and_ctrl_f_finds() {
    let mut s = empty_editor();
    s.type_into("Query", "# two users\n{paginatedUsers(first:2){count # all\nedges{node{ref}}}}");
    chord(&mut s, Modifiers::COMMAND | Modifiers::SHIFT, Key::P);
    let pretty = "# two users\n{\n  paginatedUsers(first: 2) {\n    count # all\n    edges {\n      node {\n        ref\n      }\n    }\n  }\n}\n";
    assert_eq!(query(&s), pretty);
    // Prettify is one undo step.
    chord(&mut s, Modifiers::COMMAND, Key::Z);
    assert!(query(&s).starts_with("# two users\n{paginatedUsers(first:2)"), "{}", query(&s));
    s.click("Prettify");
    assert_eq!(query(&s), pretty);
    // Ctrl+/ over every line comments them out, and again back in.
    s.harness.get_by_label("Query").click();
    s.harness.step();
    chord(&mut s, Modifiers::COMMAND, Key::A);
    chord(&mut s, Modifiers::COMMAND, Key::Slash);
    assert!(query(&s).starts_with("# # two users\n# {\n#   paginatedUsers(first: 2) {\n"), "{}", query(&s));
    chord(&mut s, Modifiers::COMMAND, Key::Slash);
    assert_eq!(query(&s), pretty);
    // Ctrl+F: the find bar, Enter selects the next match.
    chord(&mut s, Modifiers::COMMAND, Key::F);
    s.wait_for_label("Find");
    s.harness.get_by_label("Find").type_text("REF");
    s.harness.step();
    press(&mut s, Key::Enter);
    let found = s.app().editor().found().expect("a match selected");
    assert_eq!(&query(&s)[found], "ref");
    assert!(s.harness.query_by_label("1 of 1").is_some(), "the count of matches:\n{}", s.screen());
    s.click("Close find");
    assert!(s.harness.query_by_label("Find").is_none());
}

#[test]
fn undo_takes_back_one_explorer_tick_and_one_pause_of_typing_at_a_time() {
    let mut s = empty_editor();
    let tick = |s: &mut Session, name: &str| {
        s.harness.get_by_role_and_label(Role::CheckBox, name).click();
        s.harness.step();
        s.harness.step();
    };
    tick(&mut s, "paginatedUsers");
    let first = query(&s);
    tick(&mut s, "edges");
    let second = query(&s);
    assert_ne!(first, second);
    s.harness.get_by_label("Query").click();
    s.harness.step();
    chord(&mut s, Modifiers::COMMAND, Key::Z);
    assert_eq!(query(&s), first, "one Ctrl+Z takes back the last tick only");
    chord(&mut s, Modifiers::COMMAND, Key::Z);
    assert_eq!(query(&s), "", "and the next one the tick before");
    // Typing, a pause (a second of frames), typing: Ctrl+Z takes back what followed the pause.
    type_keys(&mut s, "# ab");
    for _ in 0..70 {
        s.harness.step();
    }
    type_keys(&mut s, "cd");
    assert_eq!(query(&s), "# abcd");
    chord(&mut s, Modifiers::COMMAND, Key::Z);
    assert_eq!(query(&s), "# ab");
}

const TWO_OPERATIONS: &str = "query Few {
  paginatedUsers(first: 2) {
    edges {
      node {
        ref
        ...Name
      }
    }
  }
}

fragment Name on User {
  name
}

mutation Make {
  createUser(input: { ref: \"two-ops-1\", name: \"Two Ops\", email: \"two-ops@example.com\" }) {
    ref
  }
}
";

#[test]
fn run_runs_the_operation_under_the_cursor_or_asks_which_by_name() {
    let mut s = empty_editor();
    s.type_into("Query", TWO_OPERATIONS);
    // The cursor is at the end, outside both: Run asks which.
    s.click("Run");
    s.wait_for_label("Run Make");
    s.click("Run Few");
    s.wait_until_idle();
    assert_eq!(s.app().active_tab().operation.as_deref(), Some("Few"));
    let rows = s.app().active_tab().grid.as_ref().map(|g| g.rows.len());
    let raw = s.app().active_tab().result.value().map(|r| r.raw().to_owned());
    assert_eq!(rows, Some(2), "the query ran alone: {raw:?} {:?}", s.app().active_tab().result.error());
    // With the cursor in the mutation, Ctrl+Enter runs it.
    s.harness.state_mut().active_tab_mut().jump_to = Some((18, 5));
    s.harness.step();
    s.harness.step();
    chord(&mut s, Modifiers::COMMAND, Key::Enter);
    s.wait_until_idle();
    let tab = s.app().active_tab();
    assert_eq!(tab.operation.as_deref(), Some("Make"));
    let raw = tab.result.value().map(|r| r.raw().to_owned()).unwrap_or_default();
    assert!(raw.contains("two-ops-1") && !raw.contains("errors"), "{raw}");
    assert_eq!(tab.view, View::Tree, "a mutation's result opens on the tree");
    // An unnamed operation among others cannot be run by name: one sentence says what to do.
    s.type_into("Query", "{ paginatedUsers(first: 1) { count } }\nquery B { paginatedUsers(first: 1) { count } }");
    s.harness.state_mut().active_tab_mut().jump_to = Some((1, 3));
    s.harness.step();
    s.click("Run");
    let notice = s.app().editor().notice().map(str::to_owned).unwrap_or_default();
    assert!(notice.starts_with("This operation has no name"), "{notice}");
}

#[test]
fn a_mutation_ticked_beside_an_unnamed_query_goes_into_its_own_named_operation() {
    let mut s = empty_editor();
    s.type_into("Query", "{\n  paginatedUsers(first: 1) {\n    count\n  }\n}\n");
    s.click("mutation");
    s.harness.get_by_role_and_label(Role::CheckBox, "createUser").click();
    s.harness.step();
    s.harness.step();
    let text = query(&s);
    assert!(text.starts_with("query Query {\n"), "{text}");
    assert!(text.contains("\nmutation CreateUser {\n  createUser"), "{text}");
    let operations = orgql::query::operations(&text);
    assert_eq!(operations.len(), 2);
    assert!(operations.iter().all(|o| o.name.is_some()), "every operation named: the document is valid");
    let note = s.wait_for_text("Added the mutation CreateUser as an operation of its own");
    assert!(note.contains("named the query Query"), "{note}");
}

#[test]
fn results_keep_the_server_s_key_order_filter_rows_search_the_tree_and_copy() {
    let mut s = empty_editor();
    // `ref` before `name`: sorted keys would put `name` first.
    s.type_into("Query", "{ paginatedUsers(first: 5) { edges { node { ref name } } } }");
    s.run_query();
    let raw = s.app().active_tab().result.value().map(|r| r.raw().to_owned()).unwrap_or_default();
    let (r, n) = (raw.find("\"ref\"").expect("ref"), raw.find("\"name\"").expect("name"));
    assert!(r < n, "the keys in the query's order:\n{raw}");
    assert_eq!(s.app().active_tab().view, View::Grid, "rows open on the grid");
    // The quick filter keeps the rows with the text in any cell.
    let second = s.app().active_tab().grid.as_ref().map(|g| g.rows[1].cell(0).unwrap_or("").to_owned()).unwrap();
    s.type_into("Filter rows", &second.to_uppercase());
    s.wait_for_label("1 of 5 rows");
    // Copy response puts the raw response on the clipboard.
    s.harness.get_by_label("Copy response").click();
    let mut copied = None;
    for _ in 0..4 {
        s.harness.step();
        for command in &s.harness.output().platform_output.commands {
            if let OutputCommand::CopyText(text) = command {
                copied = Some(text.clone());
            }
        }
    }
    assert_eq!(copied.as_deref(), Some(raw.as_str()));
    // The tree keeps the branches that match a search.
    s.click("Tree");
    s.type_into("Search the response", &second);
    let shown = format!("\"{second}\"");
    s.wait_for_label(&shown);
    s.type_into("Search the response", "no-such-text");
    s.wait_for_label("No match.");
    // The raw text selects a match at a time.
    s.click("Raw");
    s.type_into("Search the response", "\"ref\"");
    s.click("Next match");
    let count = s.text_containing("1 of ").unwrap_or_default();
    assert_eq!(count, "1 of 5", "{}", s.screen());
}
