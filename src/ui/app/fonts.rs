//! System fonts for the scripts and emoji that egui's own fonts lack.
//!
//! egui's default fonts (Ubuntu Light, Hack) draw Latin, Greek and Cyrillic; names in Chinese
//! (张伟), Arabic (محمد), Hebrew, Devanagari, Thai or with emoji (🚀) come out as empty boxes. Support
//! staff must read them, so [`install_system_fonts`] adds the machine's own fonts as fallbacks,
//! after egui's fonts, for the proportional and the monospace family alike.
//!
//! # How
//!
//! The fonts are found by egui's own [`SystemFontProvider`] (crate `egui_system_font_provider`, made
//! and released together with egui, and what `eframe`'s `system_fonts` feature installs). It asks
//! the platform's font fallback through `fontique` (linebender; fontconfig is opened at run time,
//! so building needs no system library) for a font *for a script and locale*, and egui installs
//! what it finds at the end of the family's fallback chain, only when a character no installed
//! font has shows up. The font files are memory-mapped, not read into memory: a 20 MB CJK
//! collection costs only the pages of the glyphs drawn. It tells Simplified from Traditional
//! Chinese and Japanese by the user's locale, prefers a monospace face for the monospace family,
//! and draws colour emoji fonts (COLR, CBDT, sbix) too.
//!
//! Chosen over `fontdb` plus [`egui::Context::set_fonts`]: `fontdb` lists faces but knows nothing
//! of scripts or the user's fallback configuration, so this module would have to hand-pick a face
//! per script and read whole files into memory (tens of MB for CJK) before installing them; and
//! over a hand-written walk of font directories for the same reasons, plus the platforms' paths.
//!
//! # Without slowing the start
//!
//! Enumerating the system fonts takes tens of milliseconds, the first lookup of a script up to 50 ms
//! more (emoji), and the provider blocks a lookup until the enumeration is done. So the provider is
//! built and asked once for each script of [`SAMPLES`] on a named thread (`orgql-fonts`), which also
//! leaves its caches warm for the UI thread's own lookups, and handed to egui
//! ([`egui::Context::add_font_provider`], which also requests a repaint) only when it is ready: the
//! first frames never wait, and show boxes for those scripts until then. A machine without
//! fontconfig or without such fonts is no error: the missing scripts are logged at debug level
//! (`ORGQL_LOG=orgql=debug`) and stay boxes; a failure of the search is logged and ignored.
//!
//! Debian (checked on bookworm): `fonts-noto-core` (Devanagari, Thai, …; Arabic and Hebrew also come
//! with `fonts-dejavu-core`), `fonts-noto-cjk` (or the much lighter `fonts-droid-fallback`) and
//! `fonts-noto-color-emoji` (drawn in colour).
//!
//! # On Windows
//!
//! [`crate::platform::system_font_files`] names the font files to use instead of the system's
//! fallback: Segoe UI and the CJK, Arabic, Indic, Thai and emoji fonts Windows ships in
//! `%WINDIR%\Fonts`, then every other font there. [`FontFiles`] memory-maps them one by one as
//! characters need them and gives egui the first face that draws the character (under Wine,
//! DirectWrite's fallback found none of them).
//!
//! # The app's own marks
//!
//! ✓ ✗ ● → ⚠ and the other marks the app draws come from a font orgql ships,
//! `assets/fonts/orgql-marks.ttf` (cut out of DejaVu Sans by `assets/fonts/make-marks.sh`, 20 KB),
//! installed after egui's own fonts at the start ([`install_marks`]): egui's fonts lack ✓ and ✗,
//! and have the arrows and shapes only in their monospace face, so these would otherwise depend
//! on the system's fonts, and be boxes where it has none.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use std::path::PathBuf;
use std::sync::Mutex;

use egui::{FallbackRequest, FontData, FontFamily, FontInsert, FontPriority, FontProvider, InsertFontFamily};
use egui_system_font_provider::SystemFontProvider;

/// The app's own marks (see the module's documentation).
const MARKS: &[u8] = include_bytes!("../../../assets/fonts/orgql-marks.ttf");

/// Adds the app's marks font after egui's own fonts, for both families.
pub fn install_marks(ctx: &egui::Context) {
    ctx.add_font(FontInsert {
        name: "orgql-marks".to_owned(),
        data: FontData::from_static(MARKS),
        families: [FontFamily::Proportional, FontFamily::Monospace]
            .map(|family| InsertFontFamily { family, priority: FontPriority::Lowest })
            .to_vec(),
    });
}

