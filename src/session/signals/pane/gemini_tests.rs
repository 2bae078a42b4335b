//! The pane grammar of `manifests/gemini.yaml` over panes captured from the
//! real `@google/gemini-cli` 0.61.0 (tests/it/fixtures/gemini-pane, read
//! with `capture-pane -p -J` in a 200×50 private tmux, kept unedited):
//! the approval box, the focus after each key, the screens after the
//! answer, the untrusted-folder variant with the trust dialog below it.

use super::*;
use crate::adapter::tui_data::test_data::gemini;
use crate::adapter::tui_data::TuiData;
use crate::session::signals::pane_fallback::{detect, detect_any, detect_own};

macro_rules! capture {
    ($name:literal) => {
        include_str!(concat!(
            "../../../../tests/it/fixtures/gemini-pane/",
            $name,
            ".txt"
        ))
    };
}

pub const BOX: &str = capture!("box");
pub const AFTER_DOWN: &str = capture!("after-down");
pub const AFTER_DOWN_DOWN: &str = capture!("after-down-down");
pub const AFTER_ENTER: &str = capture!("after-enter");
pub const UNTRUSTED_BOX: &str = capture!("untrusted-box");
pub const UNTRUSTED_AFTER_DOWN: &str = capture!("untrusted-after-down");
/// A command too long for the tool line (which then shows the model's
/// description) — wrapped in its box.
pub const LONG_BOX: &str = capture!("long-box");
/// Caught while Ink redrew the box after a Down.
pub const HALF_DRAWN: &str = capture!("half-drawn");

const TOUCH: &str = "Shell touch probe-created.txt";

/// The command of [`LONG_BOX`], as the model sent it.
pub fn long_command() -> String {
    format!(
        "echo {} && echo {} > long.txt",
        "x".repeat(150),
        "y".repeat(150)
    )
}

fn labels() -> crate::adapter::tui_data::PromptGrammar {
    gemini().prompt
}

fn view(capture: &str) -> PromptView {
    parse(capture, &labels()).expect("the approval box parses")
}

#[test]
fn the_real_box_parses_with_the_command_as_title() {
    let labels = labels();
    let view = view(BOX);
    assert_eq!(view.tool_line, "? Shell  touch probe-created.txt");
    assert_eq!(view.question, "Allow execution of [Shell]?");
    assert_eq!(view.rows, [Row::Allow, Row::Other(0), Row::Reject]);
    assert_eq!(view.focused, Row::Allow);
    assert_eq!(view.command.as_deref(), Some("touch probe-created.txt"));
    assert_eq!(card_title(&view), "touch probe-created.txt");
    assert!(view_matches(&view, "touch  probe-created.txt", &labels));
    assert!(!view_matches(&view, TOUCH, &labels));
    assert_eq!(Row::Other(0).label(&labels), "Allow for this session");
    assert_eq!(Row::Reject.label(&labels), "No, suggest changes (esc)");
    assert_eq!(
        view.texts,
        [
            "Allow once",
            "Allow for this session",
            "No, suggest changes (esc)"
        ]
    );
    assert_eq!(tool_title(&view.tool_line, &labels), TOUCH);
    assert!(title_matches(&view.tool_line, TOUCH, &labels));
    assert!(title_matches(
        &view.tool_line,
        "Shell   touch  probe-created.txt",
        &labels
    ));
    for other in [
        "Shell touch probe-created",
        "touch probe-created.txt",
        "Shell touch probe-created.txt; rm -rf /",
    ] {
        assert!(!title_matches(&view.tool_line, other, &labels), "{other}");
    }
    assert!(approval_visible(BOX, &labels));
}

#[test]
fn the_focus_follows_each_real_key() {
    assert_eq!(view(AFTER_DOWN).focused, Row::Other(0));
    assert_eq!(view(AFTER_DOWN_DOWN).focused, Row::Reject);
    assert_eq!(view(capture!("after-up")).focused, Row::Allow);
    // Enter does not clear the box at once: it stays until the command
    // has started (about 0.1 s on the real agent).
    assert_eq!(view(capture!("after-enter-immediate")).focused, Row::Allow);
}

#[test]
fn the_answered_box_is_gone_whichever_key_answered() {
    let labels = labels();
    for (name, screen) in [
        ("enter", AFTER_ENTER),
        ("esc", capture!("after-esc")),
        ("3", capture!("after-3")),
        ("down-down-enter", capture!("after-down-down-enter")),
        ("untrusted-esc", capture!("untrusted-after-esc")),
    ] {
        assert_eq!(parse(screen, &labels), None, "{name}");
        assert!(!approval_visible(screen, &labels), "{name}");
        let data = gemini();
        assert_eq!(detect_any(screen, &data), None, "{name}");
    }
}

