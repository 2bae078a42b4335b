//! Pane grammar v2 features over synthetic captures (real ones of each
//! agent live beside their data: tests/it/pane_grammar/): rows matched
//! whole, side by side on one line, focus by marker, reverse video or
//! background colour, skipped and blank lines anywhere, the tool line
//! anywhere in the box, its suffix stripped, half-drawn boxes.

use super::*;
use crate::adapter::tui_data::PromptGrammar;
use crate::session::refusal::{DeliveryRefusal, PaneError};

fn grammar(yaml: &str) -> PromptGrammar {
    serde_yaml_ng::from_str(yaml).expect("grammar yaml")
}

/// A Qwen-like box: rows that differ only at their end.
const QWEN: &str = r#"
questions: ['Allow execution of: ''.+''\?']
frame: {side: "│", top: "╭", bottom: "╰"}
skip: ['─+']
tool: {prefixes: ["? "], stripSuffix: ['\s*←']}
rows:
  numbered: true
  focus: {marker: "●"}
  allow: 'Allow once'
  others: ['Always allow .+ in this project', 'Always allow .+ for this user']
  reject: 'No, suggest changes \(esc\)'
"#;

fn qwen_box(focus: usize, rows: &[&str]) -> String {
    let mut text = String::from(
        "> make the file\n╭──────────────────────────╮\n│ ? Shell touch a.txt ←    │\n│                          │\n│ Allow execution of: 'touch'? │\n│                          │\n",
    );
    for (index, row) in rows.iter().enumerate() {
        let marker = if index == focus { "●" } else { " " };
        text.push_str(&format!("│ {marker} {}. {row}   │\n", index + 1));
    }
    text.push_str("╰──────────────────────────╯\n");
    text
}

const QWEN_ROWS: [&str; 4] = [
    "Allow once",
    "Always allow `touch` in this project",
    "Always allow `touch` for this user",
    "No, suggest changes (esc)",
];

#[test]
fn rows_that_differ_only_at_their_end_are_told_apart() {
    let grammar = grammar(QWEN);
    for focus in 0..4 {
        let view = parse(&qwen_box(focus, &QWEN_ROWS), &grammar).expect("box");
        assert_eq!(
            view.rows,
            [Row::Allow, Row::Other(0), Row::Other(1), Row::Reject]
        );
        assert_eq!(view.focused, view.rows[focus]);
        assert_eq!(view.texts[1], QWEN_ROWS[1]);
    }
    // Swapped: out of data order. A row with a tail: matched whole, so no
    // row at all.
    let swapped = [QWEN_ROWS[0], QWEN_ROWS[2], QWEN_ROWS[1], QWEN_ROWS[3]];
    assert_eq!(parse(&qwen_box(0, &swapped), &grammar), None);
    let tail = [
        QWEN_ROWS[0],
        "Always allow `touch` in this project and more",
        QWEN_ROWS[3],
    ];
    assert_eq!(parse(&qwen_box(0, &tail), &grammar), None);
    let prefix_only = [QWEN_ROWS[0], QWEN_ROWS[1], "No, suggest changes (esc) now"];
    assert_eq!(parse(&qwen_box(0, &prefix_only), &grammar), None);
}

#[test]
fn the_suffix_is_stripped_and_blank_and_skipped_lines_stand_anywhere() {
    let grammar = grammar(QWEN);
    let view = parse(&qwen_box(0, &QWEN_ROWS), &grammar).expect("box");
    assert_eq!(view.tool_line, "? Shell touch a.txt ←");
    assert_eq!(view.title, "Shell touch a.txt");
    assert_eq!(card_title(&view), "Shell touch a.txt");
    assert!(view_matches(&view, "Shell  touch a.txt", &grammar));
    assert!(!view_matches(&view, "Shell touch a.txt ←", &grammar));
    // A blank line and a rule between two rows.
    let spaced = qwen_box(0, &QWEN_ROWS).replace(
        "│   2. Always",
        "│                          │\n│ ──────────               │\n│   2. Always",
    );
    assert_eq!(parse(&spaced, &grammar).expect("box").rows.len(), 4);
    // Any other line between two rows: not a box.
    let foreign = qwen_box(0, &QWEN_ROWS).replace("│   2. Always", "│ press y │\n│   2. Always");
    assert_eq!(parse(&foreign, &grammar), None);
}

#[test]
fn a_text_matching_two_row_patterns_is_no_row() {
    let mut grammar = grammar(QWEN);
    grammar.rows.others[1] =
        crate::adapter::tui_data::WholePattern::new("Always allow .+").expect("pattern");
    assert_eq!(parse(&qwen_box(0, &QWEN_ROWS), &grammar), None);
}

