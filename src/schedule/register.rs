//! STUB
use super::entry::Job;
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheduler {
    TaskScheduler,
    Systemd,
    Cron,
    Launchd,
}
impl Scheduler {
    pub fn native() -> Scheduler {
        Scheduler::Cron
    }
    pub fn parse(_s: &str) -> Option<Scheduler> {
        None
    }
    pub fn name(&self) -> &'static str {
        "cron"
    }
    pub fn entry_text(&self, _job: &Job) -> String {
        String::new()
    }
}
pub struct Registered {
    pub scheduler: Scheduler,
    pub notes: Vec<String>,
}
pub fn register(_s: Scheduler, _job: &Job) -> Result<Registered, String> {
    Err(String::new())
}
pub fn unregister(_s: Scheduler, _name: &str) -> Result<bool, String> {
    Ok(false)
}
