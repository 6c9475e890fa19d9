//! The Chart view's jobs (issue 32): group a grid's rows ([`crate::chart::tally`]) on a
//! blocking thread of the runtime, and write a chart to a file (an SVG document, or the plot's
//! pixels encoded as PNG), so that neither counting 100,000 rows nor encoding nor writing
//! happens on the UI thread.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{JobId, Shared};
use crate::chart::{ChartSpec, Tally};
use crate::table::Row;

/// What the Chart view asks.
#[derive(Debug, Clone)]
pub enum ChartCommand {
    /// Group `rows` as `spec` asks.
    Tally {
        /// The grouping (its event carries it: only the newest is shown).
        job: JobId,
        /// The grid's rows, shared (never copied).
        rows: Arc<Vec<Row>>,
        /// The grid's column names.
        columns: Vec<String>,
        spec: ChartSpec,
    },
    /// Write a chart to `path`.
    Save { job: JobId, path: PathBuf, image: ChartImage },
}

/// A chart to write.
#[derive(Clone)]
pub enum ChartImage {
    /// An SVG document.
    Svg(String),
    /// Pixels, RGBA, row by row.
    Png {
        /// Width and height in pixels.
        size: [usize; 2],
        rgba: Arc<Vec<u8>>,
    },
}

impl std::fmt::Debug for ChartImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChartImage::Svg(text) => write!(f, "Svg({} bytes)", text.len()),
            ChartImage::Png { size, .. } => write!(f, "Png({}×{})", size[0], size[1]),
        }
    }
}

/// What the worker tells the Chart view.
#[derive(Debug, Clone)]
pub enum ChartEvent {
    /// Rows grouped (or why not).
    Tallied { job: JobId, result: Result<Arc<Tally>, String> },
    /// A chart written to a file (or why not).
    Saved { job: JobId, result: Result<PathBuf, String> },
}

pub(super) fn handle(shared: &Arc<Shared>, command: ChartCommand) {
    let shared = shared.clone();
    match command {
        ChartCommand::Tally { job, rows, columns, spec } => {
            tokio::spawn(async move {
                let result = tokio::task::spawn_blocking(move || {
                    crate::chart::tally(&rows, &columns, spec).map(Arc::new).map_err(|e| capitalised(&e.to_string()))
                })
                .await
                .unwrap_or_else(|e| Err(format!("The rows could not be counted ({e}).")));
                shared.emit(ChartEvent::Tallied { job, result }).await;
            });
        }
        ChartCommand::Save { job, path, image } => {
            tokio::spawn(async move {
                let result = tokio::task::spawn_blocking(move || write(&path, &image).map(|()| path))
                    .await
                    .unwrap_or_else(|e| Err(format!("The chart could not be saved ({e}).")));
                shared.emit(ChartEvent::Saved { job, result }).await;
            });
        }
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect::<String>() + ".").unwrap_or_default()
}

/// Writes `image` to `path` (through a file beside it, renamed when complete).
pub fn write(path: &Path, image: &ChartImage) -> Result<(), String> {
    crate::platform::ui_thread::check("chart file");
    let bytes = match image {
        ChartImage::Svg(text) => text.as_bytes().to_vec(),
        ChartImage::Png { size, rgba } => png_bytes(*size, rgba)?,
    };
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let failed = |e: std::io::Error| format!("The chart could not be saved to {}: {e}.", path.display());
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(failed)?;
    std::io::Write::write_all(&mut file, &bytes).map_err(failed)?;
    file.persist(path).map_err(|e| failed(e.error))?;
    Ok(())
}

/// RGBA pixels as a PNG file.
fn png_bytes(size: [usize; 2], rgba: &[u8]) -> Result<Vec<u8>, String> {
    let (width, height) = (u32::try_from(size[0]), u32::try_from(size[1]));
    let (Ok(width), Ok(height)) = (width, height) else { return Err("The chart is too large to save.".into()) };
    if width == 0 || height == 0 || rgba.len() != size[0] * size[1] * 4 {
        return Err("The chart has no pixels to save; show it on screen and save again.".into());
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let encoded = encoder.write_header().and_then(|mut writer| writer.write_image_data(rgba));
    encoded.map_err(|e| format!("The chart could not be encoded as PNG ({e})."))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_an_svg_and_a_png_that_decodes_to_the_pixels() {
        let dir = tempfile::tempdir().unwrap();
        let svg = dir.path().join("c.svg");
        write(&svg, &ChartImage::Svg("<svg/>".into())).unwrap();
        assert_eq!(std::fs::read_to_string(&svg).unwrap(), "<svg/>");
        let pixels: Vec<u8> = (0..2 * 3 * 4).map(|i| i as u8).collect();
        let png = dir.path().join("c.png");
        write(&png, &ChartImage::Png { size: [2, 3], rgba: Arc::new(pixels.clone()) }).unwrap();
        let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        let mut back = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut back).unwrap();
        assert_eq!((info.width, info.height), (2, 3));
        assert_eq!(back, pixels);
        let none = write(&png, &ChartImage::Png { size: [0, 0], rgba: Arc::new(Vec::new()) });
        assert!(none.unwrap_err().contains("no pixels"));
        let nowhere = write(Path::new("/nonexistent-dir/c.svg"), &ChartImage::Svg(String::new()));
        assert!(nowhere.unwrap_err().starts_with("The chart could not be saved to /nonexistent-dir/c.svg"));
    }
}
