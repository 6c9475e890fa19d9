//! Quick find for support staff (no egui): what was typed (a ref, an email or a name) becomes
//! the right query, with the typed text only ever as a variable; the answer becomes a typed
//! [`UserCard`] or a [`MatchList`] to pick from; the changes support staff make (activate,
//! archive, edit name and email, group membership) are typed [`SupportAction`]s, each needing
//! the scope the contract names, and the service's validation errors come back as one
//! [`Refusal`] sentence each, placed at their field. Every document is built from what the
//! connection's schema has ([`Capabilities`]): the spec guarantees only a few user fields.

mod action;
mod capabilities;
mod change;
mod group_card;
mod lookup;
mod queries;
mod refusal;
mod run;
mod sections;
mod user;

#[cfg(test)]
mod tests;

pub use action::{SupportAction, UserEdit};
pub use capabilities::{
    Arg, ByRef, Call, Capabilities, GroupSearch, GroupsField, Mutations, PAGE_SIZE, Supply, UsersField,
};
pub use group_card::{GroupCard, GroupQuery};
pub use lookup::{Lookup, name_matches, nobody};
pub use queries::{EMAIL_MATCHES, GROUP_CHOICES};
pub use refusal::{Refusal, RefusedField, refusals};
pub use run::{Found, NAME_MATCHES, NAME_SCAN_PAGES, SupportError, SupportReply, SupportRequest, answer, scan_extent};
pub use sections::{ALL_ROWS, Choice, SECTION_PAGE, SectionInfo, SectionPage, SectionRow, UserKeys};
pub use user::{ExtraField, GroupRef, MatchList, Moment, Offers, UserCard, UserState, UserSummary, one_line};
