//! The editor's problems: the query validated against the connection's schema whenever the text
//! (or the schema) changes, shown as underlines with the message on hover and as a list whose
//! entries lead to their place. Run stays allowed: the server has the last word.

use std::ops::Range;
use std::sync::Arc;

use egui::Color32;

use crate::explorer::SchemaModel;
use crate::query::lang::{Problem, Severity, validate};

/// The problems of the last text validated.
#[derive(Default)]
pub struct Problems {
    /// The text and schema they are for.
    of: Option<(String, usize)>,
    list: Vec<Problem>,
}

impl Problems {
    /// Validates `text` against `schema` unless already done; none without a schema.
    pub fn update(&mut self, text: &str, schema: Option<&Arc<SchemaModel>>) {
        let Some(schema) = schema else {
            self.of = None;
            self.list.clear();
            return;
        };
        let identity = Arc::as_ptr(schema) as usize;
        if self.of.as_ref().is_some_and(|(t, s)| t == text && *s == identity) {
            return;
        }
        self.list = validate(schema.schema(), text);
        self.of = Some((text.to_owned(), identity));
    }

    /// The problems, when they are those of `text`.
    pub fn of(&self, text: &str) -> &[Problem] {
        match &self.of {
            Some((t, _)) if t == text => &self.list,
            _ => &[],
        }
    }

    /// The underlines of `text`: byte ranges (at least one character wide) and colours.
    pub fn marks(&self, text: &str, visuals: &egui::Visuals) -> Vec<(Range<usize>, Color32)> {
        self.of(text)
            .iter()
            .map(|problem| {
                let color = match problem.severity {
                    Severity::Error => visuals.error_fg_color,
                    Severity::Warning => visuals.warn_fg_color,
                };
                (visible(text, problem.range.clone()), color)
            })
            .collect()
    }

    /// The problem at byte `at` of `text`, if any.
    pub fn at(&self, text: &str, at: usize) -> Option<&Problem> {
        self.of(text).iter().find(|p| visible(text, p.range.clone()).contains(&at))
    }

    /// The list: a count, then a line a problem; returns the place clicked (line, column).
    pub fn list_ui(&self, ui: &mut egui::Ui, text: &str) -> Option<(u32, u32)> {
        let problems = self.of(text);
        if problems.is_empty() {
            return None;
        }
        let errors = problems.iter().filter(|p| p.severity == Severity::Error).count();
        let warnings = problems.len() - errors;
        let mut summary = Vec::new();
        if errors > 0 {
            summary.push(if errors == 1 { "1 problem".to_owned() } else { format!("{errors} problems") });
        }
        if warnings > 0 {
            summary.push(if warnings == 1 { "1 warning".to_owned() } else { format!("{warnings} warnings") });
        }
        let mut jump = None;
        egui::CollapsingHeader::new(summary.join(", ")).id_salt("problems").default_open(true).show(ui, |ui| {
            egui::ScrollArea::vertical().id_salt("problems-list").max_height(90.0).show(ui, |ui| {
                for problem in problems {
                    let color = match problem.severity {
                        Severity::Error => ui.visuals().error_fg_color,
                        Severity::Warning => ui.visuals().warn_fg_color,
                    };
                    ui.horizontal_wrapped(|ui| {
                        let place = format!("{}:{}", problem.line, problem.column);
                        if ui.link(place).on_hover_text("Show in the editor").clicked() {
                            jump = Some((problem.line as u32, problem.column as u32));
                        }
                        ui.colored_label(color, &problem.message);
                    });
                }
            });
        });
        jump
    }
}

/// A range made at least one character wide (a problem at a point marks the character there,
/// or the one before it at the end of the text).
fn visible(text: &str, range: Range<usize>) -> Range<usize> {
    let start = range.start.min(text.len());
    let end = range.end.min(text.len()).max(start);
    if end > start {
        return start..end;
    }
    match text[start..].chars().next() {
        Some(c) => start..start + c.len_utf8(),
        None => match text[..start].chars().next_back() {
            Some(c) => start - c.len_utf8()..start,
            None => start..start,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::visible;

    #[test]
    fn a_point_marks_one_character() {
        assert_eq!(visible("abc", 1..1), 1..2);
        assert_eq!(visible("abc", 3..3), 2..3);
        assert_eq!(visible("aé", 1..1), 1..3);
        assert_eq!(visible("", 0..0), 0..0);
        assert_eq!(visible("abc", 0..2), 0..2);
    }
}
