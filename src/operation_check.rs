//! Operations checked against a schema (issue 30, `orgql operations check`): each document's
//! errors (apollo-compiler's validation) and deprecated uses, with the schema's reason and the
//! alternative it names ([`crate::schema_diff::alternative_in`]); and the fix of those uses,
//! made in place by byte ranges so that comments and layout stay as written. A field keeps its
//! response key: `name` becomes `name: fullName`, so results, exports and scripts that read
//! `name` read the same key.
//!
//! Pure: texts in, findings and texts out; no I/O.

use std::ops::Range;

use apollo_compiler::Schema;
use apollo_compiler::validation::Valid;
use serde::Serialize;

use crate::query::lang::{DeprecatedKind, DeprecatedUse, Severity, deprecated_uses, validate};
use crate::schema_diff::{Element, SchemaShape, Site, alternative_in};

/// What a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FindingKind {
    /// The schema no longer accepts the document.
    Error,
    /// The document works but uses something deprecated.
    Deprecated,
}

/// One problem in a document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1, in characters.
    pub column: usize,
    /// Error or deprecated use.
    pub kind: FindingKind,
    /// What is wrong, in one sentence.
    pub message: String,
    /// For a deprecated use, the schema's reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// For a deprecated use, what `--fix` writes instead (`name: fullName`), when the reason
    /// names a type-compatible alternative.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,
    /// The bytes it is about.
    #[serde(skip)]
    pub range: Range<usize>,
}

impl Finding {
    /// `line:column: kind: message (replace with …)`, the part after a file's path.
    pub fn located(&self) -> String {
        let kind = match self.kind {
            FindingKind::Error => "error",
            FindingKind::Deprecated => "deprecated",
        };
        let replacement = self.replacement.as_ref().map(|r| format!("; --fix writes `{r}`")).unwrap_or_default();
        format!("{}:{}: {kind}: {}{replacement}", self.line, self.column, self.message)
    }
}

/// A rewrite made by [`fix`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fixed {
    /// Where, in the text before: line from 1.
    pub line: usize,
    /// Column from 1, in characters.
    pub column: usize,
    /// What was written (`name`).
    pub before: String,
    /// What is written now (`name: fullName`).
    pub after: String,
    /// Why: the deprecated element and its reason.
    pub reason: String,
}

/// How a set of documents stands, as `orgql operations check` exits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// All valid, nothing deprecated (exit 0).
    Valid,
    /// Valid, but deprecated uses (exit 8).
    DeprecatedUses,
    /// Some no longer valid (exit 9).
    Invalid,
}

impl Verdict {
    /// The verdict of one document's findings.
    pub fn of(findings: &[Finding]) -> Self {
        if findings.iter().any(|f| f.kind == FindingKind::Error) {
            Verdict::Invalid
        } else if findings.is_empty() {
            Verdict::Valid
        } else {
            Verdict::DeprecatedUses
        }
    }

    /// The exit status of the contract: 0, 8 or 9.
    pub fn exit_code(self) -> u8 {
        match self {
            Verdict::Valid => 0,
            Verdict::DeprecatedUses => 8,
            Verdict::Invalid => 9,
        }
    }
}

/// The findings of `text` against `schema` (whose shape is `shape`), in document order.
pub fn check(schema: &Valid<Schema>, shape: &SchemaShape, text: &str) -> Vec<Finding> {
    let mut findings: Vec<Finding> = validate(schema, text)
        .into_iter()
        .filter(|problem| problem.severity == Severity::Error)
        .map(|problem| Finding {
            line: problem.line,
            column: problem.column,
            kind: FindingKind::Error,
            message: problem.message,
            reason: None,
            replacement: None,
            range: problem.range,
        })
        .collect();
    for used in deprecated_uses(schema, text) {
        let (line, column) = crate::query::line_column(text, used.range.start);
        let replacement = replacement(shape, &used);
        findings.push(Finding {
            line,
            column,
            kind: FindingKind::Deprecated,
            message: format!("{} — {}", site(&used).path, used.reason),
            reason: Some(used.reason),
            replacement,
            range: used.range,
        });
    }
    findings.sort_by_key(|f| (f.range.start, f.kind, f.range.end));
    findings
}

