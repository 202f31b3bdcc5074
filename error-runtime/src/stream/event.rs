//! `Event`: one server-sent event as the provider sent it.

use std::fmt;
use std::time::Duration;

use bytes_utils::Str;

/// One server-sent event, as the provider sent it: its type (`event:`), its data (the
/// `data:` lines joined with `\n`), the last event id and the reconnection delay it set.
///
/// The data is shared with the bytes it was read from, not copied: an event costs no
/// allocation of its own when its data came in one line, as a provider's events do.
///
/// ```
/// use agent_error::stream::Event;
///
/// let event = Event::new("message_stop", r#"{"type":"message_stop"}"#);
/// assert_eq!(event.name(), "message_stop");
/// assert_eq!(event.data(), r#"{"type":"message_stop"}"#);
/// assert_eq!(Event::new("", "[DONE]").name(), "message");
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Event {
    name: Option<Str>,
    data: Str,
    id: Option<Str>,
    retry: Option<Duration>,
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

    /// The data, as a `String`.
    pub fn into_data(self) -> String {
        self.data.to_string()
    }
}

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Event")
            .field("name", &self.name())
            .field("data", &self.data())
            .field("id", &self.id())
            .field("retry", &self.retry)
            .finish()
    }
}
