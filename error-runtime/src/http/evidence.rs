//! The order of evidence: which of the things a failed response says decides what it means,
//! when they disagree. One reader for responses, stream error events and framework errors.
//!
//! | # | evidence | example | decides |
//! |---|---|---|---|
//! | 1 | server hints in headers | `x-should-retry`, `retry-after-ms`, `Retry-After` | retrying and the wait, over everything below |
//! | 2 | a status whose meaning is specific | 402, 404 (unless its words blame the request), 413, 498, 529 | `budget_exhausted`, `not_found`, `request_too_large` (a context overflow if the body says so), `provider_unavailable` |
//! | 3 | the body's specific names | `insufficient_quota`, `context_length_exceeded`, Google's `API_KEY_INVALID` reason or daily quota, AWS's `ThrottlingException` (body or `x-amzn-ErrorType`), a moderation flag | what they name |
//! | 4 | word families in the message, outside quotes | "credit balance is too low", "Request too large … tokens per min", "prompt is too long", "content management policy", "余额不足" | `budget_exhausted`, `request_too_large`, `context_overflow`, `content_filtered`, … |
//! | 5 | the body's generic type | `invalid_request_error`, `rate_limit_exceeded`, `api_error`, `RESOURCE_EXHAUSTED` | what it names |
//! | 6 | the status class | 400, 401, 429, 503 … | the status table of `StatusError` |
//!
//! A name in a header (AWS's `x-amzn-ErrorType`) counts as the same name in the body. A
//! name the table does not know is read by its words (`QUOTA_EXHAUSTED`,
//! `insufficient_user_quota`): specific, but for a rate limit, an overload, a timeout or a
//! bad request, which are generic.
//! A generic type that says only "invalid request" (`invalid_request_error`,
//! `INVALID_ARGUMENT`, `BadRequestError`) counts only when there is no status or on a server
//! error: a 401 whose body says `invalid_request_error` is an auth error, while a relay
//! that answers a provider's refusal with a 500 and keeps the provider's type relays a
//! request that sending again would not mend.
//! Body evidence counts on an error status (400 and up) or when there is no status at all,
//! and on a success whose body is an error document with a status of its own (400 to 599),
//! read as that status. A 404 whose message's words say the request is at fault (what no
//! endpoint supports, a malformed parameter) is `invalid_input`.
//! A server error (5xx) is never made a request too large by its body; it is a context
//! overflow only when its body names or says one (llama.cpp answers an overflow with a 500),
//! and a filtered request when its words say a content policy refused it (relays and streams
//! relabel refusals as 500s) and not that the filter itself failed. A generic server-fault type (`api_error`) never overrides a client
//! error (4xx, 429 included) nor a timeout's status (a relay that labels a provider's 400
//! `api_error` relays a request the provider refused); a 401 or 403 is not made an outage
//! by the message's words either.

use super::body::{BodyHints, Hint};
use super::kind::Kind;

/// What decided how a failed response was classified: the step of the order of evidence
/// and what it read there ([`StatusError::evidence`](super::StatusError::evidence)). Shown
/// in `Debug`, traces and the wire form, never in text for people or the model: it may
/// name what a provider's body said.
///
/// ```
/// use agent_error::{AgentError, http::{Decision, StatusError}};
/// use http::HeaderMap;
///
/// let body = r#"{"error":{"code":"QUOTA_EXHAUSTED","message":"quota gone"}}"#;
/// let e = StatusError::from_parts(429, &HeaderMap::new(), body);
/// assert_eq!(e.code(), "budget_exhausted");
/// assert!(matches!(e.evidence(), Decision::NameWords { family: "plan limit", .. }));
/// assert_eq!(StatusError::new(503).evidence(), Decision::Status(503));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Decision {
    /// The status, by the status table: nothing else said more.
    Status(u16),
    /// A status whose meaning is specific (402, 404, 413, 498, 529), over the body.
    SpecificStatus(u16),
    /// `x-should-retry: true` made a failure that would not be retried a retried one.
    ServerSaidRetry,
    /// A name the table of providers' names knows, in the body or in `x-amzn-ErrorType`;
    /// `specific` when it names one failure (`insufficient_quota`), not a class of them
    /// (`rate_limit_exceeded`).
    Name {
        /// The name.
        name: &'static str,
        /// Whether it names one failure.
        specific: bool,
    },
    /// The words of a name the table does not know, read by a word family.
    NameWords {
        /// The family (`money`, `plan limit`, `rate limit`, …).
        family: &'static str,
        /// The family's pattern that matched, as the table writes it.
        words: &'static str,
    },
    /// The words of the message, outside quotes, read by a word family.
    MessageWords {
        /// The family.
        family: &'static str,
        /// The family's pattern that matched, as the table writes it.
        words: &'static str,
    },
    /// A name of your own [`Vocabulary`](super::Vocabulary).
    YourName {
        /// The name.
        name: &'static str,
    },
    /// A phrase of your own [`Vocabulary`](super::Vocabulary), in the message.
    YourWords {
        /// The phrase, as a pattern.
        words: &'static str,
    },
    /// Google's quota reading: a `QuotaFailure`'s quota id, or a message naming a quota's
    /// metric (per day or a limit of 0: a plan's limit; else a rate limit).
    Quota,
    /// Nothing said anything (a body without a status that names and says nothing).
    #[default]
    Nothing,
}

