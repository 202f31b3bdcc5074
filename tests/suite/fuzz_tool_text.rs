//! Property tests of the tool-result text (SPEC §4): `tool::parse` never panics on any
//! text, what it reads renders back to the same reading, and nothing from an error's
//! fields breaks the format's lines.

use agent_error::{AgentError, Error, tool};
use proptest::prelude::*;

fn config() -> ProptestConfig {
    ProptestConfig::with_cases(512)
}

/// Text shaped like tool results: the prefix, brackets, hint lines, blank lines, CRs.
fn tool_like() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("[error:".to_string()),
        Just("]".to_string()),
        Just("\n".to_string()),
        Just("\r\n".to_string()),
        Just("hint:".to_string()),
        Just(" ".to_string()),
        "[a-zA-Z_.]{1,8}",
        "\\PC{0,8}",
    ];
    prop::collection::vec(piece, 0..24).prop_map(|p| p.concat())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn parse_never_panics(text in "\\PC*", shaped in tool_like()) {
        let _ = tool::parse(&text);
        let _ = tool::parse(&shaped);
        let _ = tool::parse(&format!("[error:{text}"));
    }

    #[test]
    fn what_parses_renders_back_to_the_same_reading(shaped in tool_like()) {
        if let Some(parsed) = tool::parse(&shaped) {
            prop_assert!(!parsed.code.contains(']') && !parsed.code.contains('\n'));
            prop_assert!(!parsed.summary.contains('\n'));
            prop_assert!(parsed.hints.iter().all(|h| !h.contains('\n')));
            if agent_error::codes::is_valid_code(&parsed.code) {
                let mut e = Error::new("tool.run", parsed.code.clone(), parsed.summary.clone());
                for hint in &parsed.hints {
                    e = e.with_hint(hint.clone());
                }
                let again = tool::parse(&tool::render(&e)).unwrap();
                prop_assert_eq!(&again.code, &parsed.code);
                // Rendering folds the summary to one line and drops empty hints; reading
                // that back is stable.
                let third = tool::parse(&tool::render(&Error::new("tool.run", again.code.clone(), again.summary.clone()))).unwrap();
                prop_assert_eq!(third.summary, again.summary);
            }
        }
    }

    #[test]
    fn nothing_in_a_message_or_hint_breaks_the_lines(
        code in "[a-z]{1,8}",
        message in "\\PC{0,40}|[\\n\\r\\t\\]\\[a-z:]{0,40}",
        hints in prop::collection::vec("[\\n\\r\\ta-z:\\]\\[.]{0,20}", 0..4),
    ) {
        let mut e = Error::new("tool.run", code.clone(), message);
        for hint in hints {
            e = e.with_hint(hint);
        }
        let text = tool::render(&e);
        let mut lines = text.split('\n');
        let first = lines.next().unwrap();
        let prefix = format!("[error:{code}] ");
        prop_assert!(first.starts_with(&prefix), "{:?}", text);
        for line in lines {
            prop_assert!(line.starts_with("hint: "), "{:?}", text);
        }
        let parsed = tool::parse(&text).unwrap();
        prop_assert_eq!(parsed.code, e.code());
        prop_assert!(parsed.body.is_none());
    }

    #[test]
    fn a_code_from_anywhere_renders_only_when_valid(code in "\\PC{0,20}") {
        let text = tool::render(&Error::new("tool.run", code.clone(), "failed"));
        let rendered = tool::parse(&text).unwrap().code;
        if agent_error::codes::is_valid_code(&code) {
            prop_assert_eq!(rendered, code);
        } else {
            prop_assert_eq!(rendered, "unclassified");
        }
    }
}
