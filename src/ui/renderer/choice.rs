//! Which renderer draws the window, without egui: the renderers orgql has, the order it tries them
//! in on this system, what `ORGQL_RENDERER` and View → Renderer ask for, and what the last window
//! start used (a small file beside the database, read by About and `orgql doctor`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The environment variable that puts one renderer (or several, comma-separated) first.
pub const ENV: &str = "ORGQL_RENDERER";
/// The View → Renderer setting, beside the profiles file.
pub const SETTING_FILE: &str = "renderer.toml";
/// What the last window start used, beside the database.
pub const RECORD_FILE: &str = "last-window-start.toml";

/// A way of drawing the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Renderer {
    /// eframe's OpenGL renderer (OpenGL 2 or later, or OpenGL ES 2).
    Glow,
    /// wgpu on Direct3D 12 (Windows 10 and later; WARP, the software rasteriser, where there is
    /// no GPU, as over Remote Desktop).
    WgpuDx12,
    /// wgpu on Vulkan (Linux; Windows with a GPU driver or under Wine).
    WgpuVulkan,
    /// wgpu on Metal (macOS).
    WgpuMetal,
}

impl Renderer {
    /// Every renderer, in no particular order.
    pub const ALL: [Renderer; 4] = [Renderer::Glow, Renderer::WgpuDx12, Renderer::WgpuVulkan, Renderer::WgpuMetal];

    /// The name `ORGQL_RENDERER` and the files use.
    pub fn id(self) -> &'static str {
        match self {
            Renderer::Glow => "glow",
            Renderer::WgpuDx12 => "wgpu-dx12",
            Renderer::WgpuVulkan => "wgpu-vulkan",
            Renderer::WgpuMetal => "wgpu-metal",
        }
    }

    /// The name shown to people.
    pub fn name(self) -> &'static str {
        match self {
            Renderer::Glow => "glow (OpenGL)",
            Renderer::WgpuDx12 => "wgpu — Direct3D 12",
            Renderer::WgpuVulkan => "wgpu — Vulkan",
            Renderer::WgpuMetal => "wgpu — Metal",
        }
    }

    /// Whether it is one of wgpu's backends.
    pub fn is_wgpu(self) -> bool {
        self != Renderer::Glow
    }

    /// The renderer of a name in `ORGQL_RENDERER` or a file (`glow`, `wgpu-vulkan`, `vulkan`, …).
    fn of_id(id: &str) -> Option<Renderer> {
        match id {
            "glow" | "gl" | "opengl" => Some(Renderer::Glow),
            "wgpu-dx12" | "dx12" | "d3d12" | "direct3d" | "direct3d12" => Some(Renderer::WgpuDx12),
            "wgpu-vulkan" | "vulkan" | "vk" => Some(Renderer::WgpuVulkan),
            "wgpu-metal" | "metal" => Some(Renderer::WgpuMetal),
            _ => None,
        }
    }
}

/// The renderers this system has, in the order they are tried when nothing else is asked
/// ([`crate::platform::renderer_order`]: measured, benches/README.md).
pub fn automatic() -> Vec<Renderer> {
    crate::platform::renderer_order().iter().filter_map(|id| Renderer::of_id(id)).collect()
}

/// The order of one start and what decided it.
#[derive(Debug, Clone, PartialEq)]
pub struct Order {
    /// The renderers to try, first to last.
    pub renderers: Vec<Renderer>,
    /// What put the first ones first: "automatic", "ORGQL_RENDERER=wgpu", "View → Renderer".
    pub asked_by: String,
    /// What was asked that cannot be followed (an unknown name, a renderer of another system),
    /// one sentence each, for the log and About.
    pub warnings: Vec<String>,
    /// The View → Renderer setting read for this start (none: automatic).
    pub setting: Option<Renderer>,
}

