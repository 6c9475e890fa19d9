//! The records the sandbox keeps, one struct a resource.

use async_graphql::Enum;
use chrono::{DateTime, Utc};

/// The sequence number of a record: unique within its table, rising in creation order.
/// Cursors and relations use it.
pub type Seq = u64;

/// A user's role.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Role {
    /// Takes trainings.
    Learner,
    /// Manages groups and their members.
    Manager,
    /// Writes trainings.
    Author,
    /// Administers the organization.
    Admin,
    /// Reviews trainings before they are published: a value only the next schema has
    /// (`orgql sandbox --schema next`), the dangerous change it makes (a client that switches
    /// over every role meets one it does not know). No user has it.
    #[graphql(visible = "crate::sandbox::schema::next::is_next")]
    Reviewer,
}

/// What a training is.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TrainingKind {
    /// A journey made of several modules.
    LearningJourney,
    /// A single course.
    Course,
}

/// How far a user is through a training.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ProgressStatus {
    /// 0 percent.
    NotStarted,
    /// 1 to 99 percent.
    InProgress,
    /// 100 percent.
    Completed,
}

impl ProgressStatus {
    /// The status that a percentage means.
    pub fn of_percent(percent: i32) -> Self {
        match percent {
            i32::MIN..=0 => ProgressStatus::NotStarted,
            100..=i32::MAX => ProgressStatus::Completed,
            _ => ProgressStatus::InProgress,
        }
    }
}

/// The state of an enrollment in an offer.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum EnrollmentStatus {
    /// Asked for, not yet confirmed.
    Requested,
    /// Holds a seat.
    Confirmed,
    /// Waits for a seat.
    Waitlisted,
    /// Cancelled.
    Cancelled,
    /// Attended the offer.
    Attended,
    /// Did not come.
    NoShow,
}

impl EnrollmentStatus {
    /// Whether an enrollment in this status takes a seat of the offer.
    pub fn takes_seat(self) -> bool {
        matches!(self, EnrollmentStatus::Confirmed | EnrollmentStatus::Attended | EnrollmentStatus::NoShow)
    }
}

/// A user.
#[derive(Clone, Debug)]
pub struct UserRec {
    pub seq: Seq,
    pub id: String,
    pub ref_: String,
    pub name: String,
    pub email: String,
    pub is_active: bool,
    pub roles: Vec<Role>,
    /// Groups the user belongs to (as member or manager), by sequence number.
    pub groups: Vec<Seq>,
    pub extra: Vec<ExtraValue>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// The value of one extra category on a user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtraValue {
    pub category: Seq,
    pub value: Option<String>,
}

/// A group of users.
#[derive(Clone, Debug)]
pub struct GroupRec {
    pub seq: Seq,
    pub id: String,
    pub ref_: String,
    pub name: String,
    /// Members by sequence number, ascending.
    pub members: Vec<Seq>,
    /// Managers by sequence number, ascending (managers are members too).
    pub managers: Vec<Seq>,
}

/// A training: a learning journey or a course.
#[derive(Clone, Debug)]
pub struct TrainingRec {
    pub seq: Seq,
    pub id: String,
    pub ref_: String,
    pub title: String,
    pub kind: TrainingKind,
    pub description: Option<String>,
    pub is_archived: bool,
    pub grants_certificate: bool,
    pub modules: Vec<ModuleRec>,
}

/// A module of a training.
#[derive(Clone, Debug)]
pub struct ModuleRec {
    pub id: String,
    pub ref_: String,
    pub title: String,
    pub position: i32,
}

/// A user's progress through a training.
#[derive(Clone, Debug)]
pub struct ProgressRec {
    pub seq: Seq,
    /// [`progress_key`] of the user's and the training's refs at creation, the table's key.
    pub key: String,
    pub user: Seq,
    pub training: Seq,
    pub percent: i32,
    pub completed_at: Option<DateTime<Utc>>,
}

/// The key of a user's progress through a training: `{user ref}/{training ref}`, with `%` and `/`
/// inside a ref escaped (`%25`, `%2F`) so that `a/b` + `c` and `a` + `b/c` stay apart.
pub fn progress_key(user_ref: &str, training_ref: &str) -> String {
    let escape = |r: &str| r.replace('%', "%25").replace('/', "%2F");
    format!("{}/{}", escape(user_ref), escape(training_ref))
}

/// A certificate issued for a completed training.
#[derive(Clone, Debug)]
pub struct CertificateRec {
    pub seq: Seq,
    pub id: String,
    pub ref_: String,
    pub user: Seq,
    pub training: Seq,
    pub issued_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
}

/// A group of modules offered as events.
#[derive(Clone, Debug)]
pub struct ModuleGroupRec {
    pub seq: Seq,
    pub id: String,
    pub ref_: String,
    pub title: String,
    pub training: Option<Seq>,
}

/// A dated offer of a module group.
#[derive(Clone, Debug)]
pub struct OfferRec {
    pub seq: Seq,
    pub id: String,
    pub ref_: String,
    pub title: String,
    pub module_group: Seq,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    pub location: Option<String>,
    pub capacity: i32,
}

/// A user's enrollment in an offer.
#[derive(Clone, Debug)]
pub struct EnrollmentRec {
    pub seq: Seq,
    pub id: String,
    pub ref_: String,
    pub user: Seq,
    pub offer: Seq,
    pub status: EnrollmentStatus,
    pub updated_at: DateTime<Utc>,
}

/// A custom categorization field of users.
#[derive(Clone, Debug)]
pub struct ExtraCategoryRec {
    pub seq: Seq,
    pub id: String,
    pub ref_: String,
    pub name: String,
    /// Allowed values; empty means free text.
    pub allowed_values: Vec<String>,
}

/// A record kept in a [`super::Table`].
pub trait Record {
    /// The type name, for global ids and cursors (`User`).
    const KIND: &'static str;
    /// The record's sequence number.
    fn seq(&self) -> Seq;
    /// The record's lookup key (its `ref`).
    fn key(&self) -> &str;
}

macro_rules! record {
    ($ty:ty, $kind:literal, $key:ident) => {
        impl Record for $ty {
            const KIND: &'static str = $kind;
            fn seq(&self) -> Seq {
                self.seq
            }
            fn key(&self) -> &str {
                &self.$key
            }
        }
    };
}

record!(UserRec, "User", ref_);
record!(GroupRec, "Group", ref_);
record!(TrainingRec, "Training", ref_);
record!(ProgressRec, "Progress", key);
record!(CertificateRec, "Certificate", ref_);
record!(ModuleGroupRec, "ModuleGroup", ref_);
record!(OfferRec, "Offer", ref_);
record!(EnrollmentRec, "Enrollment", ref_);
record!(ExtraCategoryRec, "ExtraCategory", ref_);