/// The scripts (and emoji) that egui's fonts lack and names are written in, each with a character
/// of it: the system fonts are asked for these up front, to log what the machine covers.
pub const SAMPLES: [(&str, &str); 6] =
    [("CJK", "张"), ("Arabic", "م"), ("Hebrew", "ש"), ("Devanagari", "क"), ("Thai", "ก"), ("emoji", "🚀")];

/// Which font, if any, draws one of [`SAMPLES`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coverage {
    /// The script, as named in [`SAMPLES`].
    pub script: &'static str,
    /// The font's name (`system:Noto Sans CJK SC:…`), or none when no font on the machine has it.
    pub font: Option<String>,
}

/// Starts looking for system fonts ([`install_system_fonts`]) once the first frame is painted,
/// at the start of the second: the search (fontconfig, 20 % of the CPU of a start) does not
/// compete with the first frame, nor with the sandbox and the schema on a two-core machine.
pub fn install_after_first_frame(ctx: &egui::Context) {
    let started = Arc::new(std::sync::atomic::AtomicBool::new(false));
    ctx.on_begin_pass(
        "orgql-fonts",
        Arc::new(move |ui: &mut egui::Ui| {
            let ctx = ui.ctx();
            if ctx.cumulative_frame_nr() >= 1 && !started.swap(true, std::sync::atomic::Ordering::Relaxed) {
                install_system_fonts(ctx);
            }
        }),
    );
}

/// Starts looking for system fonts on a background thread and returns at once; when they are
/// found, egui uses them as fallbacks after its own fonts and the window repaints.
pub fn install_system_fonts(ctx: &egui::Context) {
    if let Err(e) = spawn_installer(ctx.clone(), load_system_fonts) {
        tracing::debug!("system fonts are not loaded: no thread for them ({e})");
    }
}

/// Finds the system fonts (blocking: call it off the UI thread) and logs which scripts of
/// [`SAMPLES`] they cover: the files [`crate::platform::system_font_files`] names where it names
/// some (Windows), else the system's own fallback.
pub fn load_system_fonts() -> SystemFonts {
    let started = Instant::now();
    let provider = match crate::platform::system_font_files() {
        Some(files) => SystemFonts::Files(FontFiles::new(files)),
        None => SystemFonts::Fallback(Box::new(SystemFontProvider::new())),
    };
    for Coverage { script, font } in coverage(&provider) {
        match font {
            Some(font) => tracing::debug!("{script}: {font}"),
            None => tracing::debug!("no system font draws {script}; such text shows as boxes"),
        }
    }
    tracing::debug!("system fonts enumerated in {:?}", started.elapsed());
    provider
}

/// Asks `provider` for a font for each of [`SAMPLES`] (proportional family).
pub fn coverage(provider: &dyn FontProvider) -> Vec<Coverage> {
    SAMPLES
        .iter()
        .map(|&(script, sample)| {
            let request = FallbackRequest { cluster: sample, family: &FontFamily::Proportional };
            Coverage { script, font: provider.font_for(&request).map(|insert| insert.name) }
        })
        .collect()
}

/// The system's fonts, found one of two ways.
pub enum SystemFonts {
    /// By the system's own fallback (fontconfig, CoreText).
    Fallback(Box<SystemFontProvider>),
    /// In the files the platform names (Windows).
    Files(FontFiles),
}

impl FontProvider for SystemFonts {
    fn font_for(&self, request: &FallbackRequest<'_>) -> Option<FontInsert> {
        match self {
            SystemFonts::Fallback(provider) => provider.font_for(request),
            SystemFonts::Files(provider) => provider.font_for(request),
        }
    }
}

/// Fonts from a list of files, asked in order for each character egui's fonts lack; each file is
/// memory-mapped the first time it is looked into (a 20 MB CJK collection costs the pages of the
/// glyphs drawn). Every face of a collection (`.ttc`) is looked into.
pub struct FontFiles {
    files: Vec<PathBuf>,
    /// The mapped files, as they are opened (`None`: not yet; `Some(None)`: unreadable).
    opened: Mutex<Vec<Option<Option<egui::epaint::text::Blob>>>>,
}

impl FontFiles {
    /// The fonts of `files`, best first.
    pub fn new(files: Vec<PathBuf>) -> Self {
        let opened = Mutex::new(vec![None; files.len()]);
        FontFiles { files, opened }
    }
}