impl Order {
    /// The order for a start: `ORGQL_RENDERER` (`env`) when set, else the View → Renderer
    /// setting (`setting`), else automatic; what is asked comes first, the rest of this system's
    /// renderers follow, so that asking never leaves the window unopened where another renderer
    /// would open it.
    pub fn of(env: Option<&str>, setting: Option<Renderer>, automatic: &[Renderer]) -> Order {
        let mut warnings = Vec::new();
        let (asked, asked_by) = match env.map(str::trim).filter(|v| !v.is_empty()) {
            Some(value) => {
                let mut asked = Vec::new();
                for word in value.split([',', ' ', ';']).map(str::trim).filter(|w| !w.is_empty()) {
                    let word = word.to_ascii_lowercase();
                    if word == "auto" || word == "automatic" {
                        continue;
                    }
                    if word == "wgpu" {
                        asked.extend(automatic.iter().copied().filter(|r| r.is_wgpu()));
                        continue;
                    }
                    match Renderer::of_id(&word) {
                        Some(renderer) if automatic.contains(&renderer) => asked.push(renderer),
                        Some(renderer) => warnings.push(format!(
                            "{ENV} names {}, which this system does not have; it has {}",
                            renderer.id(),
                            ids(automatic)
                        )),
                        None => warnings.push(format!(
                            "{ENV} names '{word}', which is not a renderer: use {} or wgpu (comma-separated for several)",
                            ids(automatic)
                        )),
                    }
                }
                (asked, format!("{ENV}={value}"))
            }
            None => match setting {
                Some(renderer) if automatic.contains(&renderer) => (vec![renderer], "View → Renderer".to_owned()),
                Some(renderer) => {
                    warnings.push(format!(
                        "View → Renderer names {}, which this system does not have: the automatic order is used",
                        renderer.id()
                    ));
                    (Vec::new(), "automatic".to_owned())
                }
                None => (Vec::new(), "automatic".to_owned()),
            },
        };
        let mut renderers: Vec<Renderer> = Vec::new();
        for renderer in asked.into_iter().chain(automatic.iter().copied()) {
            if !renderers.contains(&renderer) {
                renderers.push(renderer);
            }
        }
        Order { renderers, asked_by, warnings, setting }
    }

    /// The order of this start on this machine: the environment, the setting in `settings_dir`.
    pub fn of_this_start(settings_dir: Option<&Path>) -> Order {
        let env = std::env::var(ENV).ok();
        let mut warnings = Vec::new();
        let setting = match settings_dir.map(read_setting) {
            Some(Ok(setting)) => setting,
            Some(Err(e)) => {
                warnings.push(e);
                None
            }
            None => None,
        };
        let mut order = Order::of(env.as_deref(), setting, &automatic());
        warnings.append(&mut order.warnings);
        order.warnings = warnings;
        order
    }

    /// "glow (OpenGL), then wgpu — Vulkan".
    pub fn describe(&self) -> String {
        self.renderers.iter().map(|r| r.name()).collect::<Vec<_>>().join(", then ")
    }
}

fn ids(renderers: &[Renderer]) -> String {
    renderers.iter().map(|r| r.id()).collect::<Vec<_>>().join(", ")
}

/// The View → Renderer setting as kept: the renderer to try first at the next start.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Setting {
    /// None: the automatic order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    first: Option<Renderer>,
}

