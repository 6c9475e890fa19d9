//! Deterministic generated data: the same seed and user count give the same records.

use chrono::{DateTime, Duration, TimeZone, Utc};
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::names::{DEPARTMENTS, FIRST, GROUP_WORDS, LAST, LOCATIONS, MODULE_WORDS, TOPICS, TRICKY};
use super::table::global_id;
use super::*;

/// Builds a database of `users` users and the groups, trainings, progress, certificates,
/// module groups, offers, enrollments and extra categories around them.
pub fn generate(users: usize, seed: u64) -> Db {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut db = Db::default();
    let epoch = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).single().unwrap_or_default();

    extra_categories(&mut db);
    let group_count = (users / 20).clamp(5, 500);
    for i in 0..group_count {
        let name = match i {
            1 => "R&D, \"Core\"".to_owned(),
            _ => format!(
                "{} {}",
                GROUP_WORDS[i % GROUP_WORDS.len()],
                LOCATIONS[(i / GROUP_WORDS.len()) % LOCATIONS.len()]
            ),
        };
        db.groups.insert(|seq| GroupRec {
            seq,
            id: global_id("Group", seq),
            ref_: format!("g{:04}", i + 1),
            name,
            members: Vec::new(),
            managers: Vec::new(),
        });
    }
    for i in 0..users {
        user(&mut db, &mut rng, i, group_count, epoch);
    }
    trainings(&mut db, &mut rng, (users / 20).clamp(10, 200));
    progress(&mut db, &mut rng, epoch);
    events(&mut db, &mut rng, epoch);
    db
}

fn extra_categories(db: &mut Db) {
    let categories: [(&str, &str, &[&str]); 3] = [
        ("department", "Department", DEPARTMENTS),
        ("location", "Location", LOCATIONS),
        ("cost-center", "Cost center", &[]),
    ];
    for (ref_, name, values) in categories {
        db.extra_categories.insert(|seq| ExtraCategoryRec {
            seq,
            id: global_id("ExtraCategory", seq),
            ref_: ref_.to_owned(),
            name: name.to_owned(),
            allowed_values: values.iter().map(|v| (*v).to_owned()).collect(),
        });
    }
}

fn user(db: &mut Db, rng: &mut ChaCha8Rng, i: usize, group_count: usize, epoch: DateTime<Utc>) {
    let number = i + 1;
    let first = *FIRST.choose(rng).unwrap_or(&"Anna");
    let last = *LAST.choose(rng).unwrap_or(&"Smith");
    let (name, email) = match TRICKY.get(i % 50) {
        Some(tricky) => ((*tricky).to_owned(), format!("user.{number}@example.org")),
        None => {
            (format!("{first} {last}"), format!("{}.{}.{number}@example.com", ascii_lower(first), ascii_lower(last)))
        }
    };
    let mut roles = vec![Role::Learner];
    if rng.random_bool(0.1) {
        roles.push(Role::Manager);
    }
    if rng.random_bool(0.05) {
        roles.push(Role::Author);
    }
    if i == 0 || rng.random_bool(0.01) {
        roles.push(Role::Admin);
    }
    let created_at = epoch + Duration::minutes(i as i64 * 7 + rng.random_range(0..7));
    let updated_at = created_at + Duration::days(rng.random_range(0..300));
    let extra = vec![
        ExtraValue { category: 1, value: Some(DEPARTMENTS[rng.random_range(0..DEPARTMENTS.len())].to_owned()) },
        ExtraValue { category: 2, value: Some(LOCATIONS[rng.random_range(0..LOCATIONS.len())].to_owned()) },
        ExtraValue {
            category: 3,
            value: rng.random_bool(0.8).then(|| format!("CC-{:04}", rng.random_range(1000..10_000))),
        },
    ];
    let is_active = rng.random_bool(0.9);
    let seq = db
        .users
        .insert(|seq| UserRec {
            seq,
            id: global_id("User", seq),
            ref_: format!("u{number:05}"),
            name,
            email,
            is_active,
            roles,
            groups: Vec::new(),
            extra,
            created_at,
            updated_at,
        })
        .seq;
    let memberships = rng.random_range(1..=3);
    let manager = db.users.by_seq(seq).is_some_and(|u| u.roles.contains(&Role::Manager));
    for _ in 0..memberships {
        let group = rng.random_range(1..=group_count as Seq);
        mutate::join(db, group, seq, manager);
    }
}

fn ascii_lower(word: &str) -> String {
    word.chars()
        .map(|c| match c {
            'ü' => 'u',
            'ö' => 'o',
            'ä' => 'a',
            c => c.to_ascii_lowercase(),
        })
        .filter(char::is_ascii_alphanumeric)
        .collect()
}

fn trainings(db: &mut Db, rng: &mut ChaCha8Rng, count: usize) {
    for i in 0..count {
        let topic = TOPICS[i % TOPICS.len()];
        let round = i / TOPICS.len();
        let title = if round == 0 { topic.to_owned() } else { format!("{topic} {}", round + 1) };
        let kind = if rng.random_bool(0.4) { TrainingKind::LearningJourney } else { TrainingKind::Course };
        let module_count = if kind == TrainingKind::Course { 1 } else { rng.random_range(3..=6) };
        let ref_ = format!("t{:03}", i + 1);
        let modules = (0..module_count)
            .map(|m| ModuleRec {
                id: global_id("Module", (i * 10 + m) as Seq + 1),
                ref_: format!("{ref_}-m{}", m + 1),
                title: format!("{}: {}", MODULE_WORDS[m % MODULE_WORDS.len()], topic),
                position: m as i32 + 1,
            })
            .collect();
        let grants_certificate = rng.random_bool(0.5);
        let description =
            (i % 4 != 3).then(|| format!("What every colleague should know about {}.", topic.to_lowercase()));
        db.trainings.insert(|seq| TrainingRec {
            seq,
            id: global_id("Training", seq),
            ref_,
            title,
            kind,
            description,
            is_archived: i % 13 == 12,
            grants_certificate,
            modules,
        });
    }
}

