//! `AGENT_ERROR_BLESS=1` rewrites golden files instead of comparing them. Alone in its
//! test binary, since it sets an environment variable.

use agent_error::AgentError;
use agent_error::catalog;

#[derive(Debug, AgentError)]
#[agent(op = "llm.generate", code = "timeout", retryable)]
#[error("slow")]
struct Slow;

#[test]
fn blessing_writes_the_file_and_then_it_matches() {
    let dir = std::env::temp_dir().join(format!("agent-error-bless-{}", std::process::id()));
    let path = dir.join("nested").join("codes.golden");
    let entries = agent_error::catalog![Slow];
    // SAFETY: this test binary has one test, so no other thread reads the environment.
    unsafe { std::env::set_var(catalog::BLESS_VAR, "1") };
    assert_eq!(catalog::check_golden(&path, &entries), Ok(()));
    assert_eq!(catalog::check_file(dir.join("doc.md"), "hello\n"), Ok(()));
    unsafe { std::env::remove_var(catalog::BLESS_VAR) };
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        catalog::golden(&entries)
    );
    assert_eq!(catalog::check_golden(&path, &entries), Ok(()));
    assert_eq!(catalog::check_file(dir.join("doc.md"), "hello\n"), Ok(()));
    assert!(catalog::check_file(dir.join("doc.md"), "bye\n").is_err());
    std::fs::remove_dir_all(dir).unwrap();
}
