//! Hand-made introspection results with what real servers send and strict readers refuse.

use std::time::{Duration, Instant};

use apollo_compiler::ExecutableDocument;
use apollo_compiler::schema::ExtendedType;
use serde_json::{Value, json};

use super::*;

fn named(kind: &str, name: &str) -> Value {
    json!({ "kind": kind, "name": name, "ofType": null })
}

fn non_null(of: Value) -> Value {
    json!({ "kind": "NON_NULL", "name": null, "ofType": of })
}

fn string() -> Value {
    named("SCALAR", "String")
}

fn field(name: &str, ty: Value) -> Value {
    json!({ "name": name, "args": [], "type": ty, "isDeprecated": false, "deprecationReason": null })
}

fn object(name: &str, fields: Vec<Value>) -> Value {
    json!({ "kind": "OBJECT", "name": name, "fields": fields, "interfaces": [] })
}

/// A `data` object whose query type is `Query` with `types` besides it.
fn data(query_fields: Vec<Value>, types: Vec<Value>, directives: Vec<Value>) -> Value {
    let mut all = vec![object("Query", query_fields), named("SCALAR", "String"), named("SCALAR", "Boolean")];
    all.extend(types);
    json!({ "__schema": { "queryType": { "name": "Query" }, "types": all, "directives": directives } })
}