/// `text` with every deprecated use that has a named, type-compatible alternative rewritten, and
/// the rewrites made. A document with errors is left as it is (a fix cannot be checked there);
/// a rewrite after which the document would not validate is not made.
pub fn fix(schema: &Valid<Schema>, shape: &SchemaShape, text: &str) -> (String, Vec<Fixed>) {
    let valid = |text: &str| validate(schema, text).iter().all(|p| p.severity != Severity::Error);
    if !valid(text) {
        return (text.to_owned(), Vec::new());
    }
    let mut candidates: Vec<(DeprecatedUse, String)> = deprecated_uses(schema, text)
        .into_iter()
        .filter(|used| !used.range.is_empty() && text.get(used.range.clone()) == Some(used.name.as_str()))
        .filter_map(|used| replacement(shape, &used).map(|r| (used, r)))
        .collect();
    // From the end, so that the ranges of the rest still hold.
    candidates.sort_by_key(|(used, _)| std::cmp::Reverse(used.range.start));
    let mut current = text.to_owned();
    let mut fixed = Vec::new();
    for (used, after) in candidates {
        let mut next = current.clone();
        next.replace_range(used.range.clone(), &after);
        if !valid(&next) {
            continue;
        }
        current = next;
        let (line, column) = crate::query::line_column(text, used.range.start);
        let reason = format!("{} — {}", site(&used).path, used.reason);
        fixed.push(Fixed { line, column, before: used.name.clone(), after, reason });
    }
    fixed.reverse();
    (current, fixed)
}

/// The schema site of a use.
fn site(used: &DeprecatedUse) -> Site {
    let element = match used.kind {
        DeprecatedKind::Field => Element::Field,
        DeprecatedKind::Argument => Element::Argument,
        DeprecatedKind::InputField => Element::InputField,
        DeprecatedKind::EnumValue => Element::EnumValue,
    };
    Site::new(element, &used.parent, used.field.as_deref(), &used.name)
}

/// What replaces the use's name: the alternative, and for an unaliased field the old name kept
/// as its alias (the response keeps its key).
fn replacement(shape: &SchemaShape, used: &DeprecatedUse) -> Option<String> {
    let alternative = alternative_in(shape, &site(used), &used.reason)?;
    Some(match used.kind {
        DeprecatedKind::Field if !used.aliased => format!("{}: {alternative}", used.name),
        _ => alternative,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SDL: &str = r#"
type Query { user(ref: String!): User users(first: Int, email: String @deprecated(reason: "Use `mail`."), mail: String): [User!]! }
type User { ref: String! name: String! @deprecated(reason: "Use `fullName`.") fullName: String! status: Status nick: String @deprecated(reason: "Gone soon") }
enum Status { ACTIVE OLD @deprecated(reason: "Use `ACTIVE`.") }
"#;

    fn schema() -> (Valid<Schema>, SchemaShape) {
        let schema = Schema::parse_and_validate(SDL, "s.graphql").expect("valid");
        let shape = SchemaShape::of(&schema);
        (schema, shape)
    }

    #[test]
    fn findings_name_the_place_the_reason_and_the_replacement() {
        let (schema, shape) = schema();
        let text = "# who\nquery {\n  user(ref: \"u1\") { name nick }\n  users(email: \"a@b\") { ref }\n}\n";
        let findings = check(&schema, &shape, text);
        let lines: Vec<String> = findings.iter().map(Finding::located).collect();
        assert_eq!(
            lines,
            [
                "3:21: deprecated: User.name — Use `fullName`.; --fix writes `name: fullName`",
                "3:26: deprecated: User.nick — Gone soon",
                "4:9: deprecated: Query.users(email:) — Use `mail`.; --fix writes `mail`",
            ]
        );
        assert_eq!(Verdict::of(&findings), Verdict::DeprecatedUses);
        let broken = check(&schema, &shape, "{ users(org: 1) { ref } }");
        assert_eq!(Verdict::of(&broken), Verdict::Invalid);
        assert!(broken[0].located().starts_with("1:9: error: "), "{broken:?}");
        assert_eq!(Verdict::of(&check(&schema, &shape, "{ users { fullName } }")), Verdict::Valid);
    }

    #[test]
    fn fixes_keep_comments_layout_and_response_keys() {
        let (schema, shape) = schema();
        let text = "# who\nquery Who {\n  # the person\n  user(ref: \"u1\") {\n    name   # shown\n    n2: name\n    nick\n  }\n  users(email: \"a@b\") { status }\n}\n";
        let (fixed, changes) = fix(&schema, &shape, text);
        assert_eq!(
            fixed,
            "# who\nquery Who {\n  # the person\n  user(ref: \"u1\") {\n    name: fullName   # shown\n    n2: fullName\n    nick\n  }\n  users(mail: \"a@b\") { status }\n}\n"
        );
        let made: Vec<(usize, usize, &str, &str)> =
            changes.iter().map(|c| (c.line, c.column, c.before.as_str(), c.after.as_str())).collect();
        assert_eq!(made, [(5, 5, "name", "name: fullName"), (6, 9, "name", "fullName"), (9, 9, "email", "mail")]);
        // What is left: the deprecation without an alternative.
        assert_eq!(Verdict::of(&check(&schema, &shape, &fixed)), Verdict::DeprecatedUses);
        // A document with errors is left alone.
        let with_errors = "{ user(ref: 1) { name } }";
        assert_eq!(fix(&schema, &shape, with_errors), (with_errors.to_owned(), Vec::new()));
    }
}
