//! GitHub Copilot CLI 1.0.102's approval box read by the built-in
//! `manifests/copilot.yaml` grammar, over the real captures in
//! `tests/it/fixtures/copilot-pane/` (README there): each capture both as
//! text (`-p -J`) and with its attributes (`-e`).

use std::path::{Path, PathBuf};

use oneworks::adapter::data::AdapterData;
use oneworks::adapter::registry::BUILTIN;
use oneworks::adapter::tui_grammar::PromptGrammar;
use oneworks::session::signals::pane::{card_title, parse, view_matches, PromptView, Row};

fn grammar() -> PromptGrammar {
    let (_, text) = BUILTIN
        .iter()
        .find(|(name, _)| *name == "copilot")
        .expect("copilot is built in");
    AdapterData::parse_named(text, Path::new("manifests/copilot.yaml"))
        .expect("copilot data")
        .tui
        .prompt
}

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/fixtures/copilot-pane")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Both captures of `name` parsed; they must agree.
fn both(name: &str) -> Option<PromptView> {
    let grammar = grammar();
    let plain = parse(&fixture(&format!("{name}.txt")), &grammar);
    let styled = parse(&fixture(&format!("{name}.ansi.txt")), &grammar);
    assert_eq!(
        plain
            .as_ref()
            .map(|v| (v.rows.clone(), v.focused, card_title(v))),
        styled
            .as_ref()
            .map(|v| (v.rows.clone(), v.focused, card_title(v))),
        "{name}: text and styled captures disagree"
    );
    plain
}

fn shell_box(name: &str) -> PromptView {
    both(name).unwrap_or_else(|| panic!("{name}: no box read"))
}

#[test]
fn allow_focused_titled_by_the_exact_command() {
    let view = shell_box("allow-focused");
    assert_eq!(view.question, "Do you want to run this command?");
    assert_eq!(view.rows, vec![Row::Allow, Row::Other(0), Row::Reject]);
    assert_eq!(view.focused, Row::Allow);
    assert_eq!(view.command.as_deref(), Some("touch probe-created.txt"));
    assert_eq!(card_title(&view), "touch probe-created.txt");
    let grammar = grammar();
    assert!(view_matches(&view, "touch probe-created.txt", &grammar));
    // Whole, never a part of it.
    assert!(!view_matches(&view, "touch probe-created", &grammar));
    assert!(!view_matches(
        &view,
        "touch probe-created.txt; rm x",
        &grammar
    ));
}

#[test]
fn one_down_moves_the_focus_to_the_persistent_row() {
    let view = shell_box("moved");
    assert_eq!(view.rows, vec![Row::Allow, Row::Other(0), Row::Reject]);
    assert_eq!(view.focused, Row::Other(0));
    assert_eq!(card_title(&view), "touch probe-created.txt");
}

#[test]
fn reject_focused() {
    let view = shell_box("reject-focused");
    assert_eq!(view.focused, Row::Reject);
    assert_eq!(card_title(&view), "touch probe-created.txt");
}

#[test]
fn the_box_under_scrolled_history_reads_the_same() {
    // Four earlier turns above, each with its own `$ Shell … touch
    // probe-created.txt` line, and a scrollbar in the last column.
    let view = shell_box("scrolled");
    assert_eq!(view.rows, vec![Row::Allow, Row::Other(0), Row::Reject]);
    assert_eq!(view.focused, Row::Allow);
    assert_eq!(card_title(&view), "touch probe-created.txt");
}

#[test]
fn another_command_with_two_rows() {
    let view = shell_box("other-command");
    assert_eq!(view.rows, vec![Row::Allow, Row::Reject]);
    assert_eq!(view.focused, Row::Allow);
    assert_eq!(card_title(&view), "echo probe > out.txt && cat out.txt");
    assert!(!view_matches(&view, "touch probe-created.txt", &grammar()));
}

#[test]
fn a_half_drawn_box_is_no_box() {
    // The frame's top without its bottom, one row of three.
    assert!(both("half-drawn").is_none());
}

#[test]
fn look_alike_boxes_of_other_kinds_are_no_box() {
    // `Allow path access` (`Do you want to allow this?`), focus on its
    // "remember this path" row; and the folder-trust dialog.
    assert!(both("other-box").is_none());
    assert!(both("folder-trust").is_none());
}

#[test]
fn a_reject_row_being_typed_in_is_no_box() {
    // The person typed feedback into the reject row's text field: the row
    // no longer reads as the reject row, so no key goes in.
    let typed = fixture("reject-focused.txt").replace(
        "❯ 3. No, and tell Copilot what to do differently (Esc to stop)",
        "❯ 3. x (Esc to stop)                                           ",
    );
    assert_ne!(typed, fixture("reject-focused.txt"));
    assert!(parse(&typed, &grammar()).is_none());
}