#[test]
fn a_half_drawn_box_is_not_one() {
    let grammar = grammar(QWEN);
    let whole = qwen_box(0, &QWEN_ROWS);
    // The bottom not drawn yet; the rows cut after the first; the
    // question alone.
    let no_bottom = whole.replace("╰──────────────────────────╯\n", "");
    assert_eq!(parse(&no_bottom, &grammar), None);
    let cut: String = whole
        .lines()
        .take(8)
        .map(|line| format!("{line}\n"))
        .collect();
    assert_eq!(parse(&cut, &grammar), None);
    let question: String = whole
        .lines()
        .take(5)
        .map(|line| format!("{line}\n"))
        .collect();
    assert_eq!(parse(&question, &grammar), None);
    // The top not drawn (or scrolled off).
    let no_top = whole.replace("╭──────────────────────────╮\n", "");
    assert_eq!(parse(&no_top, &grammar), None);
    // Numbers that do not count from 1.
    let renumbered = whole.replace("2. Always", "5. Always");
    assert_eq!(parse(&renumbered, &grammar), None);
}

/// An opencode-like box: buttons side by side, focus by background,
/// a sidebar sharing the lines.
const LINE: &str = r#"
questions: ['△ Permission required']
within: {from: 3, to: 60}
tool: {prefixes: ["$ "]}
rows:
  layout: line
  focus: {style: background}
  allow: 'Allow once'
  others: ['Allow always']
  reject: 'Reject'
"#;

const ORANGE: &str = "\u{1b}[48;2;250;178;131m";
const PANEL: &str = "\u{1b}[48;5;236m";
const OFF: &str = "\u{1b}[49m";

/// The box with the button at `focus` in orange, the whole row line on a
/// panel background when `panel`, `tail` after the buttons.
fn line_box(focus: usize, panel: bool, tail: &str) -> String {
    let side = format!("{:<59}│ Session", "");
    let button = |index: usize, label: &str| {
        if index == focus {
            format!("{ORANGE} {label} {}", if panel { PANEL } else { OFF })
        } else {
            format!(" {label} ")
        }
    };
    let buttons = format!(
        "{}  {}  {}",
        button(0, "Allow once"),
        button(1, "Allow always"),
        button(2, "Reject")
    );
    let row = format!("┃  {}{buttons}{tail}{OFF}", if panel { PANEL } else { "" });
    let visible = super::styled::plain(&row);
    let pad = 60usize.saturating_sub(visible.trim_end().chars().count());
    format!(
        "┃  △ Permission required{}│ Session\n┃  $ touch probe-created.txt{}│ tokens 12\n┃{side}\n{row}{}│ ctx 3%\n┃{side}\n",
        " ".repeat(60 - 24),
        " ".repeat(60 - 28),
        " ".repeat(pad),
    )
}

#[test]
fn buttons_side_by_side_with_focus_by_background_and_a_sidebar() {
    let grammar = grammar(LINE);
    for (focus, row) in [(0, Row::Allow), (1, Row::Other(0)), (2, Row::Reject)] {
        let screen = line_box(focus, false, "");
        let view = parse(&screen, &grammar).unwrap_or_else(|| panic!("{screen}"));
        assert_eq!(view.rows, [Row::Allow, Row::Other(0), Row::Reject]);
        assert_eq!(view.focused, row);
        assert_eq!(view.title, "touch probe-created.txt", "the tool line below");
        assert_eq!(view.texts, ["Allow once", "Allow always", "Reject"]);
    }
    // On a panel background every button has a colour: the focused one
    // is the one no other button has.
    assert_eq!(
        parse(&line_box(2, true, ""), &grammar)
            .expect("box")
            .focused,
        Row::Reject
    );
    // No colour at all: no focus.
    let plain = super::styled::plain(&line_box(0, false, ""));
    assert_eq!(parse(&plain, &grammar), None);
    // Without `within` the sidebar is part of every line: no question.
    let mut unbounded = grammar.clone();
    unbounded.within = None;
    assert_eq!(parse(&line_box(0, false, ""), &unbounded), None);
}

#[test]
fn text_after_the_buttons_counts_only_beyond_a_wider_gap() {
    let grammar = grammar(LINE);
    // A hint far off: ignored. As close as the buttons: not a box.
    let far = line_box(0, false, "        ⇆ select");
    assert_eq!(parse(&far, &grammar).expect("box").focused, Row::Allow);
    let near = line_box(0, false, "   Always");
    assert_eq!(parse(&near, &grammar), None, "{near}");
    // Something before the allow button, or a button missing.
    let before = line_box(0, false, "").replace("┃  ", "┃  Deny   ");
    assert_eq!(parse(&before, &grammar), None);
    let missing = line_box(0, false, "").replace(" Reject ", " Nope   ");
    assert_eq!(parse(&missing, &grammar), None);
}

