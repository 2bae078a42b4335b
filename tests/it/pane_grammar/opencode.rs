//! opencode 1.18.33's approval box read by the pane grammar of the
//! built-in `manifests/opencode.yaml`, over the real captures in
//! `tests/it/fixtures/opencode-pane/` (`capture-pane -p -J -e`, and the
//! same without `-e`): the buttons side by side on one line, the focus
//! shown only by a background colour, a sidebar sharing the lines. The
//! box for `touch probe-created.txt` with the focus on allow, moved once
//! (`Right`), on reject; half-drawn; under the output of earlier turns;
//! another command; a command too long for one line; and two boxes that
//! look alike (the external-directory question with the same buttons, and
//! the `Always allow` confirmation).

use oneworks::adapter::registry::Registry;
use oneworks::adapter::tui_data::PromptGrammar;
use oneworks::session::signals::pane::{
    approval_visible, card_title, parse, view_matches, PromptView, Row,
};

macro_rules! capture {
    ($name:literal) => {
        (
            include_str!(concat!("../fixtures/opencode-pane/", $name, ".txt")),
            include_str!(concat!("../fixtures/opencode-pane/", $name, ".ansi.txt")),
        )
    };
}

const TOUCH: &str = "touch probe-created.txt";
const OTHER: &str = "seq 1 60 && touch probe-other.txt";
const ROWS: [Row; 3] = [Row::Allow, Row::Other(0), Row::Reject];

fn grammar() -> PromptGrammar {
    Registry::builtin()
        .load("opencode")
        .expect("the built-in opencode data")
        .tui
        .prompt
}

/// The view of the `-e` capture; the plain one never shows which button
/// has the focus (a colour only), so it is never a box.
fn view(capture: (&str, &str)) -> Option<PromptView> {
    let grammar = grammar();
    let (plain, styled) = capture;
    assert_eq!(
        parse(plain, &grammar),
        None,
        "without attributes the focus cannot be read"
    );
    parse(styled, &grammar)
}

/// The box for `command`, focus on `focused`, its title the command.
fn assert_box(view: &PromptView, command: &str, focused: Row) {
    let grammar = grammar();
    assert_eq!(view.question, "┃  △ Permission required");
    assert_eq!(view.title, command);
    assert_eq!(card_title(view), command);
    assert_eq!(view.rows, ROWS);
    assert_eq!(view.texts, ["Allow once", "Allow always", "Reject"]);
    assert_eq!(view.focused, focused);
    assert!(view_matches(view, command, &grammar));
    for other in [
        &command[..command.len() - 1],
        &format!("{command}; rm -rf ~"),
        "touch",
        "",
    ] {
        assert!(!view_matches(view, other, &grammar), "{other:?}");
    }
}

#[test]
fn the_box_with_the_focus_on_allow() {
    let view = view(capture!("allow-focused")).expect("the box parses");
    assert_box(&view, TOUCH, Row::Allow);
    // The tool line is the box's own, under the question.
    assert!(view.tool_at > view.question_at, "{view:?}");
}

#[test]
fn one_right_moves_the_focus_to_allow_always() {
    let view = view(capture!("moved")).expect("the box parses");
    assert_box(&view, TOUCH, Row::Other(0));
    assert_eq!(view.below(Row::Other(0)), Some(Row::Reject));
}

#[test]
fn two_rights_focus_reject() {
    let view = view(capture!("reject-focused")).expect("the box parses");
    assert_box(&view, TOUCH, Row::Reject);
    assert_eq!(view.below(Row::Reject), None);
}

#[test]
fn the_half_drawn_box_is_no_box() {
    let (plain, styled) = capture!("half-drawn");
    let grammar = grammar();
    // The question is there (the pane is busy) but not its buttons.
    assert!(approval_visible(styled, &grammar));
    assert_eq!(parse(styled, &grammar), None);
    assert_eq!(parse(plain, &grammar), None);
}

