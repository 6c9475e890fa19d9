//! What every feature of the window draws with: the accessibility helpers ([`a11y`]), the colours
//! ([`theme`]), the JSON tree, the native file dialog, the state of a request ([`requested`]), the
//! panes that F6 moves between ([`panes`]), still plots ([`plot`]) and number formatting ([`numbers`]).
//! Nothing here knows a feature.

pub mod a11y;
pub mod file_dialog;
pub mod json_tree;
pub mod numbers;
pub mod panes;
pub mod plot;
pub mod requested;
pub mod theme;
