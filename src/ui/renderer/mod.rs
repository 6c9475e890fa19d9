//! What draws the window (issue 45): the renderers orgql has and the order it tries them in
//! ([`choice`], no egui: also read by `orgql doctor`), the window opened with the first that draws
//! ([`start`]), and the renderer shown and chosen in the app ([`panel`]: Help → About, View →
//! Renderer).

pub mod choice;
mod panel;
mod start;

pub use choice::{ENV, Order, PassedOver, Renderer, WindowStart, doctor_lines};
pub use panel::{RendererPanel, StartReport};
pub use start::{NotOpened, configure, describe_adapter, open};
