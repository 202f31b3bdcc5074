//! The catalog: what the derive records per code, aggregation, conflicts, the renderers,
//! and the golden check that guards codes as a contract.

use agent_error::catalog::{self, Catalog, CodeDoc};
use agent_error::codes::Vocabulary;
use agent_error::{AgentError, Recovery, RetryPolicy};

/// Failures of the model provider.
#[derive(Debug, AgentError)]
#[agent(
    op = "llm.generate",
    namespace = "llm",
    docs_url = "https://docs.example.com/errors#{code}"
)]
pub enum LlmError {
    /// The provider is throttling this client.
    ///
    /// Wait for the Retry-After delay.
    #[agent(
        code = "rate_limit",
        rate_limited,
        status = 429,
        hint = "lower the rate to {rpm} rpm"
    )]
    #[error("provider returned 429 at {rpm} rpm")]
    RateLimited { rpm: u32 },

    /// deadline exceeded after {tokens} tokens
    #[agent(
        retry(attempts = 4, base = "100ms", max = "5s", jitter = "equal"),
        since = "1.2"
    )]
    Timeout { tokens: u32 },

    #[agent(
        code = "old_auth",
        deprecated = "use `auth_error` instead",
        recovery = "escalate"
    )]
    #[error("bad key")]
    OldAuth,

    #[error(transparent)]
    Other(#[from] agent_error::Error),
}

#[derive(Debug, AgentError)]
// `retryable = false` pins the vocabulary's code as never retried: it disagrees.
#[agent(code = "rate_limit", retryable = false, hint = "not a rate limit here")]
#[error("wrong")]
pub struct Disagrees {
    #[op]
    op: String,
}

#[test]
fn the_derive_records_every_field_of_each_code() {
    let codes = LlmError::CODES;
    assert_eq!(
        codes.len(),
        3,
        "transparent variants have no entry of their own"
    );
    let rl = &codes[0];
    assert_eq!(rl.code, "llm.rate_limit");
    assert_eq!(rl.op, Some("llm.generate"));
    assert_eq!(rl.type_name, "catalog::LlmError");
    assert_eq!(rl.variant, "RateLimited");
    assert_eq!(rl.message, "provider returned 429 at {rpm} rpm");
    assert_eq!(
        rl.docs,
        "The provider is throttling this client.\n\nWait for the Retry-After delay."
    );
    assert_eq!(rl.hints, ["lower the rate to {rpm} rpm"]);
    assert!(rl.retryable && rl.rate_limited);
    assert_eq!(rl.recovery, Recovery::Retry);
    assert_eq!(rl.policy, RetryPolicy::RATE_LIMITED);
    assert_eq!(rl.status, Some(429));
    assert_eq!(
        rl.url,
        Some("https://docs.example.com/errors#llm.rate_limit")
    );
    assert_eq!((rl.since, rl.deprecated), (None, None));

    let timeout = &codes[1];
    assert_eq!(timeout.code, "llm.timeout");
    assert_eq!(timeout.message, "deadline exceeded after {tokens} tokens");
    assert_eq!(timeout.policy.max_attempts(), 4);
    assert_eq!(timeout.policy.jitter(), agent_error::retry::Jitter::Equal);
    assert_eq!(timeout.since, Some("1.2"));

    let old = &codes[2];
    assert_eq!((old.retryable, old.recovery), (false, Recovery::Escalate));
    assert_eq!(old.deprecated, Some("use `auth_error` instead"));
    assert_eq!(
        Disagrees::CODES[0].op,
        None,
        "an op from a field is known only at run time"
    );
}

#[test]
fn catalog_macro_lists_the_given_types_in_order() {
    let entries = agent_error::catalog![LlmError, Disagrees];
    let codes: Vec<&str> = entries.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        [
            "llm.rate_limit",
            "llm.timeout",
            "llm.old_auth",
            "rate_limit"
        ]
    );
    assert!(agent_error::catalog![].is_empty());
}

#[test]
fn all_holds_every_registered_type_and_explain_finds_a_code() {
    let all = catalog::all();
    for code in [
        "llm.rate_limit",
        "llm.timeout",
        "rate_limit",
        "FILE_STALE",
        "context_overflow",
    ] {
        assert!(all.iter().any(|d| d.code == code), "{code} missing");
    }
    let found = catalog::explain("llm.timeout");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].declared_at(), "LlmError::Timeout");
    let rate_limit: Vec<String> = catalog::explain("rate_limit")
        .iter()
        .map(|d| d.declared_at())
        .collect();
    assert_eq!(
        rate_limit,
        [
            "StatusError::HTTP 429",
            "Disagrees",
            "LlmError::RateLimited"
        ]
    );
    assert!(catalog::explain("no_such_code").is_empty());
}

