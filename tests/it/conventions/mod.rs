//! Small in-process services, one for each way of saying "done" and "refused" that no library
//! installable here serves (issue 39), each in its convention's exact shape and otherwise the
//! same service: the spec's `user(ref:)` and `paginatedUsers` (with `count`, `pageInfo`, edge
//! cursors, pages of at most 50), the OAuth token endpoint, the graphene-django service's
//! learners, and a count of each learner's saves (`revision`) so that a test tells a change
//! applied exactly once.
//!
//! - [`result_union`]: "errors as data" result unions — `updateUser(id:, input:):
//!   UpdateUserResult = UpdateUserSuccess | ValidationError | NotFoundError`;
//! - [`hot_chocolate`]: Hot Chocolate's mutation conventions — one `input` a mutation, a payload
//!   `{ user errors: [UpdateUserError!] }`, the error a union of types implementing
//!   `Error { message }`;
//! - [`postgraphile`]: PostGraphile's nested `updateUser(input: { id, patch: { … } })` and
//!   `createUser(input: { user: { … } })`, refusals as GraphQL errors;
//! - [`hasura`]: Hasura's `update_users_by_pk(pk_columns: { id }, _set: { … })` and
//!   `insert_users_one(object:)`, refusals as GraphQL errors.
//!
//! Each runs on its own thread and runtime, as a separate process would, so that tests drive it
//! from the app's runtime, the command line, or their own.

pub mod hasura;
pub mod hot_chocolate;
pub mod postgraphile;
pub mod result_union;
mod server;
mod store;
mod walks;