/// The View → Renderer setting kept in `dir`; none when there is none (automatic).
pub fn read_setting(dir: &Path) -> Result<Option<Renderer>, String> {
    let path = dir.join(SETTING_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => toml::from_str::<Setting>(&text).map(|setting| setting.first).map_err(|e| {
            format!(
                "{} is not a renderer setting ({}); the automatic order is used",
                path.display(),
                first_line(&e.to_string())
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{} could not be read ({e}); the automatic order is used", path.display())),
    }
}

/// Keeps the View → Renderer setting in `dir` (none: automatic). Blocking: not on the UI thread.
pub fn write_setting(dir: &Path, first: Option<Renderer>) -> Result<(), String> {
    crate::platform::ui_thread::check("renderer::write_setting");
    let text = toml::to_string(&Setting { first }).map_err(|e| e.to_string())?;
    let text = format!(
        "# The renderer orgql tries first when its window starts (View → Renderer); the others follow.\n\
         # ORGQL_RENDERER, when set, comes before it. Without `first`: the automatic order.\n{text}"
    );
    write_file(&dir.join(SETTING_FILE), &text)
        .map_err(|e| format!("the renderer setting could not be saved in {} ({e})", dir.display()))
}

/// A renderer that could not open the window, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PassedOver {
    /// The renderer.
    pub renderer: Renderer,
    /// What it said (eframe's error: "glutin error: [a7] GLXBadFBConfig").
    pub reason: String,
}

impl std::fmt::Display for PassedOver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.renderer.name(), self.reason)
    }
}

/// What one window start used: kept in [`RECORD_FILE`] beside the database.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WindowStart {
    /// When the window opened (or the last renderer failed).
    pub at: chrono::DateTime<chrono::FixedOffset>,
    /// The renderer that drew; none when none could.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renderer: Option<Renderer>,
    /// What it drew on: "llvmpipe (LLVM 15.0.6, 256 bits) (software), driver Mesa 22.3.6".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adapter: Option<String>,
    /// What decided the order ([`Order::asked_by`]).
    #[serde(default)]
    pub asked_by: String,
    /// The renderers tried before it, each with why it could not open the window.
    #[serde(default)]
    pub passed_over: Vec<PassedOver>,
}

impl WindowStart {
    /// "wgpu — Vulkan on llvmpipe (…)", or the renderer alone when its adapter is not known.
    pub fn drawn_by(&self) -> Option<String> {
        let renderer = self.renderer?;
        Some(match &self.adapter {
            Some(adapter) => format!("{} on {adapter}", renderer.name()),
            None => renderer.name().to_owned(),
        })
    }

    /// The software rasterizer that drew the window, when no GPU did: Mesa's "llvmpipe" (OpenGL)
    /// and "lavapipe" (Vulkan; it names its device llvmpipe too), Windows' "WARP" (the Microsoft
    /// Basic Render Driver), "SwiftShader", "softpipe"; "a software rasterizer" for another that
    /// says it is one.
    pub fn software_rasterizer(&self) -> Option<&'static str> {
        let renderer = self.renderer?;
        let adapter = self.adapter.as_deref()?.to_ascii_lowercase();
        if adapter.contains("basic render driver") || adapter.contains("warp") {
            Some("WARP")
        } else if adapter.contains("llvmpipe") || adapter.contains("lavapipe") {
            Some(if renderer == Renderer::Glow { "llvmpipe" } else { "lavapipe" })
        } else if adapter.contains("swiftshader") {
            Some("SwiftShader")
        } else if adapter.contains("softpipe") {
            Some("softpipe")
        } else if adapter.contains("(software)") {
            Some("a software rasterizer")
        } else {
            None
        }
    }

    /// One sentence when the window was drawn in software: which rasterizer, and what to try —
    /// glow where wgpu drew and glow could have (several times quicker in software,
    /// benches/README.md), else the machine's GPU driver or a smaller window; `None` on a GPU.
    pub fn software_note(&self) -> Option<String> {
        let rasterizer = self.software_rasterizer()?;
        let glow_refused = self.passed_over.iter().any(|p| p.renderer == Renderer::Glow);
        let try_this = match self.renderer {
            Some(renderer) if renderer.is_wgpu() && !glow_refused => format!(
                "try View → Renderer → glow (or {ENV}=glow), several times quicker in software, or install the machine's GPU driver"
            ),
            _ => "install the machine's GPU driver (or ask IT for a virtual GPU), or use a smaller window or scale"
                .to_owned(),
        };
        Some(format!(
            "drawn in software ({rasterizer}): the processor draws every frame, slow on a large screen; {try_this}"
        ))
    }

    /// The renderers passed over, "glow (OpenGL) (…), wgpu — Vulkan (…)", or "none".
    pub fn passed_over_text(&self) -> String {
        if self.passed_over.is_empty() {
            "none".to_owned()
        } else {
            self.passed_over.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
        }
    }
}

