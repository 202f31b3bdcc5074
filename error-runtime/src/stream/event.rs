//! `Event`: one server-sent event as the provider sent it.

use std::borrow::Cow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::Duration;

use bytes_utils::Str;

use super::provider::Provider;
use super::read;

/// One server-sent event, as the provider sent it: its type (`event:`), its data (the
/// `data:` lines joined with `\n`), the last event id and the reconnection delay it set.
///
/// The data is shared with the bytes it was read from, not copied: an event costs no
/// allocation of its own when its data came in one line, as a provider's events do.
///
/// An event that `Retrier::run_stream` or `Fallback::run_stream` yields also says which of
/// the run's attempts it came from ([`attempt`](Self::attempt)), and whether it is the first
/// event of that attempt ([`starts_attempt`](Self::starts_attempt)): where a re-opened
/// stream's events begin. Two events are equal when the provider sent the same: the
/// attempt is not compared.
///
/// ```
/// use agent_error::stream::Event;
///
/// let event = Event::new("message_stop", r#"{"type":"message_stop"}"#);
/// assert_eq!(event.name(), "message_stop");
/// assert_eq!(event.data(), r#"{"type":"message_stop"}"#);
/// assert_eq!(Event::new("", "[DONE]").name(), "message");
/// ```
#[derive(Clone)]
pub struct Event {
    name: Option<Str>,
    data: Str,
    id: Option<Str>,
    retry: Option<Duration>,
    /// The run's attempt that yielded the event, counted from 1; 0 outside a run.
    attempt: u32,
    /// Whether it is the first event its attempt yielded.
    starts_attempt: bool,
    /// The name of the fallback chain's candidate whose stream yielded it.
    candidate: Option<Arc<str>>,
}

impl Event {
    /// An event of type `name` (none when empty: `"message"`, as `EventSource` names it)
    /// with this data.
    pub fn new(name: impl Into<String>, data: impl Into<String>) -> Self {
        let name: String = name.into();
        Event {
            name: (!name.is_empty()).then(|| Str::from(name)),
            data: Str::from(data.into()),
            id: None,
            retry: None,
            attempt: 0,
            starts_attempt: false,
            candidate: None,
        }
    }

    pub(super) fn from_parts(
        name: Option<Str>,
        data: Str,
        id: Option<Str>,
        retry: Option<Duration>,
    ) -> Self {
        Event {
            name: name.filter(|name| !name.is_empty()),
            data,
            id,
            retry,
            attempt: 0,
            starts_attempt: false,
            candidate: None,
        }
    }

    /// The event's type: its `event:` field, or `"message"` when it has none.
    pub fn name(&self) -> &str {
        self.name.as_deref().unwrap_or("message")
    }

    /// Whether the event named its type (`event:`), as Anthropic's and the Responses API's do.
    pub fn has_name(&self) -> bool {
        self.name.is_some()
    }

    /// The event's type when it named one: what the provider's readers go by.
    pub(super) fn given_name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The data: the event's `data:` lines joined with `\n`.
    pub fn data(&self) -> &str {
        &self.data
    }

    /// The last event id the stream set (`id:`), if any.
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// The reconnection delay this event set (`retry:`), if any.
    pub fn retry(&self) -> Option<Duration> {
        self.retry
    }