impl std::fmt::Display for Decision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Decision::Status(status) => write!(f, "status {status}"),
            Decision::SpecificStatus(status) => {
                write!(f, "status {status}, whatever the body says")
            }
            Decision::ServerSaidRetry => f.write_str("x-should-retry: true"),
            Decision::Name {
                name,
                specific: true,
            } => write!(f, "the name {name}"),
            Decision::Name {
                name,
                specific: false,
            } => write!(f, "the generic name {name}"),
            Decision::NameWords { family, words } => {
                write!(f, "a name's words, family {family} ({words})")
            }
            Decision::MessageWords { family, words } => {
                write!(f, "the message's words, family {family} ({words})")
            }
            Decision::YourName { name } => write!(f, "your vocabulary's name {name}"),
            Decision::YourWords { words } => write!(f, "your vocabulary's words ({words})"),
            Decision::Quota => f.write_str("Google's quota reading"),
            Decision::Nothing => f.write_str("nothing"),
        }
    }
}

/// Everything one failure says, read from its status, headers and body.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Evidence {
    /// The status, when the failure came with one.
    pub(crate) status: Option<u16>,
    /// `x-should-retry`.
    pub(crate) should_retry: Option<bool>,
    /// What the body says.
    pub(crate) body: BodyHints,
}

impl Evidence {
    /// What the failure is, by the order of evidence above, and what decided it; `None`
    /// when nothing says anything (no status, and a body that names and says nothing).
    pub(crate) fn decide(&self) -> Option<(Kind, Decision)> {
        // A success whose body is an error document with its own status (`{"object":
        // "error", "code": 404, …}`) is that error: the server put the wrong status on it.
        let status = match (self.status, self.body.status) {
            (Some(200..=299), Some(said @ 400..=599)) => Some(said),
            (status, _) => status,
        };
        let (kind, why) = match status {
            Some(status) if status < 400 => {
                Some((Kind::of_status(status), Decision::Status(status)))
            }
            Some(status) => Some(
                self.weigh(Some(status))
                    .unwrap_or((Kind::of_status(status), Decision::Status(status))),
            ),
            None => self.weigh(None),
        }?;
        Some(match self.should_retry {
            Some(true) if !kind.doc().policy.is_retryable() => {
                (Kind::Unavailable, Decision::ServerSaidRetry)
            }
            _ => (kind, why),
        })
    }

    /// What the failure is, without what decided it.
    pub(crate) fn kind(&self) -> Option<Kind> {
        self.decide().map(|(kind, _)| kind)
    }

