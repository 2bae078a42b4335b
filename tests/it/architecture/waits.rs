//! Every wait goes through `tests/it/support/wait.rs`: no other test file
//! holds a deadline loop of its own. The rule, read line by line with
//! comments removed: outside `support/wait.rs` no line computes a deadline
//! (`Instant::now() + …`), takes the time left to one
//! (`saturating_duration_since(Instant::now())`), or loops on the clock
//! (a `while` whose condition reads `.elapsed()` or `Instant::now()`).
//! Measuring a duration and asserting a bound on it (`started.elapsed() <
//! …` in an `assert!`) is no wait and is allowed; so is a sleep that is
//! itself the measurement window. A wait with a fallback uses
//! `holds_within`, a wait that cleans up before it fails `poll`.

use std::path::Path;

/// The lines of `text` (comments removed) that break the rule, as
/// `line number: line`.
fn deadline_loops(text: &str) -> Vec<String> {
    let forms = regex::Regex::new(concat!(
        r"Instant::now\(\)\s*\+",
        r"|saturating_duration_since\(\s*(std::time::)?Instant::now\(\)",
        r"|\bwhile\b[^{]*(\.elapsed\(\)|Instant::now\(\))",
    ))
    .expect("regex");
    let comment = regex::Regex::new(r"//.*").expect("regex");
    text.lines()
        .enumerate()
        .filter_map(|(index, line)| {
            let code = comment.replace(line, "");
            forms
                .is_match(&code)
                .then(|| format!("{}: {}", index + 1, line.trim()))
        })
        .collect()
}

#[test]
fn no_test_waits_with_a_deadline_loop_of_its_own() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it");
    let mut files = Vec::new();
    super::rust_files(&root, &mut files);
    assert!(files.len() > 40, "the scan found the test files");
    // The one wait, and this file, which plants the forms it finds.
    let allowed = [
        root.join("support/wait.rs"),
        root.join("architecture/waits.rs"),
    ];
    let found: Vec<String> = files
        .iter()
        .filter(|file| !allowed.contains(file))
        .flat_map(|file| {
            let text = std::fs::read_to_string(file).expect("read a test file");
            let name = file
                .strip_prefix(&root)
                .expect("under tests/it")
                .display()
                .to_string();
            deadline_loops(&text)
                .into_iter()
                .map(move |hit| format!("tests/it/{name}:{hit}"))
        })
        .collect();
    assert!(
        found.is_empty(),
        "wait through support/wait.rs (wait_until, wait_for, wait_card, holds_within, poll, wait_exit) instead: {found:#?}"
    );
}

#[test]
fn the_rule_finds_each_form_and_passes_a_measured_bound() {
    let planted = "\
let deadline = Instant::now() + DEADLINE;
let left = deadline.saturating_duration_since(Instant::now());
while started.elapsed() < Duration::from_secs(12) {
while Instant::now() < deadline {
// let deadline = Instant::now() + DEADLINE; in a comment
assert!(started.elapsed() < Duration::from_secs(30));
let latency = carded.saturating_duration_since(shown);
";
    let found = deadline_loops(planted);
    let lines: Vec<&str> = found
        .iter()
        .map(|hit| hit.split(':').next().unwrap_or(""))
        .collect();
    assert_eq!(lines, ["1", "2", "3", "4"], "{found:#?}");
}
