//! The import's requests, in two parts: [`reading`] the current users (by ref look-up, or one
//! paged scan when that is fewer requests) and the keys of the service's lists of entries, and
//! [`sending`] one row's mutations (or a bulk creation), built from the mutations' shapes
//! (`super::target::Target`) and read back. Sending reads a user again where it must; reading
//! knows nothing of sending.

pub mod reading;
pub mod sending;

pub use reading::{Found, Reading, look_up, look_up_many, read_entry_keys, read_users};
pub use sending::{Outcome, send, send_batch, still_to_send};