#[test]
fn conflicts_are_codes_that_disagree_on_behaviour() {
    let entries = agent_error::catalog![Vocabulary, Disagrees, agent_error::http::StatusError];
    let conflicts = catalog::conflicts(&entries);
    let codes: Vec<&str> = conflicts.iter().map(|c| c.code).collect();
    assert_eq!(codes, ["rate_limit"]);
    assert_eq!(
        conflicts[0].to_string(),
        "`rate_limit` is declared differently: codes::RATE_LIMIT (retryable, rate-limited, recovery retry); Disagrees (not retryable, not rate-limited, recovery abort); StatusError::HTTP 429 (retryable, rate-limited, recovery retry);"
    );
    // The runtime's own types agree with the shared vocabulary.
    assert!(
        catalog::conflicts(&agent_error::catalog![
            Vocabulary,
            agent_error::http::StatusError,
            agent_error::tool::ToolError
        ])
        .is_empty()
    );
}

#[test]
fn retry_behaviour_in_words() {
    let words: Vec<String> = LlmError::CODES
        .iter()
        .map(CodeDoc::retry_in_words)
        .collect();
    assert_eq!(
        words,
        [
            "rate-limited; retried up to 3 attempts, 200ms doubling to 30s, full jitter; honours Retry-After up to 60s",
            "retried up to 4 attempts, 100ms doubling to 5s, equal jitter; honours Retry-After up to 60s",
            "not retried",
        ]
    );
}

#[test]
fn markdown_has_a_section_per_code() {
    let md = catalog::markdown(&agent_error::catalog![LlmError]);
    assert_eq!(
        md,
        "<a id=\"llm-old-auth\"></a>\n\n## `llm.old_auth`\n\n\
         - **Message:** `bad key`\n\
         - **Retry:** not retried\n\
         - **Recovery:** escalate\n\
         - **Declared in:** `catalog::LlmError::OldAuth` (op `llm.generate`)\n\
         - **More:** <https://docs.example.com/errors#llm.old_auth>\n\
         - **Deprecated:** use `auth_error` instead\n\n\
         <a id=\"llm-rate-limit\"></a>\n\n## `llm.rate_limit`\n\n\
         The provider is throttling this client.\n\nWait for the Retry-After delay.\n\n\
         - **Message:** `provider returned 429 at {rpm} rpm`\n\
         - **Retry:** rate-limited; retried up to 3 attempts, 200ms doubling to 30s, full jitter; honours Retry-After up to 60s\n\
         - **Recovery:** retry\n\
         - **Hint:** lower the rate to {rpm} rpm\n\
         - **Declared in:** `catalog::LlmError::RateLimited` (op `llm.generate`)\n\
         - **HTTP status:** 429\n\
         - **More:** <https://docs.example.com/errors#llm.rate_limit>\n\n\
         <a id=\"llm-timeout\"></a>\n\n## `llm.timeout`\n\n\
         deadline exceeded after {tokens} tokens\n\n\
         - **Message:** `deadline exceeded after {tokens} tokens`\n\
         - **Retry:** retried up to 4 attempts, 100ms doubling to 5s, equal jitter; honours Retry-After up to 60s\n\
         - **Recovery:** retry\n\
         - **Declared in:** `catalog::LlmError::Timeout` (op `llm.generate`)\n\
         - **More:** <https://docs.example.com/errors#llm.timeout>\n\
         - **Since:** 1.2\n\n"
    );
}

#[test]
fn the_prompt_block_is_one_line_per_code() {
    assert_eq!(
        catalog::prompt(&agent_error::catalog![LlmError]),
        "- llm.old_auth (do not retry; recovery: escalate): bad key\n\
         - llm.rate_limit (retry later; rate-limited; recovery: retry): The provider is throttling this client. Hint: lower the rate to <rpm> rpm\n\
         - llm.timeout (retry; recovery: retry): deadline exceeded after <tokens> tokens\n"
    );
}

#[test]
fn the_stream_codes_render_with_their_recovery() {
    let stream_codes: Vec<&CodeDoc> = Vocabulary::CODES
        .iter()
        .filter(|d| {
            [
                agent_error::codes::STREAM_INTERRUPTED,
                agent_error::codes::OUTPUT_TRUNCATED,
                agent_error::codes::CONTENT_FILTERED,
                agent_error::codes::INVALID_OUTPUT,
            ]
            .contains(&d.code)
        })
        .collect();
    assert_eq!(
        catalog::prompt(&stream_codes),
        "- content_filtered (do not retry; recovery: replan): A refusal or a content filter stopped the output. Hint: change the request; the provider's policy refused it\n\
         - invalid_output (retry; recovery: retry): The model broke its own output format, such as a malformed function call\n\
         - output_truncated (do not retry; recovery: continue): The output was cut at its token limit. Hint: continue from the partial output, or raise the output token limit\n\
         - stream_interrupted (retry; recovery: retry): A stream ended, or its transport failed, before the provider's last event\n"
    );
    #[cfg(feature = "serde")]
    {
        let json = serde_json::to_value(stream_codes[1]).unwrap();
        assert_eq!(
            (&json["code"], &json["recovery"], &json["retryable"]),
            (
                &serde_json::json!("output_truncated"),
                &serde_json::json!("continue"),
                &serde_json::json!(false)
            )
        );
        assert_eq!(
            serde_json::to_value(stream_codes[3]).unwrap()["policy"]["max_attempts"],
            2
        );
    }
}

