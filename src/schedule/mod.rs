//! `orgql schedule` (issue 53): exports delivered at set times by the system's own scheduler.
//! [`when`] says when a schedule runs, [`entry`] writes the entry each scheduler reads (Task
//! Scheduler's XML, systemd's units, a crontab line, a launchd agent) and [`register`] hands it
//! to the scheduler of this computer, or takes it back.

pub mod entry;
pub mod register;
pub mod when;
