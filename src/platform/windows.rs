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

/// See [`super::revocation`]: Windows' chain engine with revocation checked for every certificate
/// but the root, the server's intermediates given as an extra store, the fetches bounded by 5 s
/// in all. Revoked (`CERT_TRUST_IS_REVOKED`) and explicitly distrusted (the Disallowed store,
/// `CERT_TRUST_IS_EXPLICIT_DISTRUST`) stop the connection; an unknown or offline answer does not.
/// Whether the chain ends at a root Windows trusts is not asked here (rustls decided that).
pub(super) fn revocation(end_entity: &[u8], intermediates: &[&[u8]]) -> super::Revocation {
    use windows_sys::Win32::Security::Cryptography::{
        CERT_CHAIN_CONTEXT, CERT_CHAIN_PARA, CERT_CHAIN_REVOCATION_ACCUMULATIVE_TIMEOUT,
        CERT_CHAIN_REVOCATION_CHECK_CHAIN_EXCLUDE_ROOT, CERT_STORE_ADD_ALWAYS, CERT_STORE_PROV_MEMORY,
        CERT_TRUST_IS_EXPLICIT_DISTRUST, CERT_TRUST_IS_REVOKED, CertAddEncodedCertificateToStore, CertCloseStore,
        CertCreateCertificateContext, CertFreeCertificateChain, CertFreeCertificateContext, CertGetCertificateChain,
        CertOpenStore, PKCS_7_ASN_ENCODING, X509_ASN_ENCODING,
    };
    let encoding = X509_ASN_ENCODING | PKCS_7_ASN_ENCODING;
    let Ok(length) = u32::try_from(end_entity.len()) else { return super::Revocation::NotRevoked };
    // SAFETY: the bytes outlive the call; the context is freed below.
    let cert = unsafe { CertCreateCertificateContext(encoding, end_entity.as_ptr(), length) };
    if cert.is_null() {
        return super::Revocation::NotRevoked;
    }
    // SAFETY: a memory store of our own, closed below.
    let extra = unsafe { CertOpenStore(CERT_STORE_PROV_MEMORY, 0, 0, 0, std::ptr::null()) };
    if !extra.is_null() {
        for der in intermediates {
            if let Ok(length) = u32::try_from(der.len()) {
                // SAFETY: `extra` is open; the bytes are copied into it.
                unsafe {
                    CertAddEncodedCertificateToStore(
                        extra,
                        encoding,
                        der.as_ptr(),
                        length,
                        CERT_STORE_ADD_ALWAYS,
                        std::ptr::null_mut(),
                    )
                };
            }
        }
    }
    let para = CERT_CHAIN_PARA {
        cbSize: std::mem::size_of::<CERT_CHAIN_PARA>() as u32,
        dwUrlRetrievalTimeout: 5_000,
        ..Default::default()
    };
    let mut chain: *mut CERT_CHAIN_CONTEXT = std::ptr::null_mut();
    let flags = CERT_CHAIN_REVOCATION_CHECK_CHAIN_EXCLUDE_ROOT | CERT_CHAIN_REVOCATION_ACCUMULATIVE_TIMEOUT;
    // SAFETY: every pointer is valid for the call; the default engine (null) is the person's.
    let built = unsafe {
        CertGetCertificateChain(
            std::ptr::null_mut(),
            cert,
            std::ptr::null(),
            extra,
            &para,
            flags,
            std::ptr::null(),
            &mut chain,
        )
    } != 0;
    let mut answer = super::Revocation::NotRevoked;
    if built && !chain.is_null() {
        // SAFETY: Windows made the chain context; read before it is freed.
        let status = unsafe { (*chain).TrustStatus.dwErrorStatus };
        if status & CERT_TRUST_IS_EXPLICIT_DISTRUST != 0 {
            answer = super::Revocation::Distrusted;
        } else if status & CERT_TRUST_IS_REVOKED != 0 {
            answer = super::Revocation::Revoked;
        }
        // SAFETY: freed once.
        unsafe { CertFreeCertificateChain(chain) };
    }
    // SAFETY: each freed once; a null store is never closed.
    unsafe {
        if !extra.is_null() {
            CertCloseStore(extra, 0);
        }
        CertFreeCertificateContext(cert);
    }
    answer
}

