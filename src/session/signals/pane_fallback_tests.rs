#![allow(clippy::disallowed_methods)] // test fixtures use std::fs directly
//! The detector on both prompt fixtures and captured variants.

use super::*;
use crate::session::signals::pane::tests::spec_prompt;

fn data() -> TuiData {
    crate::adapter::data::AdapterData::builtin()
        .expect("data")
        .tui
}

const OTHER_TUI: &str = " $  echo probe > out.txt in .
 Run this command?
 Shell allowlist is empty
  → Run (once) (y)
    Run Everything (shift+tab)
    Skip (esc or n)
";

#[test]
fn the_other_tui_fixture_advertises_its_keys() {
    let prompt = detect(OTHER_TUI, &data()).expect("prompt");
    assert_eq!(prompt.title, "Run this command?");
    assert_eq!(
        prompt.context.as_deref(),
        Some("$ echo probe > out.txt in .")
    );
    let rows: Vec<(&str, Vec<&str>, bool)> = prompt
        .options
        .iter()
        .map(|row| {
            (
                row.label.as_str(),
                row.keys.iter().map(String::as_str).collect(),
                row.focused,
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("Run (once)", vec!["y"], true),
            ("Run Everything", vec!["shift+tab"], false),
            ("Skip", vec!["esc", "n"], false),
        ]
    );
}

#[test]
fn the_kiro_fixture_is_detected_and_tab_to_edit_is_not_a_key() {
    let prompt = detect(&spec_prompt("Shell pwd", true, 0), &data()).expect("prompt");
    assert_eq!(prompt.title, "shell requires approval");
    assert_eq!(prompt.context.as_deref(), Some("↓ Shell pwd"));
    assert_eq!(prompt.options.len(), 3);
    assert_eq!(prompt.options[2].label, "No (Tab to edit)");
    assert!(prompt.options.iter().all(|row| row.keys.is_empty()));
    assert!(prompt.options[0].focused);
}

#[test]
fn two_rows_without_the_trust_row_and_a_moved_focus_keep_the_hash() {
    let data = data();
    let two = detect(&spec_prompt("Shell pwd", false, 0), &data).expect("prompt");
    assert_eq!(two.options.len(), 2);
    let moved = detect(&spec_prompt("Shell pwd", false, 1), &data).expect("prompt");
    assert_eq!(two.hash, moved.hash, "the focus is not content");
    let other = detect(&spec_prompt("Shell ls", false, 0), &data).expect("prompt");
    assert_ne!(two.hash, other.hash);
}

#[test]
fn wrapped_lines_a_subagent_frame_and_cjk_text() {
    let data = data();
    // A long command the app wrapped itself, in a subagent's frame.
    let framed = "│ reviewer: echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa │\n\
                  │ bbbbbbbbbbbbbbbbbb │\n\
                  │ Run this command? │\n\
                  │  → Run (once) (y) │\n\
                  │    Skip (esc or n) │\n";
    let prompt = detect(framed, &data).expect("framed prompt");
    assert_eq!(prompt.title, "Run this command?");
    assert_eq!(prompt.context.as_deref(), Some("bbbbbbbbbbbbbbbbbb"));
    assert_eq!(prompt.options[1].keys, ["esc", "n"]);

    let cjk = " $ rm 临时文件.txt\n 要运行这个命令吗？\n  → 运行一次 (y)\n    跳过 (esc or n)\n";
    let prompt = detect(cjk, &data).expect("cjk prompt");
    assert_eq!(prompt.title, "要运行这个命令吗？");
    assert_eq!(prompt.options[0].label, "运行一次");
    assert_eq!(prompt.options[0].keys, ["y"]);
}

#[test]
fn text_that_only_looks_like_a_question_is_not_a_prompt() {
    let data = data();
    assert_eq!(detect("Shall I continue?\n\nsure\n", &data), None);
    assert_eq!(
        detect("Run this command?\n  → only one row (y)\n", &data),
        None
    );
    assert_eq!(detect("plain output\n", &data), None);
}

#[test]
fn one_active_prompt_and_a_vanish_tells_identical_prompts_apart() {
    let data = data();
    let prompt = || detect(OTHER_TUI, &data);
    let mut tracker = Tracker::default();
    let events = tracker.observe(prompt());
    assert!(matches!(
        events.as_slice(),
        [FallbackEvent::Appeared { occurrence: 1, .. }]
    ));
    // Seen again (focus or redraw): nothing new.
    assert!(tracker.observe(prompt()).is_empty());
    // It vanishes without our key: answered in the terminal.
    assert_eq!(
        tracker.observe(None),
        [FallbackEvent::Vanished {
            occurrence: 1,
            by_us: false
        }]
    );
    // The identical prompt again is a new occurrence.
    let events = tracker.observe(prompt());
    assert!(matches!(
        events.as_slice(),
        [FallbackEvent::Appeared { occurrence: 2, .. }]
    ));
    tracker.keystroke();
    // Replaced by another prompt after our key.
    let other = detect(&spec_prompt("Shell pwd", true, 0), &data);
    let events = tracker.observe(other);
    assert!(matches!(
        events.as_slice(),
        [
            FallbackEvent::Vanished {
                occurrence: 2,
                by_us: true
            },
            FallbackEvent::Appeared { occurrence: 3, .. }
        ]
    ));
}

/// The first prompt answered and left on screen as history, an identical
/// one drawn below it before the next capture: the vanish between them was
/// never seen, so the second title on screen is what tells them apart.
#[test]
fn the_same_title_twice_in_one_capture_is_a_new_prompt() {
    let data = data();
    let answered = " $  echo probe > out.txt in .\n Run this command?\n  ✓ Run (once)\n\n";
    let twice = format!("{answered}{OTHER_TUI}");
    let mut tracker = Tracker::default();
    assert!(matches!(
        tracker.observe(detect(OTHER_TUI, &data)).as_slice(),
        [FallbackEvent::Appeared { occurrence: 1, .. }]
    ));
    tracker.keystroke();
    let second = detect(&twice, &data).expect("the prompt below the history");
    assert_eq!(second.hash, detect(OTHER_TUI, &data).expect("first").hash);
    let events = tracker.observe(Some(second));
    assert!(
        matches!(
            events.as_slice(),
            [
                FallbackEvent::Vanished {
                    occurrence: 1,
                    by_us: true
                },
                FallbackEvent::Appeared { occurrence: 2, .. }
            ]
        ),
        "{events:?}"
    );
    // Seen again, it is the same prompt.
    assert!(tracker.observe(detect(&twice, &data)).is_empty());
    // A third identical one below two answered ones is new again.
    let thrice = format!("{answered}{answered}{OTHER_TUI}");
    assert!(matches!(
        tracker.observe(detect(&thrice, &data)).as_slice(),
        [
            FallbackEvent::Vanished { occurrence: 2, .. },
            FallbackEvent::Appeared { occurrence: 3, .. }
        ]
    ));
    // The history scrolls away: still the same prompt.
    assert!(tracker.observe(detect(OTHER_TUI, &data)).is_empty());
}
