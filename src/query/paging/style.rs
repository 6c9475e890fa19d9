//! How a connection pages, read from the schema of the server that serves it.
//!
//! The spec shows `paginatedUsers(first)` with `edges { node }` and `count` and says paging is by
//! cursor; the names of the cursor argument and of the page information are "not shown". Two
//! conventions are in use among GraphQL servers: Relay's `pageInfo { hasNextPage endCursor }`,
//! and cursors on the edges alone (`edges { cursor }`, the last page being the short one). The
//! schema of the connection's type says which one a server follows; a query never selects a
//! field the schema lacks.

use apollo_compiler::Schema;
use apollo_compiler::schema::{ExtendedType, FieldDefinition};

use super::super::DocumentError;
use super::super::connection::find;
use super::super::document::{OperationKind, Parsed, operation_kind};

/// How a connection is walked, read from the connection field's type in the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PagingStyle {
    /// `first`/`after` arguments and `pageInfo { hasNextPage endCursor }` (Relay).
    #[default]
    Relay,
    /// `first`/`after` arguments and `edges { cursor }` without page information: the next page
    /// starts after the last edge's cursor; a page shorter than asked (or empty) is the last.
    EdgeCursors,
}

/// A connection's paging as the schema gives it: the style, the names of the page-size and
/// cursor arguments, and what else the connection type offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paging {
    /// Which convention.
    pub style: PagingStyle,
    /// The page-size argument (`first`).
    pub first: String,
    /// The cursor argument (`after`).
    pub after: String,
    /// The cursor argument's type as a variable declares it (`String`, `ID`), nullable so that
    /// the first page passes null.
    pub after_type: String,
    /// Whether the connection type has `count`.
    pub has_count: bool,
}

impl Paging {
    /// Relay paging with the usual names, for a query whose schema is not known: what orgql
    /// assumed before it read schemas, and what the spec's own examples suggest.
    pub fn assumed() -> Self {
        Paging {
            style: PagingStyle::Relay,
            first: "first".into(),
            after: "after".into(),
            after_type: "String".into(),
            has_count: true,
        }
    }

    /// The paging a query's own text shows, for when the schema cannot be read: edge cursors
    /// when it selects them and no `pageInfo`, Relay otherwise.
    pub fn from_text(query: &str, operation_name: Option<&str>) -> Self {
        let site =
            Parsed::new(query, operation_name).ok().and_then(|parsed| find(&parsed).ok()).map(|found| found.site);
        let style = match site {
            Some(site) if site.page_info_key.is_none() && site.cursor_key.is_some() => PagingStyle::EdgeCursors,
            _ => PagingStyle::Relay,
        };
        Paging { style, ..Self::assumed() }
    }
}

/// Reads how the one connection of `query` pages from `schema`.
///
/// # Errors
///
/// One sentence saying why the connection cannot be walked page by page (then a caller offers
/// single pages): the document has no connection or is not a query, the connection is not in
/// the schema, it lacks a `first` or `after` argument, or its type has neither `pageInfo` nor
/// edge cursors.
pub fn detect_paging(schema: &Schema, query: &str, operation_name: Option<&str>) -> Result<Paging, String> {
    let parsed = Parsed::new(query, operation_name).map_err(|e| e.to_string())?;
    let root = match operation_kind(&parsed.operation) {
        OperationKind::Query => schema.schema_definition.query.as_ref(),
        OperationKind::Mutation => return Err(DocumentError::NotAQuery { kind: "mutation" }.to_string()),
        OperationKind::Subscription => return Err(DocumentError::NotAQuery { kind: "subscription" }.to_string()),
    };
    let Some(root) = root else { return Err("the service's schema has no query type".to_owned()) };
    let found = find(&parsed).map_err(|e| e.to_string())?;
    let path = &found.site.field_path;
    let shown = path.join(".");
    let mut type_name = root.name.as_str().to_owned();
    let mut field = None;
    for name in path {
        let definition = field_of(schema, &type_name, name).ok_or_else(|| {
            format!("the service's schema has no field '{name}' on {type_name}, so {shown} cannot be paged")
        })?;
        type_name = definition.ty.inner_named_type().as_str().to_owned();
        field = Some(definition);
    }
    let Some(field) = field else { return Err(DocumentError::NoConnection.to_string()) };
    let argument = |name: &str| field.arguments.iter().find(|argument| argument.name == name);
    let Some(first) = argument("first") else {
        return Err(format!("{shown} has no 'first' argument in the service's schema; orgql shows one page at a time"));
    };
    if !is_integer(schema, first.ty.inner_named_type().as_str()) {
        return Err(format!(
            "{shown}'s 'first' argument is not a number in the service's schema; orgql shows one page at a time"
        ));
    }
    let Some(after) = argument("after") else {
        return Err(format!(
            "{shown} has no 'after' cursor argument in the service's schema, so only its first page can be shown"
        ));
    };
    let after_type = after.ty.inner_named_type().as_str().to_owned();
    let connection_fields = fields(schema, &type_name);
    let has = |type_name: &str, name: &str| fields(schema, type_name).iter().any(|field| field.name == name);
    let has_count = connection_fields.iter().any(|field| field.name == "count");
    let page_info = connection_fields.iter().find(|field| field.name == "pageInfo");
    let relay = page_info.is_some_and(|page_info| {
        let info_type = page_info.ty.inner_named_type().as_str();
        has(info_type, "hasNextPage") && has(info_type, "endCursor")
    });
    let edge_cursors = connection_fields
        .iter()
        .find(|field| field.name == "edges")
        .is_some_and(|edges| has(edges.ty.inner_named_type().as_str(), "cursor"));
    let style = match (relay, edge_cursors) {
        (true, _) => PagingStyle::Relay,
        (false, true) => PagingStyle::EdgeCursors,
        (false, false) => {
            return Err(format!(
                "{shown} has neither pageInfo {{ hasNextPage endCursor }} nor edge cursors in the service's schema; \
                 orgql shows one page at a time"
            ));
        }
    };
    Ok(Paging { style, first: first.name.to_string(), after: after.name.to_string(), after_type, has_count })
}

