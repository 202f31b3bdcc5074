//! Streams: failures after `200 OK`. A provider's server-sent events are watched as they are
//! yielded, and a stream that fails mid-way ends in a classified [`StreamError`].
//!
//! Agents stream nearly every model call, and the failures they meet most come after the
//! status line: an error event in the middle of the stream (Anthropic's `overloaded_error`,
//! the Responses API's `response.failed`), a connection closed before the provider's last
//! event, silence, output cut at the token limit, a refusal. [`Watch`] wraps the response's
//! bytes, yields the provider's events unchanged, and ends either after the provider's last
//! event or in a [`StreamError`] whose code says which of these it was.
//!
//! What was delivered decides what may be done again: a stream that failed before it yielded
//! any output is retried as its code says; one that already yielded text is never re-run
//! from the start by default (a person or a tool already read that text), and recovers with
//! [`Recovery::Continue`](crate::Recovery::Continue), carrying what it
//! [`delivered`](StreamError::delivered) and, when kept, its
//! [`partial_text`](StreamError::partial_text).
//!
//! - [`Watch`]: a byte stream read as events; [`Tracker`]: the same judgement for events
//!   parsed by another client.
//! - [`Event`]: one event as the provider sent it; [`Event::text`], the text it adds to the
//!   answer, whichever provider sent it.
//! - [`Provider`]: OpenAI Chat Completions (and vLLM, Ollama, TGI, OpenRouter, Azure), the
//!   Responses API, Anthropic Messages, Gemini (`alt=sse`).
//! - [`StreamError`], [`FailureKind`], [`Delivered`].
//! - `Retrier::run_stream` and `Fallback::run_stream` re-open a stream that failed before it
//!   spoke and hand back one that failed after it did.
//!
//! The events are parsed with the line parser of the `sseer` crate (line ends, fields,
//! comments), assembled into events by the `EventSource` rules, with two departures an agent
//! needs: an event whose lines all ended is dispatched when the stream ends without its
//! blank line, and a JSON document written on its own lines (Gemini's error after a chunk)
//! is read as an error document instead of being dropped.

mod error;
mod event;
mod frames;
mod provider;
mod read;
mod tracker;
mod watch;

pub use error::{Delivered, FailureKind, StreamError};
pub use event::Event;
pub use provider::Provider;
pub use tracker::{Step, Tracker};
pub use watch::Watch;