/// Keeps what this start used in `dir`. Blocking: not on the UI thread.
pub fn write_record(dir: &Path, start: &WindowStart) -> Result<(), String> {
    crate::platform::ui_thread::check("renderer::write_record");
    let text = toml::to_string(start).map_err(|e| e.to_string())?;
    write_file(&dir.join(RECORD_FILE), &text)
        .map_err(|e| format!("what the window start used could not be kept in {} ({e})", dir.display()))
}

/// What the last window start in `dir` used; none before the first.
pub fn read_record(dir: &Path) -> Result<Option<WindowStart>, String> {
    let path = dir.join(RECORD_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => toml::from_str(&text)
            .map(Some)
            .map_err(|e| format!("{} could not be read ({})", path.display(), first_line(&e.to_string()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{} could not be read ({e})", path.display())),
    }
}

/// Written whole or not at all (a temporary file renamed over the old one).
fn write_file(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let dir = path.parent().unwrap_or(Path::new("."));
    crate::platform::private::create_dir_all(dir)?;
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    file.write_all(text.as_bytes())?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or(text).trim()
}

/// The folder of the View → Renderer setting: beside the profiles file.
pub fn settings_dir() -> Option<PathBuf> {
    crate::profiles::ProfileFile::default_location().ok().and_then(|file| file.path().parent().map(Path::to_path_buf))
}

/// The folder of the last start's record: beside the database.
pub fn record_dir() -> Option<PathBuf> {
    crate::store::Store::default_path().and_then(|path| path.parent().map(Path::to_path_buf))
}

/// The lines `orgql doctor` prints about the window's renderer, for this user on this machine:
///
/// ```text
/// Renderer: wgpu — Vulkan on llvmpipe (LLVM 15.0.6, 256 bits), last window start 2026-11-28 14:02; passed over: glow (OpenGL) (glutin error: [a7] GLXBadFBConfig)
/// Renderer order: glow (OpenGL), then wgpu — Vulkan (automatic); ORGQL_RENDERER or View → Renderer puts one first
/// ```
pub fn doctor_lines() -> Vec<String> {
    let record = record_dir().map(|dir| read_record(&dir));
    let order = Order::of_this_start(settings_dir().as_deref());
    lines(record, &order)
}

/// [`doctor_lines`] of a record and an order.
fn lines(record: Option<Result<Option<WindowStart>, String>>, order: &Order) -> Vec<String> {
    let mut lines = Vec::new();
    let software = record.clone();
    lines.push(match record {
        Some(Ok(Some(start))) => {
            let when = start.at.with_timezone(&chrono::Local).format("%Y-%m-%d %H:%M");
            match start.drawn_by() {
                Some(drawn_by) => {
                    format!("Renderer: {drawn_by}, last window start {when}; passed over: {}", start.passed_over_text())
                }
                None => format!(
                    "Renderer: none could draw at the last window start {when}; passed over: {}",
                    start.passed_over_text()
                ),
            }
        }
        Some(Ok(None)) => "Renderer: no window started yet".to_owned(),
        Some(Err(e)) => format!("Renderer: {e}"),
        None => "Renderer: no data folder is known (set HOME)".to_owned(),
    });
    if let Some(Ok(Some(start))) = &software
        && let Some(note) = start.software_note()
    {
        lines.push(format!("Renderer: {note}"));
    }
    lines.push(format!(
        "Renderer order: {} ({}); {ENV} or View → Renderer puts one first",
        order.describe(),
        order.asked_by
    ));
    for warning in &order.warnings {
        lines.push(format!("Renderer warning: {warning}"));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINUX: [Renderer; 2] = [Renderer::Glow, Renderer::WgpuVulkan];
    const WINDOWS: [Renderer; 3] = [Renderer::WgpuDx12, Renderer::WgpuVulkan, Renderer::Glow];

    #[test]
    fn what_is_asked_comes_first_and_the_rest_follow() {
        let auto = Order::of(None, None, &LINUX);
        assert_eq!(auto.renderers, LINUX);
        assert_eq!(auto.asked_by, "automatic");
        let env = Order::of(Some("wgpu"), Some(Renderer::Glow), &LINUX);
        assert_eq!(env.renderers, [Renderer::WgpuVulkan, Renderer::Glow], "the environment before the setting");
        assert_eq!(env.asked_by, "ORGQL_RENDERER=wgpu");
        assert!(env.warnings.is_empty());
        let setting = Order::of(None, Some(Renderer::WgpuVulkan), &LINUX);
        assert_eq!(setting.renderers, [Renderer::WgpuVulkan, Renderer::Glow]);
        assert_eq!(setting.asked_by, "View → Renderer");
        // wgpu is every wgpu backend of the system, in the system's order; names and aliases.
        assert_eq!(
            Order::of(Some("glow"), None, &WINDOWS).renderers,
            [Renderer::Glow, Renderer::WgpuDx12, Renderer::WgpuVulkan]
        );
        assert_eq!(
            Order::of(Some(" Vulkan , dx12 "), None, &WINDOWS).renderers,
            [Renderer::WgpuVulkan, Renderer::WgpuDx12, Renderer::Glow]
        );
        assert_eq!(Order::of(Some("wgpu"), None, &WINDOWS).renderers, WINDOWS);
        assert_eq!(Order::of(Some(""), None, &LINUX).asked_by, "automatic", "empty is unset");
    }

    #[test]
    fn names_that_cannot_be_followed_are_said_and_the_rest_is_kept() {
        let order = Order::of(Some("dx12,fast,wgpu"), None, &LINUX);
        assert_eq!(order.renderers, [Renderer::WgpuVulkan, Renderer::Glow]);
        assert_eq!(order.warnings.len(), 2, "{:?}", order.warnings);
        assert!(order.warnings[0].contains("wgpu-dx12, which this system does not have; it has glow, wgpu-vulkan"));
        assert!(order.warnings[1].contains("'fast', which is not a renderer: use glow, wgpu-vulkan or wgpu"));
        let setting = Order::of(None, Some(Renderer::WgpuMetal), &LINUX);
        assert_eq!(setting.renderers, LINUX);
        assert_eq!(setting.warnings.len(), 1);
    }

    #[test]
    fn the_setting_and_the_record_are_kept_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_setting(dir.path()), Ok(None), "no file: automatic");
        write_setting(dir.path(), Some(Renderer::WgpuVulkan)).unwrap();
        assert_eq!(read_setting(dir.path()), Ok(Some(Renderer::WgpuVulkan)));
        assert!(std::fs::read_to_string(dir.path().join(SETTING_FILE)).unwrap().contains("first = \"wgpu-vulkan\""));
        write_setting(dir.path(), None).unwrap();
        assert_eq!(read_setting(dir.path()), Ok(None));
        std::fs::write(dir.path().join(SETTING_FILE), "first = \"quantum\"\n").unwrap();
        let refused = read_setting(dir.path()).unwrap_err();
        assert!(
            refused.contains("is not a renderer setting") && refused.ends_with("the automatic order is used"),
            "{refused}"
        );

        assert_eq!(read_record(dir.path()), Ok(None));
        let start = WindowStart {
            at: chrono::DateTime::parse_from_rfc3339("2026-11-28T14:02:00+01:00").unwrap(),
            renderer: Some(Renderer::WgpuVulkan),
            adapter: Some("llvmpipe (LLVM 15.0.6, 256 bits)".into()),
            asked_by: "automatic".into(),
            passed_over: vec![PassedOver {
                renderer: Renderer::Glow,
                reason: "glutin error: [a7] GLXBadFBConfig".into(),
            }],
        };
        write_record(dir.path(), &start).unwrap();
        assert_eq!(read_record(dir.path()), Ok(Some(start.clone())));
        let order = Order::of(None, None, &LINUX);
        let lines = lines(Some(Ok(Some(start))), &order);
        let when = chrono::DateTime::parse_from_rfc3339("2026-11-28T14:02:00+01:00")
            .unwrap()
            .with_timezone(&chrono::Local)
            .format("%Y-%m-%d %H:%M")
            .to_string();
        assert_eq!(
            lines[0],
            format!(
                "Renderer: wgpu — Vulkan on llvmpipe (LLVM 15.0.6, 256 bits), last window start {when}; passed over: glow (OpenGL) (glutin error: [a7] GLXBadFBConfig)"
            )
        );
        assert_eq!(
            lines[1],
            "Renderer: drawn in software (lavapipe): the processor draws every frame, slow on a large screen; install the machine's GPU driver (or ask IT for a virtual GPU), or use a smaller window or scale"
        );
        assert_eq!(
            lines[2],
            "Renderer order: glow (OpenGL), then wgpu — Vulkan (automatic); ORGQL_RENDERER or View → Renderer puts one first"
        );
        let failed = WindowStart { renderer: None, adapter: None, ..read_record(dir.path()).unwrap().unwrap() };
        assert!(
            super::lines(Some(Ok(Some(failed))), &order)[0]
                .starts_with("Renderer: none could draw at the last window start")
        );
        assert_eq!(super::lines(Some(Ok(None)), &order)[0], "Renderer: no window started yet");
    }

    #[test]
    fn a_software_rasterizer_is_named_with_what_to_try() {
        let start = |renderer: Renderer, adapter: &str, passed_over: Vec<PassedOver>| WindowStart {
            at: chrono::DateTime::parse_from_rfc3339("2026-11-29T09:00:00+00:00").unwrap(),
            renderer: Some(renderer),
            adapter: Some(adapter.to_owned()),
            asked_by: "automatic".into(),
            passed_over,
        };
        let lavapipe = "llvmpipe (LLVM 15.0.6, 256 bits) (software), driver Mesa 22.3.6 (LLVM 15.0.6)";
        let wgpu = start(Renderer::WgpuVulkan, lavapipe, Vec::new());
        assert_eq!(wgpu.software_rasterizer(), Some("lavapipe"));
        let note = wgpu.software_note().expect("in software");
        assert!(note.starts_with("drawn in software (lavapipe): "), "{note}");
        assert!(note.contains("View → Renderer → glow (or ORGQL_RENDERER=glow)"), "glow offered: {note}");
        let glow =
            start(Renderer::Glow, "llvmpipe (LLVM 15.0.6, 256 bits), OpenGL 4.5 (Core Profile) Mesa 22.3.6", vec![]);
        assert_eq!(glow.software_rasterizer(), Some("llvmpipe"));
        assert!(glow.software_note().expect("in software").contains("GPU driver"));
        let warp = start(Renderer::WgpuDx12, "Microsoft Basic Render Driver (software)", vec![]);
        assert_eq!(warp.software_rasterizer(), Some("WARP"));
        let refused = PassedOver { renderer: Renderer::Glow, reason: "no OpenGL 2".into() };
        let warp_only = start(Renderer::WgpuDx12, "Microsoft Basic Render Driver (software)", vec![refused]);
        assert!(!warp_only.software_note().expect("in software").contains("→ glow"), "glow could not open it");
        let gpu = start(Renderer::WgpuVulkan, "NVIDIA GeForce RTX 3060, driver 550.54", vec![]);
        assert_eq!((gpu.software_rasterizer(), gpu.software_note()), (None, None));
    }
}
