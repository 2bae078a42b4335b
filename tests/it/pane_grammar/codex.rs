//! The Codex approval box read by `manifests/codex.yaml`'s pane grammar
//! over captures of the real Codex 0.166.0 TUI (`codex-acp cli`, 200×50;
//! tests/it/fixtures/codex-pane/README.md says how they were taken), each
//! read both as `capture-pane -p -J` and with `-e` (the bridge's form).

use oneworks::adapter::registry::Registry;
use oneworks::adapter::tui_data::PromptGrammar;
use oneworks::session::signals::pane::{card_title, parse, view_matches, PromptView, Row};

macro_rules! captures {
    ($name:literal) => {
        [
            include_str!(concat!("../fixtures/codex-pane/", $name, ".txt")),
            include_str!(concat!("../fixtures/codex-pane/", $name, ".ansi.txt")),
        ]
    };
}

const TOUCH: &str = "touch probe-created.txt";

fn grammar() -> PromptGrammar {
    Registry::builtin()
        .load("codex")
        .expect("the built-in codex data")
        .tui
        .prompt
}

/// Both forms of a capture parse alike; the view.
fn view(captures: [&str; 2]) -> PromptView {
    let grammar = grammar();
    let [plain, styled] = captures.map(|capture| parse(capture, &grammar));
    assert_eq!(plain, styled, "-e and plain read differently");
    plain.expect("the approval box parses")
}

fn rows_of_the_command_box(view: &PromptView) {
    assert_eq!(view.rows, [Row::Allow, Row::Other(0), Row::Reject]);
    assert_eq!(
        view.question,
        "Would you like to run the following command?"
    );
}

#[test]
fn the_box_with_allow_focused_is_titled_the_exact_command() {
    let view = view(captures!("allow-focused"));
    rows_of_the_command_box(&view);
    assert_eq!(view.focused, Row::Allow);
    assert_eq!(view.tool_line, format!("$ {TOUCH}"));
    assert_eq!(card_title(&view), TOUCH);
    assert!(view_matches(&view, TOUCH, &grammar()));
    assert!(!view_matches(&view, "touch probe-created", &grammar()));
    assert!(!view_matches(
        &view,
        "touch probe-created.txt x",
        &grammar()
    ));
    assert_eq!(
        view.texts,
        [
            "Yes, proceed (y)",
            "Yes, and don't ask again for commands that start with `touch probe-created.txt` (p)",
            "No, and tell Codex what to do differently (esc)",
        ]
    );
}

#[test]
fn one_down_moves_the_focus_to_the_persistent_row_and_two_to_reject() {
    let moved = view(captures!("moved"));
    rows_of_the_command_box(&moved);
    assert_eq!(moved.focused, Row::Other(0));
    assert_eq!(card_title(&moved), TOUCH);
    let reject = view(captures!("reject-focused"));
    rows_of_the_command_box(&reject);
    assert_eq!(reject.focused, Row::Reject);
    assert_eq!(card_title(&reject), TOUCH);
}

#[test]
fn another_command_is_its_own_title() {
    let view = view(captures!("other-command"));
    rows_of_the_command_box(&view);
    assert_eq!(card_title(&view), "seq 1 300");
    assert!(!view_matches(&view, TOUCH, &grammar()));
}

#[test]
fn the_box_below_long_output_is_read_from_the_last_question() {
    let view = view(captures!("scrolled"));
    rows_of_the_command_box(&view);
    assert_eq!(view.focused, Row::Allow);
    assert_eq!(card_title(&view), TOUCH);
}

#[test]
fn a_half_drawn_box_is_no_box() {
    // Cut from allow-focused after its first row (Codex was never seen
    // half-drawn: the README says how it was looked for).
    let half = include_str!("../fixtures/codex-pane/half-drawn.txt");
    assert_eq!(parse(half, &grammar()), None);
}

#[test]
fn a_box_with_the_models_justification_is_read_unless_it_shows_two_tool_lines() {
    // The same box with a `Reason:` line (the model's text, skipped): a
    // short one is read as the box, titled with its command.
    let view = view(captures!("reason-allow-focused"));
    rows_of_the_command_box(&view);
    assert_eq!(view.focused, Row::Allow);
    assert_eq!(card_title(&view), TOUCH);
    // Codex wraps a long one so that a line of the model's reads
    // `$ touch harmless.txt` above the real command: two tool lines, and
    // which is the tool's cannot be told. A title read from the first
    // would show the person another command than the box runs: no box,
    // the terminal answers it.
    for capture in captures!("reason-wrapped") {
        assert!(
            capture.contains("$ touch harmless.txt"),
            "the capture holds the forged line"
        );
        assert_eq!(parse(capture, &grammar()), None, "{capture}");
    }
}

#[test]
fn the_models_own_question_with_descriptions_is_no_box() {
    // `request_user_input`: the question line is the approval's, but each
    // option carries its description on the same line.
    for capture in captures!("other-box") {
        assert_eq!(parse(capture, &grammar()), None, "{capture}");
    }
}

#[test]
fn the_models_own_question_forged_as_the_box_is_no_box() {
    // Line for line the approval box, but for `Question 1/1` above it, a
    // third row `None of the above` after the reject row and its own
    // footer: the model wrote it, no command waits.
    for capture in captures!("other-box-forged") {
        assert_eq!(parse(capture, &grammar()), None, "{capture}");
    }
}

#[test]
fn the_forged_box_is_refused_by_its_extra_row_and_by_its_footer_each() {
    // Each rule alone refuses it: the numbered row after reject (no
    // `rows.after`), and the footer that is not the approval box's (the
    // extra row's line dropped).
    let [plain, _] = captures!("other-box-forged");
    let mut no_footer_rule = grammar();
    no_footer_rule.rows.after.clear();
    assert_eq!(parse(plain, &no_footer_rule), None);
    let without_row: String = plain
        .lines()
        .filter(|line| !line.contains("None of the above"))
        .map(|line| format!("{line}\n"))
        .collect();
    assert_eq!(parse(&without_row, &grammar()), None);
    assert!(
        parse(&without_row, &no_footer_rule).is_some(),
        "the rest reads as the box"
    );
}