fn progress(db: &mut Db, rng: &mut ChaCha8Rng, epoch: DateTime<Utc>) {
    let trainings: Vec<(Seq, String, bool)> =
        db.trainings.iter().map(|t| (t.seq, t.ref_.clone(), t.grants_certificate)).collect();
    let users: Vec<(Seq, String)> = db.users.iter().map(|u| (u.seq, u.ref_.clone())).collect();
    for (user, user_ref) in users {
        let count = rng.random_range(0..=3);
        for (training, training_ref, grants) in trainings.choose_multiple(rng, count) {
            let percent = *[0, 10, 25, 50, 75, 90, 100, 100].choose(rng).unwrap_or(&0);
            let completed_at = (percent == 100).then(|| epoch + Duration::hours(rng.random_range(24..8000)));
            db.progress.insert(|seq| ProgressRec {
                seq,
                key: progress_key(&user_ref, training_ref),
                user,
                training: *training,
                percent,
                completed_at,
            });
            if let (Some(issued_at), true) = (completed_at, *grants) {
                db.certificates.insert(|seq| CertificateRec {
                    seq,
                    id: global_id("Certificate", seq),
                    ref_: format!("c{seq:05}"),
                    user,
                    training: *training,
                    issued_at,
                    expires_at: (seq % 3 == 0).then(|| issued_at + Duration::days(730)),
                });
            }
        }
    }
}

fn events(db: &mut Db, rng: &mut ChaCha8Rng, epoch: DateTime<Utc>) {
    let trainings: Vec<(Seq, String)> = db.trainings.iter().map(|t| (t.seq, t.title.clone())).collect();
    let user_count = db.users.len() as Seq;
    for (i, (training, title)) in trainings.iter().enumerate() {
        if i % 2 == 1 {
            continue;
        }
        let mg = db
            .module_groups
            .insert(|seq| ModuleGroupRec {
                seq,
                id: global_id("ModuleGroup", seq),
                ref_: format!("mg{:03}", seq),
                title: format!("{title} (classroom)"),
                training: (i % 6 != 4).then_some(*training),
            })
            .seq;
        for o in 0..rng.random_range(1..=3) {
            let starts_at = epoch + Duration::days(rng.random_range(30..600)) + Duration::hours(9);
            let capacity = rng.random_range(8..=24);
            let location = (o % 3 != 2).then(|| LOCATIONS[rng.random_range(0..LOCATIONS.len())].to_owned());
            let offer = db
                .offers
                .insert(|seq| OfferRec {
                    seq,
                    id: global_id("Offer", seq),
                    ref_: format!("o{seq:04}"),
                    title: format!("{title}, session {}", o + 1),
                    module_group: mg,
                    starts_at,
                    ends_at: starts_at + Duration::hours(rng.random_range(2..=8)),
                    location,
                    capacity,
                })
                .seq;
            if user_count == 0 {
                continue;
            }
            let mut enrolled = Vec::new();
            for _ in 0..rng.random_range(0..=capacity + 3) {
                let user = rng.random_range(1..=user_count);
                if enrolled.contains(&user) {
                    continue;
                }
                enrolled.push(user);
                let taken = db.seats_taken(offer);
                let status = match rng.random_range(0..10) {
                    0 => EnrollmentStatus::Requested,
                    1 => EnrollmentStatus::Cancelled,
                    2 if taken < capacity => EnrollmentStatus::Attended,
                    3 if taken < capacity => EnrollmentStatus::NoShow,
                    _ if taken < capacity => EnrollmentStatus::Confirmed,
                    _ => EnrollmentStatus::Waitlisted,
                };
                db.enrollments.insert(|seq| EnrollmentRec {
                    seq,
                    id: global_id("Enrollment", seq),
                    ref_: format!("e{seq:05}"),
                    user,
                    offer,
                    status,
                    updated_at: starts_at - Duration::days(rng.random_range(1..30)),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_data() {
        let a = generate(120, 7);
        let b = generate(120, 7);
        let names =
            |db: &Db| db.users.iter().map(|u| (u.name.clone(), u.email.clone(), u.groups.clone())).collect::<Vec<_>>();
        assert_eq!(names(&a), names(&b));
        assert_eq!(a.enrollments.len(), b.enrollments.len());
        assert_ne!(names(&a), names(&generate(120, 8)));
    }

    #[test]
    fn every_fifty_users_hold_each_tricky_name() {
        let db = generate(50, 1);
        for needle in [",", "\"", "\n", "张", "🚀", "=", "+", "-", "@"] {
            assert!(db.users.iter().any(|u| u.name.contains(needle)), "no name with {needle:?}");
        }
        for lead in ['=', '+', '-', '@', '\t'] {
            assert!(db.users.iter().any(|u| u.name.starts_with(lead)), "no name starting with {lead:?}");
        }
    }

    #[test]
    fn relations_point_both_ways() {
        let db = generate(200, 3);
        for user in db.users.iter() {
            for g in &user.groups {
                assert!(db.groups.by_seq(*g).is_some_and(|g| g.members.contains(&user.seq)));
            }
        }
        for offer in db.offers.iter() {
            assert!(db.seats_taken(offer.seq) <= offer.capacity);
        }
    }
}
