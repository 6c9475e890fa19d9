//! The sandbox's data: tables of records, generated from a seed, changed by validated mutations.

mod generate;
pub mod inputs;
pub mod model;
mod mutate;
mod names;
mod table;

use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

pub use generate::generate;
pub use model::*;
pub use mutate::{Change, Invalid};
pub use table::{MAX_PAGE_SIZE, Page, PageArgError, PageRequest, Table, global_id, paginate};

/// Every table of the sandbox.
#[derive(Debug, Default)]
pub struct Db {
    pub users: Table<UserRec>,
    pub groups: Table<GroupRec>,
    pub trainings: Table<TrainingRec>,
    pub progress: Table<ProgressRec>,
    pub certificates: Table<CertificateRec>,
    pub module_groups: Table<ModuleGroupRec>,
    pub offers: Table<OfferRec>,
    pub enrollments: Table<EnrollmentRec>,
    pub extra_categories: Table<ExtraCategoryRec>,
    /// Mutations committed since the start (what tests count to prove nothing ran twice).
    pub commits: u64,
    /// Requests that created several users at once (the nested variant's `userBulkCreate`).
    pub batches: u64,
}

impl Db {
    /// Seats of an offer taken by enrollments.
    pub fn seats_taken(&self, offer: Seq) -> i32 {
        let taken = self.enrollments.iter().filter(|e| e.offer == offer && e.status.takes_seat()).count();
        i32::try_from(taken).unwrap_or(i32::MAX)
    }
}

/// The database shared by the request handlers: many readers or one writer.
#[derive(Debug, Default)]
pub struct SharedDb(RwLock<Db>);

impl SharedDb {
    /// Wraps a database.
    pub fn new(db: Db) -> Self {
        SharedDb(RwLock::new(db))
    }

    /// Reads. A panic in another handler does not make the data unreadable.
    pub fn read(&self) -> RwLockReadGuard<'_, Db> {
        self.0.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes.
    pub fn write(&self) -> RwLockWriteGuard<'_, Db> {
        self.0.write().unwrap_or_else(PoisonError::into_inner)
    }
}
