//! Patch or replace: what an update mutation's input asks for, read from its shape.
//!
//! Some services *patch*: every field of the update input is optional, what is sent changes and
//! the rest stays. Django form mutations (graphene-django's `DjangoModelFormMutation`) and many
//! REST-minded services *replace*: the form's required fields are NonNull, the record is named by
//! a relay `id` in the input, and a field left out is cleared — a missing boolean becomes false,
//! a missing text empty. For a replace, the only safe update is the whole record: read the
//! current values through the very fields the input has ([`Replace::selection`]), overlay the
//! changes ([`Replace::input`]), send, read back and compare ([`Replace::moved`]). An input field
//! that cannot be read back is never guessed: the update is refused before anything is sent.
//!
//! No egui, no I/O: the card, the import, its undo and its rehearsal all use this one piece.

use apollo_compiler::Schema;
use apollo_compiler::ast::Type;
use serde_json::{Map, Value};

use super::{Mutation, Supply, field, input_fields, is_leaf, plain};

/// Input fields that carry no data of the record (Relay's echo of the caller's id).
const NOT_DATA: &[&str] = &["clientmutationid"];

/// How an update's input takes the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Style {
    /// Every field optional: send the changes only.
    Patch,
    /// Required fields beyond the key: send the whole record ([`Replace`]).
    Replace(Replace),
}

/// One field of a replace input and how its current value is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplaceField {
    /// The input field (`isActive`).
    pub input: String,
    /// The output field of the user type that reads it back (same name, a leaf of a compatible
    /// type); `None` when there is none.
    pub output: Option<String>,
    /// Whether the input requires it (NonNull without default).
    pub required: bool,
    /// Whether the input takes null.
    pub nullable: bool,
}

/// A replace-style update input: its fields, and how the record is named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replace {
    /// The mutation's argument that takes the input (`input`).
    pub argument: String,
    /// The input object's type (`UpdateUserInput`).
    pub input_type: String,
    /// Every data field of the input, in the input's order.
    pub fields: Vec<ReplaceField>,
    /// The input's field that names the record by its id (`id: ID`), when it has one: the
    /// record is then named by the id read from the service, never by a guess.
    pub id_field: Option<String>,
}

/// One field that did not come back as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    /// The field (output name).
    pub field: String,
    /// What it was before the change.
    pub before: Value,
    /// What it should be now: the asked value, or `before` when it was not asked to change.
    pub expected: Value,
    /// What the service has now.
    pub found: Value,
    /// Whether the change asked for this field.
    pub asked: bool,
}

impl Moved {
    /// "the service changed isActive: true → false though the file did not ask for it", or
    /// "the service has name: Ada → Ad instead of Ada Lovelace".
    pub fn sentence(&self, asker: &str) -> String {
        if self.asked {
            format!("the service has {}: {} instead of {}", self.field, shown(&self.found), shown(&self.expected))
        } else {
            format!(
                "the service changed {}: {} → {} though {asker} did not ask for it",
                self.field,
                shown(&self.before),
                shown(&self.found)
            )
        }
    }
}