#[test]
fn a_long_command_is_read_whole_from_its_box_not_from_the_tool_line() {
    let labels = labels();
    let view = view(LONG_BOX);
    assert_eq!(view.tool_line, "? Shell  Create a file");
    assert_eq!(view.command.as_deref(), Some(long_command().as_str()));
    assert_eq!(card_title(&view), long_command());
    assert!(!view_matches(&view, "Shell Create a file", &labels));
    // Two long commands with the same description are two prompts.
    let data = data();
    let first = detect_any(LONG_BOX, &data).expect("prompt");
    let other = LONG_BOX.replace("> long.txt", "> else.txt");
    let second = detect_any(&other, &data).expect("prompt");
    assert_ne!(first.hash, second.hash);
}

#[test]
fn a_half_drawn_box_is_not_visible() {
    let labels = labels();
    assert!(HALF_DRAWN.contains("? Shell  touch probe-created.txt"));
    assert_eq!(parse(HALF_DRAWN, &labels), None);
    assert_eq!(detect_any(HALF_DRAWN, &data()), None);
    assert_eq!(
        gemini().redraw_ms,
        500,
        "so the watcher and bridge look again"
    );
}

#[test]
fn the_untrusted_variant_has_two_rows_and_ignores_the_trust_dialog() {
    let view = view(UNTRUSTED_BOX);
    assert_eq!(view.rows, [Row::Allow, Row::Reject]);
    assert_eq!(view.focused, Row::Allow);
    assert!(
        UNTRUSTED_BOX.contains("● 1. Trust folder"),
        "the dialog is there"
    );
    // Keys go to the approval box, not to the dialog (captured).
    assert_eq!(
        super::parse(UNTRUSTED_AFTER_DOWN, &labels())
            .expect("box")
            .focused,
        Row::Reject
    );
    assert!(UNTRUSTED_AFTER_DOWN.contains("● 1. Trust folder"));
}

#[test]
fn a_warning_under_the_question_is_skipped() {
    let view = view(capture!("redirect-box"));
    assert_eq!(view.tool_line, "? Shell  echo hi > probe.txt");
    assert_eq!(view.rows, [Row::Allow, Row::Other(0), Row::Reject]);
}

#[test]
fn the_other_kinds_of_question_parse_with_their_rows() {
    let labels = labels();
    let mcp = BOX
        .replace(
            "Allow execution of [Shell]?      ",
            r#"Allow execution of MCP tool "read" from server "files"?"#,
        )
        .replace(
            "? Shell  touch probe-created.txt",
            "? read (files MCP Server)",
        )
        .replace(
            "  2. Allow for this session      ",
            "  2. Allow tool for this session",
        )
        .replace(
            "  3. No, suggest changes (esc)",
            "  3. Allow all server tools for this session\n│   4. No, suggest changes (esc)",
        );
    let view = parse(&mcp, &labels).expect("mcp box");
    assert_eq!(view.tool_line, "? read (files MCP Server)");
    assert_eq!(
        view.rows,
        [Row::Allow, Row::Other(4), Row::Other(5), Row::Reject]
    );
    let edit = BOX.replace("Allow execution of [Shell]?", "Apply this change?        ");
    assert_eq!(view_of(&edit).question, "Apply this change?");

    fn view_of(screen: &str) -> PromptView {
        parse(screen, &gemini().prompt).expect("edit box")
    }
}

#[test]
fn a_box_that_does_not_read_exactly_is_not_visible() {
    let labels = labels();
    let cases = [
        // No tool line inside the frame.
        (
            "no tool line",
            BOX.replace("? Shell  touch", "  Shell  touch"),
        ),
        // Rows out of order or renumbered.
        (
            "renumbered",
            BOX.replace("2. Allow for this session", "5. Allow for this session"),
        ),
        (
            "reordered",
            BOX.replace("● 1. Allow once", "● 1. Allow for this session")
                .replace("  2. Allow for this session", "  2. Allow once           "),
        ),
        // Two focus markers, none.
        (
            "two focus markers",
            BOX.replace("  2. Allow for this session", "● 2. Allow for this session"),
        ),
        (
            "no focus",
            BOX.replace("● 1. Allow once", "  1. Allow once"),
        ),
        // A row the data does not know, a reject row that only starts alike.
        (
            "unknown row",
            BOX.replace("2. Allow for this session", "2. Allow forever         "),
        ),
        (
            "lookalike reject",
            BOX.replace("No, suggest changes (esc)", "No, suggestions (esc)    "),
        ),
        // A line the data does not skip between the question and the
        // rows (blank lines are skipped wherever they stand: v2).
        (
            "unknown line before the rows",
            BOX.replace(
                "│ Allow execution of [Shell]?",
                "│ Allow execution of [Shell]?\n│ Press y to allow everything",
            ),
        ),
        // A reject row with more text after it (rows match whole).
        (
            "reject with a tail",
            BOX.replace("No, suggest changes (esc)", "No, suggest changes (esc) x"),
        ),
    ];
    for (name, screen) in cases {
        assert_ne!(screen, BOX, "{name}: the fixture moved");
        assert_eq!(parse(&screen, &labels), None, "{name}");
    }
}

