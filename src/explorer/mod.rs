//! The schema explorer's model (no egui): a fetched schema validated with apollo-compiler, the
//! fields, arguments, enum values, descriptions, deprecations and scopes the explorer shows as
//! nodes expand, and search over every type and field name with the path to each hit.

mod info;
pub mod literal;
pub mod load;
mod model;
mod paths;
mod scope;
mod search;
pub mod synthetic;

pub use info::{EnumValueInfo, FieldInfo, InputValueInfo, TypeInfo, TypeKind};
pub use literal::Literal;
pub use model::SchemaModel;
pub use scope::scope_in_description;
pub use search::{MatchRank, SearchHit};

#[cfg(test)]
mod tests;