#[test]
fn a_given_background_colour_is_the_only_focus() {
    let mut grammar = grammar(LINE);
    grammar.rows.focus = crate::adapter::tui_data::Focus::Background(Some(
        crate::adapter::tui_data::Background::Rgb(250, 178, 131),
    ));
    assert_eq!(
        parse(&line_box(1, true, ""), &grammar)
            .expect("box")
            .focused,
        Row::Other(0)
    );
    let blue = line_box(1, false, "").replace(ORANGE, "\u{1b}[44m");
    assert_eq!(parse(&blue, &grammar), None);
}

/// A column box with the focus in reverse video, no frame, no number.
const REVERSE: &str = r#"
questions: ['Do you want to run this command\?']
tool: {prefixes: ["$ "], searchLines: 3}
rows:
  focus: {style: reverse}
  allow: 'Yes'
  others: ['Yes, and don''t ask again']
  reject: 'No'
"#;

fn reverse_box(focus: usize) -> String {
    let rows = ["Yes", "Yes, and don't ask again", "No"];
    let mut text =
        String::from("older output\n$ touch a.txt\n\nDo you want to run this command?\n");
    for (index, row) in rows.iter().enumerate() {
        if index == focus {
            text.push_str(&format!("  \u{1b}[7m{row}\u{1b}[27m\n"));
        } else {
            text.push_str(&format!("  {row}\n"));
        }
    }
    text.push_str("Esc to cancel\n");
    text
}

#[test]
fn focus_by_reverse_video_and_the_tool_line_within_search_lines() {
    let grammar = grammar(REVERSE);
    for (focus, row) in [(0, Row::Allow), (1, Row::Other(0)), (2, Row::Reject)] {
        let view = parse(&reverse_box(focus), &grammar).expect("box");
        assert_eq!(view.focused, row);
        assert_eq!(view.title, "touch a.txt");
    }
    // Half a row in reverse, two rows, none: no focus.
    let half = reverse_box(5).replace("  Yes\n", "  \u{1b}[7mYe\u{1b}[27ms\n");
    assert_eq!(parse(&half, &grammar), None);
    let two = reverse_box(0).replace("  No\n", "  \u{1b}[7mNo\u{1b}[0m\n");
    assert_eq!(parse(&two, &grammar), None);
    assert_eq!(
        parse(&super::styled::plain(&reverse_box(0)), &grammar),
        None
    );
    // The tool line too far above the question.
    let far = reverse_box(0).replace("$ touch a.txt\n", "$ touch a.txt\n\n\n\n");
    assert_eq!(parse(&far, &grammar), None);
}

#[test]
fn a_box_drawn_twice_on_screen_is_no_box() {
    // Two question lines: one may be a command's or the model's own line
    // drawn like the box (under the real question, its rows the real
    // box's): which box the rows belong to cannot be told.
    let grammar = grammar(REVERSE);
    assert!(parse(&reverse_box(2), &grammar).is_some());
    let answered = reverse_box(9).replace("$ touch a.txt", "$ rm -rf x");
    let screen = format!("{answered}{}", reverse_box(2));
    assert_eq!(parse(&screen, &grammar), None);
}

/// The bridge over the side-by-side box: `keys.next` is `Right`.
struct LinePane {
    focus: usize,
    keys: Vec<String>,
    answered: Option<usize>,
    /// A person presses Right right after our first key.
    nudge: bool,
}

impl crate::session::delivery::keystroke_bridge::Pane for LinePane {
    fn capture(&mut self) -> Result<String, PaneError> {
        Ok(match self.answered {
            Some(_) => "┃  > \n".to_owned(),
            None => line_box(self.focus, true, ""),
        })
    }

    fn send_key(&mut self, key: &str) -> Result<(), PaneError> {
        self.keys.push(key.to_owned());
        match key {
            "Right" => self.focus = (self.focus + 1).min(2),
            "Enter" => self.answered = Some(self.focus),
            _ => {}
        }
        if std::mem::take(&mut self.nudge) {
            self.focus = (self.focus + 1).min(2);
        }
        Ok(())
    }
}

fn line_tui() -> crate::adapter::tui_data::TuiData {
    let mut tui = crate::adapter::tui_data::test_data::gemini();
    tui.prompt = grammar(LINE);
    tui.keys.next = crate::adapter::tui_data::KeyName::new("Right").expect("key");
    tui
}

fn deliver_line(
    pane: &mut LinePane,
    verdict: crate::session::cards::Verdict,
) -> Result<(), DeliveryRefusal> {
    let tui = line_tui();
    let bridge = crate::session::delivery::keystroke_bridge::Bridge {
        tui: &tui,
        render_gap: std::time::Duration::ZERO,
        settle: std::time::Duration::ZERO,
        focus_wait: std::time::Duration::from_millis(300),
    };
    bridge.deliver(
        pane,
        "touch probe-created.txt",
        verdict,
        &crate::session::cards::CancelFlag::default(),
    )
}

