//! What validation and completion read from the schema's definitions: deprecation reasons and
//! descriptions.

use apollo_compiler::Node;
use apollo_compiler::ast::DirectiveList;

/// The reason given by `@deprecated` among `directives`, or the directive's default reason
/// when none is given; `None` when the definition is not deprecated.
pub(crate) fn deprecation(directives: &DirectiveList) -> Option<String> {
    let directive = directives.get("deprecated")?;
    let reason = directive.specified_argument_by_name("reason").and_then(|value| value.as_str());
    Some(reason.unwrap_or("No longer supported").to_string())
}

/// A description as owned text.
pub(crate) fn description(description: Option<&Node<str>>) -> Option<String> {
    description.map(|text| text.trim().to_string()).filter(|text| !text.is_empty())
}
