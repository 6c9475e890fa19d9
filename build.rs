//! Link options of the `orgql` binary, and its resources on Windows.
//!
//! Built for Windows, the `orgql` binary carries the icon (`packaging/windows/orgql.ico`: Explorer,
//! the taskbar, the Start menu's shortcut), its version information (name, version, publisher:
//! the file's Properties) and its application manifest (`packaging/windows/orgql.exe.manifest`:
//! per-monitor DPI aware, Windows 10 and 11, as invoker) as resources, compiled by MinGW's
//! `windres` through `winresource`.
//!
//! On Linux with glibc 2.36 or later, the binary's relative relocations are packed
//! (`-z pack-relative-relocs`, DT_RELR): a position-independent binary of this size carries a
//! table of several MB that the dynamic loader reads at every start (one 24-byte entry per
//! pointer in its read-only data), and those pages stay in the process's memory; packed, the
//! table is a few tens of KB. Every `orgql` process starts with less resident memory (issue 24:
//! an export's peak RSS; benches/README.md). The binary then needs glibc 2.36 to run, so the
//! option is given only when the C library it is linked against has the feature (a native
//! build; GNU ld 2.38+ and lld 15+ know it).
//!
//! In release builds for x86_64 Linux, where rustc links with its own rust-lld, the functions
//! are laid out in the order of `packaging/symbol-order.txt` (`--symbol-ordering-file`, made by
//! `benches/symbol-order.sh` from callgrind profiles: every function the app executes, then those
//! it shares with the command line, then the command line's own). Each process's code is then
//! one run of pages rather than pages all over the binary, and the kernel, which maps the 64 KB
//! around every page a process touches, maps far less that is never run (issue 33: the binary's
//! resident pages after a Run; benches/README.md). A function missing from the file (new since it
//! was made) keeps the compiler's place after the listed ones.

use std::path::Path;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let native = std::env::var("HOST").ok() == std::env::var("TARGET").ok();
    if os == "linux" && env == "gnu" && native && glibc_packs_relocations() {
        println!("cargo::rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    let order = Path::new("packaging/symbol-order.txt");
    println!("cargo::rerun-if-changed={}", order.display());
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let release = std::env::var("PROFILE").is_ok_and(|p| p == "release");
    // Named relative to the package (rustc, and so the linker, run there): this script's output
    // is kept in the target directory, which clones elsewhere share (CI's clones share
    // /var/tmp/orgql-ci-target); an absolute path sent a later clone's link to a file of one
    // that was gone ("cannot open …/packaging/symbol-order.txt").
    if order.is_file() && os == "linux" && env == "gnu" && arch == "x86_64" && release && rust_lld() {
        println!("cargo::rustc-link-arg-bins=-Wl,--symbol-ordering-file={}", order.display());
        println!("cargo::rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
    }
    if os == "windows" {
        windows_resources();
    }
}

/// The icon, the version information and the manifest of `orgql.exe`.
fn windows_resources() {
    let icon = "packaging/windows/orgql.ico";
    let manifest = "packaging/windows/orgql.exe.manifest";
    println!("cargo::rerun-if-changed={icon}");
    println!("cargo::rerun-if-changed={manifest}");
    let mut resources = winresource::WindowsResource::new();
    resources
        .set_icon(icon)
        .set_manifest_file(manifest)
        .set("FileDescription", "orgql")
        .set("ProductName", "orgql")
        .set("CompanyName", "orgql developers")
        .set("LegalCopyright", "2026, the orgql developers (MIT OR Apache-2.0)")
        .set("OriginalFilename", "orgql.exe")
        .set("InternalName", "orgql");
    if let Err(e) = resources.compile_for("orgql") {
        // Without windres (x86_64-w64-mingw32-windres) the exe would have no icon: say how to get it.
        panic!(
            "the Windows resources did not compile ({e}); install MinGW's binutils: apt-get install binutils-mingw-w64-x86-64"
        );
    }
}

/// Whether rustc links with its own rust-lld (its default on x86_64 Linux since 1.90), unless
/// the build's flags choose another linker (GNU ld does not know `--symbol-ordering-file`).
fn rust_lld() -> bool {
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    !flags.contains("linker") && !flags.contains("-fuse-ld")
}

/// Whether this machine's glibc knows packed relative relocations (it defines the symbol
/// version `GLIBC_ABI_DT_RELR`, glibc 2.36+).
fn glibc_packs_relocations() -> bool {
    const PLACES: [&str; 6] = [
        "/lib/x86_64-linux-gnu/libc.so.6",
        "/lib/aarch64-linux-gnu/libc.so.6",
        "/lib64/libc.so.6",
        "/usr/lib64/libc.so.6",
        "/usr/lib/libc.so.6",
        "/lib/libc.so.6",
    ];
    let needle = b"GLIBC_ABI_DT_RELR";
    PLACES
        .iter()
        .map(Path::new)
        .filter_map(|p| std::fs::read(p).ok())
        .any(|bytes| bytes.windows(needle.len()).any(|w| w == needle))
}
