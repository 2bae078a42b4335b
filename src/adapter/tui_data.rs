//! The `tui:` section of an adapter data file: what the session supervisor
//! knows about an agent's terminal UI — how to start it,
//! the recorder variable and the first version that writes it (absent:
//! the agent has none, and approvals are read from the pane), the grammar
//! of its approval prompt, the key names and the timings of the keystroke
//! bridge.

use std::time::Duration;

use serde::Deserialize;

pub use super::tui_grammar::{
    Background, Columns, CommandBox, CommandMarks, Focus, FrameData, Layout, PromptGrammar,
    RowsData, ToolData, WholePattern,
};
pub use super::tui_keys::{KeyName, KeyNames, KeyStep, VerdictKeys};

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
    /// The approval box (pane grammar v2).
    pub prompt: PromptGrammar,
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
        assert_eq!(prompt.rows.focus, super::Focus::Marker("●".into()));
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
        assert_eq!(tui.prompt.rows.focus, super::Focus::Marker("❯".into()));
        assert_eq!(tui.keys.next.as_str(), "Down");
        assert_eq!(tui.keys.confirm.as_str(), "Enter");
        assert!(tui.has_recorder("2.8.1"));
        assert!(tui.has_recorder("2.4.0"));
        assert!(!tui.has_recorder("2.3.9"));
        assert!(!tui.has_recorder("not a version"));
    }
}
