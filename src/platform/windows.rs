//! The Windows half of [`crate::platform`]. `orgql.exe` is a Windows-GUI program (no console
//! window of its own when Explorer or the Start menu starts it); for command-line use it takes
//! the console of the program that started it (packaging/README.md, "One program for the window
//! and the console").

use std::os::windows::io::IntoRawHandle as _;
use std::os::windows::process::CommandExt as _;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use windows_sys::Win32::System::Console::{
    ATTACH_PARENT_PROCESS, AttachConsole, GetStdHandle, STD_ERROR_HANDLE, STD_HANDLE, STD_INPUT_HANDLE,
    STD_OUTPUT_HANDLE, SetStdHandle,
};
use windows_sys::Win32::System::Threading::{CREATE_NEW_PROCESS_GROUP, CREATE_NO_WINDOW};

pub(super) fn program_file_name(program: &str) -> String {
    format!("{program}.exe")
}

pub(super) fn shell_command(text: &str) -> Command {
    let mut command = Command::new("cmd");
    // As typed: cmd.exe reads its own command line, not the C runtime's quoting.
    command.arg("/C").raw_arg(text);
    command
}

/// A new process group (a console's Ctrl+C does not reach it) and no console window: a tunnel
/// program started by the window would otherwise open a black console window beside it.
pub(super) fn in_own_group(command: &mut Command) {
    command.creation_flags(CREATE_NEW_PROCESS_GROUP | CREATE_NO_WINDOW);
}

/// Windows has no signal for a process group: `taskkill /T` ends the child's whole tree (a
/// `cmd /C`'s program, and the program's own children).
pub(super) fn stop_group(child: &Child) {
    let stopped = Command::new("taskkill")
        .args(["/T", "/F", "/PID", &child.id().to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .creation_flags(CREATE_NO_WINDOW)
        .status();
    if let Err(e) = stopped {
        tracing::debug!("taskkill could not stop the tunnel's process tree: {e}");
    }
}

/// No `/proc` to find a socket's process in: every loopback connection counts as the tunnel's
/// while it runs.
pub(super) fn connection_held_by_group(_peer: std::net::SocketAddr, _local: std::net::SocketAddr, _pid: u32) -> bool {
    true
}

/// Attaches to the console of the parent process (Command Prompt, PowerShell, `orgql.com`), if it
/// has one, and gives every standard stream that was not redirected (no handle) the console's
/// input or output; redirected streams (a pipe, a file) are kept as they are.
pub(super) fn attach_console() {
    // SAFETY: AttachConsole takes a process id (the parent's, by the constant) and touches no
    // memory of ours; it fails harmlessly when there is no such console or one is attached.
    if unsafe { AttachConsole(ATTACH_PARENT_PROCESS) } == 0 {
        return;
    }
    for (which, name, write) in
        [(STD_INPUT_HANDLE, "CONIN$", false), (STD_OUTPUT_HANDLE, "CONOUT$", true), (STD_ERROR_HANDLE, "CONOUT$", true)]
    {
        give_console_handle(which, name, write);
    }
}

fn give_console_handle(which: STD_HANDLE, name: &str, write: bool) {
    // SAFETY: GetStdHandle only reads the process's table of standard handles.
    let handle = unsafe { GetStdHandle(which) };
    if !handle.is_null() && handle != windows_sys::Win32::Foundation::INVALID_HANDLE_VALUE {
        return;
    }
    let Ok(console) = std::fs::OpenOptions::new().read(true).write(write).open(name) else { return };
    // The handle is given to the process's table for as long as the process lives.
    let raw = console.into_raw_handle();
    // SAFETY: `raw` is a valid handle owned by nobody else from here on.
    unsafe {
        SetStdHandle(which, raw);
    }
}

/// `SPI_GETWORKAREA` in pixels, divided by the system's scale (96 dots an inch is 1).
pub(super) fn work_area() -> Option<[f32; 2]> {
    use windows_sys::Win32::Foundation::RECT;
    use windows_sys::Win32::UI::HiDpi::GetDpiForSystem;
    use windows_sys::Win32::UI::WindowsAndMessaging::{SPI_GETWORKAREA, SystemParametersInfoW};
    let mut area = RECT { left: 0, top: 0, right: 0, bottom: 0 };
    // SAFETY: SPI_GETWORKAREA writes one RECT to the pointer given, which points to `area`.
    let done = unsafe { SystemParametersInfoW(SPI_GETWORKAREA, 0, (&raw mut area).cast(), 0) };
    // SAFETY: no arguments; the system's DPI (96 when the process is not DPI-aware yet).
    let dpi = unsafe { GetDpiForSystem() };
    let scale = if dpi == 0 { 1.0 } else { dpi as f32 / 96.0 };
    let size = [(area.right - area.left) as f32 / scale, (area.bottom - area.top) as f32 / scale];
    (done != 0 && size[0] > 0.0 && size[1] > 0.0).then_some(size)
}

/// The fonts Windows ships for the scripts egui's own fonts lack (Windows 10 and 11), best first;
/// then every other font file of `%WINDIR%\Fonts`, in name order, for what those miss.
const PREFERRED_FONTS: [&str; 16] = [
    "segoeui.ttf",  // Segoe UI: Latin, Greek, Cyrillic, Arabic, Hebrew
    "msyh.ttc",     // Microsoft YaHei: Chinese (Simplified)
    "msjh.ttc",     // Microsoft JhengHei: Chinese (Traditional)
    "yugothm.ttc",  // Yu Gothic Medium: Japanese
    "meiryo.ttc",   // Meiryo: Japanese (older Windows)
    "malgun.ttf",   // Malgun Gothic: Korean
    "simsun.ttc",   // SimSun: CJK on older Windows
    "arial.ttf",    // Arial: Arabic, Hebrew
    "tahoma.ttf",   // Tahoma: Arabic, Hebrew, Thai
    "Nirmala.ttf",  // Nirmala UI: Devanagari and the other Indic scripts
    "Nirmala.ttc",  // the same on Windows 11
    "LeelawUI.ttf", // Leelawadee UI: Thai
    "ebrima.ttf",   // Ebrima: African scripts
    "seguiemj.ttf", // Segoe UI Emoji
    "seguisym.ttf", // Segoe UI Symbol
    "mingliub.ttc", // MingLiU: Traditional Chinese, extension B
];

pub(super) fn system_font_files() -> Option<Vec<PathBuf>> {
    let windows = std::env::var_os("WINDIR").or_else(|| std::env::var_os("SystemRoot"));
    let folder = PathBuf::from(windows.unwrap_or_else(|| r"C:\Windows".into())).join("Fonts");
    let Ok(entries) = std::fs::read_dir(&folder) else { return Some(Vec::new()) };
    let mut others: Vec<PathBuf> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
            matches!(extension.as_str(), "ttf" | "ttc" | "otf" | "otc")
        })
        .collect();
    others.sort();
    let mut files: Vec<PathBuf> = Vec::new();
    for name in PREFERRED_FONTS {
        if let Some(at) = others.iter().position(|p| p.file_name().is_some_and(|n| n.eq_ignore_ascii_case(name))) {
            files.push(others.remove(at));
        }
    }
    files.extend(others);
    Some(files)
}

