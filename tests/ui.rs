//! Every misuse of `#[derive(AgentError)]` is a compile error that says what to write instead.
//! Each case in `ui-tests/` pairs the misuse with the exact message a user sees.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui-tests/*.rs");
}

/// The troubleshooting chapter quotes each message as a user sees it: every `error` line in
/// its text blocks is a line of some case's expected output (or, for a compiler error the
/// derive does not write, the section's `compile_fail` example carries that error code),
/// and every link a message ends with points at one of the chapter's sections.
#[test]
fn the_troubleshooting_chapter_quotes_the_messages_users_see() {
    let chapter = std::fs::read_to_string("docs/guide/troubleshooting.md").unwrap();
    let mut seen = Vec::new();
    for entry in std::fs::read_dir("ui-tests").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|ext| ext == "stderr") {
            seen.extend(
                std::fs::read_to_string(path)
                    .unwrap()
                    .lines()
                    .map(str::to_owned),
            );
        }
    }
    let sections: Vec<&str> = chapter.split("\n## ").collect();
    let anchors: Vec<String> = sections[1..]
        .iter()
        .map(|s| anchor(s.lines().next().unwrap()))
        .collect();

    let mut quoted = 0;
    for section in &sections[1..] {
        let mut in_text = false;
        for line in section.lines() {
            if line.starts_with("```") {
                in_text = !in_text && line == "```text";
                continue;
            }
            if !in_text || !line.starts_with("error") {
                continue;
            }
            quoted += 1;
            let compiler_code = line
                .strip_prefix("error[")
                .and_then(|rest| rest.split(']').next());
            let shown = seen.iter().any(|l| l == line)
                || compiler_code
                    .is_some_and(|code| section.contains(&format!("compile_fail,{code}")));
            assert!(
                shown,
                "the chapter quotes a message no case produces:\n{line}"
            );
        }
    }
    assert!(quoted > 30, "only {quoted} messages quoted");

    let links = seen
        .iter()
        .filter_map(|l| l.split_once("troubleshooting/index.html#"));
    for (_, linked) in links {
        assert!(
            anchors.iter().any(|a| a == linked),
            "a message links to no section: #{linked}"
        );
    }
    // The derive's links, those of messages without a case included.
    let mut linked = 0;
    let mut dirs = vec![std::path::PathBuf::from("error-derive/src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let source = std::fs::read_to_string(&path).unwrap();
            for (at, call) in source.match_indices("see(\"") {
                let section = source[at + call.len()..].split('"').next().unwrap();
                linked += 1;
                assert!(
                    anchors.iter().any(|a| a == section),
                    "{} links to no section: #{section}",
                    path.display()
                );
            }
        }
    }
    assert!(linked >= 8, "only {linked} links found in the derive");
}

/// The anchor rustdoc gives a heading: lower case, words joined by `-`, punctuation dropped.
fn anchor(heading: &str) -> String {
    let kept: String = heading
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .collect();
    kept.trim().to_lowercase().replace(' ', "-")
}
