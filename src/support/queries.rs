//! The read requests of the find: fixed documents, and what was typed only ever as a variable.

use serde_json::json;

use super::user::USER_FRAGMENT;
use crate::api::GraphQlRequest;

/// Users a page of the name scan holds (the service's largest page).
pub const NAME_PAGE: i64 = 50;
/// Users with one email shown at most (an email should be unique; more are listed).
pub const EMAIL_MATCHES: i64 = 10;
/// Groups the picker lists for one search.
pub const GROUP_CHOICES: i64 = 50;

/// The user with a ref: `user(ref: $ref)`, null plus an error when none has it.
pub fn user_by_ref(user_ref: &str) -> GraphQlRequest {
    request(
        format!(
            "query SupportUserByRef($ref: String!) {{\n  user(ref: $ref) {{ ...SupportUser }}\n}}\n{USER_FRAGMENT}"
        ),
        json!({ "ref": user_ref }),
    )
}

/// Users with an email (the service compares ignoring case).
pub fn users_by_email(email: &str) -> GraphQlRequest {
    request(
        format!(
            "query SupportUsersByEmail($email: String!, $first: Int!) {{\n  \
             paginatedUsers(first: $first, email: $email) {{ count edges {{ node {{ ...SupportUser }} }} }}\n}}\n\
             {USER_FRAGMENT}"
        ),
        json!({ "email": email, "first": EMAIL_MATCHES }),
    )
}

/// The page query of the name scan (the service has no filter by name), walked with
/// `$after`; only what the list of matches shows is selected.
pub const USERS_FOR_NAMES: &str = "query SupportUsersForNames($first: Int!, $after: String) {
  paginatedUsers(first: $first, after: $after) {
    count
    pageInfo { hasNextPage endCursor }
    edges { node { ref name email isActive } }
  }
}";

/// The variables of the name scan's first page.
pub fn name_scan_variables() -> serde_json::Value {
    json!({ "first": NAME_PAGE, "after": null })
}

/// Groups whose name contains `filter` (all groups for an empty one), for the group picker.
pub fn groups_named(filter: &str) -> GraphQlRequest {
    let filter = filter.trim();
    request(
        "query SupportGroups($first: Int!, $name: String) {\n  \
         paginatedGroups(first: $first, name: $name) { count edges { node { id ref name } } }\n}"
            .to_owned(),
        json!({ "first": GROUP_CHOICES, "name": (!filter.is_empty()).then_some(filter) }),
    )
}

fn request(query: String, variables: serde_json::Value) -> GraphQlRequest {
    GraphQlRequest { query, variables: Some(variables), operation_name: None }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Text that would break out of a string literal if it were pasted into the document.
    const HOSTILE: &str = "u1\") { id } mutation { deleteUser(ref: \"u2\") } #";

    #[test]
    fn what_was_typed_goes_in_a_variable_never_in_the_document() {
        for (request, key) in
            [(user_by_ref(HOSTILE), "ref"), (users_by_email(HOSTILE), "email"), (groups_named(HOSTILE), "name")]
        {
            assert!(!request.query.contains("deleteUser"), "{}", request.query);
            assert_eq!(request.variables.as_ref().unwrap()[key], HOSTILE);
            crate::query::kind_of(&request.query, None).expect("a document that parses");
        }
    }

    #[test]
    fn each_request_selects_what_the_card_shows() {
        let by_ref = user_by_ref("u00001");
        assert!(by_ref.query.contains("user(ref: $ref) { ...SupportUser }"), "{}", by_ref.query);
        for field in ["isActive", "roles", "groups { id ref name }", "extraFields { category { ref name } value }"] {
            assert!(by_ref.query.contains(field), "{field} in {}", by_ref.query);
        }
        let by_email = users_by_email("a@b.org");
        assert!(by_email.query.contains("paginatedUsers(first: $first, email: $email)"));
        assert_eq!(by_email.variables.unwrap()["first"], EMAIL_MATCHES);
    }

    #[test]
    fn an_empty_group_filter_lists_every_group() {
        assert_eq!(groups_named("  ").variables.unwrap()["name"], serde_json::Value::Null);
        assert_eq!(groups_named(" Sales ").variables.unwrap()["name"], "Sales");
    }

    #[test]
    fn the_name_scan_walks_the_largest_pages() {
        let prepared = crate::query::prepare_paging(USERS_FOR_NAMES, None, Default::default()).unwrap();
        assert_eq!(prepared.after_variable, "after");
        assert_eq!(prepared.first_variable.as_deref(), Some("first"));
        assert_eq!(name_scan_variables()["first"], NAME_PAGE);
    }
}
