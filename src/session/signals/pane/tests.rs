//! The pane grammar of `manifests/kiro.yaml` over its approval prompt.

use super::*;
use crate::adapter::tui_data::PromptGrammar;

pub fn labels() -> PromptGrammar {
    crate::adapter::data::AdapterData::builtin()
        .expect("data")
        .tui
        .prompt
}

/// The approval prompt, focus on `focus` (0-based row).
pub fn spec_prompt(tool: &str, trust: bool, focus: usize) -> String {
    let mut rows = vec!["Yes, single permission"];
    if trust {
        rows.push("Trust, always allow in this session");
    }
    rows.push("No (Tab to edit)");
    let mut text =
        format!("────────────────────────────────────────\n↓ {tool}\n\n shell requires approval\n");
    for (index, row) in rows.iter().enumerate() {
        let marker = if index == focus { "❯" } else { " " };
        text.push_str(&format!(" {marker} {row}\n"));
    }
    text.push_str("────────────────────────────────────────\nESC to close · Tab to edit\n");
    text
}

#[test]
fn the_spec_prompt_parses_with_and_without_the_trust_row() {
    let view = parse(&spec_prompt("Shell pwd", true, 0), &labels()).expect("prompt");
    assert_eq!(view.tool_line, "↓ Shell pwd");
    assert_eq!(view.rows, [Row::Allow, Row::Other(0), Row::Reject]);
    assert_eq!(view.focused, Row::Allow);
    assert_eq!(view.below(Row::Allow), Some(Row::Other(0)));
    let view = parse(&spec_prompt("Shell pwd", false, 1), &labels()).expect("prompt");
    assert_eq!(view.rows, [Row::Allow, Row::Reject]);
    assert_eq!(view.focused, Row::Reject);
}

#[test]
fn an_unclear_prompt_is_not_visible() {
    let labels = labels();
    // No focus marker, two markers, missing reject row, foreign rows.
    let none = spec_prompt("Shell pwd", true, 9);
    assert_eq!(parse(&none, &labels), None);
    let two = spec_prompt("Shell pwd", true, 0).replace("   Trust", " ❯ Trust");
    assert_eq!(parse(&two, &labels), None);
    let no_reject = spec_prompt("Shell pwd", true, 0).replace("No (Tab", "Nope (Tab");
    assert_eq!(parse(&no_reject, &labels), None);
    assert_eq!(parse("plain shell output\n$ ls\n", &labels), None);
    assert!(!approval_visible("plain shell output", &labels));
    assert!(
        approval_visible(&none, &labels),
        "busy even when unparsable"
    );
}

#[test]
fn titles_match_whole_with_whitespace_collapsed() {
    let labels = labels();
    assert!(title_matches("↓ Shell pwd", "Running: pwd", &labels));
    assert!(title_matches(
        "↓ Shell  ls   -la",
        "Running: ls -la",
        &labels
    ));
    assert!(title_matches(
        "Reading file.txt",
        "Reading file.txt",
        &labels
    ));
    assert!(!title_matches("↓ Shell pwd", "Running: pw", &labels));
    assert!(!title_matches(
        "↓ Shell pwd; rm -rf /",
        "Running: pwd",
        &labels
    ));
    assert!(!title_matches("↓ Shell rm -rf /", "Running: rm", &labels));
    assert!(!title_matches("↓ Shell pwd", "Running: pwdx", &labels));
}

#[test]
fn a_cjk_title_and_a_long_joined_line_match() {
    let labels = labels();
    assert!(title_matches(
        "↓ Shell echo 你好 世界",
        "Running: echo 你好 世界",
        &labels
    ));
    let long = format!("echo {}", "x".repeat(300));
    let prompt = spec_prompt(&format!("Shell {long}"), true, 0);
    let view = parse(&prompt, &labels).expect("prompt");
    assert!(title_matches(
        &view.tool_line,
        &format!("Running: {long}"),
        &labels
    ));
}
