//! Server-sent events framed from bytes: `sseer`'s line parser (line ends, fields, comments)
//! under the event rules of the WHATWG `EventSource`, with the caps that keep a hostile
//! stream in bounded memory. Synchronous: the watch feeds it bytes and takes events.

use std::ops::Range;
use std::time::Duration;

use bytes::{Buf, BufMut, Bytes, BytesMut};
use bytes_utils::Str;
use sseer::parser::{RawEventLine, parse_line};

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

/// The data of the event being assembled: most events have one `data:` line, kept as its
/// place in the buffer (sliced out, not copied, when the event is dispatched); a second
/// line joins them.
#[derive(Debug, Default)]
enum Data {
    #[default]
    None,
    One(Range<usize>),
    Many(BytesMut),
}

/// The framing state of one stream.
///
/// The buffer holds the bytes of the event being assembled and what follows them; lines are
/// read in place, and the event's bytes are split off the buffer once, when it is
/// dispatched, so that its data is a slice of them.
#[derive(Debug)]
pub(super) struct Frames {
    buffer: BytesMut,
    /// The start of the next line in `buffer`.
    at: usize,
    /// Up to where `buffer` is known to hold no line end after `at` (a line that has not
    /// ended is not searched again from its start).
    searched: usize,
    /// Whether the stream's start (and a byte order mark there) is behind us.
    started: bool,
    caps: Caps,
    /// Bytes of lines read since the last event (or bare document) was given out.
    since_event: usize,
    /// The event being assembled: its type's and data's places in `buffer`.
    name: Option<Range<usize>>,
    data: Data,
    retry: Option<Duration>,
    /// The last event id, which every later event carries, as in `EventSource`.
    id: Option<Str>,
    /// Whether a field (of any name) was read since the last blank line.
    in_block: bool,
    /// A bare JSON document being read, line by line.
    bare: Option<BytesMut>,
    /// Whether an event, a bare document or a comment was read since the watch last asked:
    /// what keeps a stream from being idle.
    active: bool,
}

impl Frames {
    pub(super) fn new(caps: Caps) -> Self {
        Frames {
            buffer: BytesMut::new(),
            at: 0,
            searched: 0,
            started: false,
            caps,
            since_event: 0,
            name: None,
            data: Data::None,
            retry: None,
            id: None,
            in_block: false,
            bare: None,
            active: false,
        }
    }

    /// Whether an event, a bare document or a comment was read since the last call.
    pub(super) fn take_active(&mut self) -> bool {
        std::mem::take(&mut self.active)
    }

    /// The caps it enforces.
    pub(super) fn caps(&self) -> Caps {
        self.caps
    }

    /// Appends bytes (at most [`PIECE`] at a time is what the watch gives).
    pub(super) fn push(&mut self, bytes: &[u8]) {
        if self.buffer.capacity() - self.buffer.len() < bytes.len() {
            self.compact();
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
            // A line that had not ended is looked at again only once a line end came.
            if self.searched > self.at {
                let fresh = &self.buffer[self.searched..];
                if memchr::memchr2(b'\n', b'\r', fresh).is_none() {
                    self.searched = self.buffer.len();
                    return self.unended();
                }
            }
            let rest = &self.buffer[self.at..];
            let (line, read) = match rest.first() {
                None => return Ok(None),
                // The blank line that ends each event, in its commonest form: no line to
                // search for its end.
                Some(b'\n') => (Line::Empty, 1),
                Some(_) => {
                    let Some((line, after)) = parse_line(rest) else {
                        // No line end, or a CR at the very end that may be a CRLF's half.
                        self.searched = self.buffer.len().saturating_sub(1).max(self.at);
                        return self.unended();
                    };
                    (self.place(line), rest.len() - after.len())
                }
            };
            if read > self.caps.line.saturating_add(2) {
                return Err(Oversize::Line);
            }
            self.at += read;
            self.searched = self.at;
            self.since_event = self.since_event.saturating_add(read);
            if self.since_event > self.caps.event {
                return Err(Oversize::Event);
            }
            if let Some(frame) = self.line(line) {
                self.since_event = 0;
                self.active = true;
                return Ok(Some(frame));
            }
        }
    }

    /// What an unended line at the end of the buffer means: nothing yet, or a line over
    /// the cap.
    fn unended(&self) -> Result<Option<Frame>, Oversize> {
        if self.buffer.len() - self.at > self.caps.line {
            Err(Oversize::Line)
        } else {
            Ok(None)
        }
    }

