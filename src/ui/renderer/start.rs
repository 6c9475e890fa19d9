//! Opening the window: each renderer of the start's [`Order`] in turn, in the same process, until
//! one draws. eframe has no fallback of its own, but it keeps winit's event loop between runs
//! (`NativeOptions::run_and_return`, its default), so a run that fails before the app is made
//! (no OpenGL 2, a Direct3D 12 device lost) can be followed by another with the next renderer.

use std::cell::Cell;

use eframe::egui_wgpu::{WgpuSetup, WgpuSetupCreateNew};
use eframe::wgpu;

use super::choice::{Order, PassedOver, Renderer, WindowStart};

/// Why the window did not open.
#[derive(Debug)]
pub enum NotOpened {
    /// No display to open a window on (winit's event loop could not start): eframe's error.
    NoDisplay(String),
    /// Every renderer of the order was tried and passed over.
    NoRenderer(Vec<PassedOver>),
    /// The app failed after a renderer had opened the window: eframe's error.
    Failed(String),
}

/// Sets `options` to draw with `renderer`.
pub fn configure(options: &mut eframe::NativeOptions, renderer: Renderer) {
    let backends = match renderer {
        Renderer::Glow => {
            options.renderer = eframe::Renderer::Glow;
            return;
        }
        Renderer::WgpuDx12 => wgpu::Backends::DX12,
        Renderer::WgpuVulkan => wgpu::Backends::VULKAN,
        Renderer::WgpuMetal => wgpu::Backends::METAL,
    };
    options.renderer = eframe::Renderer::Wgpu;
    let mut setup = WgpuSetupCreateNew::without_display_handle();
    // One backend a run: the next is orgql's to try when this one fails (WGPU_BACKEND is not
    // read; ORGQL_RENDERER chooses).
    setup.instance_descriptor.backends = backends;
    // A data grid needs no discrete GPU woken on a laptop; WARP and llvmpipe are taken when they
    // are all there is. WGPU_POWER_PREF still chooses.
    setup.power_preference = wgpu::PowerPreference::from_env().unwrap_or(wgpu::PowerPreference::LowPower);
    options.wgpu_options.wgpu_setup = WgpuSetup::CreateNew(setup);
}

/// Opens the window with the first renderer of `order` that can draw, `options` giving each run's
/// options (the renderer set by [`configure`]); `make_app` makes the app once the window is open,
/// told what drew it. Returns when the window closes.
pub fn open<F>(
    title: &str,
    order: &Order,
    options: impl Fn(Renderer) -> eframe::NativeOptions,
    make_app: F,
) -> Result<(), NotOpened>
where
    F: FnOnce(&eframe::CreationContext<'_>, WindowStart) -> Box<dyn eframe::App>,
{
    let slot = Cell::new(Some(make_app));
    let mut passed_over: Vec<PassedOver> = Vec::new();
    for (at, &renderer) in order.renderers.iter().enumerate() {
        tracing::info!(
            "opening the window with {} ({} of {}: {})",
            renderer.name(),
            at + 1,
            order.renderers.len(),
            order.asked_by
        );
        let tried = passed_over.clone();
        let slot = &slot;
        let result = eframe::run_native(
            title,
            options(renderer),
            Box::new(move |cc| {
                let make_app = slot.take().ok_or("the app was made by an earlier run")?;
                let start = WindowStart {
                    at: chrono::Local::now().fixed_offset(),
                    renderer: Some(renderer),
                    adapter: adapter_of(cc),
                    asked_by: order.asked_by.clone(),
                    passed_over: tried,
                };
                tracing::info!(
                    "the window is drawn by {}; passed over: {}",
                    start.drawn_by().unwrap_or_default(),
                    start.passed_over_text()
                );
                if let Some(note) = start.software_note() {
                    tracing::warn!("the window is {note}");
                }
                Ok(make_app(cc, start))
            }),
        );
        let err = match result {
            Ok(()) => {
                tracing::info!("the window is closed ({} let go)", renderer.name());
                return Ok(());
            }
            Err(err) => err,
        };
        let pending = slot.take();
        let app_made = pending.is_none();
        slot.set(pending);
        match err {
            eframe::Error::WinitEventLoop(_) => return Err(NotOpened::NoDisplay(err.to_string())),
            _ if app_made => return Err(NotOpened::Failed(err.to_string())),
            eframe::Error::AppCreation(_) => return Err(NotOpened::Failed(err.to_string())),
            _ => {}
        }
        let reason = one_line(&err.to_string());
        match order.renderers.get(at + 1) {
            Some(next) => {
                tracing::warn!("{} could not open the window ({reason}); trying {}", renderer.name(), next.name())
            }
            None => tracing::warn!("{} could not open the window ({reason}); no renderer is left", renderer.name()),
        }
        passed_over.push(PassedOver { renderer, reason });
    }
    Err(NotOpened::NoRenderer(passed_over))
}

/// An error on one line (wgpu's can span several).
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What the renderer draws on: the GPU (or software rasteriser) and its driver.
fn adapter_of(cc: &eframe::CreationContext<'_>) -> Option<String> {
    if let Some(state) = &cc.wgpu_render_state {
        return Some(describe_adapter(&state.adapter.get_info()));
    }
    let gl = cc.gl.as_ref()?;
    use eframe::glow::HasContext as _;
    // SAFETY: the context is current on this thread while the app is made (eframe made it so
    // before calling the creator); GL_RENDERER and GL_VERSION are strings every context has.
    let (renderer, version) =
        unsafe { (gl.get_parameter_string(eframe::glow::RENDERER), gl.get_parameter_string(eframe::glow::VERSION)) };
    Some(format!("{renderer}, OpenGL {version}"))
}

/// "Microsoft Basic Render Driver (software)", "llvmpipe (LLVM 15.0.6, 256 bits) (software),
/// driver Mesa 22.3.6 (LLVM 15.0.6)".
pub fn describe_adapter(info: &wgpu::AdapterInfo) -> String {
    let mut text = info.name.clone();
    if info.device_type == wgpu::DeviceType::Cpu {
        text.push_str(" (software)");
    }
    if !info.driver_info.is_empty() {
        text.push_str(", driver ");
        text.push_str(&info.driver_info);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_renderer_is_one_eframe_renderer_and_one_wgpu_backend() {
        let mut options = eframe::NativeOptions::default();
        configure(&mut options, Renderer::Glow);
        assert_eq!(options.renderer, eframe::Renderer::Glow);
        for (renderer, backends) in [
            (Renderer::WgpuDx12, wgpu::Backends::DX12),
            (Renderer::WgpuVulkan, wgpu::Backends::VULKAN),
            (Renderer::WgpuMetal, wgpu::Backends::METAL),
        ] {
            let mut options = eframe::NativeOptions::default();
            configure(&mut options, renderer);
            assert_eq!(options.renderer, eframe::Renderer::Wgpu);
            let WgpuSetup::CreateNew(setup) = &options.wgpu_options.wgpu_setup else { panic!("a new wgpu setup") };
            assert_eq!(setup.instance_descriptor.backends, backends, "{renderer:?}");
        }
        assert_eq!(one_line("RequestDeviceError\n  Device(Lost)"), "RequestDeviceError Device(Lost)");
    }
}
