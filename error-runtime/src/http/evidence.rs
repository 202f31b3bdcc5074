//! The order of evidence: which of the things a failed response says decides what it means,
//! when they disagree. One reader for responses, stream error events and framework errors.
//!
//! | # | evidence | example | decides |
//! |---|---|---|---|
//! | 1 | server hints in headers | `x-should-retry`, `retry-after-ms`, `Retry-After` | retrying and the wait, over everything below |
//! | 2 | a status whose meaning is specific | 402, 404, 413, 498, 529 | `budget_exhausted`, `not_found`, `request_too_large` (a context overflow if the body says so), `provider_unavailable` |
//! | 3 | the body's specific names | `insufficient_quota`, `context_length_exceeded`, Google's `API_KEY_INVALID` reason or daily quota, AWS's `ThrottlingException` (body or `x-amzn-ErrorType`), a moderation flag | what they name |
//! | 4 | phrase families in the message | "credit balance is too low", "Request too large … tokens per min", "prompt is too long", "content management policy" | `budget_exhausted`, `request_too_large`, `context_overflow`, `content_filtered` |
//! | 5 | the body's generic type | `invalid_request_error`, `rate_limit_exceeded`, `api_error`, `RESOURCE_EXHAUSTED` | what it names |
//! | 6 | the status class | 400, 401, 429, 503 … | the status table of `StatusError` |
//!
//! A name in a header (AWS's `x-amzn-ErrorType`) counts as the same name in the body.
//! A generic type that says only "invalid request" (`invalid_request_error`,
//! `INVALID_ARGUMENT`, `BadRequestError`) counts only when there is no status: a 401 whose
//! body says `invalid_request_error` is an auth error.
//! Body evidence counts on an error status (400 and up) or when there is no status at all.
//! A server error (5xx) is never made a request too large or a filtered request by its body;
//! it is a context overflow only when its body names or says one (llama.cpp answers an
//! overflow with a 500).

use super::body::BodyHints;
use super::kind::Kind;

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
    /// What the failure is, by the order of evidence above; `None` when nothing says
    /// anything (no status, and a body that names and says nothing).
    pub(crate) fn decide(&self) -> Option<Kind> {
        let kind = match self.status {
            Some(status) if status < 400 => Some(Kind::of_status(status)),
            Some(status) => Some(self.weigh(Some(status)).unwrap_or(Kind::of_status(status))),
            None => self.weigh(None),
        }?;
        Some(match self.should_retry {
            Some(true) if !kind.doc().policy.is_retryable() => Kind::Unavailable,
            _ => kind,
        })
    }

    /// Steps 2 to 5 of the order, for an error status or none.
    fn weigh(&self, status: Option<u16>) -> Option<Kind> {
        let body = &self.body;
        let fits = |kind: &Kind| status.is_none_or(|status| kind.fits(status));
        let says_overflow = [body.named, body.phrase].contains(&Some(Kind::ContextOverflow));
        let by_status = match status {
            Some(402) => Some(Kind::BudgetExhausted),
            Some(404) => Some(Kind::NotFound),
            Some(413) if says_overflow => Some(Kind::ContextOverflow),
            Some(413) => Some(Kind::RequestTooLarge),
            Some(498 | 529) => Some(Kind::Unavailable),
            _ => None,
        };
        // "Invalid request" says only "a client's error": a status says more.
        let generic = body
            .generic
            .filter(|kind| *kind != Kind::InvalidInput || status.is_none());
        by_status
            .or(body.named.filter(fits))
            .or(body.phrase.filter(fits))
            .or(generic.filter(fits))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(named: Option<Kind>, phrase: Option<Kind>, generic: Option<Kind>) -> BodyHints {
        BodyHints {
            named,
            phrase,
            generic,
            ..BodyHints::default()
        }
    }

    fn decide(status: Option<u16>, body: BodyHints) -> Option<Kind> {
        Evidence {
            status,
            body,
            ..Evidence::default()
        }
        .decide()
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
    fn a_server_error_is_never_a_filter_or_a_size_limit() {
        use Kind::*;
        for kind in [RequestTooLarge, ContentFiltered] {
            assert_eq!(
                decide(Some(500), body(Some(kind), Some(kind), None)),
                Some(Unavailable)
            );
            assert_eq!(decide(None, body(Some(kind), None, None)), Some(kind));
        }
        // llama.cpp's overflow comes as a 500 that says so.
        let overflow = body(None, Some(ContextOverflow), Some(Unavailable));
        assert_eq!(decide(Some(500), overflow), Some(ContextOverflow));
        assert_eq!(
            decide(Some(500), body(None, None, Some(Unavailable))),
            Some(Unavailable)
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
        assert_eq!(e.decide(), Some(Kind::Unavailable));
    }
}