/// A value as a person reads it in a sentence: text without quotes, null and "" as such.
fn shown(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::String(s) if s.is_empty() => "\"\"".to_owned(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Whether the output type `out` reads back what the input type `input` takes: the same named
/// type (String and ID interchangeable), neither a list.
fn reads_back(input: &Type, out: &Type) -> bool {
    let text = |n: &str| matches!(n, "String" | "ID");
    let (i, o) = (input.inner_named_type().as_str(), out.inner_named_type().as_str());
    input.is_list() == out.is_list() && (i == o || (text(i) && text(o)))
}

/// Whether `update` (an update of users of type `user_type`) patches or replaces.
pub fn style(schema: &Schema, update: &Mutation, user_type: &str) -> Style {
    let Some((argument, declared, key)) = update.args.iter().find_map(|(name, ty, supply)| match supply {
        // Fields nested in a `patch` are a patch (PostGraphile's, every field optional).
        Supply::Input { key, nest: None, .. } => Some((name.clone(), ty.clone(), key.clone())),
        _ => None,
    }) else {
        return Style::Patch;
    };
    let input_type = declared.trim_matches(|c| matches!(c, '[' | ']' | '!')).to_owned();
    let Some(inputs) = input_fields(schema, &input_type) else { return Style::Patch };
    let key_field = key.as_ref().map(|(name, _)| name.as_str());
    let mut fields = Vec::new();
    let mut id_field = None;
    let mut required_beyond_key = false;
    for f in inputs {
        let name = f.name.as_str();
        if NOT_DATA.contains(&plain(name).as_str()) {
            continue;
        }
        let required = f.ty.is_non_null() && f.default_value.is_none();
        if plain(name) == "id" && matches!(f.ty.inner_named_type().as_str(), "ID" | "String") && !f.ty.is_list() {
            id_field = Some(name.to_owned());
            continue;
        }
        if required && Some(name) != key_field {
            required_beyond_key = true;
        }
        let output = field(schema, user_type, name)
            .filter(|o| is_leaf(schema, o.ty.inner_named_type()) && reads_back(&f.ty, &o.ty))
            .map(|o| o.name.to_string());
        fields.push(ReplaceField { input: name.to_owned(), output, required, nullable: !f.ty.is_non_null() });
    }
    if !required_beyond_key {
        return Style::Patch;
    }
    Style::Replace(Replace { argument, input_type, fields, id_field })
}

impl Replace {
    /// The fields to read of the user: every output that reads an input field, with `id` and
    /// `ref` (`{ id ref name email isActive department }`).
    pub fn outputs(&self) -> Vec<String> {
        let mut out = vec!["id".to_owned(), "ref".to_owned()];
        for f in &self.fields {
            if let Some(o) = &f.output
                && !out.contains(o)
            {
                out.push(o.clone());
            }
        }
        out
    }

    /// [`Replace::outputs`] as a selection.
    pub fn selection(&self) -> String {
        format!("{{ {} }}", self.outputs().join(" "))
    }

    /// Why this input cannot be sent whole without guessing, when it cannot: the input fields
    /// with no output field reading them back.
    pub fn unreadable(&self) -> Option<String> {
        let blind: Vec<&str> = self.fields.iter().filter(|f| f.output.is_none()).map(|f| f.input.as_str()).collect();
        if blind.is_empty() {
            return None;
        }
        Some(format!(
            "the service's {} replaces the whole record and orgql cannot read {} back, so it would have to \
             guess {}; nothing was sent — change {} in the service's own interface",
            self.input_type,
            blind.join(", "),
            if blind.len() == 1 { "its value" } else { "their values" },
            if blind.len() == 1 { "it" } else { "them" },
        ))
    }

    /// The whole input for the record `current` (as read by [`Replace::selection`]) with
    /// `changes` (input field → value) over it, named by its id. Refused (a sentence, nothing to
    /// send) when a field cannot be read back or the record was not read whole.
    pub fn input(&self, current: &Value, changes: &Map<String, Value>) -> Result<Map<String, Value>, String> {
        if let Some(why) = self.unreadable() {
            return Err(why);
        }
        let mut input = Map::new();
        if let Some(id_field) = &self.id_field {
            let id = current.get("id").filter(|v| !v.is_null()).ok_or_else(|| {
                format!("the record's id could not be read, so the service's {} cannot name it", self.input_type)
            })?;
            input.insert(id_field.clone(), id.clone());
        }
        for f in &self.fields {
            let value = match changes.get(&f.input) {
                Some(v) => v.clone(),
                None => {
                    let output = f.output.as_deref().unwrap_or(&f.input);
                    current.get(output).cloned().ok_or_else(|| {
                        format!("{output} was not read, so the whole record cannot be sent without guessing it")
                    })?
                }
            };
            if value.is_null() && f.required {
                return Err(format!(
                    "the service requires {} but the record has none; give it a value in the same change",
                    f.input
                ));
            }
            input.insert(f.input.clone(), value);
        }
        Ok(input)
    }

    /// The fields of `after` (read back) that are not `before` with `changes` over it.
    pub fn moved(&self, before: &Value, changes: &Map<String, Value>, after: &Value) -> Vec<Moved> {
        compare(
            self.fields.iter().filter_map(|f| Some((f.input.as_str(), f.output.as_deref()?))),
            before,
            changes,
            after,
        )
    }
}

/// The fields (input name, output name) of `after` that are not `before` with `changes` (by
/// input name) over it. Text compares as text (an id may come back as a number); a clearing asked
/// is met by any clearing read back ([`super::reads_back_as`]), while a field not asked to change
/// must come back exactly (null and "" differ).
pub fn compare<'a>(
    fields: impl IntoIterator<Item = (&'a str, &'a str)>,
    before: &Value,
    changes: &Map<String, Value>,
    after: &Value,
) -> Vec<Moved> {
    let mut moved = Vec::new();
    for (input, output) in fields {
        let was = before.get(output).cloned().unwrap_or(Value::Null);
        let (expected, asked) = match changes.get(input) {
            Some(v) => (v.clone(), true),
            None => (was.clone(), false),
        };
        let found = after.get(output).cloned().unwrap_or(Value::Null);
        let same = if asked { super::reads_back_as(&expected, &found) } else { equal(&expected, &found) };
        if !same {
            moved.push(Moved { field: output.to_owned(), before: was, expected, found, asked });
        }
    }
    moved
}

/// Equal as the service means it: numbers and their text alike, null apart from "".
fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(x), Value::Number(n)) | (Value::Number(n), Value::String(x)) => *x == n.to_string(),
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::{Action, mutations, user_type};
    use apollo_compiler::validation::Valid;
    use serde_json::json;

    fn schema(sdl: &str) -> Valid<Schema> {
        Schema::parse_and_validate(sdl, "test.graphql").expect("valid schema")
    }

    /// graphene-django's form mutation, as `tests/django_service` serves it.
    const DJANGO: &str = r#"
        interface Node { id: ID! }
        type UserNode implements Node { id: ID! ref: String! name: String! email: String! isActive: Boolean!
            department: String }
        type UserNodeEdge { node: UserNode cursor: String! }
        type PageInfo { hasNextPage: Boolean! endCursor: String }
        type UserNodeConnection { pageInfo: PageInfo! edges: [UserNodeEdge]! count: Int! }
        type ErrorType { field: String! messages: [String!]! }
        input UpdateUserInput { ref: String! name: String! email: String! isActive: Boolean department: String
            id: ID clientMutationId: String }
        type UpdateUserPayload { user: UserNode errors: [ErrorType!]! clientMutationId: String }
        type Query { user(ref: String!): UserNode paginatedUsers(first: Int, after: String): UserNodeConnection }
        type Mutation { updateUser(input: UpdateUserInput!): UpdateUserPayload }
    "#;

    fn update_of(sdl: &str) -> (Valid<Schema>, Mutation, String) {
        let schema = schema(sdl);
        let user = user_type(&schema).expect("a user type");
        let update = mutations(&schema, &user, &[])
            .into_iter()
            .find(|m| m.action == Action::UpdateUser)
            .expect("an update mutation");
        (schema, update, user)
    }

    fn replace_of(sdl: &str) -> Replace {
        let (schema, update, user) = update_of(sdl);
        match style(&schema, &update, &user) {
            Style::Replace(replace) => replace,
            Style::Patch => panic!("a replace input was read as a patch"),
        }
    }

    #[test]
    fn a_form_mutation_replaces_and_names_the_record_by_its_id() {
        let replace = replace_of(DJANGO);
        assert_eq!(replace.id_field.as_deref(), Some("id"));
        assert_eq!(replace.argument, "input");
        let names: Vec<&str> = replace.fields.iter().map(|f| f.input.as_str()).collect();
        assert_eq!(names, ["ref", "name", "email", "isActive", "department"], "clientMutationId is no data");
        assert_eq!(replace.selection(), "{ id ref name email isActive department }");
        assert_eq!(replace.unreadable(), None);
    }

    #[test]
    fn the_whole_record_is_sent_with_the_changes_over_it() {
        let replace = replace_of(DJANGO);
        let current = json!({ "id": "VXNlck5vZGU6Mw==", "ref": "u3", "name": "Ada", "email": "a@x.org",
            "isActive": true, "department": null });
        let changes: Map<String, Value> = json!({ "department": "HR" }).as_object().unwrap().clone();
        let input = replace.input(&current, &changes).unwrap();
        assert_eq!(
            Value::Object(input),
            json!({ "id": "VXNlck5vZGU6Mw==", "ref": "u3", "name": "Ada", "email": "a@x.org", "isActive": true,
                "department": "HR" })
        );
        // The unasked checkbox cleared by the service is the row's failure, said old → new.
        let after = json!({ "id": "VXNlck5vZGU6Mw==", "ref": "u3", "name": "Ada", "email": "a@x.org",
            "isActive": false, "department": "HR" });
        let moved = replace.moved(&current, &changes, &after);
        assert_eq!(moved.len(), 1);
        assert_eq!(
            moved[0].sentence("the file"),
            "the service changed isActive: true → false though the file did not ask for it"
        );
        // Null and "" differ; a record read without a field is not guessed.
        let emptied = json!({ "id": "VXNlck5vZGU6Mw==", "ref": "u3", "name": "Ada", "email": "a@x.org",
            "isActive": true, "department": "" });
        assert_eq!(replace.moved(&current, &Map::new(), &emptied)[0].field, "department");
        let partial = json!({ "id": "VXNlck5vZGU6Mw==", "ref": "u3", "name": "Ada" });
        assert!(replace.input(&partial, &changes).unwrap_err().contains("email was not read"));
        let no_id = json!({ "ref": "u3", "name": "Ada", "email": "a@x.org", "isActive": true, "department": null });
        assert!(replace.input(&no_id, &changes).unwrap_err().contains("id could not be read"));
    }

    #[test]
    fn an_input_field_that_cannot_be_read_back_refuses_before_sending() {
        let sdl =
            DJANGO.replace("department: String\n            id: ID", "department: String password: String id: ID");
        let replace = replace_of(&sdl);
        let why = replace.unreadable().expect("password cannot be read back");
        assert!(why.contains("cannot read password back"), "{why}");
        assert!(why.contains("nothing was sent"), "{why}");
        let current = json!({ "id": "1", "ref": "u3", "name": "Ada", "email": "a@x.org", "isActive": true,
            "department": null });
        assert_eq!(replace.input(&current, &Map::new()).unwrap_err(), why);
        // Nor a field whose output has another type (a list read as one text).
        let typed = DJANGO.replace("department: String\n            id: ID", "department: String email2: Int id: ID");
        assert!(
            replace_of(&typed.replace("isActive: Boolean!\n", "isActive: Boolean! email2: String\n"))
                .unreadable()
                .is_some()
        );
    }

    #[test]
    fn inputs_whose_fields_are_all_optional_patch() {
        for sdl in [
            // orgql's sandbox: the key beside the input, every field optional.
            r#"type User { id: ID! ref: String! name: String! email: String! isActive: Boolean! }
               type UserConnection { edges: [UserEdge!]! count: Int! }
               type UserEdge { node: User! }
               input UpdateUserInput { name: String email: String isActive: Boolean }
               type Query { user(ref: String!): User paginatedUsers(first: Int): UserConnection! }
               type Mutation { updateUser(ref: String!, input: UpdateUserInput!): User! }"#,
            // The key inside, required; nothing else required.
            r#"type User { id: ID! ref: String! name: String! email: String! isActive: Boolean! }
               type UserConnection { edges: [UserEdge!]! count: Int! }
               type UserEdge { node: User! }
               input UserUpdateInput { ref: String! name: String email: String isActive: Boolean }
               type Query { user(ref: String!): User paginatedUsers(first: Int): UserConnection! }
               type Mutation { userUpdate(input: UserUpdateInput!): User! }"#,
        ] {
            let (schema, update, user) = update_of(sdl);
            assert_eq!(style(&schema, &update, &user), Style::Patch, "{sdl}");
        }
    }

    #[test]
    fn a_replace_input_named_by_its_key_argument_sends_no_id() {
        let replace = replace_of(
            r#"type User { id: ID! ref: String! name: String! email: String! isActive: Boolean! }
               type UserConnection { edges: [UserEdge!]! count: Int! }
               type UserEdge { node: User! }
               input UserInput { name: String! email: String! isActive: Boolean! }
               type Query { user(ref: String!): User paginatedUsers(first: Int): UserConnection! }
               type Mutation { editUser(ref: String!, input: UserInput!): User! }"#,
        );
        assert_eq!(replace.id_field, None);
        let current = json!({ "id": "7", "ref": "u3", "name": "Ada", "email": "a@x.org", "isActive": false });
        let changes: Map<String, Value> = json!({ "name": "Ada L." }).as_object().unwrap().clone();
        assert_eq!(
            Value::Object(replace.input(&current, &changes).unwrap()),
            json!({ "name": "Ada L.", "email": "a@x.org", "isActive": false })
        );
        assert!(replace.fields.iter().all(|f| f.required && !f.nullable));
    }

    #[test]
    fn graphene_djangos_own_introspection_replaces_and_patches_nothing_else() {
        let schema = crate::shape::tests::graphene_django();
        let user = user_type(&schema).expect("UserNode");
        assert_eq!(user, "UserNode");
        let found = mutations(&schema, &user, &[]);
        let update = found.iter().find(|m| m.action == Action::UpdateUser).expect("updateUser");
        assert_eq!(update.field, "updateUser");
        let Style::Replace(replace) = style(&schema, update, &user) else { panic!("a form mutation replaces") };
        assert_eq!(replace.id_field.as_deref(), Some("id"));
        assert_eq!(replace.selection(), "{ id ref name email isActive department }");
        assert!(found.iter().any(|m| m.action == Action::CreateUser && m.field == "createUser"));
        assert!(found.iter().any(|m| m.action == Action::ArchiveUser && m.field == "archiveUser"));
        // The other fixtures' updates (graphql-js, graphql-core, Strawberry, async-graphql) patch.
        for name in ["graphql-js-17.1.0.json", "graphql-core-3.2.14.json", "async-graphql-7.json"] {
            let path = format!("{}/tests/fixtures/introspection/{name}", env!("CARGO_MANIFEST_DIR"));
            let schema = crate::api::read_introspection_json(&std::fs::read_to_string(path).unwrap()).unwrap().schema;
            let user = user_type(&schema).unwrap();
            for update in mutations(&schema, &user, &[]).iter().filter(|m| m.action == Action::UpdateUser) {
                assert_eq!(style(&schema, update, &user), Style::Patch, "{name}");
            }
        }
    }
}
