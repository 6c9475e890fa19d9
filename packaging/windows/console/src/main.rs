//! `orgql.com`, installed beside `orgql.exe`: what Command Prompt and PowerShell run when a
//! person types `orgql` (`.COM` comes before `.EXE` in `PATHEXT`).
//!
//! `orgql.exe` is a Windows-GUI program, so that the window opens from the Start menu with no
//! console window beside it; but a shell does not wait for a GUI program, nor report its exit
//! status. This console program runs `orgql.exe` with the same arguments and the same standard
//! input, output and error, waits for it, and exits with its status. `orgql.exe` takes this
//! console as its own (AttachConsole), so it prints here and hears Ctrl+C itself: this program
//! lets Ctrl+C and Ctrl+Break pass (the command stops as on Linux, keeping its journal) and
//! only waits. Devenv (`devenv.com` beside `devenv.exe`) works the same way.

use std::process::Command;

fn main() {
    let exe = match std::env::current_exe() {
        Ok(path) => path.with_file_name("orgql.exe"),
        Err(e) => fail(&format!("cannot tell where orgql.com is ({e}); run orgql.exe directly")),
    };
    console::let_the_command_handle_ctrl_c();
    match Command::new(&exe).args(std::env::args_os().skip(1)).status() {
        Ok(status) => std::process::exit(status.code().unwrap_or(1)),
        Err(e) => fail(&format!("cannot start {} ({e}); install orgql again", exe.display())),
    }
}

fn fail(message: &str) -> ! {
    eprintln!("orgql: {message}");
    std::process::exit(6)
}

#[cfg(windows)]
mod console {
    const CTRL_C_EVENT: u32 = 0;
    const CTRL_BREAK_EVENT: u32 = 1;

    #[link(name = "kernel32")]
    unsafe extern "system" {
        fn SetConsoleCtrlHandler(handler: Option<unsafe extern "system" fn(u32) -> i32>, add: i32) -> i32;
    }

    /// Ctrl+C and Ctrl+Break: handled (by `orgql.exe`, which gets them too); this program goes on
    /// waiting for it. Other events (the console closed, log off) take their default course.
    unsafe extern "system" fn handler(event: u32) -> i32 {
        i32::from(matches!(event, CTRL_C_EVENT | CTRL_BREAK_EVENT))
    }

    pub fn let_the_command_handle_ctrl_c() {
        // SAFETY: registers a handler function that lives as long as the program. Unlike
        // `SetConsoleCtrlHandler(NULL, TRUE)`, a handler is not inherited by orgql.exe.
        unsafe {
            SetConsoleCtrlHandler(Some(handler), 1);
        }
    }
}

#[cfg(not(windows))]
mod console {
    pub fn let_the_command_handle_ctrl_c() {}
}
