//! Scheduled deliveries of exports (`orgql schedule`, issue 53).

pub mod sftp;
