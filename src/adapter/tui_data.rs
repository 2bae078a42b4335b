//! The `tui:` section of an adapter data file: what the session supervisor
//! knows about an agent's terminal UI (SPEC §8, §11.3) — how to start it,
//! the recorder variable and the first version that writes it (absent:
//! the agent has none, and approvals are read from the pane), the grammar
//! of its approval prompt, the key names and the timings of the keystroke
//! bridge.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;

use crate::redact::rules::Pattern;

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TuiData {
    /// Arguments after the agent's path (`chat --tui --agent oneworks`).
    pub command: Vec<String>,
    /// Variables the TUI child gets besides its world's (Gemini's
    /// `GEMINI_CLI_NO_RELAUNCH`).
    #[serde(default)]
    pub env: std::collections::BTreeMap<String, String>,
    /// The variable the agent reads the recorder path from; absent when
    /// it writes none (then the pane is always read).
    #[serde(default)]
    pub recorder_variable: Option<String>,
    /// The first version that writes the recorder.
    #[serde(default)]
    pub recorder_since: Option<String>,
    pub prompt: PromptLabels,
    pub keys: KeyNames,
    pub fallback: FallbackData,
    pub render_gap_ms: u64,
    pub settle_ms: u64,
    pub focus_wait_ms: u64,
    /// How long a prompt missing from a capture may be a redraw in
    /// progress (an agent that erases and redraws its screen can be caught
    /// half-drawn): the capture is taken again until this bound before the
    /// prompt counts as gone. 0 (absent): gone at once.
    #[serde(default)]
    pub redraw_ms: u64,
    pub width: u16,
    pub height: u16,
    /// Approval signals from the agent itself (its hook), besides the pane.
    #[serde(default)]
    pub signals: super::tui_signals::TuiSignals,
}

/// How the agent's approval prompt reads in a captured pane: a question
/// line, the tool line above it, and option rows below it — the allow
/// row first, the reject row last, other rows (persistent trust) between.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PromptLabels {
    /// A line (box sides removed, trimmed) matching one of these is the
    /// prompt's question (Kiro: `requires approval`; Gemini:
    /// `Allow execution of [Shell]?`, …).
    pub questions: Vec<Pattern>,
    /// The box drawn around the prompt, if any.
    #[serde(default)]
    pub frame: Option<FrameData>,
    /// The focus marker before the focused row (`❯`, `●`).
    pub focus: String,
    pub allow_row: String,
    /// The rows that may stand between allow and reject (persistent trust,
    /// an editor), in screen order; each may be absent, none is ever chosen.
    pub other_rows: Vec<String>,
    pub reject_row: String,
    /// Rows carry their number (`1. Allow once`), counted from 1.
    #[serde(default)]
    pub numbered_rows: bool,
    /// How many lines (blank, a warning) may stand between the question
    /// and the first row.
    #[serde(default)]
    pub lines_before_rows: usize,
    /// Prefixes a tool line may start with (an arrow, a bullet, `?`).
    pub tool_line: Vec<String>,
    /// Where the tool line is: `false` — the nearest non-blank line above
    /// the question; `true` — the nearest line above it, inside the frame,
    /// that starts with a `toolLine` prefix (a command box, an MCP server
    /// line may stand between).
    #[serde(default)]
    pub tool_line_prefixed: bool,
    /// Recorder title prefix → the text the pane shows in its place.
    #[serde(default)]
    pub title_prefixes: BTreeMap<String, String>,
}

/// The box around a prompt: each line's `side` is removed once at both
/// ends (a nested box keeps its own), a line starting with `top` is the
/// box's first and one starting with `bottom` its last. A nested box right
/// between the tool line and the question holds the command itself.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FrameData {
    pub side: String,
    pub top: String,
    pub bottom: String,
}

/// tmux key names.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KeyNames {
    pub down: String,
    pub enter: String,
}

/// What the generic pane detector looks for.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FallbackData {
    pub focus_markers: Vec<String>,
    pub key_names: Vec<String>,
    pub question_marks: Vec<String>,
    pub poll_ms: u64,
}

impl TuiData {
    pub fn render_gap(&self) -> Duration {
        Duration::from_millis(self.render_gap_ms)
    }

    pub fn settle(&self) -> Duration {
        Duration::from_millis(self.settle_ms)
    }