#[cfg(feature = "serde")]
#[test]
fn entries_serialize_to_json() {
    let json = serde_json::to_value(LlmError::CODES[1]).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "code": "llm.timeout", "op": "llm.generate", "type_name": "catalog::LlmError", "variant": "Timeout",
            "message": "deadline exceeded after {tokens} tokens", "docs": "deadline exceeded after {tokens} tokens",
            "hints": [], "retryable": true, "rate_limited": false, "recovery": "retry", "retry_from_cause": false,
            "policy": {"max_attempts": 4, "base_delay_ms": 100.0, "max_delay_ms": 5000.0, "factor": 2.0, "jitter": "equal", "max_wait_ms": 60000.0},
            "status": null, "url": "https://docs.example.com/errors#llm.timeout", "since": "1.2", "deprecated": null,
        })
    );
    assert_eq!(
        serde_json::to_value(LlmError::CODES[2]).unwrap()["policy"],
        serde_json::Value::Null
    );
}

#[allow(dead_code)] // only their catalogs are used
mod v1 {
    use agent_error::AgentError;
    #[derive(Debug, AgentError)]
    #[agent(op = "llm.generate")]
    pub enum LlmError {
        #[agent(code = "rate_limit", rate_limited)]
        #[error("429")]
        RateLimited,
        #[agent(retryable)]
        #[error("slow")]
        Timeout,
        #[error("gone")]
        Gone,
    }
}

#[allow(dead_code)]
mod v2 {
    use agent_error::AgentError;
    #[derive(Debug, AgentError)]
    #[agent(op = "llm.generate")]
    pub enum LlmError {
        #[agent(code = "throttled", rate_limited)]
        #[error("429")]
        RateLimited,
        /// No longer retried: pinned, since its code would bring the vocabulary's retry.
        #[agent(retryable = false)]
        #[error("slow")]
        Timeout,
        #[error("new")]
        Fresh,
    }
}

#[allow(dead_code)] // only its catalog is used
mod v3 {
    use agent_error::AgentError;
    #[derive(Debug, AgentError)]
    #[agent(op = "llm.generate")]
    pub enum LlmError {
        /// Renamed, and no longer retried, in one change.
        #[agent(code = "throttled")]
        #[error("429")]
        RateLimited,
        #[agent(retryable)]
        #[error("slow")]
        Timeout,
        #[error("gone")]
        Gone,
    }
}