    /// Steps 2 to 5 of the order, for an error status or none.
    fn weigh(&self, status: Option<u16>) -> Option<(Kind, Decision)> {
        let body = &self.body;
        let fits = |hint: &Hint| status.is_none_or(|status| hint.kind.fits(status));
        let says_overflow = [body.named, body.phrase]
            .iter()
            .flatten()
            .any(|hint| hint.kind == Kind::ContextOverflow);
        // A 404 whose words say the request asks for what no endpoint supports ("No
        // endpoints found that support tool use") is the request's fault, not a missing model.
        let bad_request = body
            .phrase
            .is_some_and(|hint| hint.kind == Kind::InvalidInput);
        let by_status = match status {
            Some(402) => Some(Kind::BudgetExhausted),
            Some(404) if bad_request => None,
            Some(404) => Some(Kind::NotFound),
            Some(413) if says_overflow => Some(Kind::ContextOverflow),
            Some(413) => Some(Kind::RequestTooLarge),
            Some(498 | 529) => Some(Kind::Unavailable),
            _ => None,
        };
        if let (Some(kind), Some(status)) = (by_status, status) {
            return Some((kind, Decision::SpecificStatus(status)));
        }
        // "Invalid request" says only "a client's error": a status says more. A generic
        // server-fault type (`api_error`) says less than a client's error, a throttle or a
        // timeout: a relay's `api_error` of a request the provider refused is no outage.
        // And who may call (401, 403) is not made an outage by words either.
        let less_than_status = |hint: &Hint| {
            hint.kind == Kind::Unavailable
                && status.is_some_and(|status| {
                    (400..500).contains(&status) || Kind::of_status(status) == Kind::Timeout
                })
        };
        let generic = body.generic.filter(|hint| {
            (hint.kind != Kind::InvalidInput || status.is_none_or(|status| status >= 500))
                && !less_than_status(hint)
        });
        let who_may_call = matches!(status, Some(401 | 403));
        let phrase = body
            .phrase
            .filter(|hint| !(who_may_call && hint.kind == Kind::Unavailable));
        body.named
            .filter(fits)
            .or(phrase.filter(fits))
            .or(generic.filter(fits))
            .map(|hint| (hint.kind, hint.why))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hint(kind: Option<Kind>) -> Option<Hint> {
        kind.map(|kind| Hint {
            kind,
            why: Decision::Quota,
        })
    }

    fn body(named: Option<Kind>, phrase: Option<Kind>, generic: Option<Kind>) -> BodyHints {
        BodyHints {
            named: hint(named),
            phrase: hint(phrase),
            generic: hint(generic),
            ..BodyHints::default()
        }
    }

    fn decide(status: Option<u16>, body: BodyHints) -> Option<Kind> {
        Evidence {
            status,
            body,
            ..Evidence::default()
        }
        .kind()
    }

    #[test]
    fn each_step_wins_over_the_ones_after_it() {
        use Kind::*;
        let all = body(Some(Auth), Some(BudgetExhausted), Some(RateLimit));
        assert_eq!(decide(Some(404), all), Some(NotFound));
        assert_eq!(decide(Some(429), all), Some(Auth));
        let no_name = body(None, Some(BudgetExhausted), Some(RateLimit));
        assert_eq!(decide(Some(429), no_name), Some(BudgetExhausted));
        assert_eq!(
            decide(Some(400), body(None, None, Some(RateLimit))),
            Some(RateLimit)
        );
        assert_eq!(decide(Some(400), BodyHints::default()), Some(InvalidInput));
        assert_eq!(decide(None, BodyHints::default()), None);
        assert_eq!(
            decide(None, body(None, None, Some(Unavailable))),
            Some(Unavailable)
        );
    }

    #[test]
    fn a_413_is_too_large_unless_the_body_shows_an_overflow() {
        use Kind::*;
        assert_eq!(
            decide(Some(413), body(None, None, Some(RateLimit))),
            Some(RequestTooLarge)
        );
        assert_eq!(
            decide(Some(413), body(None, Some(ContextOverflow), None)),
            Some(ContextOverflow)
        );
    }

    #[test]
    fn a_server_error_is_never_a_size_limit_but_may_be_a_filters_refusal() {
        use Kind::*;
        assert_eq!(
            decide(
                Some(500),
                body(Some(RequestTooLarge), Some(RequestTooLarge), None)
            ),
            Some(Unavailable)
        );
        assert_eq!(
            decide(None, body(Some(RequestTooLarge), None, None)),
            Some(RequestTooLarge)
        );
        // A refusal relayed as a 500 is still a refusal: sending it again is refused again.
        assert_eq!(
            decide(
                Some(500),
                body(None, Some(ContentFiltered), Some(Unavailable))
            ),
            Some(ContentFiltered)
        );
        // llama.cpp's overflow comes as a 500 that says so.
        let overflow = body(None, Some(ContextOverflow), Some(Unavailable));
        assert_eq!(decide(Some(500), overflow), Some(ContextOverflow));
        assert_eq!(
            decide(Some(500), body(None, None, Some(Unavailable))),
            Some(Unavailable)
        );
    }

    #[test]
    fn a_generic_invalid_request_counts_without_a_status_or_on_a_server_error() {
        use Kind::*;
        let invalid = || body(None, None, Some(InvalidInput));
        assert_eq!(decide(None, invalid()), Some(InvalidInput));
        assert_eq!(decide(Some(500), invalid()), Some(InvalidInput));
        assert_eq!(decide(Some(502), invalid()), Some(InvalidInput));
        // A status that says more than "a client's error" keeps it.
        assert_eq!(decide(Some(401), invalid()), Some(Auth));
        assert_eq!(decide(Some(429), invalid()), Some(RateLimit));
        // Words of an outage in the message say more than the generic type.
        assert_eq!(
            decide(Some(500), body(None, Some(Unavailable), Some(InvalidInput))),
            Some(Unavailable)
        );
    }

    #[test]
    fn a_generic_server_fault_never_says_more_than_a_client_error_or_a_timeout() {
        use Kind::*;
        assert_eq!(
            decide(Some(400), body(None, None, Some(Unavailable))),
            Some(InvalidInput)
        );
        assert_eq!(
            decide(Some(404), body(None, None, Some(Unavailable))),
            Some(NotFound)
        );
        // Nor a throttle, nor a timeout's status; a server error's is the same.
        assert_eq!(
            decide(Some(429), body(None, None, Some(Unavailable))),
            Some(RateLimit)
        );
        assert_eq!(
            decide(Some(504), body(None, None, Some(Unavailable))),
            Some(Timeout)
        );
        assert_eq!(
            decide(Some(502), body(None, None, Some(Unavailable))),
            Some(Unavailable)
        );
        // Specific evidence still moves a client error.
        assert_eq!(
            decide(
                Some(400),
                body(None, Some(BudgetExhausted), Some(Unavailable))
            ),
            Some(BudgetExhausted)
        );
    }

    #[test]
    fn a_success_status_is_not_read_for_a_failure() {
        assert_eq!(
            decide(Some(200), body(Some(Kind::Auth), None, None)),
            Some(Kind::Other)
        );
    }

    #[test]
    fn the_server_saying_retry_makes_a_failure_retried() {
        let e = Evidence {
            status: Some(400),
            should_retry: Some(true),
            ..Evidence::default()
        };
        assert_eq!(
            e.decide(),
            Some((Kind::Unavailable, Decision::ServerSaidRetry))
        );
    }
}
