//! The UI's way to the worker: features send their own commands through it and take job ids
//! from it; a command the worker could not take becomes one sentence above the work.

use crate::worker::{Command, JobId, JobIds, Worker};

/// The worker's queue as the features see it, with the one allocator of job ids.
pub struct Commands {
    worker: Worker,
    jobs: JobIds,
    /// Sentences of commands the worker did not take, until the app shows them.
    refused: Vec<String>,
}

impl Commands {
    /// Commands for `worker`.
    pub fn new(worker: Worker) -> Self {
        Commands { worker, jobs: JobIds::default(), refused: Vec::new() }
    }

    /// A new job id.
    pub fn job(&mut self) -> JobId {
        self.jobs.allocate()
    }

    /// Hands `command` to the worker; when it cannot take it, says so once (the app shows it).
    pub fn send(&mut self, command: impl Into<Command>) {
        if let Err(e) = self.worker.send(command) {
            self.refused.push(e.to_string());
        }
    }

    /// Cancels `job`.
    pub fn cancel(&mut self, job: JobId) {
        self.send(Command::Cancel(job));
    }

    /// The sentences of refused commands, taken.
    pub fn take_refused(&mut self) -> Vec<String> {
        std::mem::take(&mut self.refused)
    }
}