/// See [`super::system_store_roots`]. Read here rather than by rustls-native-certs, which reads only
/// the files `SSL_CERT_FILE`/`SSL_CERT_DIR` name when either is set (Git for Windows, Python and
/// some companies' tools set them for their own use) and then never the store IT pushed its
/// roots into. A root is kept when it may serve for server authentication (no enhanced key usage,
/// or one naming it) and is within its validity, as rustls-native-certs keeps them.
pub(super) fn system_store_roots() -> Option<(Vec<Vec<u8>>, Vec<String>)> {
    use schannel::cert_context::ValidUses;
    const SERVER_AUTH: &str = "1.3.6.1.5.5.7.3.1";
    let store = match schannel::cert_store::CertStore::open_current_user("ROOT") {
        Ok(store) => store,
        Err(e) => return Some((Vec::new(), vec![format!("the Root store could not be opened ({e})")])),
    };
    let (mut roots, mut unreadable) = (Vec::new(), 0_usize);
    for cert in store.certs() {
        let usable = match cert.valid_uses() {
            Ok(ValidUses::All) => true,
            Ok(ValidUses::Oids(oids)) => oids.iter().any(|oid| oid == SERVER_AUTH),
            Err(_) => {
                unreadable += 1;
                false
            }
        };
        if usable && cert.is_time_valid().unwrap_or(false) {
            roots.push(cert.to_der().to_vec());
        }
    }
    let errors = if unreadable > 0 {
        vec![format!("the uses of {unreadable} certificates of the Root store could not be read; they were left out")]
    } else {
        Vec::new()
    };
    Some((roots, errors))
}

/// See [`super::renderer_order`].
pub(super) fn renderer_order() -> &'static [&'static str] {
    &["wgpu-dx12", "wgpu-vulkan", "glow"]
}

/// The system's proxy as Windows sets it (see [`super::system_proxy`]): the automatic settings
/// first, as Windows applies them — a PAC file (`AutoConfigURL`), then WPAD when "Automatically
/// detect settings" is on, both evaluated by WinHTTP — then the manual proxy and its bypass list.
pub(super) fn system_proxy(
    url: &str,
    target: &crate::net::bypass::Target,
) -> Option<crate::net::system_proxy::SystemProxy> {
    use crate::net::system_proxy::{SystemProxy, windows_manual_proxy};
    let (root, source) = settings_root();
    let pac = registry_string(root, INTERNET_SETTINGS, "AutoConfigURL").filter(|pac| !pac.trim().is_empty());
    let mut note = None;
    if let Some(pac) = &pac {
        match winhttp_proxy_for(url, Some(pac), target, format!("PAC {pac}")) {
            Ok(answer) => return Some(answer),
            Err(code) => {
                let why = winhttp_error(code);
                tracing::info!("the PAC file {pac} {why}: going by the manual settings");
                note =
                    Some(format!("The PAC file {pac} set in {source} {why}; orgql went by the manual proxy settings."));
            }
        }
    }
    if auto_detect_on() {
        match winhttp_proxy_for(url, None, target, "WPAD".to_owned()) {
            Ok(answer) => return Some(answer),
            // No WPAD server on the network is the common case: nothing to say.
            Err(code) => tracing::debug!("WPAD found no proxy (WinHTTP error {code})"),
        }
    }
    let manual = crate::net::system_proxy::WindowsManual {
        enabled: registry_dword(root, INTERNET_SETTINGS, "ProxyEnable").is_some_and(|v| v != 0),
        server: registry_string(root, INTERNET_SETTINGS, "ProxyServer").unwrap_or_default(),
        bypass: registry_string(root, INTERNET_SETTINGS, "ProxyOverride").unwrap_or_default(),
    };
    match windows_manual_proxy(target, &manual, source) {
        Some(answer) => Some(SystemProxy { note: answer.note.or(note), ..answer }),
        None => note.map(|note| SystemProxy { proxy: None, source: source.to_owned(), note: Some(note) }),
    }
}

const INTERNET_SETTINGS: &str = r"Software\Microsoft\Windows\CurrentVersion\Internet Settings";

