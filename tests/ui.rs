//! Every misuse of `#[derive(AgentError)]` is a compile error that says what to write instead.
//! Each case in `ui-tests/` pairs the misuse with the exact message a user sees.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui-tests/*.rs");
}
