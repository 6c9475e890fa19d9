//! Validation against a trimmed sandbox schema.

use super::super::test_schema::schema;
use super::*;

fn problems(text: &str) -> Vec<Problem> {
    validate(&schema(), text)
}

/// The one problem of `text`, with the text it is about.
fn only(text: &str) -> (Problem, String) {
    let found = problems(text);
    let [problem] = found.as_slice() else { panic!("{text}: {found:#?}") };
    let about = text[problem.range.clone()].to_string();
    (problem.clone(), about)
}

#[test]
fn a_valid_query_and_a_blank_text_have_no_problems() {
    let text =
        "query Users($n: Int) {\n  users(first: $n, filter: { status: ACTIVE }) { edges { node { ref email } } }\n}";
    assert_eq!(problems(text), []);
    assert_eq!(problems("  # nothing yet\n"), []);
}

#[test]
fn unknown_fields_are_errors_at_the_field() {
    let (problem, about) = only("{\n  users {\n    edges { node { emial } }\n  }\n}");
    assert_eq!((problem.severity, about.as_str(), problem.line, problem.column), (Severity::Error, "emial", 3, 20));
    assert!(problem.message.contains("`emial`") && problem.message.contains("User"), "{}", problem.message);
}

#[test]
fn wrong_argument_types_are_errors() {
    let (problem, about) = only("{ users(first: \"ten\") { count } }");
    assert_eq!((problem.severity, about.as_str()), (Severity::Error, "\"ten\""));
    assert!(problem.message.contains("Int"), "{}", problem.message);
    let (problem, _) = only("{ users(filter: { status: GONE }) { count } }");
    assert!(problem.message.contains("GONE"), "{}", problem.message);
}

#[test]
fn missing_required_arguments_are_errors() {
    let (problem, about) = only("{ user { ref } }");
    assert_eq!((problem.severity, about.as_str()), (Severity::Error, "user { ref }"));
    assert!(problem.message.contains("ref"), "{}", problem.message);
    let (problem, _) = only("mutation { createUser(input: { email: \"a@b.c\", firstName: \"A\" }) { ref } }");
    assert!(problem.message.contains("lastName"), "{}", problem.message);
}

#[test]
fn undefined_variables_are_errors() {
    let (problem, about) = only("query { users(first: $n) { count } }");
    assert_eq!((problem.severity, about.as_str()), (Severity::Error, "$n"));
    assert!(problem.message.contains("$n"), "{}", problem.message);
}

#[test]
fn syntax_errors_have_a_place_and_one_line() {
    let found = problems("# é\n{ users { count }");
    let Some(problem) = found.first() else { panic!("no problem") };
    assert_eq!((problem.severity, problem.line), (Severity::Error, 2));
    assert!(problem.message.starts_with("syntax error"), "{}", problem.message);
    assert!(!problem.message.contains('\n'));
}

#[test]
fn deprecated_fields_arguments_input_fields_and_enum_values_are_warnings() {
    let text = "{ users(orderBy: REF, filter: { active: true, status: PENDING }) { edges { node { fullName } } } }";
    let found = problems(text);
    let found: Vec<(Severity, &str, &str)> =
        found.iter().map(|p| (p.severity, &text[p.range.clone()], p.message.as_str())).collect();
    let expected = [
        (
            Severity::Warning,
            "orderBy",
            "the argument `orderBy` of `Query.users` is deprecated: Results are always ordered by ref",
        ),
        (Severity::Warning, "active", "the input field `UserFilter.active` is deprecated: Use status"),
        (
            Severity::Warning,
            "PENDING",
            "the enum value `UserStatus.PENDING` is deprecated: Invitations are accepted at once now",
        ),
        (Severity::Warning, "fullName", "the field `User.fullName` is deprecated: Use firstName and lastName"),
    ];
    assert_eq!(found, expected);
}

#[test]
fn deprecations_in_fragments_and_variable_defaults_are_found() {
    let text = "query($s: UserStatus = PENDING) { users(filter: { status: $s }) { edges { node { ...F } } } }\n\
                fragment F on User { fullName }";
    let about: Vec<&str> = problems(text).iter().map(|p| &text[p.range.clone()]).collect();
    assert_eq!(about, ["PENDING", "fullName"]);
}
