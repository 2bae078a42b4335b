//! The test groups of `.config/nextest.toml` cover the tests they must:
//! under nextest each test is a process of its own, so a module whose
//! tests share a tmux timing through an in-process lock (the fake-Kiro
//! `session::supervisor::Session`, a `SERIAL` mutex) is kept one at a
//! time only by the `tmux` group, and the real agents two at a time only
//! by the `real-agents` group. A new such module outside its group's filter
//! fails here, naming it.

use std::path::Path;

/// The regex inside `test(/…/)` of the filter of the override that puts
/// tests in `group`.
fn group_patterns(group: &str) -> Vec<regex::Regex> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(".config/nextest.toml");
    let text = std::fs::read_to_string(&path).expect(".config/nextest.toml");
    let config: toml::Value = toml::from_str(&text).expect("nextest.toml is TOML");
    let overrides = config["profile"]["default"]["overrides"]
        .as_array()
        .expect("profile.default.overrides");
    let patterns: Vec<regex::Regex> = overrides
        .iter()
        .filter(|o| o.get("test-group").and_then(toml::Value::as_str) == Some(group))
        .map(|o| {
            let filter = o["filter"].as_str().expect("filter");
            let start = filter.find("test(/").expect("a test(/…/) filter") + "test(/".len();
            let end = filter[start..].find("/)").expect("the end of test(/…/)") + start;
            regex::Regex::new(&filter[start..end]).expect("the filter's regex")
        })
        .collect();
    assert!(!patterns.is_empty(), "no override puts tests in `{group}`");
    patterns
}

/// `tests/it/serve/cards.rs` → `serve::cards::`; `serve/mod.rs` → `serve::`.
fn module_prefix(root: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(root).expect("under tests/it");
    let mut parts: Vec<String> = relative
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|last| last == "mod") {
        parts.pop();
    }
    parts.iter().map(|p| format!("{p}::")).collect()
}

/// The modules with tests (`#[test]`) whose text holds one of `marks`,
/// and those of them no pattern of `group` matches.
fn outside_group(group: &str, marks: &[&str], skip: &[&str]) -> (usize, Vec<String>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it");
    let patterns = group_patterns(group);
    let mut files = Vec::new();
    super::rust_files(&root, &mut files);
    let mut seen = 0;
    let mut outside = Vec::new();
    for file in files {
        let prefix = module_prefix(&root, &file);
        if skip.iter().any(|s| prefix.starts_with(s)) {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("read a test file");
        if !text.contains("#[test]") || !marks.iter().any(|mark| text.contains(mark)) {
            continue;
        }
        seen += 1;
        let name = format!("{prefix}a_test");
        if !patterns.iter().any(|p| p.is_match(&name)) {
            outside.push(prefix);
        }
    }
    (seen, outside)
}

#[test]
fn every_module_with_tmux_sessions_is_in_the_tmux_group() {
    let (seen, outside) = outside_group(
        "tmux",
        &["Session::new(", "SERIAL.lock()"],
        // The real agents have their own group, the floods theirs; this
        // file names the marks.
        &[
            "agents_real::",
            "tui_real::",
            "gemini::real::",
            "serve::flood::",
            "architecture::",
        ],
    );
    assert!(seen >= 10, "only {seen} modules found: the marks moved");
    assert!(
        outside.is_empty(),
        "modules that start fake-Kiro tmux sessions (or hold a SERIAL lock) outside the `tmux` test group of .config/nextest.toml: {outside:?}"
    );
}

#[test]
fn every_real_agent_module_is_in_the_real_agents_group() {
    let (seen, outside) = outside_group("real-agents", &["heavy::share()"], &["architecture::"]);
    assert!(seen >= 5, "only {seen} modules found: the mark moved");
    assert!(
        outside.is_empty(),
        "modules of real-agent tests outside the `real-agents` test group of .config/nextest.toml: {outside:?}"
    );
}