#[test]
fn the_box_under_earlier_output_takes_its_own_tool_line() {
    let (plain, _) = capture!("scrolled");
    // The transcript above holds the same command twice more, in and out
    // of a `┃` column.
    assert_eq!(
        plain.matches("$ seq 1 60 && touch probe-other.txt").count(),
        3
    );
    let view = view(capture!("scrolled")).expect("the box parses");
    assert_box(&view, OTHER, Row::Allow);
    assert_eq!(view.tool_at, view.question_at + 3, "{view:?}");
}

#[test]
fn another_command_is_its_own_title() {
    let view = view(capture!("other-command")).expect("the box parses");
    assert_box(&view, OTHER, Row::Allow);
    assert!(!view_matches(&view, TOUCH, &grammar()));
}

#[test]
fn a_command_wrapped_onto_more_lines_is_no_box() {
    // The box shows it on three lines; a card from the first would show
    // part of the command.
    let (plain, styled) = capture!("long-command");
    assert!(plain.contains("┃  probe-long.txt"), "{plain}");
    assert_eq!(parse(styled, &grammar()), None);
}

#[test]
fn the_external_directory_box_with_the_same_buttons_is_no_shell_box() {
    // Same question, same buttons, no `$ ` command line: nothing to put on
    // a card.
    let (_, styled) = capture!("other-box");
    assert!(styled.contains("Access external directory"));
    assert!(approval_visible(styled, &grammar()));
    assert_eq!(view(capture!("other-box")), None);
}

#[test]
fn the_always_allow_confirmation_is_no_box() {
    let (plain, styled) = capture!("other-box-always");
    assert!(plain.contains("Confirm   Cancel"), "{plain}");
    let grammar = grammar();
    assert!(!approval_visible(styled, &grammar));
    assert_eq!(parse(styled, &grammar), None);
}

#[test]
fn the_sidebar_brought_inside_the_box_makes_it_no_box() {
    // A terminal narrower than the data's 200 columns brings the sidebar
    // into the columns read: its project path then stands on the box's
    // blank line before the buttons (line 47), as here.
    let (_, styled) = capture!("allow-focused");
    let mut lines: Vec<String> = styled.lines().map(str::to_owned).collect();
    assert!(lines[46].contains("project"), "{}", lines[46]);
    assert!(parse(styled, &grammar()).is_some());
    lines[46] = "  ┃        /tmp/oc-world/project".to_owned();
    assert_eq!(parse(&lines.join("\n"), &grammar()), None);
}

/// A person attached in a terminal wider than the data's 200 columns: the
/// box grows past `within.to` (156) and a long tool line runs through
/// that column. Read cut there, the card would show part of the command:
/// a cut through text on a line the box reads is no box; a cut through
/// the blank cells after a short command is none.
#[test]
fn a_within_cut_through_the_tool_line_of_a_wider_pane_is_no_box() {
    let (_, styled) = capture!("allow-focused");
    let lines: Vec<&str> = styled.lines().collect();
    let at = lines
        .iter()
        .position(|line| line.contains("$ touch probe-created.txt"))
        .expect("the tool line");
    let wide = |command: &str| {
        let mut wide: Vec<String> = lines.iter().map(|line| (*line).to_owned()).collect();
        // `  ┃  $ ` is 7 columns; blank cells up to column 230, then a
        // sidebar further right.
        let pad = 230usize.saturating_sub(7 + command.chars().count());
        wide[at] = format!(
            "\u{1b}[48;5;233m  ┃  $ {command}{}  Context",
            " ".repeat(pad)
        );
        wide.join("\n")
    };
    let long = format!("touch {}", "a".repeat(170));
    let grammar = grammar();
    assert_eq!(
        parse(&wide(&long), &grammar),
        None,
        "cut through the command"
    );
    let short = parse(&wide(TOUCH), &grammar).expect("a short command in a wide pane");
    assert_eq!(card_title(&short), TOUCH);
    // Cut right inside a word at the bound, and right after one (no cut
    // through text: the next cell is blank).
    let through = format!("{}xy", "a".repeat(156 - 7 - 1));
    assert_eq!(parse(&wide(&through), &grammar), None);
    let before = "a".repeat(156 - 7);
    let view = parse(&wide(&before), &grammar).expect("ends at the bound");
    assert_eq!(card_title(&view), before);
}
