//! What differs between the systems orgql runs on (issue 38): stop signals ([`signal`]), files
//! private to the person ([`private`]), giving back the start's memory ([`resident`]), text made
//! safe for a terminal ([`terminal`]) and the UI-thread check ([`ui_thread`]).

pub mod private;
pub mod resident;
pub mod signal;
pub mod terminal;
pub mod ui_thread;
