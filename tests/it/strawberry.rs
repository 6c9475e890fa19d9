//! orgql against the other Django stack (issue 39): `tests/strawberry_service`, Django +
//! django-oauth-toolkit + strawberry-graphql-django in that library's documented shapes — a
//! relay `Node` type, a connection with `count` filtered through `filters: {email: {exact: …}}`
//! lookups, and mutations made with `handle_django_errors=True`, each answering a union
//! `User | OperationInfo` (a refusal is data: `messages { kind message field code }`);
//! `updateUser(data: UserPartialInput!)` is a partial input named by its required relay
//! `id: ID!`. The same walks as on the graphene-django service (`tests/it/django.rs`).
//!
//! The service runs as a real process (its own Python, `.ci/run` installs it into a venv with
//! pip). Where it cannot be installed, each test says so and passes without running;
//! `ORGQL_STRAWBERRY_REQUIRED=1` (set by `.ci/run`) makes a missing service a failure.

use crate::django::{Django, Find, Stack, card_walk, hr_file_walk, killed_walk};

fn start(users: usize) -> Option<Django> {
    Django::start_stack(Stack::Strawberry, users, &[])
}

/// The Done-when walk: the HR file (joiners, department changes among null and empty
/// ones, e-mail changes, leavers, an address the model refuses) planned, applied and read back —
/// every learner as the file says and saved exactly once, nothing else moved, the refusal in
/// the results in the service's words (`Enter a valid email address.`) at its column — and
/// undone exactly, nulls and empties included, the joiners archived.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_hr_file_lands_exactly_on_the_strawberry_django_service_and_its_undo_gives_everything_back() {
    let Some(service) = start(120) else { return };
    hr_file_walk(&service).await;
}

/// The card on the Strawberry-Django service: found by e-mail (typed in capitals: its `iExact`
/// lookup), rename, e-mail, archive and activate each change exactly that field.
#[test]
fn the_card_changes_exactly_the_field_asked_on_the_strawberry_django_service() {
    let Some(service) = start(30) else { return };
    card_walk(&service, Find::EmailInCapitals);
}

/// An apply killed (SIGKILL) a fifth of the way and resumed: every row applied exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_apply_killed_on_the_strawberry_django_service_resumes_and_applies_every_row_once() {
    let Some(service) = start(120) else { return };
    killed_walk(&service, "filters: { name: { startsWith: \"Renamed \" } }").await;
}
