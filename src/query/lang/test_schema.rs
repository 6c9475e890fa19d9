//! A trimmed version of the sandbox's schema for the tests of validation and completion.

use apollo_compiler::Schema;
use apollo_compiler::validation::Valid;

/// The schema's SDL: a users connection, a user by ref, an enum with a deprecated value, input
/// objects and mutations, deprecated fields, arguments and input fields.
pub(crate) const SDL: &str = r#"
"The root of every read."
type Query {
  "Users of the organization, a page at a time. Needs the users.read scope."
  users(
    "How many users a page holds."
    first: Int
    after: String
    filter: UserFilter
    orderBy: UserOrder @deprecated(reason: "Results are always ordered by ref")
  ): UserConnection!
  "One user by ref."
  user(ref: String!): User
  groups(first: Int, after: String): GroupConnection!
}

type Mutation {
  "Creates a user."
  createUser(input: CreateUserInput!): User!
  archiveUser(ref: String!): User!
}

type UserConnection {
  edges: [UserEdge!]!
  pageInfo: PageInfo!
  count: Int!
}

type UserEdge {
  cursor: String!
  node: User!
}

type PageInfo {
  hasNextPage: Boolean!
  endCursor: String
}

"A person in the organization."
type User {
  ref: String!
  "The work email address."
  email: String!
  firstName: String
  lastName: String
  fullName: String @deprecated(reason: "Use firstName and lastName")
  status: UserStatus!
  isActive: Boolean!
  groups(first: Int): GroupConnection!
}

type GroupConnection {
  edges: [GroupEdge!]!
  pageInfo: PageInfo!
}

type GroupEdge {
  cursor: String!
  node: Group!
}

type Group {
  id: ID!
  name: String!
}

enum UserStatus {
  ACTIVE
  "Archived users cannot sign in."
  ARCHIVED
  PENDING @deprecated(reason: "Invitations are accepted at once now")
}

enum UserOrder {
  REF
  EMAIL
}

input UserFilter {
  status: UserStatus
  groupName: String
  "Matches ref, email or name."
  search: String
  active: Boolean @deprecated(reason: "Use status")
}

input CreateUserInput {
  email: String!
  firstName: String!
  lastName: String!
  status: UserStatus = ACTIVE
  groupRefs: [String!]
}
"#;

/// The schema, validated.
pub(crate) fn schema() -> Valid<Schema> {
    match Schema::parse_and_validate(SDL, "schema.graphql") {
        Ok(schema) => schema,
        Err(error) => panic!("{error}"),
    }
}
