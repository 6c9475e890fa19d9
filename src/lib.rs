//! orgql: a native desktop explorer for an organization-scoped GraphQL learning-platform API
//! (users, trainings, events, groups, extra categories), with a local sandbox of the service.

pub mod api;
pub mod chart;
pub mod cli;
pub mod codegen;
pub mod explorer;
pub mod export;
pub mod import;
pub mod net;
pub mod operation_check;
pub mod operations;
pub mod platform;
pub mod profiles;
pub mod query;
pub mod sandbox;
pub mod schedule;
pub mod schema_diff;
pub mod scopes;
pub mod secret;
pub mod serve;
pub mod shape;
pub mod store;
pub mod support;
pub mod table;
pub mod timing;
pub mod ui;
pub mod webhooks;
pub mod worker;