/// The file at `path` mapped into memory.
fn map_font(path: &std::path::Path) -> Option<egui::epaint::text::Blob> {
    let file = std::fs::File::open(path).ok()?;
    // SAFETY: the font files of the system's font folder are not written while orgql runs (they
    // are in use by every program); fontique maps them the same way.
    let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
    Some(Arc::new(map))
}

/// The index of the face of `data` (a font or a collection) that draws `c`, if one does: an
/// outline, a colour glyph or a bitmap, as egui draws them.
fn face_drawing(data: &[u8], c: char) -> Option<u32> {
    use skrifa::MetadataProvider as _;
    let faces = match skrifa::raw::FileRef::new(data).ok()? {
        skrifa::raw::FileRef::Font(_) => 1,
        skrifa::raw::FileRef::Collection(collection) => collection.len(),
    };
    (0..faces).find(|&index| {
        let Ok(font) = skrifa::FontRef::from_index(data, index) else { return false };
        let Some(glyph) = font.charmap().map(c).filter(|g| *g != skrifa::GlyphId::NOTDEF) else { return false };
        font.outline_glyphs().get(glyph).is_some()
            || font.color_glyphs().get(glyph).is_some()
            || font.bitmap_strikes().glyph_for_size(skrifa::instance::Size::unscaled(), glyph).is_some()
    })
}

impl FontProvider for FontFiles {
    fn font_for(&self, request: &FallbackRequest<'_>) -> Option<FontInsert> {
        let c = request.cluster.chars().next()?;
        let mut opened = self.opened.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for (path, slot) in self.files.iter().zip(opened.iter_mut()) {
            let Some(blob) = slot.get_or_insert_with(|| map_font(path)) else { continue };
            let Some(index) = face_drawing((**blob).as_ref(), c) else { continue };
            let file = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            return Some(FontInsert {
                name: format!("file:{file}:{index}"),
                data: FontData::from_blob(blob.clone(), index),
                families: vec![InsertFontFamily { family: request.family.clone(), priority: FontPriority::Lowest }],
            });
        }
        None
    }
}