/// The fields of an object or interface type (none for other kinds or an unknown name).
fn fields<'s>(schema: &'s Schema, type_name: &str) -> Vec<&'s FieldDefinition> {
    match schema.types.get(type_name) {
        Some(ExtendedType::Object(object)) => object.fields.values().map(|field| &***field).collect(),
        Some(ExtendedType::Interface(interface)) => interface.fields.values().map(|field| &***field).collect(),
        _ => Vec::new(),
    }
}

/// The field `name` of a type; for an interface or union without it, the field of the first
/// possible type that has it (a field selected inside `... on Type`).
fn field_of<'s>(schema: &'s Schema, type_name: &str, name: &str) -> Option<&'s FieldDefinition> {
    if let Some(field) = fields(schema, type_name).into_iter().find(|field| field.name == name) {
        return Some(field);
    }
    let possible: Vec<&str> = match schema.types.get(type_name)? {
        ExtendedType::Union(union) => union.members.iter().map(|member| member.name.as_str()).collect(),
        ExtendedType::Interface(_) => schema
            .types
            .values()
            .filter_map(|ty| match ty {
                ExtendedType::Object(object)
                    if object.implements_interfaces.iter().any(|interface| interface.name == type_name) =>
                {
                    Some(object.name.as_str())
                }
                _ => None,
            })
            .collect(),
        _ => return None,
    };
    possible.into_iter().find_map(|member| fields(schema, member).into_iter().find(|field| field.name == name))
}

/// Whether a named type holds integers: `Int`, or a custom scalar whose name says so.
fn is_integer(schema: &Schema, type_name: &str) -> bool {
    type_name == "Int"
        || matches!(schema.types.get(type_name), Some(ExtendedType::Scalar(_)))
            && ["int", "long", "positive"].iter().any(|word| type_name.to_ascii_lowercase().contains(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    const RELAY: &str = "type Query { paginatedUsers(first: Int, after: String, email: String): UserConnection!
        me: Me }
        type Me { friends(first: Int, after: ID): UserConnection }
        type UserConnection { edges: [UserEdge!]! pageInfo: PageInfo! count: Int! }
        type UserEdge { node: User! cursor: String! }
        type PageInfo { hasNextPage: Boolean! endCursor: String }
        type User { ref: String! name: String! }";

    const EDGES: &str = "type Query { paginatedUsers(first: Int!, after: String): UserConnection }
        type UserConnection { edges: [UserEdge] count: Int }
        type UserEdge { cursor: String! node: User }
        type User { id: ID! ref: String! }";

    const NO_CURSOR: &str =
        "type Query { paginatedUsers(first: Int): UserConnection users(first: Int, after: String): Plain }
        type UserConnection { edges: [UserEdge] count: Int }
        type Plain { edges: [PlainEdge] }
        type PlainEdge { node: User }
        type UserEdge { node: User }
        type User { ref: String! }";

    fn schema(sdl: &str) -> Schema {
        Schema::parse_and_validate(sdl, "test.graphql").expect("a valid test schema").into_inner()
    }

    #[test]
    fn relay_connections_page_by_page_info() {
        let schema = schema(RELAY);
        let paging = detect_paging(&schema, "{ paginatedUsers { edges { node { ref } } } }", None).unwrap();
        assert_eq!(paging, Paging::assumed());
        let nested = detect_paging(&schema, "query { me { friends(first: 5) { edges { node { ref } } } } }", None);
        assert_eq!(nested.unwrap().after_type, "ID");
    }

    #[test]
    fn edges_with_cursors_and_no_page_info_page_by_edge_cursors() {
        let paging = detect_paging(&schema(EDGES), "{ paginatedUsers(first: 10) { edges { node { ref } } } }", None);
        let paging = paging.unwrap();
        assert_eq!(paging.style, PagingStyle::EdgeCursors);
        assert!(paging.has_count);
    }

    #[test]
    fn what_cannot_be_paged_is_said_in_one_sentence() {
        let schema = schema(NO_CURSOR);
        let no_after = detect_paging(&schema, "{ paginatedUsers { edges { node { ref } } } }", None).unwrap_err();
        assert!(no_after.contains("no 'after' cursor argument"), "{no_after}");
        let no_cursor = detect_paging(&schema, "{ users { edges { node { ref } } } }", None).unwrap_err();
        assert!(no_cursor.contains("neither pageInfo"), "{no_cursor}");
        let unknown = detect_paging(&schema, "{ groups { edges { node { ref } } } }", None).unwrap_err();
        assert!(unknown.contains("no field 'groups' on Query"), "{unknown}");
        let mutation = detect_paging(&schema, "mutation { x { edges { node { ref } } } }", None).unwrap_err();
        assert!(mutation.contains("mutation"), "{mutation}");
    }

    #[test]
    fn the_text_alone_says_edge_cursors_when_it_selects_them_without_page_info() {
        let edges = Paging::from_text("{ paginatedUsers { edges { cursor node { ref } } } }", None);
        assert_eq!(edges.style, PagingStyle::EdgeCursors);
        let relay = Paging::from_text("{ paginatedUsers { edges { node { ref } } } }", None);
        assert_eq!(relay.style, PagingStyle::Relay);
    }
}