#[test]
fn the_bridge_moves_right_along_the_buttons_and_refuses_a_moved_focus() {
    use crate::session::cards::Verdict;
    let fresh = |nudge| LinePane {
        focus: 0,
        keys: Vec::new(),
        answered: None,
        nudge,
    };
    let mut pane = fresh(false);
    deliver_line(&mut pane, Verdict::Decline).expect("declined");
    assert_eq!(pane.keys, ["Right", "Right", "Enter"]);
    assert_eq!(pane.answered, Some(2));
    let mut pane = fresh(false);
    deliver_line(&mut pane, Verdict::Accept).expect("accepted");
    assert_eq!(pane.keys, ["Enter"]);
    assert_eq!(pane.answered, Some(0));
    // The focus moved on by someone else between two keys.
    let mut pane = fresh(true);
    let reason = deliver_line(&mut pane, Verdict::Decline).expect_err("refused");
    assert_eq!(pane.keys, ["Right"]);
    assert_eq!(
        reason,
        DeliveryRefusal::FocusMoved {
            found: "Reject".into(),
            expected: "Allow always".into(),
        }
    );
    assert_eq!(pane.answered, None);
    // Another command on screen.
    let mut pane = fresh(false);
    let tui = line_tui();
    let reason = crate::session::delivery::keystroke_bridge::Bridge::new(&tui)
        .deliver(
            &mut pane,
            "touch other.txt",
            Verdict::Decline,
            &crate::session::cards::CancelFlag::default(),
        )
        .expect_err("refused");
    assert!(
        matches!(reason, DeliveryRefusal::NotThisPrompt(_)),
        "{reason}"
    );
    assert!(pane.keys.is_empty());
}

/// A Claude-like box: a top rule only, the command between `╌` rules of
/// its own (wrapped lines start `│ `), the model's description above it.
const MARKED: &str = r#"
questions: ['Do you want to proceed\?']
skip: ['╌+', 'Tip: .+']
tool: {searchLines: 12, commandBox: {top: '╌', bottom: '╌', side: '│'}}
rows:
  numbered: true
  focus: {marker: "❯"}
  allow: 'Yes'
  others: ['Yes, and always allow access to .+ from this project']
  reject: 'No'
"#;

fn marked_box(command: &[&str]) -> String {
    let rule = "╌".repeat(30);
    let mut text = format!(
        "{}\n Bash command\n\n Tip: auto mode handles these\n Make the file ╌╌╌\n{rule}\n",
        "─".repeat(30)
    );
    for line in command {
        text.push_str(&format!(" {line}\n"));
    }
    text.push_str(&format!(
        "{rule}\n Do you want to proceed?\n ❯ 1. Yes\n   2. No\n Esc to cancel · Tab to amend\n"
    ));
    text
}

#[test]
fn a_command_box_of_its_own_marks_holds_the_whole_command() {
    let grammar = grammar(MARKED);
    let view = parse(&marked_box(&["touch probe-created.txt"]), &grammar).expect("box");
    assert_eq!(view.command.as_deref(), Some("touch probe-created.txt"));
    assert_eq!(card_title(&view), "touch probe-created.txt");
    // Wrapped: the side goes, the lines join; an indented rule inside the
    // command is part of it, not the box's edge.
    let view = parse(
        &marked_box(&["echo aaaa &&", "│ echo bbbb", "╌╌ x"]),
        &grammar,
    )
    .expect("box");
    assert_eq!(view.command.as_deref(), Some("echo aaaa && echo bbbb ╌╌ x"));
    assert!(view_matches(&view, "echo aaaa && echo bbbb ╌╌ x", &grammar));
    assert!(!view_matches(&view, "╌╌ x", &grammar));
    // No command box whole above the question (its top gone, or its
    // bottom): no box at all — never a card titled by one of its lines.
    let open = marked_box(&["rm -rf ~ &&", "│ touch a"]).replacen(&"╌".repeat(30), "", 1);
    assert_eq!(parse(&open, &grammar), None);
    let bottomless = marked_box(&["rm -rf ~ &&", "│ touch a"]).replacen(
        &format!("{}\n Do you", "╌".repeat(30)),
        " Do you",
        1,
    );
    assert_ne!(bottomless, marked_box(&["rm -rf ~ &&", "│ touch a"]));
    assert_eq!(parse(&bottomless, &grammar), None);
    // A command taller than `searchLines`: its top is out of reach.
    let tall: Vec<String> = (0..14).map(|i| format!("│ echo {i}")).collect();
    let tall: Vec<&str> = tall.iter().map(String::as_str).collect();
    assert_eq!(parse(&marked_box(&tall), &grammar), None);
}
