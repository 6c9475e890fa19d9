//! The import's and the card's walks (`tests/it/django.rs`) on each convention server: the HR
//! file planned, applied and read back (every learner as the file says and saved exactly once,
//! nothing else moved, the refusal in the service's words at its column) and undone exactly; the
//! card's rename, e-mail, archive and activate each changing exactly that field.

use crate::django::{Find, card_walk, hr_file_walk};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_hr_file_lands_exactly_on_a_result_union_service() {
    hr_file_walk(&super::result_union::start(120)).await;
}

#[test]
fn the_card_changes_exactly_the_field_asked_on_a_result_union_service() {
    card_walk(&super::result_union::start(30), Find::Email);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_hr_file_lands_exactly_on_a_hot_chocolate_service() {
    hr_file_walk(&super::hot_chocolate::start(120)).await;
}

#[test]
fn the_card_changes_exactly_the_field_asked_on_a_hot_chocolate_service() {
    card_walk(&super::hot_chocolate::start(30), Find::Email);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_hr_file_lands_exactly_on_a_postgraphile_service() {
    hr_file_walk(&super::postgraphile::start(120)).await;
}

#[test]
fn the_card_changes_exactly_the_field_asked_on_a_postgraphile_service() {
    card_walk(&super::postgraphile::start(30), Find::Email);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_hr_file_lands_exactly_on_a_hasura_service() {
    hr_file_walk(&super::hasura::start(120)).await;
}

#[test]
fn the_card_changes_exactly_the_field_asked_on_a_hasura_service() {
    card_walk(&super::hasura::start(30), Find::Email);
}