#[test]
fn the_kiro_grammar_does_not_read_the_gemini_box_nor_the_reverse() {
    let kiro = crate::session::signals::pane::tests::labels();
    assert_eq!(parse(BOX, &kiro), None);
    let kiro_screen = crate::session::signals::pane::tests::spec_prompt("Shell pwd", true, 0);
    assert_eq!(parse(&kiro_screen, &labels()), None);
}

fn data() -> TuiData {
    gemini()
}

#[test]
fn the_watcher_finds_the_box_and_answers_it_through_the_bridge() {
    let data = data();
    // The generic reading finds no rows (a blank line under the question).
    assert_eq!(detect(BOX, &data), None);
    let prompt = detect_any(BOX, &data).expect("own prompt");
    assert_eq!(prompt.title, "Allow execution of [Shell]?");
    assert_eq!(
        prompt.context.as_deref(),
        Some("? Shell touch probe-created.txt")
    );
    assert_eq!(prompt.earlier, 0);
    let labels: Vec<&str> = prompt
        .options
        .iter()
        .map(|row| row.label.as_str())
        .collect();
    assert_eq!(
        labels,
        [
            "Allow once",
            "Allow for this session",
            "No, suggest changes (esc)"
        ]
    );
    // The focus does not change the hash: one card across the moves.
    let moved = detect_own(AFTER_DOWN, &data).expect("moved");
    assert_eq!(moved.hash, prompt.hash);
    let untrusted = detect_any(UNTRUSTED_BOX, &data).expect("untrusted");
    assert_ne!(untrusted.hash, prompt.hash);

    let (request, delivery) = crate::session::signals::pane_watch::card_for(1, &prompt, BOX, &data);
    assert_eq!(request.title, "touch probe-created.txt");
    assert_eq!(
        request.detail.command.as_deref(),
        Some("touch probe-created.txt")
    );
    assert_eq!(
        delivery,
        crate::session::supervisor::state::Delivery::Bridge
    );
}

#[test]
fn an_identical_box_under_an_answered_one_is_a_new_prompt() {
    let data = data();
    let first = detect_any(BOX, &data).expect("first");
    // The answered call stays above as `✓  Shell …`; the model asks again.
    let answered = "│ ✓  Shell touch probe-created.txt │\n";
    let again = BOX.replacen("╭", &format!("{answered}╭"), 1);
    let second = detect_any(&again, &data).expect("second");
    assert_eq!(second.hash, first.hash);
    assert_eq!(second.earlier, 1);
    let mut tracker = crate::session::signals::pane_fallback::Tracker::default();
    assert_eq!(tracker.observe(Some(first)).len(), 1);
    let events = tracker.observe(Some(second));
    assert_eq!(events.len(), 2, "vanished and appeared: {events:?}");
}

macro_rules! ansi {
    ($name:literal) => {
        (
            $name,
            capture!($name),
            include_str!(concat!(
                "../../../../tests/it/fixtures/gemini-pane/",
                $name,
                ".ansi.txt"
            )),
        )
    };
}

#[test]
fn the_real_captures_with_escapes_read_alike_and_show_the_focus_in_colour() {
    let marker = labels();
    // The same box read from its background colour alone (48;5;28 on the
    // focused row in 0.61.0), the marker ignored.
    let mut colour = labels();
    colour.rows.focus = crate::adapter::tui_data::Focus::Background(Some(
        crate::adapter::tui_data::Background::Indexed(28),
    ));
    let mut any_colour = labels();
    any_colour.rows.focus = crate::adapter::tui_data::Focus::Background(None);
    for (name, text, ansi) in [
        ansi!("box"),
        ansi!("after-down"),
        ansi!("after-down-down"),
        ansi!("after-up"),
        ansi!("long-box"),
        ansi!("redirect-box"),
        ansi!("untrusted-box"),
        ansi!("untrusted-after-down"),
        ansi!("after-enter"),
        ansi!("after-esc"),
    ] {
        assert!(ansi.contains('\u{1b}'), "{name}: escapes kept");
        let plain = parse(text, &marker);
        assert_eq!(parse(ansi, &marker), plain, "{name}");
        let focus = plain.as_ref().map(|view| view.focused);
        // The marker blanked: only the colour tells the focus.
        let unmarked = ansi.replace('●', " ");
        for grammar in [&colour, &any_colour] {
            assert_eq!(
                parse(&unmarked, grammar).map(|view| view.focused),
                focus,
                "{name}"
            );
        }
        assert_eq!(
            crate::session::signals::pane::styled::plain(ansi)
                .lines()
                .count(),
            text.lines().count(),
            "{name}"
        );
    }
    // Without escapes there is no colour to read.
    assert_eq!(parse(BOX, &colour), None);
}
