//! The `tui:` section of the adapter data file: what the session
//! supervisor knows about Kiro's terminal UI (SPEC §8) — how to start it,
//! the recorder variable and the first version that writes it, the labels
//! of the approval prompt, the key names and the timings of the keystroke
//! bridge.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TuiData {
    /// Arguments after the `kiro-cli` path (`chat --tui --agent oneworks`).
    pub command: Vec<String>,
    /// The variable Kiro reads the recorder path from.
    pub recorder_variable: String,
    /// The first Kiro version that writes the recorder.
    pub recorder_since: String,
    pub prompt: PromptLabels,
    pub keys: KeyNames,
    pub fallback: FallbackData,
    pub render_gap_ms: u64,
    pub settle_ms: u64,
    pub focus_wait_ms: u64,
    pub width: u16,
    pub height: u16,
}

/// How Kiro's approval prompt reads in a captured pane.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PromptLabels {
    /// The text that marks a visible prompt (`requires approval`).
    pub marker: String,
    /// The focus marker before the focused row (`❯`).
    pub focus: String,
    pub allow_row: String,
    /// The persistent-trust row; absent on some prompts.
    pub trust_row: String,
    pub reject_row: String,
    /// Prefixes a tool line may start with (an arrow, a bullet).
    pub tool_line: Vec<String>,
    /// Recorder title prefix → the text the pane shows in its place.
    pub title_prefixes: BTreeMap<String, String>,
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

    /// Whether Kiro `version` writes the recorder; an unparsable version
    /// counts as "no" so `auto` falls back to scraping the pane.
    pub fn has_recorder(&self, version: &str) -> bool {
        let since = semver::Version::parse(&self.recorder_since).ok();
        let version = semver::Version::parse(version).ok();
        matches!((since, version), (Some(since), Some(version)) if version >= since)
    }
}

#[cfg(test)]
mod tests {
    use crate::adapter::data::AdapterData;

    #[test]
    fn builtin_tui_data_parses_with_the_spec_defaults() {
        let tui = AdapterData::builtin().expect("data").tui;
        assert_eq!(tui.command, ["chat", "--tui", "--agent", "oneworks"]);
        assert_eq!(tui.recorder_variable, "KIRO_ACP_RECORD_PATH");
        assert_eq!(tui.render_gap_ms, 300);
        assert_eq!(tui.settle_ms, 500);
        assert_eq!(tui.prompt.focus, "❯");
        assert!(tui.has_recorder("2.8.1"));
        assert!(tui.has_recorder("2.4.0"));
        assert!(!tui.has_recorder("2.3.9"));
        assert!(!tui.has_recorder("not a version"));
    }
}