    /// The end of the stream: a last line without its line end is read, and an event whose
    /// lines all ended is dispatched though its blank line is missing, as is a bare document.
    pub(super) fn finish(&mut self) -> Result<Option<Frame>, Oversize> {
        if self.buffer.len() > self.at && self.buffer.last() == Some(&b'\r') {
            // A lone CR at the very end ends its line.
            self.buffer.put_u8(b'\n');
            self.searched = self.at;
        }
        if let Some(frame) = self.next()? {
            return Ok(Some(frame));
        }
        // Whatever is left is a line cut before its end: dropped, as the standard says.
        self.buffer.truncate(self.at);
        self.searched = self.at;
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
            self.buffer.advance(BOM.len());
            self.started = true;
        }
        self.started
    }

    /// A line's parts as places in the buffer.
    fn place(&self, line: RawEventLine<'_>) -> Line {
        let base = self.buffer.as_ptr() as usize;
        let range = |part: &[u8]| {
            let start = part.as_ptr() as usize - base;
            start..start + part.len()
        };
        match line {
            RawEventLine::Empty => Line::Empty,
            RawEventLine::Comment => Line::Comment,
            RawEventLine::Field {
                field_name,
                field_value,
            } => Line::Field(range(field_name), field_value.map(range)),
        }
    }

    /// Takes one line; an event or a bare document when the line completes one.
    #[inline]
    fn line(&mut self, line: Line) -> Option<Frame> {
        match line {
            Line::Empty => {
                self.in_block = false;
                if let Some(bare) = self.bare.take() {
                    self.compact();
                    return bare_document(bare);
                }
                let event = self.dispatch();
                if event.is_none() {
                    // A block that dispatched nothing (pings, comments) leaves nothing to keep.
                    self.compact();
                }
                event.map(Frame::Event)
            }
            Line::Comment => {
                self.active = true;
                None
            }
            Line::Field(name, value) => {
                let first = self.buffer.get(name.start).copied();
                if self.bare.is_some() || (!self.in_block && matches!(first, Some(b'{' | b'['))) {
                    self.bare_line(name, value);
                    return None;
                }
                self.in_block = true;
                self.field(name, value);
                None
            }
        }
    }

    /// One field of the event being assembled.
    fn field(&mut self, name: Range<usize>, value: Option<Range<usize>>) {
        let value = value.unwrap_or(name.end..name.end);
        match &self.buffer[name] {
            b"data" => {
                self.data = match std::mem::take(&mut self.data) {
                    Data::None => Data::One(value),
                    Data::One(first) => {
                        let mut joined = BytesMut::with_capacity(first.len() + 1 + value.len());
                        joined.extend_from_slice(&self.buffer[first]);
                        joined.put_u8(b'\n');
                        joined.extend_from_slice(&self.buffer[value]);
                        Data::Many(joined)
                    }
                    Data::Many(mut joined) => {
                        joined.put_u8(b'\n');
                        joined.extend_from_slice(&self.buffer[value]);
                        Data::Many(joined)
                    }
                };
            }
            b"event" => self.name = Some(value),
            b"id" => {
                let id = &self.buffer[value];
                // An id with a NUL is ignored, as `EventSource` ignores it.
                if !id.contains(&0) {
                    self.id = Some(text(Bytes::copy_from_slice(id)));
                }
            }
            b"retry" => {
                if let Some(ms) = digits(&self.buffer[value]) {
                    self.retry = Some(Duration::from_millis(ms));
                }
            }
            _ => {}
        }
    }

    /// A line of a bare JSON document, written back as it came (the one space the line
    /// parser took after the colon does not change the JSON).
    fn bare_line(&mut self, name: Range<usize>, value: Option<Range<usize>>) {
        let bare = self.bare.get_or_insert_with(BytesMut::new);
        if !bare.is_empty() {
            bare.put_u8(b'\n');
        }
        bare.extend_from_slice(&self.buffer[name]);
        if let Some(value) = value {
            bare.extend_from_slice(b": ");
            bare.extend_from_slice(&self.buffer[value]);
        }
    }

    /// The event assembled since the last blank line, if it has data (an event without data
    /// is not dispatched, as in `EventSource`); the assembly starts again. Its bytes are
    /// split off the buffer, and its data is a slice of them.
    // Inlined so that the event is built where the frame is returned, not copied there.
    #[inline(always)]
    fn dispatch(&mut self) -> Option<Event> {
        let name = self.name.take();
        let data = std::mem::take(&mut self.data);
        if matches!(data, Data::None) {
            return None;
        }
        let mut block = self.buffer.split_to(self.at);
        self.searched -= self.at;
        self.at = 0;
        let (name, data) = match (name, data) {
            // The commonest event, one line of data and no type: the block is cut to the
            // data before it is frozen.
            (None, Data::One(range)) => {
                block.truncate(range.end);
                block.advance(range.start);
                (None, text(block.freeze()))
            }
            (name, data) => {
                let mut block = block.freeze();
                // The type is sliced out first; the data takes the block itself, cut to its
                // place (no second count of the block's references).
                let name = name.map(|range| text(block.slice(range)));
                let data = match data {
                    Data::None => return None,
                    Data::One(range) => {
                        block.truncate(range.end);
                        block.advance(range.start);
                        text(block)
                    }
                    Data::Many(joined) => text(joined.freeze()),
                };
                (name, data)
            }
        };
        // A retry set in a block without data waits for the next event.
        let retry = self.retry.take();
        Some(Event::from_parts(name, data, self.id.clone(), retry))
    }

    /// Drops the bytes before the next line when no event being assembled points into them.
    fn compact(&mut self) {
        if self.at > 0 && matches!(self.data, Data::None) && self.name.is_none() {
            self.buffer.advance(self.at);
            self.searched -= self.at;
            self.at = 0;
        }
    }
}

/// A line's parts, as places in the buffer.
enum Line {
    Empty,
    Comment,
    Field(Range<usize>, Option<Range<usize>>),
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