/// The person's settings, or the machine's where IT's policy `ProxySettingsPerUser` is 0.
fn settings_root() -> (windows_sys::Win32::System::Registry::HKEY, &'static str) {
    use windows_sys::Win32::System::Registry::{HKEY_CURRENT_USER, HKEY_LOCAL_MACHINE};
    let policy = r"Software\Policies\Microsoft\Windows\CurrentVersion\Internet Settings";
    if registry_dword(HKEY_LOCAL_MACHINE, policy, "ProxySettingsPerUser") == Some(0) {
        (HKEY_LOCAL_MACHINE, "Windows settings (the machine's)")
    } else {
        (HKEY_CURRENT_USER, "Windows settings")
    }
}

fn wide(text: &str) -> Vec<u16> {
    text.encode_utf16().chain(std::iter::once(0)).collect()
}

fn registry_string(root: windows_sys::Win32::System::Registry::HKEY, key: &str, value: &str) -> Option<String> {
    use windows_sys::Win32::System::Registry::{RRF_RT_REG_SZ, RegGetValueW};
    let (key, value) = (wide(key), wide(value));
    let mut size: u32 = 0;
    // REG_SZ takes REG_EXPAND_SZ values too, expanded (RRF_RT_REG_EXPAND_SZ without RRF_NOEXPAND is
    // an invalid parameter: Wine refuses it, as the documentation says Windows does).
    let flags = RRF_RT_REG_SZ;
    // SAFETY: a null data pointer asks only for the size, written to `size`.
    let found = unsafe {
        RegGetValueW(root, key.as_ptr(), value.as_ptr(), flags, std::ptr::null_mut(), std::ptr::null_mut(), &mut size)
    };
    if found != 0 || size == 0 {
        return None;
    }
    let mut buffer = vec![0u16; (size as usize).div_ceil(2)];
    let mut written = (buffer.len() * 2) as u32;
    // SAFETY: `buffer` holds `written` bytes; RegGetValueW writes at most that many.
    let read = unsafe {
        RegGetValueW(
            root,
            key.as_ptr(),
            value.as_ptr(),
            flags,
            std::ptr::null_mut(),
            buffer.as_mut_ptr().cast(),
            &mut written,
        )
    };
    if read != 0 {
        return None;
    }
    let end = buffer.iter().position(|&c| c == 0).unwrap_or(buffer.len());
    Some(String::from_utf16_lossy(&buffer[..end]))
}

fn registry_dword(root: windows_sys::Win32::System::Registry::HKEY, key: &str, value: &str) -> Option<u32> {
    use windows_sys::Win32::System::Registry::{RRF_RT_REG_DWORD, RegGetValueW};
    let (key, value) = (wide(key), wide(value));
    let mut data: u32 = 0;
    let mut size = std::mem::size_of::<u32>() as u32;
    // SAFETY: `data` is a u32 and `size` says so; RegGetValueW writes at most 4 bytes.
    let read = unsafe {
        RegGetValueW(
            root,
            key.as_ptr(),
            value.as_ptr(),
            RRF_RT_REG_DWORD,
            std::ptr::null_mut(),
            (&raw mut data).cast(),
            &mut size,
        )
    };
    (read == 0).then_some(data)
}

/// "Automatically detect settings", as WinHTTP reads the person's Internet Options.
fn auto_detect_on() -> bool {
    use windows_sys::Win32::Foundation::GlobalFree;
    use windows_sys::Win32::Networking::WinHttp::{
        WINHTTP_CURRENT_USER_IE_PROXY_CONFIG, WinHttpGetIEProxyConfigForCurrentUser,
    };
    let mut config = WINHTTP_CURRENT_USER_IE_PROXY_CONFIG::default();
    // SAFETY: WinHTTP fills `config`; its strings are ours to free with GlobalFree.
    let done = unsafe { WinHttpGetIEProxyConfigForCurrentUser(&mut config) } != 0;
    for text in [config.lpszAutoConfigUrl, config.lpszProxy, config.lpszProxyBypass] {
        if !text.is_null() {
            // SAFETY: allocated by WinHTTP with GlobalAlloc, freed once.
            unsafe { GlobalFree(text.cast()) };
        }
    }
    done && config.fAutoDetect != 0
}