pub(super) fn shell_example(text: &str) -> String {
    let escaped = text.replace('"', "\\\"");
    format!("\"{escaped}\" (Command Prompt) or '{}' (PowerShell)", escaped.replace('\'', "''"))
}

/// Ctrl+C and Ctrl+Break from the console, and the console window closed (Windows then gives
/// the process five seconds, time enough to keep an export's journal).
pub(super) fn listen_for_stop(interrupt: &super::signal::Interrupt) {
    use tokio::signal::windows::{ctrl_break, ctrl_c, ctrl_close};
    macro_rules! listen {
        ($make:expr, $name:literal, $number:literal) => {
            match $make {
                Ok(mut stream) => {
                    let interrupt = interrupt.clone();
                    tokio::spawn(async move {
                        if stream.recv().await.is_some() {
                            interrupt.received_signal($name, $number);
                        }
                    });
                }
                Err(e) => tracing::warn!("cannot listen for {}: {e}", $name),
            }
        };
    }
    listen!(ctrl_c(), "Ctrl+C", 2);
    listen!(ctrl_break(), "Ctrl+Break", 2);
    listen!(ctrl_close(), "the console closed", 1);
}

/// New folders inherit the access list of their parent (see [`super::private`]).
pub(super) fn private_folder(_builder: &mut std::fs::DirBuilder) {}

/// New files inherit the access list of their folder (see [`super::private`]).
pub(super) fn private_file(_options: &mut std::fs::OpenOptions) {}

/// See [`super::private`]: the person's folders are theirs already.
pub(super) fn make_private(_path: &std::path::Path) -> std::io::Result<()> {
    Ok(())
}

/// Windows has neither FIFOs in the file system nor character devices by path.
pub(super) fn written_in_place(_kind: &std::fs::FileType) -> bool {
    false
}

/// Nothing to give back the Linux way (see [`super::resident`]).
pub(super) fn release_startup_pages() -> std::io::Result<super::resident::Released> {
    Ok(super::resident::Released::default())
}

/// See [`super::renderer_order`].
pub(super) fn renderer_order() -> &'static [&'static str] {
    &["wgpu-dx12", "wgpu-vulkan", "glow"]
}