    /// The text this event adds to the answer, decoded from its provider's JSON: OpenAI
    /// Chat's `choices[].delta.content`, the Responses API's `response.output_text.delta`,
    /// Anthropic's `text_delta`, Gemini's `candidates[].content.parts[].text`. The provider
    /// is the one the event's name or data tells, as a [`Watch`](super::Watch) recognises it.
    ///
    /// `None` for an event that adds no text to the answer: metadata (a role-only or empty
    /// chunk, `message_start`, a ping), the end (`[DONE]`, `message_stop`), an error, refusal
    /// text, thinking (reasoning deltas, Anthropic's `thinking_delta`, Gemini's `thought`
    /// parts), a tool call's arguments or input, and data that is not JSON. The text borrows
    /// from the event's data unless it held escapes.
    ///
    /// ```
    /// use agent_error::stream::Event;
    ///
    /// let chat = Event::new("", r#"{"choices":[{"index":0,"delta":{"content":"Hel"}}]}"#);
    /// let anthropic = Event::new(
    ///     "content_block_delta",
    ///     r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo\n"}}"#,
    /// );
    /// let answer: String = [chat, anthropic].iter().filter_map(Event::text).collect();
    /// assert_eq!(answer, "Hello\n");
    ///
    /// let role = Event::new("", r#"{"choices":[{"index":0,"delta":{"role":"assistant"}}]}"#);
    /// assert_eq!(role.text(), None);
    /// assert_eq!(Event::new("", "[DONE]").text(), None);
    /// ```
    pub fn text(&self) -> Option<Cow<'_, str>> {
        read::answer(None, self.given_name(), self.data())
    }

    /// The text this event adds to the answer, read as `provider`'s event (what
    /// [`Watch::recognised`](super::Watch::recognised) says, or what the caller named with
    /// [`Watch::provider`](super::Watch::provider)): [`text`](Self::text) without
    /// recognising the provider again.
    ///
    /// ```
    /// use agent_error::stream::{Event, Provider};
    ///
    /// let chunk = r#"{"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"}}]}"#;
    /// let event = Event::new("", chunk);
    /// assert_eq!(event.text_as(Provider::Gemini).as_deref(), Some("Hi"));
    /// assert_eq!(event.text_as(Provider::OpenAiChat), None);
    /// ```
    pub fn text_as(&self, provider: Provider) -> Option<Cow<'_, str>> {
        read::answer(Some(provider), self.given_name(), self.data())
    }

    /// The data, as a `String`.
    pub fn into_data(self) -> String {
        self.data.to_string()
    }

    /// Which attempt of a run yielded the event: `Some(1)` for the stream a
    /// `Retrier::run_stream` or `Fallback::run_stream` opened first, `Some(2)` for the next
    /// one it opened, and so on; `None` for an event a [`Watch`](super::Watch) yielded on its
    /// own or made with [`new`](Self::new).
    ///
    /// Every opening counts, one that failed before any event included: under a retrier it
    /// is the `attempt` that the opener received; along a fallback chain it goes on counting
    /// from one candidate to the next.
    ///
    /// ```
    /// use agent_error::stream::Event;
    ///
    /// assert_eq!(Event::new("", "[DONE]").attempt(), None);
    /// ```
    pub fn attempt(&self) -> Option<u32> {
        (self.attempt > 0).then_some(self.attempt)
    }

    /// Whether the event is the first that its attempt of a run yielded (see
    /// [`attempt`](Self::attempt)): the first event of a run, and the first of each stream
    /// the run opened again. False for an event not yielded by a run.
    ///
    /// A run re-opens a stream only while what the failed attempt yielded may be dropped:
    /// nothing but metadata, or any output when the consumer buffers
    /// ([`Watch::buffered`](super::Watch::buffered)). Such a consumer drops what it kept
    /// when an event says it starts an attempt, and what it holds at the end is the answer
    /// of the attempt that completed. Along a fallback chain, a candidate that continues
    /// from the text of one that broke after it spoke starts an attempt too: its events
    /// follow that text.
    ///
    /// ```
    /// use agent_error::stream::Event;
    ///
    /// // What a buffering consumer keeps: the events since the last attempt began.
    /// fn keep(kept: &mut Vec<Event>, event: Event) {
    ///     if event.starts_attempt() {
    ///         kept.clear();
    ///     }
    ///     kept.push(event);
    /// }
    /// let mut kept = Vec::new();
    /// keep(&mut kept, Event::new("", "{}"));
    /// assert!(!Event::new("", "{}").starts_attempt());
    /// assert_eq!(kept.len(), 1);
    /// ```
    pub fn starts_attempt(&self) -> bool {
        self.starts_attempt
    }

    /// Marks the event as yielded by the run's `attempt`, the first of it or not.
    pub(crate) fn mark_attempt(&mut self, attempt: u32, starts_attempt: bool) {
        self.attempt = attempt;
        self.starts_attempt = starts_attempt;
    }

    /// The name of the candidate whose stream yielded the event, along a
    /// `Fallback::run_stream` chain (`"openai"`, `"anthropic"`: the names the chain was
    /// given); `None` for an event yielded otherwise.
    ///
    /// ```
    /// use agent_error::stream::Event;
    ///
    /// assert_eq!(Event::new("", "[DONE]").candidate(), None);
    /// ```
    pub fn candidate(&self) -> Option<&str> {
        self.candidate.as_deref()
    }

    /// Marks the event as yielded by the stream of the chain's candidate `name`.
    pub(crate) fn mark_candidate(&mut self, name: &Arc<str>) {
        self.candidate = Some(name.clone());
    }
}

/// Equal when the provider sent the same event: its type, data, id and delay; the attempt
/// that yielded it is not compared.
impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.data == other.data
            && self.id == other.id
            && self.retry == other.retry
    }
}

impl Eq for Event {}

impl Hash for Event {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state);
        self.data.hash(state);
        self.id.hash(state);
        self.retry.hash(state);
    }
}

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Event")
            .field("name", &self.name())
            .field("data", &self.data())
            .field("id", &self.id())
            .field("retry", &self.retry)
            .field("attempt", &self.attempt())
            .finish()
    }
}