/// Runs `load` on the `orgql-fonts` thread and adds the provider it returns to `ctx`. The thread's
/// result says whether a provider was added (`false` when `load` panicked).
fn spawn_installer<P: FontProvider + 'static>(
    ctx: egui::Context,
    load: impl FnOnce() -> P + Send + 'static,
) -> std::io::Result<JoinHandle<bool>> {
    std::thread::Builder::new().name("orgql-fonts".to_owned()).spawn(move || {
        match std::panic::catch_unwind(AssertUnwindSafe(load)) {
            Ok(provider) => {
                // Takes effect at the next pass, and requests it.
                ctx.add_font_provider(Arc::new(provider));
                true
            }
            Err(_) => {
                tracing::debug!("the search for system fonts failed; only egui's own fonts are used");
                false
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::sync::mpsc;

    use egui::{FontId, FontInsert, RawInput};

    use super::*;

    /// One frame laying out a name in both families.
    fn frame(ctx: &egui::Context) {
        ctx.run_ui(RawInput::default(), |ui| {
            ui.label("张伟 Zoë");
            ui.monospace("张伟");
        })
        .drop_without_applying_deltas();
    }

    #[test]
    fn frames_run_while_the_fonts_load_and_the_fonts_come_after_egui_s_own() {
        let ctx = egui::Context::default();
        let asked = Arc::new(Mutex::new(Vec::new()));
        let provider = {
            let asked = asked.clone();
            move |request: &FallbackRequest<'_>| -> Option<FontInsert> {
                asked.lock().expect("lock").push((request.family.clone(), request.cluster.to_owned()));
                None
            }
        };
        let (release, gate) = mpsc::channel::<()>();
        let loader = spawn_installer(ctx.clone(), move || {
            gate.recv().expect("released");
            provider
        })
        .expect("thread");
        // The loader is still blocked: the frame runs without it.
        frame(&ctx);
        assert!(asked.lock().expect("lock").is_empty());
        release.send(()).expect("loader waiting");
        assert!(loader.join().expect("no panic"), "the provider is added");
        frame(&ctx);
        let asked = asked.lock().expect("lock").clone();
        // Asked only for what egui's fonts lack, for both families.
        assert!(asked.contains(&(FontFamily::Proportional, "张".to_owned())), "{asked:?}");
        assert!(asked.contains(&(FontFamily::Monospace, "张".to_owned())), "{asked:?}");
        assert!(!asked.iter().any(|(_, c)| c == "Z" || c == "ë"), "{asked:?}");
    }

    /// Every mark the app's screens draw (a character of `src/ui` that is neither ASCII nor a
    /// letter: ✓ ✗ ● → ⚠ …) is drawn by egui's fonts or orgql's marks font, in both families,
    /// with no system font at all (a fresh Windows or Wine, a minimal Linux).
    #[test]
    fn the_app_s_marks_are_drawn_with_no_system_font() {
        let mut marks = std::collections::BTreeSet::new();
        let mut folders = vec![std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/src/ui"))];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).expect("src/ui").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    folders.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).expect("a source file");
                    // Code only: names in tests and comments are people's, not marks.
                    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
                    for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
                        // Emoji (U+1F000 on: a sample name, the emoji script's sample) are
                        // people's, drawn by the system's emoji font.
                        marks.extend(line.chars().filter(|&c| !c.is_ascii() && !c.is_alphabetic() && c < '\u{1f000}'));
                    }
                }
            }
        }
        assert!(marks.contains(&'✓') && marks.contains(&'→'), "{marks:?}");
        let ctx = egui::Context::default();
        install_marks(&ctx);
        frame(&ctx);
        let missing: Vec<(char, &str)> = marks
            .iter()
            .flat_map(|&c| [(c, "proportional"), (c, "monospace")])
            .filter(|&(c, family)| {
                let font = if family == "monospace" { FontId::monospace(14.0) } else { FontId::proportional(14.0) };
                !ctx.fonts_mut(|f| f.has_glyph(&font, c))
            })
            .collect();
        assert!(missing.is_empty(), "not drawn without system fonts (run assets/fonts/make-marks.sh): {missing:?}");
        // Without the marks font, egui's own fonts lack ✓ in proportional text.
        let bare = egui::Context::default();
        frame(&bare);
        assert!(!bare.fonts_mut(|f| f.has_glyph(&FontId::proportional(14.0), '✓')));
    }

    /// The Windows way: fonts from files, the first that draws a character; files that are not
    /// fonts or are gone are passed over.
    #[test]
    fn font_files_give_the_first_file_that_draws_a_character() {
        let dir = tempfile::tempdir().expect("a folder");
        let garbage = dir.path().join("broken.ttf");
        std::fs::write(&garbage, b"not a font").expect("written");
        let marks = dir.path().join("marks.ttf");
        std::fs::write(&marks, MARKS).expect("written");
        let provider = FontFiles::new(vec![dir.path().join("gone.ttf"), garbage, marks]);
        let ask = |cluster: &str, family: FontFamily| {
            provider.font_for(&FallbackRequest { cluster, family: &family }).map(|insert| {
                assert_eq!(insert.families[0].family, family);
                insert.name
            })
        };
        assert_eq!(ask("✓", FontFamily::Proportional).as_deref(), Some("file:marks.ttf:0"));
        assert_eq!(ask("→", FontFamily::Monospace).as_deref(), Some("file:marks.ttf:0"));
        assert_eq!(ask("张", FontFamily::Proportional), None);
        assert_eq!(load_files_coverage(&provider), [None, None, None, None, None, None]);
    }

    fn load_files_coverage(provider: &FontFiles) -> Vec<Option<String>> {
        coverage(provider).into_iter().map(|c| c.font).collect()
    }

    #[test]
    fn a_failed_search_leaves_egui_s_fonts_working() {
        let ctx = egui::Context::default();
        let loader = spawn_installer(ctx.clone(), || -> fn(&FallbackRequest<'_>) -> Option<FontInsert> {
            panic!("no fonts here")
        })
        .expect("thread");
        assert!(!loader.join().expect("the panic is caught"));
        frame(&ctx);
    }

    /// Uses the fonts of the machine it runs on: without fonts for a script, that script is
    /// reported missing and egui keeps drawing boxes for it; with them, egui draws it.
    #[test]
    fn the_system_fonts_egui_is_given_are_those_the_coverage_reports() {
        let report = coverage(&load_system_fonts());
        assert_eq!(report.iter().map(|c| c.script).collect::<Vec<_>>(), SAMPLES.map(|(s, _)| s));
        let ctx = egui::Context::default();
        let loader = spawn_installer(ctx.clone(), load_system_fonts).expect("thread");
        assert!(loader.join().expect("no panic"));
        frame(&ctx);
        for (Coverage { script, font }, (_, sample)) in report.iter().zip(SAMPLES) {
            let c = sample.chars().next().expect("a character");
            let drawn = ctx.fonts_mut(|f| f.has_glyph(&FontId::proportional(14.0), c));
            assert_eq!(drawn, font.is_some(), "{script} ({sample}): {font:?}");
        }
    }
}