fn read(data: &Value) -> Introspection {
    read_introspection(data).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_field_of_a_missing_type_is_left_out_and_said_in_one_line() {
    let directive = json!({ "name": "foo", "locations": ["NOWHERE"], "args": [] });
    let read =
        read(&data(vec![field("name", string()), field("bar", named("OBJECT", "Baz"))], vec![], vec![directive]));
    assert_eq!(read.skipped, ["directive @foo (no known location)", "field Query.bar (type Baz is missing)"]);
    assert_eq!(
        read.summary().unwrap(),
        "2 parts of the schema could not be read and are left out: directive @foo (no known location), field Query.bar (type Baz is missing)"
    );
    let query = read.schema.get_object("Query").unwrap();
    assert!(query.fields.contains_key("name") && !query.fields.contains_key("bar"));
}

#[test]
fn unknown_directive_locations_are_dropped_and_the_known_ones_kept() {
    let custom = json!({
        "name": "tag", "description": null, "isRepeatable": true,
        "locations": ["FIELD_DEFINITION", "DIRECTIVE_DEFINITION", "OBJECT"],
        "args": [{ "name": "name", "type": non_null(string()), "defaultValue": null }],
    });
    // graphql-core 3.2 gives @deprecated this location: built-in directives are not read at all.
    let deprecated = json!({ "name": "deprecated", "locations": ["FIELD_DEFINITION", "DIRECTIVE_DEFINITION"] });
    let read = read(&data(vec![field("a", string())], vec![], vec![custom, deprecated]));
    assert_eq!(read.skipped, ["location DIRECTIVE_DEFINITION of directive @tag (unknown)"]);
    let tag = &read.schema.directive_definitions["tag"];
    assert!(tag.repeatable && tag.locations.len() == 2, "{}", read.sdl);
    assert!(read.sdl.contains("directive @tag(\n  name: String!\n) repeatable on FIELD_DEFINITION | OBJECT"));
}

#[test]
fn an_unknown_type_kind_is_left_out_with_what_refers_to_it() {
    let odd = json!({ "kind": "RESOURCE", "name": "Blob", "fields": [] });
    let holder = object("Holder", vec![field("blob", named("RESOURCE", "Blob"))]);
    let read =
        read(&data(vec![field("a", string()), field("holder", named("OBJECT", "Holder"))], vec![odd, holder], vec![]));
    assert_eq!(
        read.skipped,
        [
            "type Blob (unknown kind RESOURCE)",
            "field Holder.blob (type Blob is missing)",
            "type Holder (no fields left)",
            "field Query.holder (type Holder is missing)",
        ]
    );
    assert!(read.schema.types.get("Holder").is_none());
}

#[test]
fn missing_and_null_descriptions_lists_and_keys_are_fine() {
    let data = json!({ "__schema": {
        "queryType": { "name": "Query" },
        "types": [
            { "kind": "OBJECT", "name": "Query", "fields": [
                { "name": "a", "type": { "kind": "SCALAR", "name": "String" } },
                { "name": "e", "args": null, "type": { "kind": "ENUM", "name": "E" }, "extra": 1 },
            ], "interfaces": null },
            { "kind": "ENUM", "name": "E", "enumValues": [{ "name": "X" }, { "name": "Y", "isDeprecated": true }] },
            { "kind": "SCALAR", "name": "String", "description": null },
        ],
    }});
    let read = read(&data);
    assert!(read.skipped.is_empty(), "{:?}", read.skipped);
    let ExtendedType::Enum(e) = &read.schema.types["E"] else { panic!() };
    assert!(e.values["Y"].directives.get("deprecated").is_some());
    assert!(read.sdl.contains("  Y @deprecated\n"), "{}", read.sdl);
}

#[test]
fn one_of_inputs_and_specified_by_in_both_spellings() {
    let lookup = json!({ "kind": "INPUT_OBJECT", "name": "Lookup", "isOneOf": true, "inputFields": [
        { "name": "ref", "type": string(), "defaultValue": null },
        { "name": "email", "type": string(), "defaultValue": null },
    ]});
    let url = json!({ "kind": "SCALAR", "name": "Url", "specifiedByUrl": "https://example.org/url" });
    let date = json!({ "kind": "SCALAR", "name": "Date", "specifiedByURL": "https://example.org/date" });
    let mut find = field("find", string());
    find["args"] = json!([{ "name": "by", "type": non_null(named("INPUT_OBJECT", "Lookup")), "defaultValue": null }]);
    let read = read(&data(
        vec![find, field("u", named("SCALAR", "Url")), field("d", named("SCALAR", "Date"))],
        vec![lookup, url, date],
        vec![],
    ));
    assert!(read.skipped.is_empty(), "{:?}", read.skipped);
    assert!(read.schema.types["Lookup"].directives().get("oneOf").is_some(), "{}", read.sdl);
    assert!(read.sdl.contains("scalar Url @specifiedBy(url: \"https://example.org/url\")"), "{}", read.sdl);
    assert!(read.sdl.contains("scalar Date @specifiedBy(url: \"https://example.org/date\")"), "{}", read.sdl);
}

#[test]
fn deprecated_arguments_and_input_fields_and_default_values() {
    let filter = json!({ "kind": "INPUT_OBJECT", "name": "Filter", "description": "Say \"hi\"\nto Zoë 🎓", "inputFields": [
        { "name": "email", "type": string(), "defaultValue": null },
        { "name": "old", "type": string(), "defaultValue": null, "isDeprecated": true, "deprecationReason": "Use `email`." },
        { "name": "active", "type": named("SCALAR", "Boolean"), "defaultValue": "true" },
        { "name": "broken", "type": string(), "defaultValue": "\"unterminated" },
    ]});
    let mut users = field("users", string());
    users["args"] = json!([
        { "name": "filter", "type": named("INPUT_OBJECT", "Filter"), "defaultValue": "{email: \"a\\\"b\"}" },
        { "name": "order", "type": string(), "defaultValue": null, "isDeprecated": true, "deprecationReason": null },
    ]);
    let read = read(&data(vec![users], vec![filter], vec![]));
    assert_eq!(read.skipped.len(), 1, "{:?}", read.skipped);
    assert!(read.skipped[0].starts_with("the default value of input field Filter.broken ("), "{:?}", read.skipped);
    let ExtendedType::InputObject(input) = &read.schema.types["Filter"] else { panic!() };
    assert_eq!(input.description.as_ref().map(|d| d.as_str()), Some("Say \"hi\"\nto Zoë 🎓"));
    let old = &input.fields["old"];
    let reason = old.directives.get("deprecated").and_then(|d| d.specified_argument_by_name("reason"));
    assert_eq!(reason.and_then(|r| r.as_str()), Some("Use `email`."));
    assert!(input.fields["broken"].default_value.is_none() && input.fields["active"].default_value.is_some());
    let users = &read.schema.get_object("Query").unwrap().fields["users"];
    assert!(users.argument_by_name("order").unwrap().directives.get("deprecated").is_some());
    assert!(users.argument_by_name("filter").unwrap().default_value.is_some());
}

#[test]
fn roots_may_have_any_name_and_a_missing_subscription_type_is_left_out() {
    let data = json!({ "__schema": {
        "queryType": { "name": "Root" },
        "mutationType": { "name": "Change" },
        "subscriptionType": { "name": "Feed" },
        "types": [object("Root", vec![field("a", string())]), object("Change", vec![field("b", string())])],
    }});
    let read = read(&data);
    assert_eq!(read.skipped, ["the subscription type Feed (missing)"]);
    assert_eq!(read.schema.schema_definition.query.as_ref().map(|n| n.as_str()), Some("Root"));
    assert_eq!(read.schema.schema_definition.mutation.as_ref().map(|n| n.as_str()), Some("Change"));
    assert!(read.schema.schema_definition.subscription.is_none());
    let none = json!({ "__schema": { "queryType": { "name": "Root" }, "subscriptionType": null,
        "types": [object("Root", vec![field("a", string())])] }});
    assert!(read_introspection(&none).unwrap().skipped.is_empty());
    let no_query = json!({ "__schema": { "queryType": { "name": "Nope" }, "types": [] }});
    assert_eq!(read_introspection(&no_query).unwrap_err(), "the introspection result has no usable query type");
}

#[test]
fn an_object_that_loses_an_interface_field_no_longer_implements_it() {
    let node = json!({ "kind": "INTERFACE", "name": "Node", "fields": [field("id", non_null(named("SCALAR", "ID")))],
        "possibleTypes": [named("OBJECT", "User")] });
    let mut user = object("User", vec![field("id", named("SCALAR", "Weird")), field("name", string())]);
    user["interfaces"] = json!([named("INTERFACE", "Node")]);
    let read = read(&data(
        vec![field("user", named("OBJECT", "User")), field("node", named("INTERFACE", "Node"))],
        vec![node, user],
        vec![],
    ));
    assert_eq!(
        read.skipped,
        ["field User.id (type Weird is missing)", "interface Node of User (field id is left out)"]
    );
    assert!(read.schema.get_object("User").unwrap().implements_interfaces.is_empty());
}

#[test]
fn invalid_names_and_unreadable_types_are_left_out() {
    let mut query = vec![field("ok", string()), field("bad-name", string())];
    query.push(json!({ "name": "deep", "type": non_null(non_null(string())) }));
    let read = read(&data(query, vec![object("my-type", vec![field("a", string())])], vec![]));
    assert_eq!(
        read.skipped,
        [
            "field Query.`bad-name` (invalid name)",
            "field Query.deep (its type cannot be read)",
            "type `my-type` (invalid name)"
        ]
    );
}

#[test]
fn the_text_forms_of_a_response() {
    let err = read_introspection_json("{\"data\": 3}").unwrap_err();
    assert!(err.starts_with("the text is not an introspection result"), "{err}");
    let err = read_introspection_json(r#"{"data":null,"errors":[{"message":"no"}]}"#).unwrap_err();
    assert_eq!(err, "the introspection query failed: no");
    let one = data(vec![field("a", string())], vec![], vec![]);
    let whole = read_introspection_json(&json!({ "data": one }).to_string()).unwrap();
    let bare = read_introspection_json(&one.to_string()).unwrap();
    assert_eq!(whole.sdl, bare.sdl);
}

#[test]
fn the_probe_chooses_the_parts_of_the_query() {
    let fields = |names: &[&str]| json!({ "fields": names.iter().map(|n| json!({ "name": n, "args": [] })).collect::<Vec<_>>() });
    let mut field_type = fields(&["name", "args", "type"]);
    field_type["fields"][1]["args"] = json!([{ "name": "includeDeprecated" }]);
    let mut type_type = fields(&["kind", "name", "specifiedByUrl", "inputFields"]);
    type_type["fields"][3]["args"] = json!([{ "name": "includeDeprecated" }]);
    let probe = json!({
        "schemaType": fields(&["types", "description"]),
        "typeType": type_type,
        "fieldType": field_type,
        "directiveType": fields(&["name", "locations", "args"]),
        "inputValueType": fields(&["name", "isDeprecated", "deprecationReason"]),
    });
    let capabilities = Capabilities::from_probe(&probe).unwrap();
    assert_eq!(
        capabilities,
        Capabilities {
            schema_description: true,
            directive_is_repeatable: false,
            specified_by: Some("specifiedByUrl".to_owned()),
            is_one_of: false,
            input_value_deprecation: true,
            directive_args_deprecation: false,
        }
    );
    let query = capabilities.query();
    assert!(query.contains(" specifiedByUrl") && !query.contains("isOneOf") && !query.contains("isRepeatable"));
    assert!(query.contains("inputFields(includeDeprecated: true)"));
    assert!(Capabilities::from_probe(&json!({ "typeType": null })).is_none());
    let standard = Capabilities::standard_2018().query();
    assert!(!standard.contains("includeDeprecated: true) { ...InputValue") && !standard.contains("specifiedBy"));
    assert!(standard.matches("ofType").count() >= 8);
}

#[test]
fn every_query_is_valid_against_a_server_that_supports_it() {
    // apollo-compiler's own introspection schema has everything but `isOneOf`.
    let schema = apollo_compiler::Schema::parse_and_validate("type Query { a: String }", "s.graphql").unwrap();
    let mut apollo = Capabilities::all();
    apollo.is_one_of = false;
    for query in [CAPABILITIES_QUERY.to_owned(), Capabilities::standard_2018().query(), apollo.query()] {
        ExecutableDocument::parse_and_validate(&schema, &query, "q.graphql")
            .unwrap_or_else(|e| panic!("{}\n{query}", e.errors));
    }
}

#[test]
fn a_huge_schema_reads_fast_and_whole() {
    let json = crate::explorer::synthetic::introspection_json(1_500, 10_000);
    let started = Instant::now();
    let read = read_introspection_json(&json).unwrap();
    let took = started.elapsed();
    assert!(read.skipped.is_empty(), "{:?}", read.skipped);
    assert!(read.schema.types.len() > 1_500);
    // Debug builds are several times slower than the benchmark's release build (tens of ms).
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[test]
fn the_summary_counts_and_cuts_long_lists() {
    assert_eq!(skipped_summary(&[]), None);
    assert_eq!(
        skipped_summary(&["type X (unknown kind Y)".to_owned()]).unwrap(),
        "1 part of the schema could not be read and is left out: type X (unknown kind Y)"
    );
    let many: Vec<String> = (0..9).map(|i| format!("p{i}")).collect();
    assert_eq!(
        skipped_summary(&many).unwrap(),
        "9 parts of the schema could not be read and are left out: p0, p1, p2, p3, p4, p5 and 3 more"
    );
}