/// A file in cargo's scratch directory for integration tests (under `target/`, so that
/// runs leave nothing in the system's temporary directory).
fn temp_file(name: &str, contents: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("catalog");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

#[test]
fn the_golden_check_passes_on_the_same_catalog() {
    let entries = agent_error::catalog![v1::LlmError];
    let path = temp_file("same.golden", &catalog::golden(&entries));
    assert_eq!(catalog::check_golden(&path, &entries), Ok(()));
}

#[test]
fn a_rename_does_not_hide_a_retry_change_made_with_it() {
    let path = temp_file(
        "renamed.golden",
        &catalog::golden(&agent_error::catalog![v1::LlmError]),
    );
    let err = catalog::check_golden(&path, &agent_error::catalog![v3::LlmError]).unwrap_err();
    assert_eq!(
        err.changes(),
        [
            "`rate_limit` in LlmError::RateLimited: retryable changed from true to false",
            "`rate_limit` in LlmError::RateLimited: rate_limited changed from true to false",
            "`rate_limit` in LlmError::RateLimited: recovery changed from retry to abort",
            "LlmError::RateLimited renamed its code from `rate_limit` to `throttled`",
            "`rate_limit` in LlmError::RateLimited: retry tuning changed: attempts 3 to -, base 200ms to -, max 30s to -, factor 2 to -, jitter full to -, max_wait 60s to -",
        ]
    );
}

#[test]
fn the_golden_check_names_every_wire_breaking_change() {
    let path = temp_file(
        "changed.golden",
        &catalog::golden(&agent_error::catalog![v1::LlmError]),
    );
    let err = catalog::check_golden(&path, &agent_error::catalog![v2::LlmError]).unwrap_err();
    let changes: Vec<&str> = err.changes().iter().map(String::as_str).collect();
    assert_eq!(
        changes,
        [
            "`timeout` in LlmError::Timeout: retryable changed from true to false",
            "`timeout` in LlmError::Timeout: recovery changed from retry to abort",
            "LlmError::RateLimited renamed its code from `rate_limit` to `throttled`",
            "`gone` in LlmError::Gone was removed",
            "`timeout` in LlmError::Timeout: retry tuning changed: attempts 3 to -, base 200ms to -, max 30s to -, factor 2 to -, jitter full to -, max_wait 60s to -",
            "`fresh` in LlmError::Fresh was added",
        ]
    );
    let text = err.to_string();
    assert!(
        text.starts_with(&format!("{} does not match:\n", path.display())),
        "{text}"
    );
    assert!(
        text.ends_with(
            "If the change is on purpose, rerun with AGENT_ERROR_BLESS=1 to rewrite the file."
        ),
        "{text}"
    );
}

#[test]
fn a_missing_golden_file_says_how_to_create_it() {
    let err = catalog::check_golden(
        "/nonexistent/dir/codes.golden",
        &agent_error::catalog![v1::LlmError],
    )
    .unwrap_err();
    assert!(
        err.changes()[0].ends_with("create it by running the test with AGENT_ERROR_BLESS=1"),
        "{err}"
    );
}

#[test]
fn check_file_shows_the_changed_lines() {
    let path = temp_file("doc.md", "# Codes\n\nalpha\nbeta\ngamma\n");
    assert_eq!(
        catalog::check_file(&path, "# Codes\n\nalpha\nbeta\ngamma\n"),
        Ok(())
    );
    let err = catalog::check_file(&path, "# Codes\n\nalpha\nBETA\ngamma\ndelta\n").unwrap_err();
    assert_eq!(
        err.changes(),
        ["line 4: + BETA", "line 4: - beta", "line 6: + delta"]
    );
}

#[test]
fn status_and_docs_url_are_known_at_run_time() {
    let e = LlmError::RateLimited { rpm: 60 };
    assert_eq!(e.status(), Some(429));
    assert_eq!(
        e.docs_url(),
        Some("https://docs.example.com/errors#llm.rate_limit")
    );
    assert_eq!(LlmError::Timeout { tokens: 1 }.status(), None);
    let dynamic = LlmError::Other(agent_error::Error::new("x", "y", "z"));
    assert_eq!(
        (dynamic.status(), dynamic.docs_url()),
        (None::<u16>, None::<&str>),
        "transparent forwards"
    );
    let wrapped = Disagrees { op: "a.b".into() };
    assert_eq!(
        (wrapped.status(), wrapped.docs_url()),
        (None::<u16>, None::<&str>)
    );
    assert_eq!(
        AgentError::status(&agent_error::http::StatusError::new(503)),
        Some(503)
    );
}

#[cfg(feature = "recover")]
#[allow(dead_code)] // the variants are read through the catalog only
mod transparent_catalogs {
    use agent_error::AgentError;
    use agent_error::recover::CircuitOpen;

    #[derive(Debug, AgentError)]
    #[agent(op = "weather")]
    pub enum WeatherError {
        #[agent(code = "unknown_city", recovery = "replan")]
        #[error("unknown city")]
        UnknownCity,
        #[error(transparent)]
        Disabled(#[from] CircuitOpen),
        /// A foreign field: no catalog, nothing added.
        #[error(transparent)]
        Io(std::io::Error),
    }

    #[derive(Debug, AgentError)]
    #[agent(op = "agent.step")]
    pub enum StepError {
        #[agent(code = "step_budget", recovery = "abort")]
        #[error("out of steps")]
        OutOfSteps,
        #[error(transparent)]
        Weather(#[from] WeatherError),
    }

    fn codes(entries: &[&agent_error::catalog::CodeDoc]) -> Vec<&'static str> {
        entries.iter().map(|d| d.code).collect()
    }

    #[test]
    fn a_transparent_variants_catalog_is_listed_after_the_types_own() {
        assert_eq!(
            codes(&agent_error::catalog![WeatherError]),
            ["unknown_city", "TOOL_DISABLED"]
        );
        // `CODES` itself stays the type's own entries.
        assert_eq!(
            <WeatherError as agent_error::catalog::Catalog>::CODES.len(),
            1
        );
    }

    #[test]
    fn nested_catalogs_are_followed_and_each_entry_is_listed_once() {
        assert_eq!(
            codes(&agent_error::catalog![StepError]),
            ["step_budget", "unknown_city", "TOOL_DISABLED"]
        );
        assert_eq!(
            codes(&agent_error::catalog![StepError, WeatherError, CircuitOpen]),
            ["step_budget", "unknown_city", "TOOL_DISABLED"]
        );
    }
}
