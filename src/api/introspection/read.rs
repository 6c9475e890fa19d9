//! Lenient types for an introspection result: kinds, locations and other enum-like values are
//! kept as text, every list and description may be missing or null, unknown keys are ignored.
//! What they mean is decided later (`sdl/`), where what cannot be read is skipped and said.

use serde::{Deserialize, Deserializer};

/// `null` read as the default (an empty list), like a missing key.
fn nullable<'de, D: Deserializer<'de>, T: Default + Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// A whole response, `{"data": {"__schema": …}, "errors": […]}`.
#[derive(Deserialize)]
pub(super) struct RawResponse {
    #[serde(default)]
    pub data: Option<RawData>,
    #[serde(default, deserialize_with = "nullable")]
    pub errors: Vec<crate::api::GraphQlError>,
}

/// The `data` of the response.
#[derive(Deserialize)]
pub(super) struct RawData {
    #[serde(rename = "__schema")]
    pub schema: Option<RawSchema>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub(super) struct RawSchema {
    pub description: Option<String>,
    pub query_type: Option<RawName>,
    pub mutation_type: Option<RawName>,
    pub subscription_type: Option<RawName>,
    #[serde(deserialize_with = "nullable")]
    pub types: Vec<RawType>,
    #[serde(deserialize_with = "nullable")]
    pub directives: Vec<RawDirective>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawName {
    pub name: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub(super) struct RawType {
    pub kind: Option<String>,
    pub name: Option<String>,
    pub description: Option<String>,
    #[serde(rename = "specifiedByURL", alias = "specifiedByUrl")]
    pub specified_by_url: Option<String>,
    pub is_one_of: Option<bool>,
    #[serde(deserialize_with = "nullable")]
    pub fields: Vec<RawField>,
    #[serde(deserialize_with = "nullable")]
    pub input_fields: Vec<RawInputValue>,
    #[serde(deserialize_with = "nullable")]
    pub interfaces: Vec<RawTypeRef>,
    #[serde(deserialize_with = "nullable")]
    pub enum_values: Vec<RawEnumValue>,
    #[serde(deserialize_with = "nullable")]
    pub possible_types: Vec<RawTypeRef>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub(super) struct RawField {
    pub name: Option<String>,
    pub description: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub args: Vec<RawInputValue>,
    #[serde(rename = "type")]
    pub ty: Option<RawTypeRef>,
    pub is_deprecated: Option<bool>,
    pub deprecation_reason: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub(super) struct RawInputValue {
    pub name: Option<String>,
    pub description: Option<String>,
    #[serde(rename = "type")]
    pub ty: Option<RawTypeRef>,
    pub default_value: Option<String>,
    pub is_deprecated: Option<bool>,
    pub deprecation_reason: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub(super) struct RawEnumValue {
    pub name: Option<String>,
    pub description: Option<String>,
    pub is_deprecated: Option<bool>,
    pub deprecation_reason: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub(super) struct RawTypeRef {
    pub kind: Option<String>,
    pub name: Option<String>,
    pub of_type: Option<Box<RawTypeRef>>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub(super) struct RawDirective {
    pub name: Option<String>,
    pub description: Option<String>,
    pub is_repeatable: Option<bool>,
    #[serde(deserialize_with = "nullable")]
    pub locations: Vec<String>,
    #[serde(deserialize_with = "nullable")]
    pub args: Vec<RawInputValue>,
}

/// The deprecation of an element: `None` when not deprecated, `Some(None)` without a reason.
pub(super) fn deprecation(is_deprecated: Option<bool>, reason: Option<String>) -> Option<Option<String>> {
    // A reason without the flag (a server that omits it) still marks the element deprecated.
    match (is_deprecated, reason) {
        (Some(false), _) => None,
        (Some(true), reason) => Some(reason),
        (None, Some(reason)) => Some(Some(reason)),
        (None, None) => None,
    }
}