/// What went wrong with a PAC file, from WinHTTP's error code.
fn winhttp_error(code: u32) -> String {
    match code {
        12167 => "could not be downloaded (WinHTTP error 12167)".to_owned(),
        12166 => "has an error in its script (WinHTTP error 12166)".to_owned(),
        12180 => "was not found by automatic detection (WinHTTP error 12180)".to_owned(),
        12002 => "did not answer in time (WinHTTP error 12002)".to_owned(),
        _ => format!("could not be used (WinHTTP error {code})"),
    }
}

/// WinHTTP's auto-proxy for `url`: the PAC file at `pac`, or WPAD when `None`. Fetching and running
/// the script is WinHTTP's (with the person's sign-in if the PAC server asks), bounded by its
/// timeouts (5 s each step). The error is WinHTTP's code.
fn winhttp_proxy_for(
    url: &str,
    pac: Option<&str>,
    target: &crate::net::bypass::Target,
    source: String,
) -> Result<crate::net::system_proxy::SystemProxy, u32> {
    use windows_sys::Win32::Foundation::{GetLastError, GlobalFree};
    use windows_sys::Win32::Networking::WinHttp::{
        WINHTTP_ACCESS_TYPE_NO_PROXY, WINHTTP_AUTO_DETECT_TYPE_DHCP, WINHTTP_AUTO_DETECT_TYPE_DNS_A,
        WINHTTP_AUTOPROXY_AUTO_DETECT, WINHTTP_AUTOPROXY_CONFIG_URL, WINHTTP_AUTOPROXY_OPTIONS, WINHTTP_PROXY_INFO,
        WinHttpCloseHandle, WinHttpGetProxyForUrl, WinHttpOpen, WinHttpSetTimeouts,
    };
    let agent = wide("orgql");
    // SAFETY: the strings are NUL-terminated and outlive the call; null proxy arguments are allowed.
    let session =
        unsafe { WinHttpOpen(agent.as_ptr(), WINHTTP_ACCESS_TYPE_NO_PROXY, std::ptr::null(), std::ptr::null(), 0) };
    if session.is_null() {
        // SAFETY: reads the thread's last error.
        return Err(unsafe { GetLastError() });
    }
    // SAFETY: `session` is a valid WinHTTP handle.
    unsafe { WinHttpSetTimeouts(session, 5_000, 5_000, 5_000, 5_000) };
    let pac_wide = pac.map(wide);
    let mut options = WINHTTP_AUTOPROXY_OPTIONS {
        dwFlags: if pac.is_some() { WINHTTP_AUTOPROXY_CONFIG_URL } else { WINHTTP_AUTOPROXY_AUTO_DETECT },
        dwAutoDetectFlags: if pac.is_some() {
            0
        } else {
            WINHTTP_AUTO_DETECT_TYPE_DHCP | WINHTTP_AUTO_DETECT_TYPE_DNS_A
        },
        lpszAutoConfigUrl: pac_wide.as_ref().map_or(std::ptr::null(), |w| w.as_ptr()),
        lpvReserved: std::ptr::null_mut(),
        dwReserved: 0,
        fAutoLogonIfChallenged: 1,
    };
    let url_wide = wide(url);
    let mut info = WINHTTP_PROXY_INFO::default();
    // SAFETY: every pointer is valid for the call; WinHTTP fills `info`.
    let done = unsafe { WinHttpGetProxyForUrl(session, url_wide.as_ptr(), &mut options, &mut info) } != 0;
    // SAFETY: reads the thread's last error, before anything else can change it.
    let error = unsafe { GetLastError() };
    let take = |text: windows_sys::core::PWSTR| -> Option<String> {
        if text.is_null() {
            return None;
        }
        // SAFETY: WinHTTP's strings are NUL-terminated.
        let length = (0..).take_while(|&i| unsafe { *text.add(i) } != 0).count();
        // SAFETY: `length` characters were just read.
        let value = String::from_utf16_lossy(unsafe { std::slice::from_raw_parts(text, length) });
        // SAFETY: allocated by WinHTTP with GlobalAlloc, freed once.
        unsafe { GlobalFree(text.cast()) };
        Some(value)
    };
    let (proxy, bypass) = (take(info.lpszProxy), take(info.lpszProxyBypass));
    // SAFETY: closed once.
    unsafe { WinHttpCloseHandle(session) };
    if !done {
        return Err(error);
    }
    Ok(crate::net::system_proxy::winhttp_answer(target, proxy.as_deref(), bypass.as_deref(), source))
}
