//! Which scopes an operation needs, read from its root fields before it runs, so that a token
//! without them is answered with HTTP 403 naming them.

use std::collections::HashSet;

use async_graphql::parser::types::{DocumentOperations, ExecutableDocument, OperationType, Selection, SelectionSet};

use crate::scopes::{Scope, ScopeSet};

/// The scope a root field needs; `None` for introspection and unknown fields (the validator
/// reports those).
pub fn root_field_scope(operation: OperationType, field: &str) -> Option<Scope> {
    use Scope::*;
    match operation {
        OperationType::Query => match field {
            "user" | "paginatedUsers" | "paginatedExtraCategories" => Some(UsersRead),
            "training" | "paginatedTrainings" | "paginatedProgress" | "paginatedCertificates" => Some(TrainingsRead),
            "group" | "paginatedGroups" => Some(GroupsRead),
            "moduleGroup" | "paginatedModuleGroups" | "paginatedOffers" | "paginatedEnrollments" => Some(EventsRead),
            _ => None,
        },
        OperationType::Mutation => match field {
            "createUser" | "updateUser" | "archiveUser" | "deleteUser" => Some(UsersWrite),
            "createTraining" | "updateTraining" | "archiveTraining" | "recordProgress" => Some(TrainingsWrite),
            "createGroup" | "updateGroup" | "deleteGroup" | "addGroupMembers" | "removeGroupMembers" => {
                Some(GroupsWrite)
            }
            "createOffer" | "updateOffer" | "enrollUser" | "updateEnrollmentStatus" => Some(EventsWrite),
            "createExtraCategory" | "updateExtraCategory" => Some(ExtraCategoriesWrite),
            _ => None,
        },
        OperationType::Subscription => None,
    }
}

/// The scopes the selected operation of `doc` needs. An operation that cannot be selected needs
/// none here: execution reports it.
pub fn required_scopes(doc: &ExecutableDocument, operation_name: Option<&str>) -> ScopeSet {
    required_scopes_by(doc, operation_name, root_field_scope)
}

/// [`required_scopes`] with another server's scope of each root field (a variant's names).
pub fn required_scopes_by(
    doc: &ExecutableDocument,
    operation_name: Option<&str>,
    scope_of: fn(OperationType, &str) -> Option<Scope>,
) -> ScopeSet {
    let operation = match (&doc.operations, operation_name) {
        (DocumentOperations::Single(op), _) => &op.node,
        (DocumentOperations::Multiple(ops), Some(name)) => match ops.get(name) {
            Some(op) => &op.node,
            None => return ScopeSet::empty(),
        },
        (DocumentOperations::Multiple(ops), None) if ops.len() == 1 => match ops.values().next() {
            Some(op) => &op.node,
            None => return ScopeSet::empty(),
        },
        (DocumentOperations::Multiple(_), None) => return ScopeSet::empty(),
    };
    let mut needed = ScopeSet::empty();
    let mut seen = HashSet::new();
    collect(doc, operation.ty, &operation.selection_set.node, scope_of, &mut needed, &mut seen);
    needed
}

fn collect<'a>(
    doc: &'a ExecutableDocument,
    ty: OperationType,
    set: &'a SelectionSet,
    scope_of: fn(OperationType, &str) -> Option<Scope>,
    needed: &mut ScopeSet,
    seen: &mut HashSet<&'a str>,
) {
    for selection in &set.items {
        match &selection.node {
            Selection::Field(field) => {
                if let Some(scope) = scope_of(ty, field.node.name.node.as_str()) {
                    needed.insert(scope);
                }
            }
            Selection::InlineFragment(fragment) => {
                collect(doc, ty, &fragment.node.selection_set.node, scope_of, needed, seen)
            }
            Selection::FragmentSpread(spread) => {
                let name = spread.node.fragment_name.node.as_str();
                if seen.insert(name)
                    && let Some(fragment) = doc.fragments.get(&spread.node.fragment_name.node)
                {
                    collect(doc, ty, &fragment.node.selection_set.node, scope_of, needed, seen);
                }
            }
        }
    }
}

/// The message of a 403: `Insufficient scope: this operation requires 'users.read'`.
pub fn insufficient_scope_message(missing: ScopeSet) -> String {
    let names: Vec<String> = missing.iter().map(|s| format!("'{s}'")).collect();
    format!("Insufficient scope: this operation requires {}", names.join(" and "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_graphql::parser::parse_query;

    fn needs(query: &str, name: Option<&str>) -> String {
        required_scopes(&parse_query(query).unwrap(), name).to_string()
    }

    #[test]
    fn reads_root_fields_through_fragments() {
        assert_eq!(needs("{ user(ref: \"x\") { name } __typename }", None), "users.read");
        assert_eq!(
            needs(
                "query { ...F } fragment F on Query { group(ref: \"g\") { name } ... on Query { training(ref: \"t\") { title } } }",
                None
            ),
            "trainings.read groups.read"
        );
        assert_eq!(
            needs("mutation { createUser(input: {}) { id } deleteGroup(ref: \"g\") }", None),
            "users.write groups.write"
        );
        assert_eq!(
            needs("query A { user(ref: \"x\") { id } } query B { paginatedOffers { count } }", Some("B")),
            "events.read"
        );
        assert_eq!(needs("{ __schema { types { name } } }", None), "");
    }

    #[test]
    fn survives_fragment_cycles() {
        assert_eq!(
            needs("{ ...A } fragment A on Query { ...B user(ref: \"x\") { id } } fragment B on Query { ...A }", None),
            "users.read"
        );
    }
}
