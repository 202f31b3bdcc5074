//! Server-sent events framed from bytes: `sseer`'s line parser (line ends, fields, comments)
//! under the event rules of the WHATWG `EventSource`, with the caps that keep a hostile
//! stream in bounded memory. Synchronous: the watch feeds it bytes and takes events.

use std::time::Duration;

use bytes::{BufMut, Bytes, BytesMut};
use bytes_utils::Str;
use sseer::parser::{RawEventLineOwned, parse_line_from_buffer};

use super::event::Event;

/// The byte order mark that may open a stream, and is skipped.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The least room the buffer takes when it grows, so that it grows once for many events
/// rather than once an event.
const MIN_RESERVE: usize = 8 * 1024;

/// How much of a caller's chunk is copied into the buffer at once: a huge chunk is framed a
/// piece at a time, so that it never all sits in the buffer.
pub(super) const PIECE: usize = 64 * 1024;

/// The caps on what the stream may make the watch hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Caps {
    /// The longest line, in bytes.
    pub(super) line: usize,
    /// The most bytes between two events (comments included).
    pub(super) event: usize,
}

/// What the framing gives, one at a time.
#[derive(Debug)]
pub(super) enum Frame {
    /// An event, dispatched by its blank line.
    Event(Event),
    /// A JSON document written on its own, not as `data:` (Gemini reports a failure after a
    /// chunk so): its text.
    Bare(Str),
}

/// The stream broke a cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Oversize {
    /// A line longer than the cap.
    Line,
    /// More bytes than the cap between two events.
    Event,
}

/// The data of the event being assembled: most events have one `data:` line, kept as the
/// slice of the buffer it came in (no copy); a second line joins them.
#[derive(Debug, Default)]
enum Data {
    #[default]
    None,
    One(Bytes),
    Many(BytesMut),
}

/// The framing state of one stream.
#[derive(Debug)]
pub(super) struct Frames {
    buffer: BytesMut,
    /// Where the search for the next line end resumes in `buffer`.
    scanned: usize,
    /// Whether the stream's start (and a byte order mark there) is behind us.
    started: bool,
    caps: Caps,
    /// Bytes of lines read since the last event (or bare document) was given out.
    since_event: usize,
    /// The event being assembled.
    name: Option<Bytes>,
    data: Data,
    retry: Option<Duration>,
    /// The last event id, which every later event carries, as in `EventSource`.
    id: Option<Str>,
    /// Whether a field (of any name) was read since the last blank line.
    in_block: bool,
    /// A bare JSON document being read, line by line.
    bare: Option<BytesMut>,
}

impl Frames {
    pub(super) fn new(caps: Caps) -> Self {
        Frames {
            buffer: BytesMut::new(),
            scanned: 0,
            started: false,
            caps,
            since_event: 0,
            name: None,
            data: Data::None,
            retry: None,
            id: None,
            in_block: false,
            bare: None,
        }
    }

    /// The caps it enforces.
    pub(super) fn caps(&self) -> Caps {
        self.caps
    }

    /// Appends bytes (at most [`PIECE`] at a time is what the watch gives).
    pub(super) fn push(&mut self, bytes: &[u8]) {
        if self.buffer.capacity() - self.buffer.len() < bytes.len() {
            self.buffer.reserve(bytes.len().max(MIN_RESERVE));
        }
        self.buffer.extend_from_slice(bytes);
    }

    /// The next event or bare document that the bytes pushed so far complete.
    pub(super) fn next(&mut self) -> Result<Option<Frame>, Oversize> {
        if !self.started && !self.skip_bom() {
            return Ok(None);
        }
        loop {
            let before = self.buffer.len();
            let Some(line) = parse_line_from_buffer(&mut self.buffer, &mut self.scanned) else {
                if self.buffer.len() > self.caps.line {
                    return Err(Oversize::Line);
                }
                return Ok(None);
            };
            let read = before - self.buffer.len();
            if read > self.caps.line.saturating_add(2) {
                return Err(Oversize::Line);
            }
            self.since_event = self.since_event.saturating_add(read);
            if self.since_event > self.caps.event {
                return Err(Oversize::Event);
            }
            if let Some(frame) = self.line(line) {
                self.since_event = 0;
                return Ok(Some(frame));
            }
        }
    }

    /// The end of the stream: a last line without its line end is read, and an event whose
    /// lines all ended is dispatched though its blank line is missing, as is a bare document.
    pub(super) fn finish(&mut self) -> Result<Option<Frame>, Oversize> {
        if !self.buffer.is_empty() && self.buffer.last() == Some(&b'\r') {
            // A lone CR at the very end ends its line.
            self.buffer.put_u8(b'\n');
        }
        if let Some(frame) = self.next()? {
            return Ok(Some(frame));
        }
        // Whatever is left is a line cut before its end: dropped, as the standard says.
        self.buffer.clear();
        self.scanned = 0;
        if let Some(bare) = self.bare.take() {
            return Ok(bare_document(bare));
        }
        Ok(self.dispatch().map(Frame::Event))
    }

