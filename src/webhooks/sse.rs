//! A reader of Server-Sent Events (the WHATWG `text/event-stream` format) for the pull client:
//! fed the bytes as they arrive, it gives each complete event. Written here rather than taken from
//! a crate because the format is a few lines and the reader must keep memory bounded: an event
//! larger than its cap is an error, not an ever-growing buffer.

/// One event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `id:` this event set, if it set one.
    pub id: Option<String>,
    /// The `event:` name (`message` when none).
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// Why a stream could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SseError {
    /// An event over the cap.
    #[error("an event of the stream is larger than {0} bytes; the sender is not a webhook relay orgql can read")]
    TooLarge(usize),
}

/// The reader's state between chunks.
#[derive(Debug)]
pub struct SseParser {
    line: Vec<u8>,
    skip_lf: bool,
    current: SseEvent,
    has_data: bool,
    size: usize,
    max: usize,
}

impl SseParser {
    /// A reader that refuses events over `max_event_bytes`.
    pub fn new(max_event_bytes: usize) -> Self {
        SseParser {
            line: Vec::new(),
            skip_lf: false,
            current: SseEvent::default(),
            has_data: false,
            size: 0,
            max: max_event_bytes,
        }
    }

    /// Reads `chunk`, appending each event it completes to `out`.
    pub fn push(&mut self, chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        for &byte in chunk {
            if self.skip_lf {
                self.skip_lf = false;
                if byte == b'\n' {
                    continue;
                }
            }
            match byte {
                b'\n' | b'\r' => {
                    self.skip_lf = byte == b'\r';
                    let line = std::mem::take(&mut self.line);
                    self.line_done(&line, out);
                }
                _ => {
                    self.line.push(byte);
                    self.size += 1;
                    if self.size > self.max {
                        return Err(SseError::TooLarge(self.max));
                    }
                }
            }
        }
        Ok(())
    }

    fn line_done(&mut self, line: &[u8], out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            let event = std::mem::take(&mut self.current);
            self.size = 0;
            if self.has_data || event.id.is_some() {
                let event =
                    SseEvent { event: if event.event.is_empty() { "message".into() } else { event.event }, ..event };
                out.push(event);
            }
            self.has_data = false;
            return;
        }
        let text = String::from_utf8_lossy(line);
        if text.starts_with(':') {
            return;
        }
        let (field, value) = match text.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (text.as_ref(), ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.current.data.push('\n');
                }
                self.current.data.push_str(value);
                self.has_data = true;
            }
            "id" if !value.contains('\0') => self.current.id = Some(value.to_owned()),
            "event" => self.current.event = value.to_owned(),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(parser: &mut SseParser, chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut out = Vec::new();
        for chunk in chunks {
            parser.push(chunk, &mut out).unwrap();
        }
        out
    }

    #[test]
    fn reads_events_split_anywhere_with_any_line_ending() {
        let text =
            b"id: 1\nevent: delivery\ndata: {\"a\":\ndata: 1}\n\n: keep-alive\n\ndata: x\r\n\r\nid: 2\rdata:y\r\r";
        for split in 0..text.len() {
            let mut parser = SseParser::new(1024);
            let events = all(&mut parser, &[&text[..split], &text[split..]]);
            assert_eq!(
                events,
                [
                    SseEvent { id: Some("1".into()), event: "delivery".into(), data: "{\"a\":\n1}".into() },
                    SseEvent { id: None, event: "message".into(), data: "x".into() },
                    SseEvent { id: Some("2".into()), event: "message".into(), data: "y".into() },
                ],
                "split at {split}"
            );
        }
    }

    #[test]
    fn an_event_over_the_cap_is_an_error() {
        let mut parser = SseParser::new(10);
        let mut out = Vec::new();
        assert_eq!(parser.push(b"data: 0123456789abcdef", &mut out), Err(SseError::TooLarge(10)));
    }
}
