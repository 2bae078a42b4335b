//! The `tui` section of the fake's script: what `kiro-cli chat --tui` shows
//! and when. Changes happen on events the test controls — the N-th key, a
//! marker file appearing — never on timers. Unknown fields are rejected so
//! a typo fails the test loudly.

use std::path::PathBuf;

use serde::Deserialize;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct TuiScript {
    /// Approval requests, shown one at a time in this order.
    pub requests: Vec<RequestScript>,
    /// Scripted changes, each once, when its trigger fires.
    pub events: Vec<EventScript>,
    /// Every key received, one name a line (`Down`, `Enter`, `Esc`, …).
    pub key_log: Option<PathBuf>,
    /// Every key with the `CLOCK_MONOTONIC` nanoseconds of the read that
    /// brought it: `<ns> <name>` a line (the benchmarks compare it with
    /// their own monotonic clock).
    pub key_times: Option<PathBuf>,
    /// Recorder `msg` as a JSON string (default) or an object.
    pub msg_as_object: bool,
    /// Recorder `ts` as Unix milliseconds instead of RFC 3339.
    pub ts_as_number: bool,
    /// Switch the terminal to application cursor keys, so tmux sends
    /// `ESC O B` for Down instead of `ESC [ B`.
    pub cursor_keys_application: bool,
    /// Exit when this file appears (besides Ctrl-D).
    pub exit_file: Option<PathBuf>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RequestScript {
    /// The JSON-RPC id.
    pub id: String,
    /// `toolCall.title`, e.g. `Running: pwd`.
    pub title: String,
    /// The tool line the prompt shows; default: derived from the title.
    #[serde(default)]
    pub tool_line: Option<String>,
    /// Offer the persistent-trust row.
    #[serde(default = "yes")]
    pub trust: bool,
    /// Shown once this file exists (else as soon as it is its turn).
    #[serde(default)]
    pub wait_for: Option<PathBuf>,
    /// Write the request and an `allow_once` response in one write and
    /// show nothing (Kiro answered by itself).
    #[serde(default)]
    pub same_batch: bool,
    /// Only record the request line; never show it (it stays
    /// terminal-only while another prompt is up).
    #[serde(default)]
    pub record_only: bool,
    /// More `toolCall` fields for the recorded request (`kind`,
    /// `rawInput`, `locations`).
    #[serde(default)]
    pub tool_call: Option<serde_json::Map<String, serde_json::Value>>,
    /// Run the hooks the profile registered for an event before the
    /// prompt is drawn, as an agent that waits for its hook does.
    #[serde(default)]
    pub hook: Option<HookCall>,
}

/// An agent's hook call: every command of `event` in the agent file
/// (`$KIRO_HOME/agents/<agent>.json`, `hooks.<event>[].command`), run with
/// `sh -c`, `payload` on its stdin; waited for.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HookCall {
    pub agent: String,
    pub event: String,
    pub payload: serde_json::Value,
    /// One JSON line per command run: `{"command", "exit", "stdout",
    /// "stderr", "startNs", "endNs"}` (`CLOCK_MONOTONIC`).
    pub log: PathBuf,
    /// After the hooks ran, the box is drawn only once this file exists
    /// (an agent whose box comes a while after its hook).
    #[serde(default)]
    pub then_wait_for: Option<PathBuf>,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EventScript {
    /// Fires right after the N-th key (1-based) has been handled.
    #[serde(default)]
    pub after_key: Option<usize>,
    /// Fires once this file exists.
    #[serde(default)]
    pub on_file: Option<PathBuf>,
    pub action: Action,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "do", rename_all = "camelCase", deny_unknown_fields)]
pub enum Action {
    /// The visible prompt's tool line changes.
    SetToolLine { text: String },
    /// The focus jumps to row `row` (0-based).
    Focus { row: usize },
    /// The prompt disappears without an answer in the recorder.
    Withdraw,
    /// The person at the terminal answers: Enter on the focused row, or
    /// Esc.
    Answer { esc: bool },
}
