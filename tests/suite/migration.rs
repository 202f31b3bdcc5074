//! Migrating from thiserror by renaming the derive: error types in the shapes LLM projects
//! write (an HTTP client's, an editor's, an agent framework's nested ones, an MCP SDK's, a
//! generic one), each declared twice from the same tokens, once with
//! `#[derive(thiserror::Error)]` and once with `#[derive(agent_error::AgentError)]` and an
//! `op`. For every value the message part of the renamed Display is what thiserror printed,
//! and the renamed value classifies at least as well as `agent_error::classify` classified
//! the thiserror one: the same retryability, the same or a better recovery.

// Without `registry`, the tests that need a derived type known in a chain are left out, and
// what only they use goes unused.
#![cfg_attr(not(feature = "registry"), allow(dead_code, unused_imports))]

use std::error::Error as StdError;
use std::io;
use std::time::Duration;

use agent_error::{AgentError, Recovery, classify};

/// An API's error body, shown with `{0:#?}` as clients often do.
#[derive(Debug, Clone)]
pub struct ApiErrorBody {
    pub message: String,
    pub kind: Option<String>,
}

/// Declares each enum twice from the same tokens: in `theirs` with thiserror's derive, in
/// `ours` with the derive renamed and an op added. This is how a macro-made enum looks to
/// the derive, too. `values` is evaluated in each module, where the names are its own.
macro_rules! twins {
    (
        $(
            $(#[$meta:meta])*
            pub enum $name:ident $(<$param:ident>)? { $($body:tt)* }
        )*
        by_hand: { theirs: { $($theirs:item)* } ours: { $($ours:item)* } }
        values: $values:expr
    ) => {
        pub mod theirs {
            #![allow(dead_code)]
            use super::*;
            $($theirs)*
            $(
                #[derive(Debug, thiserror::Error)]
                $(#[$meta])*
                pub enum $name $(<$param>)? { $($body)* }
            )*
            pub fn values() -> Vec<Box<dyn StdError + Send + Sync + 'static>> {
                $values
            }
        }
        pub mod ours {
            #![allow(dead_code)]
            use super::*;
            $($ours)*
            $(
                #[derive(Debug, agent_error::AgentError)]
                #[agent(op = "app.call")]
                $(#[$meta])*
                pub enum $name $(<$param>)? { $($body)* }
            )*
            pub fn values() -> Vec<Box<dyn AgentError + Send + Sync + 'static>> {
                $values
            }
        }
        /// How many enums were declared (each compiled twice), with the one written by hand.
        const ENUMS: usize = [$(stringify!($name)),*].len() + 1;
    };
}

twins! {
    /// An OpenAI-style client.
    #[non_exhaustive]
    pub enum ClientError {
        #[error("http error: {0}")]
        Reqwest(#[from] reqwest::Error),
        #[error("failed to deserialize api response: {0}")]
        JsonDeserialize(#[from] serde_json::Error),
        #[error("{0:#?}")]
        Api(ApiErrorBody),
        #[error("invalid argument: {0}")]
        InvalidArgument(String),
        #[error("stream ended before a reply")]
        StreamEnded,
        #[error("tool {name} wrote {} bytes", .output.len())]
        ToolOutput { name: String, output: Vec<u8> },
    }

    /// An agent framework's HTTP layer, itself wrapped below.
    pub enum HttpClientError {
        #[error("Invalid status code: {0}")]
        InvalidStatusCode(u16),
        #[error("Http error: {0}")]
        Protocol(#[from] io::Error),
        #[error("Body could not be read")]
        Body(#[source] io::Error),
    }

    /// The framework's completion error, over the HTTP one.
    pub enum CompletionError {
        #[error("CompletionError: {0}")]
        Http(#[from] HttpClientError),
        #[error("ProviderError: {0}")]
        Provider(String),
        #[error("RequestError: {0}")]
        Request(#[from] Box<dyn StdError + Send + Sync>),
    }

    /// An MCP SDK's service error.
    pub enum ServiceError {
        #[error("transport closed")]
        TransportClosed,
        #[error("request {id} failed")]
        Request {
            id: u32,
            #[source]
            source: anyhow::Error,
        },
        #[error("timed out after {0:?}")]
        Timeout(Duration),
    }

    /// A tool runner generic over the tool's own error.
    pub enum ToolError<E> {
        #[error("tool call failed: {0}")]
        Call(#[source] E),
        #[error("tool {0} not found")]
        NotFound(String),
    }

    // thiserror 2 rejects `#[error(transparent)]` in an enum that a `macro_rules!` writes
    // ("cannot find value `transparent`"), so this one is written out twice.
    by_hand: {
        theirs: {
            /// An editor's language-model layer.
            #[derive(Debug, thiserror::Error)]
            pub enum ReadError {
                #[error("failed to read the api response")]
                ApiReadResponse {
                    #[source]
                    source: io::Error,
                },
                #[error("prompt too long: {tokens} tokens over {limit}")]
                PromptTooLong { tokens: u64, limit: u64 },
                #[error(transparent)]
                Other(#[from] anyhow::Error),
            }
        }
        ours: {
            /// An editor's language-model layer.
            #[derive(Debug, agent_error::AgentError)]
            #[agent(op = "app.call")]
            pub enum ReadError {
                #[error("failed to read the api response")]
                ApiReadResponse {
                    #[source]
                    source: io::Error,
                },
                #[error("prompt too long: {tokens} tokens over {limit}")]
                PromptTooLong { tokens: u64, limit: u64 },
                #[error(transparent)]
                Other(#[from] anyhow::Error),
            }
        }
    }

    values: vec![
        Box::new(ClientError::Reqwest(reqwest_timeout())),
        Box::new(ClientError::JsonDeserialize(serde_json::from_str::<u32>("{").unwrap_err())),
        Box::new(ClientError::Api(ApiErrorBody { message: "model not found".into(), kind: Some("invalid_request".into()) })),
        Box::new(ClientError::InvalidArgument("temperature".into())),
        Box::new(ClientError::StreamEnded),
        Box::new(ClientError::ToolOutput { name: "grep".into(), output: vec![0; 12] }),
        Box::new(ReadError::ApiReadResponse { source: io::Error::from(io::ErrorKind::TimedOut) }),
        Box::new(ReadError::PromptTooLong { tokens: 210_000, limit: 200_000 }),
        Box::new(ReadError::Other(anyhow::Error::new(io::Error::from(io::ErrorKind::TimedOut)).context("reading the stream"))),
        Box::new(ReadError::Other(anyhow::anyhow!("no credentials"))),
        Box::new(HttpClientError::InvalidStatusCode(503)),
        Box::new(HttpClientError::Protocol(io::Error::from(io::ErrorKind::ConnectionReset))),
        Box::new(CompletionError::Http(HttpClientError::InvalidStatusCode(503))),
        Box::new(CompletionError::Http(HttpClientError::Protocol(io::Error::from(io::ErrorKind::ConnectionReset)))),
        Box::new(CompletionError::Http(HttpClientError::Body(io::Error::from(io::ErrorKind::UnexpectedEof)))),
        Box::new(CompletionError::Provider("overloaded".into())),
        Box::new(CompletionError::Request(Box::new(io::Error::from(io::ErrorKind::TimedOut)))),
        Box::new(CompletionError::Request("bad header".into())),
        Box::new(ServiceError::TransportClosed),
        Box::new(ServiceError::Request { id: 7, source: anyhow::Error::new(io::Error::from(io::ErrorKind::ConnectionRefused)) }),
        Box::new(ServiceError::Timeout(Duration::from_secs(30))),
        Box::new(ToolError::<io::Error>::Call(io::Error::from(io::ErrorKind::TimedOut))),
        Box::new(ToolError::<io::Error>::Call(io::Error::from(io::ErrorKind::PermissionDenied))),
        Box::new(ToolError::<io::Error>::NotFound("browser".into())),
    ]
}

/// A real reqwest timeout: a loopback server that accepts and never answers (one for the
/// whole test binary, so that every error names the same URL), and a client that waits
/// 100ms for it.
fn reqwest_timeout() -> reqwest::Error {
    static SILENT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let url = SILENT.get_or_init(|| {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!(
            "http://{}/v1/chat/completions",
            listener.local_addr().unwrap()
        );
        std::thread::spawn(move || {
            // Held open, never read or answered.
            let held: Vec<_> = listener.incoming().collect();
            drop(held);
        });
        url
    });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let err = runtime.block_on(async {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_millis(100))
            .build()
            .unwrap();
        client.get(url).send().await.unwrap_err()
    });
    assert!(err.is_timeout(), "{err:?}");
    err
}

/// What an error is to an agent loop: whether it is retried, and what to do.
type Class = (bool, Recovery);

fn theirs_class(err: &(dyn StdError + 'static)) -> Class {
    classify(err).map_or((false, Recovery::Abort), |c| {
        (c.is_retryable(), c.recovery())
    })
}

/// `ours` is the same as `theirs` or better: the same retryability, and the same recovery
/// or a recovery where `theirs` only said to abort.
fn at_least_as_good(ours: Class, theirs: Class) -> bool {
    ours.0 == theirs.0 && (ours.1 == theirs.1 || theirs.1 == Recovery::Abort)
}

/// Whether a cause-less variant is retried now by a rule thiserror's users had to write by
/// hand: its code is one the shared vocabulary retries (`timeout`), or it holds a status.
fn retried_by_rule(ours: &dyn AgentError) -> bool {
    ours.source().is_none()
        && ours.is_retryable()
        && (agent_error::codes::default_policy(ours.code()).is_retryable()
            || ours.status().is_some())
}

/// The text after a derived cause's message that thiserror leaves out: the cause of a
/// nested derived error that does not show it in its own message (its Display keeps it).
fn nested_cause(ours: &dyn AgentError) -> Option<String> {
    let inner = ours.source()?;
    let cause = inner.source()?;
    Some(format!(": {cause}"))
}

// Derived types are known in a chain through their registration (feature `registry`).
#[cfg(feature = "registry")]
#[test]
fn renamed_types_print_the_same_messages_and_classify_at_least_as_well() {
    let theirs = theirs::values();
    let ours = ours::values();
    assert_eq!(theirs.len(), ours.len());
    let (mut display_equal, mut nested_cause_kept, mut class_ok, mut class_better) = (0, 0, 0, 0);
    let mut retryable = (0, 0);
    let mut by_rule = Vec::new();
    for (theirs, ours) in theirs.iter().zip(&ours) {
        let theirs: &(dyn StdError + 'static) = &**theirs;
        let ours: &(dyn AgentError + Send + Sync + 'static) = &**ours;
        let (expected, message) = (theirs.to_string(), ours.message());
        if message == expected {
            display_equal += 1;
        } else {
            // The one difference on purpose: a nested derived error keeps its own cause.
            let kept = nested_cause(ours).map(|cause| format!("{expected}{cause}"));
            assert_eq!(Some(&message), kept.as_ref(), "message of {ours:?}");
            nested_cause_kept += 1;
        }
        // The renamed Display is the message after one head (a transparent variant
        // displays as its field), then the cause where the message does not show it.
        let shown = ours.to_string();
        if shown != message {
            let head = format!("{} [{}]: ", ours.op(), ours.code());
            let rest = shown
                .strip_prefix(&head)
                .unwrap_or_else(|| panic!("{shown}"));
            assert!(rest.starts_with(&message), "{shown}");
            assert!(!rest.contains("app.call ["), "one head: {shown}");
        }
        let (before, after) = (theirs_class(theirs), (ours.is_retryable(), ours.recovery()));
        if !before.0 && retried_by_rule(ours) {
            // Retried as its authors' own `is_retryable()` said, where `classify` of the
            // thiserror type could not tell.
            by_rule.push(format!("{ours:?}: {before:?} -> {after:?}"));
        } else {
            assert!(
                at_least_as_good(after, before),
                "{ours:?} classifies as {after:?}, thiserror's as {before:?}"
            );
        }
        class_ok += 1;
        if after != before {
            class_better += 1;
        }
        retryable.0 += usize::from(before.0);
        retryable.1 += usize::from(after.0);
        // Every reader agrees with the trait.
        assert_eq!(agent_error::is_retryable(ours), after.0, "{ours:?}");
    }
    let values = ours.len();
    println!(
        "| enums | values | compiled | Display equal | equal but for a nested cause kept | classification equal or better | of them better | retryable before / after |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    println!(
        "| {ENUMS} | {values} | {ENUMS} of {ENUMS} | {display_equal} | {nested_cause_kept} | {class_ok} | {class_better} | {} / {} |",
        retryable.0, retryable.1
    );
    println!("retried now by its code or its status: {}", by_rule.len());
    for changed in &by_rule {
        println!("  {changed}");
    }
    assert_eq!(by_rule, ["Timeout(30s): (false, Abort) -> (true, Retry)"]);
    assert_eq!(display_equal + nested_cause_kept, values);
    assert_eq!(class_ok, values);
}

/// reqwest's errors are classified by the `reqwest` feature's classifier.
#[cfg(feature = "reqwest")]
#[test]
fn a_reqwest_timeout_under_a_renamed_variant_is_a_retryable_error_of_its_own_code() {
    let e = ours::ClientError::Reqwest(reqwest_timeout());
    assert_eq!((e.code(), e.op()), ("reqwest", "app.call"));
    assert!(e.is_retryable());
    assert_eq!(e.recovery(), Recovery::Retry);
    let theirs = theirs::ClientError::Reqwest(reqwest_timeout());
    assert_eq!(classify(&theirs).unwrap().code(), "timeout");
}

#[test]
fn an_io_timeout_under_a_renamed_variant_is_retryable() {
    let e = ours::ReadError::ApiReadResponse {
        source: io::Error::from(io::ErrorKind::TimedOut),
    };
    assert_eq!(e.code(), "api_read_response");
    assert!(e.is_retryable());
    assert_eq!(e.message(), "failed to read the api response");
}

#[test]
fn nested_renamed_errors_show_one_head() {
    let e = ours::CompletionError::Http(ours::HttpClientError::InvalidStatusCode(503));
    assert_eq!(
        e.to_string(),
        "app.call [http]: CompletionError: Invalid status code: 503"
    );
}