    /// Steps over a byte order mark at the start of the stream; `false` while too few bytes
    /// have come to tell.
    fn skip_bom(&mut self) -> bool {
        let n = self.buffer.len().min(BOM.len());
        if self.buffer[..n] != BOM[..n] {
            self.started = true;
        } else if n == BOM.len() {
            let _ = self.buffer.split_to(BOM.len());
            self.started = true;
        }
        self.started
    }

    /// Takes one line; an event or a bare document when the line completes one.
    fn line(&mut self, line: RawEventLineOwned) -> Option<Frame> {
        match line {
            RawEventLineOwned::Empty => {
                self.in_block = false;
                if let Some(bare) = self.bare.take() {
                    return bare_document(bare);
                }
                self.dispatch().map(Frame::Event)
            }
            RawEventLineOwned::Comment => None,
            RawEventLineOwned::Field {
                field_name,
                field_value,
            } => {
                if self.bare.is_some()
                    || (!self.in_block && matches!(field_name.first(), Some(b'{' | b'[')))
                {
                    self.bare_line(&field_name, field_value.as_deref());
                    return None;
                }
                self.in_block = true;
                self.field(&field_name, field_value);
                None
            }
        }
    }

    /// One field of the event being assembled.
    fn field(&mut self, name: &[u8], value: Option<Bytes>) {
        match name {
            b"data" => {
                let value = value.unwrap_or_default();
                self.data = match std::mem::take(&mut self.data) {
                    Data::None => Data::One(value),
                    Data::One(first) => {
                        let mut joined = BytesMut::with_capacity(first.len() + 1 + value.len());
                        joined.extend_from_slice(&first);
                        joined.put_u8(b'\n');
                        joined.extend_from_slice(&value);
                        Data::Many(joined)
                    }
                    Data::Many(mut joined) => {
                        joined.put_u8(b'\n');
                        joined.extend_from_slice(&value);
                        Data::Many(joined)
                    }
                };
            }
            b"event" => self.name = value,
            b"id" => {
                let value = value.unwrap_or_default();
                // An id with a NUL is ignored, as `EventSource` ignores it.
                if !value.contains(&0) {
                    self.id = Some(text(value));
                }
            }
            b"retry" => {
                if let Some(ms) = value.as_deref().and_then(digits) {
                    self.retry = Some(Duration::from_millis(ms));
                }
            }
            _ => {}
        }
    }

    /// A line of a bare JSON document, written back as it came (the one space the line
    /// parser took after the colon does not change the JSON).
    fn bare_line(&mut self, name: &[u8], value: Option<&[u8]>) {
        let bare = self.bare.get_or_insert_with(BytesMut::new);
        if !bare.is_empty() {
            bare.put_u8(b'\n');
        }
        bare.extend_from_slice(name);
        if let Some(value) = value {
            bare.extend_from_slice(b": ");
            bare.extend_from_slice(value);
        }
    }

    /// The event assembled since the last blank line, if it has data (an event without data
    /// is not dispatched, as in `EventSource`); the assembly starts again.
    fn dispatch(&mut self) -> Option<Event> {
        let name = self.name.take();
        let data = match std::mem::take(&mut self.data) {
            Data::None => return None,
            Data::One(data) => text(data),
            Data::Many(joined) => text(joined.freeze()),
        };
        // A retry set in a block without data waits for the next event.
        let retry = self.retry.take();
        Some(Event::from_parts(
            name.map(text),
            data,
            self.id.clone(),
            retry,
        ))
    }
}

/// A bare document's frame, unless it is empty.
fn bare_document(bare: BytesMut) -> Option<Frame> {
    (!bare.is_empty()).then(|| Frame::Bare(text(bare.freeze())))
}

/// Bytes as text: as they are when they are UTF-8 (no copy), else decoded with U+FFFD for
/// each invalid sequence, as `EventSource` decodes a stream.
fn text(bytes: Bytes) -> Str {
    match Str::from_inner(bytes) {
        Ok(text) => text,
        Err(invalid) => {
            let lossy = String::from_utf8_lossy(&invalid.into_inner()).into_owned();
            Str::from(lossy)
        }
    }
}

/// `retry:`'s value: ASCII digits only, else ignored; a value past `u64` is ignored too.
fn digits(value: &[u8]) -> Option<u64> {
    if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(value).ok()?.parse().ok()
}

#[cfg(test)]
mod tests;
