//! Qwen Code 0.24.4's approval box read by the pane grammar of the
//! built-in `manifests/qwen.yaml`, over real captures
//! (tests/it/fixtures/qwen-pane, README there): each capture both as
//! `capture-pane -p -J` text and with `-e` (SGR attributes kept).

use std::path::Path;

use oneworks::adapter::data::AdapterData;
use oneworks::adapter::registry::BUILTIN;
use oneworks::adapter::tui_grammar::PromptGrammar;
use oneworks::session::signals::pane::{card_title, parse, view_matches, PromptView, Row};

const TOUCH: &str = "touch probe-created.txt";

/// A capture of the folder, plain (`NAME.txt`) and with attributes
/// (`NAME.ansi.txt`).
fn capture(name: &str) -> [String; 2] {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures/qwen-pane");
    ["txt", "ansi.txt"].map(|ext| {
        let path = folder.join(format!("{name}.{ext}"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    })
}

/// The grammar of the built-in Qwen data, loaded as the binary loads it.
fn grammar() -> PromptGrammar {
    let (_, text) = BUILTIN
        .iter()
        .find(|(name, _)| *name == "qwen")
        .expect("qwen is built in");
    let data = AdapterData::parse_named(text, Path::new("manifests/qwen.yaml"))
        .expect("the built-in qwen data parses");
    data.tui.prompt
}

/// The box of capture `name`, read the same from both forms.
fn view(name: &str) -> PromptView {
    let grammar = grammar();
    let [plain, styled] = capture(name);
    let view = parse(&plain, &grammar).unwrap_or_else(|| panic!("{name}: no box in\n{plain}"));
    let again = parse(&styled, &grammar).unwrap_or_else(|| panic!("{name}.ansi: no box"));
    assert_eq!(view, again, "{name}: text and -e captures read alike");
    view
}

/// The shell box for `touch probe-created.txt`: three rows besides
/// reject, the two `Always allow` rows differing only at their end.
fn assert_touch_box(view: &PromptView) {
    let grammar = grammar();
    assert_eq!(view.tool_line, "? Shell touch probe-created.txt ←");
    assert_eq!(view.question, "Allow execution of: 'touch'?");
    assert_eq!(
        view.rows,
        [Row::Allow, Row::Other(1), Row::Other(2), Row::Reject]
    );
    assert_eq!(
        view.texts,
        [
            "Yes, allow once",
            "Always allow run 'touch *' commands in this project",
            "Always allow run 'touch *' commands for this user",
            "No, suggest changes (esc)",
        ]
    );
    assert_eq!(view.command, None);
    // The title is the exact command: no `Shell ` and no trailing `←`.
    assert_eq!(view.title, TOUCH);
    assert_eq!(card_title(view), TOUCH);
    assert!(view_matches(view, TOUCH, &grammar));
    assert!(view_matches(view, "touch   probe-created.txt", &grammar));
    for other in [
        "touch probe-created",
        "Shell touch probe-created.txt",
        "touch probe-created.txt ←",
        "touch probe-created.txt; rm -rf ~",
    ] {
        assert!(!view_matches(view, other, &grammar), "{other}");
    }
}

#[test]
fn allow_focused() {
    let view = view("allow-focused");
    assert_touch_box(&view);
    assert_eq!(view.focused, Row::Allow);
}

#[test]
fn moved_after_one_down() {
    let view = view("moved");
    assert_touch_box(&view);
    assert_eq!(view.focused, Row::Other(1));
    assert_eq!(view.below(view.focused), Some(Row::Other(2)));
}

#[test]
fn reject_focused() {
    let view = view("reject-focused");
    assert_touch_box(&view);
    assert_eq!(view.focused, Row::Reject);
    assert_eq!(view.below(Row::Reject), None);
}

/// Down on the last row wraps around to the first (the bridge must watch
/// the focus, never count keys).
#[test]
fn down_on_reject_wraps_to_allow() {
    let view = view("wrapped-to-allow");
    assert_touch_box(&view);
    assert_eq!(view.focused, Row::Allow);
}

/// Caught while Ink drew the box: the tool line, a half-rewritten line,
/// no question yet.
#[test]
fn half_drawn_is_not_a_box() {
    let grammar = grammar();
    let [plain, styled] = capture("half-drawn");
    assert!(
        plain.contains("? Shell echo hello > probe-echo.txt && ls -l probe-echo.txt ←"),
        "{plain}"
    );
    assert!(!plain.contains("Allow execution of"), "{plain}");
    for capture in [plain, styled] {
        assert_eq!(parse(&capture, &grammar), None, "{capture}");
    }
}

/// 300 lines of `!seq 1 300` output above the box: the screen holds only
/// their tail, the box reads the same.
#[test]
fn scrolled_below_long_output() {
    let view = view("scrolled");
    assert_touch_box(&view);
    assert_eq!(view.focused, Row::Allow);
    assert_eq!(view.question_at, 40);
}

/// Another command: the question names only its first root command.
#[test]
fn another_command() {
    let grammar = grammar();
    let view = view("other-command");
    let command = "echo hello > probe-echo.txt && ls -l probe-echo.txt";
    assert_eq!(view.question, "Allow execution of: 'echo'?");
    assert_eq!(view.title, command);
    assert!(view_matches(&view, command, &grammar));
    assert!(!view_matches(&view, TOUCH, &grammar));
    assert_eq!(
        view.rows,
        [Row::Allow, Row::Other(1), Row::Other(2), Row::Reject]
    );
    assert_eq!(view.focused, Row::Allow);
}

/// The write box looks alike (`Yes, allow once` … `No, suggest changes
/// (esc)`) with other rows and question: it is read as what it is, a
/// WriteFile approval, never as the shell command's.
#[test]
fn the_write_box_reads_as_itself() {
    let grammar = grammar();
    let view = view("other-box");
    assert_eq!(view.question, "Apply this change?");
    assert_eq!(view.rows, [Row::Allow, Row::Other(0), Row::Reject]);
    assert_eq!(view.texts[1], "Yes, allow always");
    assert_eq!(view.focused, Row::Allow);
    assert_eq!(view.title, "WriteFile Writing to probe-written.txt");
    assert!(!view_matches(&view, TOUCH, &grammar));
}

/// After an answer the box is gone: `✓ Shell …` (ran) or `- Shell …`
/// (declined) stays in the history, with no question.
#[test]
fn answered_boxes_are_gone() {
    let grammar = grammar();
    for name in ["after-allow", "after-reject"] {
        for capture in capture(name) {
            assert_eq!(parse(&capture, &grammar), None, "{name}:\n{capture}");
        }
    }
}

/// A command longer than the line: Ink wraps the tool line itself at a
/// word (not the terminal: `-J` cannot join it), so the tool line would
/// hold only the command's start. Such a box is not read at all (no card,
/// the person answers in the terminal) rather than titled with a part of
/// its command.
#[test]
fn a_wrapped_tool_line_is_not_read() {
    let grammar = grammar();
    let [plain, styled] = capture("long-command");
    assert!(plain.contains("Allow execution of: 'echo'?"), "{plain}");
    assert!(plain.contains("› 1. Yes, allow once"), "{plain}");
    for capture in [plain, styled] {
        assert_eq!(parse(&capture, &grammar), None, "{capture}");
    }
}

/// A two-line command whose second line reads like a tool line
/// (`echo pwned > probe-spoof.txt` / `? Shell ls ←`): Qwen draws the tool
/// line at column 2, its continuation at 4 and the command under it at 5,
/// but v2 reads lines trimmed, so the nearest `? `-prefixed line above the
/// question — the command's own second line — would title the card `ls`.
/// `tool.column: 2` tells them apart: the command's lines are no tool
/// line, and the tool line itself stands too far above the question
/// (`searchLines`) for a two-line command: no box, the terminal answers.
#[test]
fn a_command_line_that_looks_like_a_tool_line_is_not_a_title() {
    let grammar = grammar();
    for capture in capture("spoofed-tool-line") {
        assert!(
            capture.contains("? Shell ls"),
            "the capture holds the forged line"
        );
        assert_eq!(parse(&capture, &grammar), None, "{capture}");
    }
    // Without the column the forged line is the title: the rule is what
    // refuses it.
    let mut any_column = grammar.clone();
    any_column.tool.column = None;
    let [plain, _] = capture("spoofed-tool-line");
    let view = parse(&plain, &any_column).expect("read without the column");
    assert_eq!(view.title, "ls");
}
