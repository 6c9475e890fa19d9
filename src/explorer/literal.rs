//! An argument's value as the explorer edits it (issue 46): a GraphQL input value read from the
//! document as a tree of input objects and lists, so that a field at any depth (`filters: {
//! email: { iExact: "…" } }`, Hasura's `where: { email: { _eq: … } }`, `input: { patch: { … } }`)
//! is set or removed alone and the value written back. What the explorer does not take apart
//! (scalars, enum values, `null`, variables) is kept as written.

use apollo_parser::cst::{self, CstNode};

/// A GraphQL input value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Literal {
    /// An input object: its fields in the order written.
    Object(Vec<(String, Literal)>),
    /// A list: its items.
    List(Vec<Literal>),
    /// A scalar, an enum value, `null` or a variable, as written (`"a@b.org"`, `ACTIVE`, `$ref`).
    Raw(String),
}

impl Literal {
    /// Reads a value as the document writes it. Text that does not read as a value is kept as
    /// written, whole.
    pub fn parse(text: &str) -> Literal {
        let text = text.trim();
        let document = format!("{{ f(a: {text}) }}");
        let tree = apollo_parser::Parser::new(&document).parse();
        if tree.errors().next().is_some() {
            return Literal::Raw(text.to_owned());
        }
        let value = tree.document().syntax().descendants().find_map(cst::Argument::cast).and_then(|a| a.value());
        value.map_or_else(|| Literal::Raw(text.to_owned()), |value| Literal::of(&value))
    }

    fn of(value: &cst::Value) -> Literal {
        match value {
            cst::Value::ObjectValue(object) => Literal::Object(
                object
                    .object_fields()
                    .filter_map(|field| Some((field.name()?.text().to_string(), Literal::of(&field.value()?))))
                    .collect(),
            ),
            cst::Value::ListValue(list) => Literal::List(list.values().map(|item| Literal::of(&item)).collect()),
            // Commas are ignored tokens, and may be kept with the value before them.
            other => Literal::Raw(
                other.syntax().text().to_string().trim_matches(|c: char| c == ',' || c.is_whitespace()).to_owned(),
            ),
        }
    }

    /// The value as the document writes it: `{ email: { iExact: "a@b.org" } }`, `[ADMIN, USER]`.
    pub fn write(&self) -> String {
        let mut out = String::new();
        self.write_into(&mut out);
        out
    }

    fn write_into(&self, out: &mut String) {
        match self {
            Literal::Object(fields) if fields.is_empty() => out.push_str("{}"),
            Literal::Object(fields) => {
                out.push_str("{ ");
                for (i, (name, value)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(name);
                    out.push_str(": ");
                    value.write_into(out);
                }
                out.push_str(" }");
            }
            Literal::List(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.write_into(out);
                }
                out.push(']');
            }
            Literal::Raw(text) => out.push_str(text),
        }
    }

    /// Whether it is a variable (`$filters`): the explorer does not take it apart.
    pub fn is_variable(&self) -> bool {
        matches!(self, Literal::Raw(text) if text.starts_with('$'))
    }

    /// The field `name` of an input object.
    pub fn field(&self, name: &str) -> Option<&Literal> {
        match self {
            Literal::Object(fields) => fields.iter().find(|(n, _)| n == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// A list's items; a value that is not a list is a list of that one item (as GraphQL reads
    /// a single value given for a list).
    pub fn items(&self) -> Vec<&Literal> {
        match self {
            Literal::List(items) => items.iter().collect(),
            other => vec![other],
        }
    }

    /// `object` (none: an empty one) with its field `name` set to `value`, or removed for none;
    /// a field added goes where `order` (the input type's fields, in the schema's order) puts
    /// it among those written. None when no field is left: an empty input object is left out.
    pub fn with_field(object: Option<&Literal>, name: &str, value: Option<Literal>, order: &[&str]) -> Option<Literal> {
        let mut fields = match object {
            Some(Literal::Object(fields)) => fields.clone(),
            _ => Vec::new(),
        };
        match (fields.iter().position(|(n, _)| n == name), value) {
            (Some(at), Some(value)) => fields[at].1 = value,
            (Some(at), None) => {
                fields.remove(at);
            }
            (None, Some(value)) => {
                let rank = |field: &str| order.iter().position(|o| *o == field).unwrap_or(usize::MAX);
                let at = fields.iter().take_while(|(n, _)| rank(n) <= rank(name)).count();
                fields.insert(at, (name.to_owned(), value));
            }
            (None, None) => {}
        }
        (!fields.is_empty()).then_some(Literal::Object(fields))
    }
}

#[cfg(test)]
mod tests {
    use super::Literal;

    #[test]
    fn nested_objects_and_lists_are_read_and_written_back() {
        let text =
            r#"{ email: { iExact: "A@B.ORG" }, AND: { name: { startsWith: "Ann" } }, roles: [ADMIN, USER], id: $id }"#;
        let value = Literal::parse(text);
        assert_eq!(value.write(), text, "written back as read");
        assert_eq!(value.field("email").and_then(|e| e.field("iExact")), Some(&Literal::Raw(r#""A@B.ORG""#.into())));
        assert_eq!(value.field("roles").map(|r| r.items().len()), Some(2));
        assert!(value.field("id").is_some_and(Literal::is_variable));
        assert_eq!(Literal::parse("  $filters ").write(), "$filters");
        assert_eq!(Literal::parse(r#""a, b""#), Literal::Raw(r#""a, b""#.into()));
        assert_eq!(Literal::parse("{ a: ").write(), "{ a:", "text that is not a value is kept whole");
        // A single value given for a list is a list of one.
        assert_eq!(Literal::parse("ADMIN").items(), [&Literal::Raw("ADMIN".into())]);
        let hasura = Literal::parse(r#"{_and: [{email: {_eq: "x"}}, {}]}"#);
        assert_eq!(hasura.write(), r#"{ _and: [{ email: { _eq: "x" } }, {}] }"#);
    }

    #[test]
    fn a_field_set_at_depth_keeps_the_schema_s_order_and_an_emptied_object_goes() {
        let order = ["ref", "email", "name"];
        let email = Literal::with_field(None, "iExact", Some(Literal::Raw(r#""x""#.into())), &["exact", "iExact"]);
        let filters = Literal::with_field(None, "email", email, &order).expect("set");
        assert_eq!(filters.write(), r#"{ email: { iExact: "x" } }"#);
        let filters =
            Literal::with_field(Some(&filters), "ref", Some(Literal::Raw(r#"{ exact: "u1" }"#.into())), &order)
                .expect("set");
        let filters =
            Literal::with_field(Some(&filters), "name", Some(Literal::Raw("$n".into())), &order).expect("set");
        assert_eq!(filters.write(), r#"{ ref: { exact: "u1" }, email: { iExact: "x" }, name: $n }"#);
        // Fields the schema does not know (written by hand) stay where they are.
        let kept = Literal::parse(r#"{ zzz: 1, email: 2 }"#);
        let kept = Literal::with_field(Some(&kept), "ref", Some(Literal::Raw("3".into())), &order).expect("set");
        assert_eq!(kept.write(), "{ ref: 3, zzz: 1, email: 2 }");
        // Emptied, the object is left out.
        let only = Literal::parse(r#"{ iExact: "x" }"#);
        assert_eq!(Literal::with_field(Some(&only), "iExact", None, &[]), None);
    }
}
