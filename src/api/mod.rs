//! The client of the spec (no egui): tokens, GraphQL over HTTP, typed errors, every page of a
//! connection, and what a request is doing while it waits.

mod activity;
mod body;
mod client;
mod error;
mod guard;
mod introspection;
mod outline;
pub(crate) mod pages;
mod token;
mod token_http;

pub use activity::{Activity, RetryCause, wait_text};
pub use client::{Client, ClientOptions, Exchange, GraphQlRequest, GraphQlResponse};
pub use error::{ApiError, GraphQlError, Location, scopes_in_message};
pub use pages::{Page, Pager};
pub use token::{Token, TokenState, TokenStore, Tokens, store_key as token_store_key};

pub use introspection::{
    CAPABILITIES_QUERY, Capabilities, Introspection, read_introspection, read_introspection_json, skipped_summary,
};

use crate::scopes::ScopeSet;
use crate::secret::Secret;

/// The base URL of an organization (`{base_url}` of the spec), without a trailing slash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseUrl(String);

/// What a connection needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Credentials {
    /// The organization's base URL.
    pub base_url: BaseUrl,
    /// The API client's id.
    pub client_id: String,
    /// The API client's secret.
    pub client_secret: Secret,
    /// The scopes to request.
    pub scopes: ScopeSet,
}
