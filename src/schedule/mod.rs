//! Scheduled deliveries (issue 53): an export delivered on a schedule to a folder, a file, a
//! Windows share or an SFTP server, registered with the system's own scheduler (Task
//! Scheduler, a systemd user timer, the person's crontab, a LaunchAgent), run unattended, whole
//! or nothing, every run recorded in orgql's database.
//!
//! The parts: [`when`] the times a schedule runs at; [`entry`] the scheduler's entry as text
//! (the four formats) and [`register`] putting it in place; [`definition`] a schedule as kept
//! and where it delivers; [`deliver`] one delivery; [`runs`] a run as the scheduler starts it
//! (one at a time, recorded); [`sftp`] the SFTP client; [`manage`] the steps of keeping schedules
//! the command line and the app share.

pub mod definition;
pub mod deliver;
pub mod entry;
pub mod manage;
pub mod register;
pub mod runs;
pub mod sftp;
pub mod when;