    pub fn focus_wait(&self) -> Duration {
        Duration::from_millis(self.focus_wait_ms)
    }

    pub fn redraw(&self) -> Duration {
        Duration::from_millis(self.redraw_ms)
    }

    /// Whether the agent's `version` writes the recorder; an agent without
    /// one, or an unparsable version, counts as "no" so `auto` reads the
    /// pane.
    pub fn has_recorder(&self, version: &str) -> bool {
        if self.recorder_variable.is_none() {
            return false;
        }
        let since = self
            .recorder_since
            .as_deref()
            .and_then(|since| semver::Version::parse(since).ok());
        let version = semver::Version::parse(version).ok();
        matches!((since, version), (Some(since), Some(version)) if version >= since)
    }
}

impl PromptLabels {
    /// Whether `line` (box sides removed, trimmed) is a prompt's question.
    pub fn is_question(&self, line: &str) -> bool {
        self.questions
            .iter()
            .any(|pattern| pattern.0.is_match(line))
    }

    /// `line` without the frame's sides (once at each end); trailing
    /// blanks go, leading spaces stay.
    pub fn strip_frame<'a>(&self, line: &'a str) -> &'a str {
        let Some(frame) = &self.frame else {
            return line;
        };
        let side = frame.side.as_str();
        let line = line.trim_end();
        let line = line.strip_suffix(side).unwrap_or(line).trim_end();
        match line.trim_start().strip_prefix(side) {
            Some(rest) => rest,
            None => line,
        }
    }

    /// Whether raw `line` is the first line of the frame (its top border).
    pub fn is_frame_top(&self, line: &str) -> bool {
        self.frame
            .as_ref()
            .is_some_and(|frame| line.trim_start().starts_with(frame.top.as_str()))
    }
}

/// Test data for the session's pane tests.
#[cfg(test)]
pub(crate) mod test_data {
    use super::TuiData;

    /// The `tui:` section of `manifests/gemini.yaml`, read alone (the
    /// rest of that file belongs to other sections' types).
    pub fn gemini() -> TuiData {
        let file: serde_yaml_ng::Value =
            serde_yaml_ng::from_str(include_str!("../../manifests/gemini.yaml")).expect("yaml");
        serde_yaml_ng::from_value(file["tui"].clone()).expect("gemini tui data")
    }
}

#[cfg(test)]
mod tests {
    use super::test_data::gemini;
    use crate::adapter::data::AdapterData;

    #[test]
    fn gemini_tui_data_has_no_recorder_and_its_own_grammar() {
        let tui = gemini();
        assert!(tui.command.is_empty());
        assert_eq!(tui.recorder_variable, None);
        assert!(!tui.has_recorder("0.61.0"), "no recorder: always the pane");
        let prompt = &tui.prompt;
        assert_eq!(prompt.focus, "●");
        for question in [
            "Allow execution of [Shell]?",
            "Apply this change?",
            r#"Allow execution of MCP tool "read" from server "files"?"#,
        ] {
            assert!(prompt.is_question(question), "{question}");
        }
        for other in [
            "Allow execution of Shell",
            "Do you trust the files in this folder?",
            "x Allow execution of [Shell]?",
            "Apply this change? now",
        ] {
            assert!(!prompt.is_question(other), "{other}");
        }
        assert_eq!(
            prompt.strip_frame("│ │ touch a │ │"),
            " │ touch a │",
            "one frame level only"
        );
        assert!(prompt.is_frame_top("╭────╮"));
        assert!(!prompt.is_frame_top("│ ╭──╮ │"));
    }

    #[test]
    fn builtin_tui_data_parses_with_the_spec_defaults() {
        let tui = AdapterData::builtin().expect("data").tui;
        assert_eq!(tui.command, ["chat", "--tui", "--agent", "oneworks"]);
        assert_eq!(
            tui.recorder_variable.as_deref(),
            Some("KIRO_ACP_RECORD_PATH")
        );
        assert_eq!(tui.render_gap_ms, 300);
        assert_eq!(tui.settle_ms, 500);
        assert_eq!(tui.prompt.focus, "❯");
        assert!(tui.has_recorder("2.8.1"));
        assert!(tui.has_recorder("2.4.0"));
        assert!(!tui.has_recorder("2.3.9"));
        assert!(!tui.has_recorder("not a version"));
    }
}
