//! Claude Code 2.1.318's approval box read by the pane grammar of the
//! built-in `manifests/claude.yaml`, over the real captures in
//! `tests/it/fixtures/claude-pane/` (each as `capture-pane -p -J` and with
//! `-e`): the box for `touch probe-created.txt` with the focus on allow,
//! moved once, on reject; the box half-drawn; the box under a long
//! scrollback; another command; a long command Claude wraps; and the Write
//! tool's box, which looks alike.

use oneworks::adapter::registry::Registry;
use oneworks::adapter::tui_data::PromptGrammar;
use oneworks::session::signals::pane::{card_title, parse, view_matches, PromptView, Row};

macro_rules! capture {
    ($name:literal) => {
        (
            include_str!(concat!("../fixtures/claude-pane/", $name, ".txt")),
            include_str!(concat!("../fixtures/claude-pane/", $name, ".ansi.txt")),
        )
    };
}

const TOUCH: &str = "touch probe-created.txt";

fn grammar() -> PromptGrammar {
    Registry::builtin()
        .load("claude")
        .expect("the built-in claude data")
        .tui
        .prompt
}

/// Both captures of `name` parse alike; the view of the plain one.
fn view(capture: (&str, &str)) -> Option<PromptView> {
    let grammar = grammar();
    let (plain, styled) = capture;
    let plain_view = parse(plain, &grammar);
    let styled_view = parse(styled, &grammar);
    assert_eq!(
        plain_view.as_ref().map(|v| (&v.title, &v.rows, v.focused)),
        styled_view.as_ref().map(|v| (&v.title, &v.rows, v.focused)),
        "-p -J and -p -J -e read alike"
    );
    plain_view
}

const FOUR_ROWS: [Row; 4] = [Row::Allow, Row::Other(0), Row::Other(2), Row::Reject];

#[test]
fn the_box_with_the_focus_on_allow() {
    let view = view(capture!("allow-focused")).expect("the box parses");
    assert_eq!(view.question, "Do you want to proceed?");
    assert_eq!(view.title, TOUCH);
    assert_eq!(card_title(&view), TOUCH);
    assert_eq!(view.rows, FOUR_ROWS);
    assert_eq!(view.focused, Row::Allow);
    let grammar = grammar();
    assert!(view_matches(&view, TOUCH, &grammar));
    for other in [
        "touch probe-created",
        "touch probe-created.txt; rm -rf ~",
        "touch",
    ] {
        assert!(!view_matches(&view, other, &grammar), "{other}");
    }
}

#[test]
fn one_down_moves_the_focus_to_the_next_row() {
    let view = view(capture!("moved")).expect("the box parses");
    assert_eq!(view.title, TOUCH);
    assert_eq!(view.rows, FOUR_ROWS);
    assert_eq!(view.focused, Row::Other(0));
}

#[test]
fn the_focus_on_reject() {
    let view = view(capture!("reject-focused")).expect("the box parses");
    assert_eq!(view.title, TOUCH);
    assert_eq!(view.focused, Row::Reject);
    assert_eq!(view.texts.last().map(String::as_str), Some("No"));
}

#[test]
fn a_box_caught_half_drawn_is_no_box() {
    assert!(view(capture!("half-drawn")).is_none());
}

#[test]
fn the_box_under_a_long_scrollback() {
    let view = view(capture!("scrolled")).expect("the box parses");
    assert_eq!(view.title, TOUCH);
    assert_eq!(view.focused, Row::Allow);
    assert_eq!(view.rows, FOUR_ROWS);
}

#[test]
fn another_command_with_its_own_rule_row() {
    let view = view(capture!("other-command")).expect("the box parses");
    let command = "mkdir -p probe-dir && printf %s probe > probe-dir/other.txt";
    assert_eq!(view.title, command);
    assert_eq!(
        view.rows,
        [Row::Allow, Row::Other(1), Row::Other(2), Row::Reject]
    );
    assert!(view_matches(&view, command, &grammar()));
    assert!(!view_matches(&view, TOUCH, &grammar()));
}

/// Claude wraps a long command over `│ ` lines in its command box: the
/// card's title is the whole command, its lines joined, and only the whole
/// command matches it (never its first or last line).
#[test]
fn a_wrapped_command_is_read_whole() {
    let view = view(capture!("long-command")).expect("the box parses");
    let command = format!(
        "touch {}",
        (1..=24)
            .map(|i| format!("probe-long-file-{i:02}.txt"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let grammar = grammar();
    assert_eq!(card_title(&view), command);
    assert!(view_matches(&view, &command, &grammar), "{}", view.title);
    let last_line = (17..=24)
        .map(|i| format!("probe-long-file-{i:02}.txt"))
        .collect::<Vec<_>>()
        .join(" ");
    assert!(!view_matches(&view, &last_line, &grammar));
    assert!(!view_matches(&view, TOUCH, &grammar));
}

/// The same box with its top rule scrolled off (the command taller than
/// the screen keeps): no box, never a card titled by its visible end.
#[test]
fn a_wrapped_command_without_its_top_is_no_box() {
    let (plain, styled) = capture!("long-command");
    // The first `╌` rule on screen is the command box's top.
    let cut = |text: &str| {
        let top = text
            .lines()
            .position(|line| line.contains("╌╌╌╌"))
            .expect("the top rule");
        let kept: Vec<&str> = text
            .lines()
            .enumerate()
            .filter(|(at, _)| *at != top)
            .map(|(_, line)| line)
            .collect();
        kept.join("\n")
    };
    assert!(view(capture!("long-command")).is_some());
    assert!(view((&cut(plain), &cut(styled))).is_none());
}

/// The Write tool's box has the same look (rule, dashed box, numbered
/// rows, `❯`) but another question: no shell box.
#[test]
fn the_write_box_that_looks_alike_is_no_shell_box() {
    assert!(view(capture!("other-box")).is_none());
    let (plain, _) = capture!("other-box");
    assert!(plain.contains("Do you want to create probe-written.txt?"));
}
