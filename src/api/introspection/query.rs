//! The introspection query orgql sends, adapted to the server as GraphiQL does: a small probe
//! asks which parts of the introspection schema the server has (`__Type.isOneOf`,
//! `__Directive.isRepeatable`, …), then the full query asks only for those.

use serde::Deserialize;
use serde_json::Value;

/// The probe: the fields (and their arguments) of the introspection types whose newer parts
/// servers may lack.
pub const CAPABILITIES_QUERY: &str = "query IntrospectionCapabilities {
  schemaType: __type(name: \"__Schema\") { fields { name args { name } } }
  typeType: __type(name: \"__Type\") { fields { name args { name } } }
  fieldType: __type(name: \"__Field\") { fields { name args { name } } }
  directiveType: __type(name: \"__Directive\") { fields { name args { name } } }
  inputValueType: __type(name: \"__InputValue\") { fields { name args { name } } }
}";

/// How deep `ofType` is followed: `[[[String!]!]!]!` needs 7 levels; graphql-js asks for 9.
const TYPE_REF_DEPTH: usize = 9;

/// The optional parts of introspection a server supports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// `__Schema.description`.
    pub schema_description: bool,
    /// `__Directive.isRepeatable`.
    pub directive_is_repeatable: bool,
    /// The name of the specified-by field of `__Type`: `specifiedByURL` (the spec) or
    /// `specifiedByUrl` (graphql-js 15).
    pub specified_by: Option<String>,
    /// `__Type.isOneOf`.
    pub is_one_of: bool,
    /// `__InputValue.isDeprecated` and `includeDeprecated` on `__Field.args` and
    /// `__Type.inputFields`.
    pub input_value_deprecation: bool,
    /// `includeDeprecated` on `__Directive.args` as well.
    pub directive_args_deprecation: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Probe {
    schema_type: Option<IntrospectionType>,
    type_type: Option<IntrospectionType>,
    field_type: Option<IntrospectionType>,
    directive_type: Option<IntrospectionType>,
    input_value_type: Option<IntrospectionType>,
}

#[derive(Deserialize)]
struct IntrospectionType {
    fields: Option<Vec<Named>>,
}

#[derive(Deserialize)]
struct Named {
    name: String,
    args: Option<Vec<ArgName>>,
}

#[derive(Deserialize)]
struct ArgName {
    name: String,
}

impl IntrospectionType {
    fn field(&self, name: &str) -> Option<&Named> {
        self.fields.as_deref()?.iter().find(|field| field.name == name)
    }

    fn has(&self, name: &str) -> bool {
        self.field(name).is_some()
    }

    fn field_has_arg(&self, field: &str, arg: &str) -> bool {
        self.field(field).and_then(|f| f.args.as_deref()).is_some_and(|args| args.iter().any(|a| a.name == arg))
    }
}

impl Capabilities {
    /// What the 2018 edition of the spec has, for servers that do not answer the probe.
    pub fn standard_2018() -> Self {
        Self::default()
    }

    /// Everything orgql knows how to ask for (servers on graphql-js 17 support all of it).
    pub fn all() -> Self {
        Capabilities {
            schema_description: true,
            directive_is_repeatable: true,
            specified_by: Some("specifiedByURL".to_owned()),
            is_one_of: true,
            input_value_deprecation: true,
            directive_args_deprecation: true,
        }
    }

    /// Reads the `data` of the answer to [`CAPABILITIES_QUERY`]; `None` when it is not one.
    pub fn from_probe(data: &Value) -> Option<Self> {
        let probe = Probe::deserialize(data).ok()?;
        let ty = probe.type_type?;
        ty.fields.as_ref()?;
        let has = |t: &Option<IntrospectionType>, name: &str| t.as_ref().is_some_and(|t| t.has(name));
        let input_value_deprecation = has(&probe.input_value_type, "isDeprecated")
            && has(&probe.input_value_type, "deprecationReason")
            && probe.field_type.as_ref().is_some_and(|f| f.field_has_arg("args", "includeDeprecated"))
            && ty.field_has_arg("inputFields", "includeDeprecated");
        let directive_args_deprecation = input_value_deprecation
            && probe.directive_type.as_ref().is_some_and(|d| d.field_has_arg("args", "includeDeprecated"));
        let specified_by =
            ["specifiedByURL", "specifiedByUrl"].into_iter().find(|name| ty.has(name)).map(str::to_owned);
        Some(Capabilities {
            schema_description: has(&probe.schema_type, "description"),
            directive_is_repeatable: has(&probe.directive_type, "isRepeatable"),
            specified_by,
            is_one_of: ty.has("isOneOf"),
            input_value_deprecation,
            directive_args_deprecation,
        })
    }

    /// The full introspection query asking for exactly these parts.
    pub fn query(&self) -> String {
        let on = |yes: bool, text: &'static str| if yes { text } else { "" };
        let deprecated_inputs = on(self.input_value_deprecation, "(includeDeprecated: true)");
        let deprecated_directive_args = on(self.directive_args_deprecation, "(includeDeprecated: true)");
        let mut query = String::with_capacity(1_500);
        query.push_str("query IntrospectionQuery {\n  __schema {\n");
        query.push_str(on(self.schema_description, "    description\n"));
        query.push_str(
            "    queryType { name }\n    mutationType { name }\n    subscriptionType { name }\n    types { ...FullType }\n",
        );
        let repeatable = on(self.directive_is_repeatable, " isRepeatable");
        query.push_str(&format!(
            "    directives {{ name description{repeatable} locations args{deprecated_directive_args} {{ ...InputValue }} }}\n  }}\n}}\n\n"
        ));
        let specified_by = self.specified_by.as_deref().map(|name| format!(" {name}")).unwrap_or_default();
        let one_of = on(self.is_one_of, " isOneOf");
        query.push_str(&format!(
            "fragment FullType on __Type {{\n  kind name description{specified_by}{one_of}\n  \
             fields(includeDeprecated: true) {{ name description args{deprecated_inputs} {{ ...InputValue }} type {{ ...TypeRef }} isDeprecated deprecationReason }}\n  \
             inputFields{deprecated_inputs} {{ ...InputValue }}\n  interfaces {{ ...TypeRef }}\n  \
             enumValues(includeDeprecated: true) {{ name description isDeprecated deprecationReason }}\n  \
             possibleTypes {{ ...TypeRef }}\n}}\n\n"
        ));
        let input_deprecation = on(self.input_value_deprecation, " isDeprecated deprecationReason");
        query.push_str(&format!(
            "fragment InputValue on __InputValue {{ name description type {{ ...TypeRef }} defaultValue{input_deprecation} }}\n\n"
        ));
        query.push_str("fragment TypeRef on __Type { kind name");
        for _ in 0..TYPE_REF_DEPTH {
            query.push_str(" ofType { kind name");
        }
        for _ in 0..=TYPE_REF_DEPTH {
            query.push_str(" }");
        }
        query.push('\n');
        query
    }
}
