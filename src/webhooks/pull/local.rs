//! The local side of a pull, shared by the one-off [`super::pull`] and the long-running
//! [`super::attach`]: the store written to, the local signature check, and the storing of one
//! event. Every delivery is committed together with the remote's checkpoint, in one transaction
//! ([`Store::add_pulled_deliveries`]): the checkpoint never runs ahead of what is on disk, and a
//! delivery offered twice is copied once. Signatures are verified locally when a secret is given
//! (against the time the delivery was received, so that a delivery pulled hours later is judged
//! as on arrival); without one the remote's verdict is kept.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use super::client::{PullError, RemoteEvent};
use crate::secret::Secret;
use crate::store::{NewDelivery, Pulled, Store, StoreError};
use crate::webhooks::scheme::Scheme;
use crate::webhooks::verify::{Verification, verify};

/// The organisation's scheme and secret, to verify pulled deliveries locally.
#[derive(Clone)]
pub struct LocalCheck {
    /// The scheme.
    pub scheme: Scheme,
    /// The secret (never leaves this process).
    pub secret: Secret,
}

impl LocalCheck {
    pub(super) fn apply(&self, delivery: &mut NewDelivery) {
        match verify(
            &self.scheme,
            self.secret.expose(),
            &delivery.headers,
            &delivery.body,
            delivery.received_at.timestamp(),
        ) {
            Verification::Verified => {
                delivery.verified = Some(true);
                delivery.reason.clear();
            }
            Verification::Failed(reason) => {
                delivery.verified = Some(false);
                delivery.reason = reason.to_string();
            }
        }
    }
}

/// The local store a pull writes to, shared with its blocking writes.
#[derive(Clone)]
pub(super) struct LocalStore(Arc<Mutex<Store>>);

impl LocalStore {
    pub(super) async fn open(path: PathBuf) -> Result<Self, PullError> {
        let error_path = path.clone();
        let store = tokio::task::spawn_blocking(move || Store::open(&path))
            .await
            .map_err(|e| StoreError { path: error_path, reason: e.to_string() })??;
        Ok(LocalStore(Arc::new(Mutex::new(store))))
    }

    pub(super) async fn with<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, PullError> {
        let store = self.0.clone();
        let path = self.0.lock().unwrap_or_else(PoisonError::into_inner).path().to_path_buf();
        tokio::task::spawn_blocking(move || work(&store.lock().unwrap_or_else(PoisonError::into_inner)))
            .await
            .map_err(|e| PullError::Store(StoreError { path, reason: e.to_string() }))?
            .map_err(PullError::Store)
    }
}

/// What a pull did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PullReport {
    /// Deliveries copied.
    pub pulled: u64,
    /// Deliveries offered that the store had already.
    pub already_had: u64,
    /// Holes the relay reported.
    pub gaps: Vec<(String, String)>,
    /// Events that were not deliveries orgql could read, each said in one sentence.
    pub unreadable: Vec<String>,
}

pub(super) fn count(report: &mut PullReport, outcomes: &[Pulled]) {
    for outcome in outcomes {
        match outcome {
            Pulled::Stored(_) => report.pulled += 1,
            Pulled::AlreadyHad(_) => report.already_had += 1,
        }
    }
}

/// Stores one event; returns the local id of a delivery copied now.
pub(super) async fn handle(
    store: &LocalStore,
    source: &str,
    check: Option<&LocalCheck>,
    event: RemoteEvent,
    report: &mut PullReport,
) -> Result<Option<i64>, PullError> {
    match event {
        RemoteEvent::Delivery { remote_id, resumable, mut delivery } => {
            if let Some(check) = check {
                check.apply(&mut delivery);
            }
            let key = source.to_owned();
            let outcome = store.with(move |s| s.add_pulled_delivery(&key, &remote_id, &delivery, resumable)).await?;
            count(report, &[outcome]);
            Ok(match outcome {
                Pulled::Stored(id) => Some(id),
                Pulled::AlreadyHad(_) => None,
            })
        }
        RemoteEvent::Gap { after, oldest } => {
            let (key, a, o) = (source.to_owned(), after.clone(), oldest.clone());
            store.with(move |s| s.add_pull_gap(&key, &a, &o)).await?;
            report.gaps.push((after, oldest));
            Ok(None)
        }
        RemoteEvent::Ready => Ok(None),
        RemoteEvent::Unreadable(reason) => {
            report.unreadable.push(reason);
            Ok(None)
        }
    }
}
