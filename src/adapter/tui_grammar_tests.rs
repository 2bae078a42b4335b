//! The v2 grammar's data checks: key names, focus, whole patterns.

use super::*;
use crate::adapter::tui_keys::KeyName;

/// The `tui:` section of the built-in Gemini file with `edit` applied to
/// its text, parsed as a whole adapter file (so errors name their path).
fn gemini_with(
    from: &str,
    to: &str,
) -> Result<crate::adapter::data::AdapterData, crate::adapter::data::DataError> {
    let text = include_str!("../../manifests/gemini.yaml");
    assert!(text.contains(from), "the fixture moved: {from}");
    let text = text.replacen(from, to, 1);
    crate::adapter::data::AdapterData::parse_named(&text, std::path::Path::new("gemini.yaml"))
}

/// The whole message of the refusal of [`gemini_with`]'s file.
#[track_caller]
fn refused(from: &str, to: &str, what: &str) -> String {
    crate::error::message(&gemini_with(from, to).expect_err(what))
}

#[test]
fn key_names_are_the_tmux_names_the_bridge_may_send() {
    for good in [
        "Up", "Down", "Left", "Right", "Tab", "BTab", "Enter", "Escape", "Space", "0", "9", "y",
        "n",
    ] {
        assert!(KeyName::new(good).is_ok(), "{good}");
    }
    for bad in [
        "", "down", "PageDown", "C-c", "Y", "yy", "Enter ", "é", "M-x", "\u{1b}[A", "10",
    ] {
        assert!(KeyName::new(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn a_bad_key_name_is_a_data_error_naming_the_field() {
    let message = refused("    next: Down", "    next: PageDown", "bad key");
    assert!(message.contains("tui: `keys.next`"), "{message}");
    assert!(message.contains("unknown key name `PageDown`"), "{message}");
    let message = refused("    confirm: Enter", "    confirm: C-m", "bad key");
    assert!(message.contains("`keys.confirm`"), "{message}");
    // v1's names are gone.
    let message = refused("    next: Down", "    down: Down", "v1 key");
    assert!(message.contains("unknown field `down`"), "{message}");
    assert!(gemini_with("    next: Down", "    next: j").is_ok());
}

#[test]
fn focus_is_exactly_one_of_marker_and_style() {
    let focus = |yaml: &str| serde_yaml_ng::from_str::<Focus>(yaml).map_err(|e| e.to_string());
    assert_eq!(focus("marker: ●"), Ok(Focus::Marker("●".into())));
    assert_eq!(focus("style: reverse"), Ok(Focus::Reverse));
    assert_eq!(focus("style: background"), Ok(Focus::Background(None)));
    assert_eq!(
        focus("{style: background, background: '48;2;250;178;131'}"),
        Ok(Focus::Background(Some(Background::Rgb(250, 178, 131))))
    );
    assert_eq!(
        focus("{style: background, background: '44'}"),
        Ok(Focus::Background(Some(Background::Basic(4))))
    );
    assert_eq!(
        focus("{style: background, background: '104'}"),
        Ok(Focus::Background(Some(Background::Basic(12))))
    );
    assert_eq!(
        focus("{style: background, background: '48;5;28'}"),
        Ok(Focus::Background(Some(Background::Indexed(28))))
    );
    for bad in [
        "{marker: ●, style: reverse}",
        "{}",
        "marker: ' '",
        "style: bold",
        "{style: reverse, background: '44'}",
        "{marker: ●, background: '44'}",
        "{style: background, background: '38;5;1'}",
        "{style: background, background: blue}",
        "{style: background, background: '48;2;1;2'}",
        "{marker: ●, colour: red}",
    ] {
        assert!(focus(bad).is_err(), "{bad}");
    }
}

#[test]
fn row_patterns_match_whole_never_a_prefix() {
    let pattern = WholePattern::new("Always allow .+ in this project").expect("pattern");
    assert!(pattern.matches("Always allow `touch` in this project"));
    assert!(!pattern.matches("Always allow `touch` in this project, forever"));
    assert!(!pattern.matches("x Always allow `touch` in this project"));
    // An alternation is anchored as a whole, not only its ends.
    let either = WholePattern::new("Yes|No").expect("pattern");
    assert!(either.matches("No"));
    assert!(!either.matches("Yes, and more"));
    assert!(!either.matches("Nope No"));
    assert!(WholePattern::new("(").is_err());
    let escaped = WholePattern::new(r"No, suggest changes \(esc\) \\d").expect("pattern");
    assert_eq!(escaped.shown(), r"No, suggest changes (esc) \d");
}

#[test]
fn a_suffix_is_removed_from_the_end_only() {
    let suffix: SuffixPattern = serde_yaml_ng::from_str(r"'\s*←'").expect("pattern");
    assert_eq!(suffix.strip("Shell touch a ←"), "Shell touch a");
    assert_eq!(suffix.strip("Shell ← touch a"), "Shell ← touch a");
}

#[test]
fn every_builtin_tui_section_reads_as_v2() {
    let registry = crate::adapter::registry::Registry::builtin();
    for name in [
        "kiro", "gemini", "qwen", "copilot", "opencode", "codex", "claude",
    ] {
        let data = registry
            .load(name)
            .unwrap_or_else(|error| panic!("{name}: {error}"));
        let tui = &data.tui;
        assert!(!tui.prompt.questions.is_empty(), "{name}");
        assert!(
            NAMED_KEYS.contains(&tui.keys.next.as_str()),
            "{name}: {:?}",
            tui.keys.next
        );
    }
}

#[test]
fn a_reject_key_and_a_command_box_of_its_own_marks_are_read() {
    let data = gemini_with(
        "    confirm: Enter",
        "    confirm: Enter\n    reject: Escape",
    )
    .expect("reject key");
    assert_eq!(
        data.tui.keys.reject,
        Some(KeyName::new("Escape").expect("key"))
    );
    let message = refused(
        "    confirm: Enter",
        "    confirm: Enter\n    reject: Esc",
        "bad reject key",
    );
    assert!(message.contains("`keys.reject`"), "{message}");
    let data = gemini_with(
        "      commandBox: true",
        "      commandBox: {top: '╌', bottom: '╌', side: '│'}",
    )
    .expect("marks");
    assert_eq!(
        data.tui.prompt.tool.command_box,
        CommandBox::Marked(CommandMarks {
            top: "╌".into(),
            bottom: "╌".into(),
            side: Some("│".into())
        })
    );
    assert!(gemini_with("      commandBox: true", "      commandBox: {top: '╌'}").is_err());
    let data = gemini_with("      commandBox: true\n", "").expect("no command box");
    assert_eq!(data.tui.prompt.tool.command_box, CommandBox::Framed(false));
}
