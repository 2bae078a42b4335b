//! `tui.signals` of an adapter data file: approval signals a supervised
//! session gets from the agent itself, besides the recorder and the pane
//!. Two kinds:
//! - the agent's own **hook** that fires when it is about to ask for an
//!   approval (Claude Code's `PermissionRequest`). The profile world
//!   registers it in the agent's hooks map (the adapter's `session.hooks`
//!   place and shape) for `session start` only, pointing at `oneworks
//!   session hook`, which hands the hook's stdin payload to the supervisor
//!   and decides nothing;
//! - the agent's own **chat store** ([`ChatStoreSignalData`](crate::adapter::chat_store_data::ChatStoreSignalData)): a
//!   SQLite database the agent keeps its conversation in, where a call
//!   waiting for its approval is written before the box is drawn.
//!
//! What a payload or a stored part means is read through the JSON pointers
//! below; nothing here names an agent.

use std::collections::BTreeMap;

use serde::Deserialize;

pub use super::json_pointer::JsonPointer;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TuiSignals {
    /// The agent's hook that fires when it is about to ask; `None`: it
    /// has none (or none that fires exactly then).
    #[serde(default)]
    pub hook: Option<HookSignalData>,
    /// The agent's chat store, read for its pending calls; `None`: it keeps
    /// none that oneworks reads.
    #[serde(default)]
    pub chat_store: Option<super::chat_store_data::ChatStoreSignalData>,
}

impl TuiSignals {
    /// How long the pane watcher, once it sees the box, waits for a
    /// signal's card before it makes its own; `None`: no signal source.
    pub fn pane_wait(&self) -> Option<std::time::Duration> {
        match (&self.hook, &self.chat_store) {
            (Some(hook), _) => Some(hook.pane_wait()),
            (None, Some(store)) => Some(store.pane_wait()),
            (None, None) => None,
        }
    }
}

/// One hook event of the agent and how to read its payload.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HookSignalData {
    /// The hook event (trigger) name in the agent's hooks map.
    pub event: String,
    /// The entry's matcher, when the event is matched (a tool name, a
    /// notification type).
    #[serde(default)]
    pub matcher: Option<String>,
    /// Fields the payload must hold with exactly these string values
    /// (`/hook_event_name: PermissionRequest`): anything else is not a
    /// signal of this kind and is dropped.
    #[serde(default)]
    pub require: BTreeMap<JsonPointer, String>,
    /// The values that together are the agent's own id for this ask, in
    /// this order (an agent that has a request id: that one pointer). A
    /// missing one counts as `null`.
    pub agent_id: Vec<JsonPointer>,
    /// The card's text: the first of these the payload holds — a string
    /// as it is, anything else (an object of tool input) as compact JSON.
    /// None present: not a signal.
    pub text: Vec<JsonPointer>,
    /// The tool's name (the card's kind).
    #[serde(default)]
    pub tool: Option<JsonPointer>,
    /// The working folder of the ask.
    #[serde(default)]
    pub cwd: Option<JsonPointer>,
    /// How long the pane watcher, once it sees the box, waits for this
    /// hook's card before it makes its own (the agent may run its hook
    /// while it draws the box).
    #[serde(default = "default_pane_wait_ms")]
    pub pane_wait_ms: u64,
}

fn default_pane_wait_ms() -> u64 {
    1000
}

impl HookSignalData {
    /// The pane wait as a duration.
    pub fn pane_wait(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.pane_wait_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pointers_are_checked_and_read() {
        let data: HookSignalData = serde_yaml_ng::from_str(
            "event: PermissionRequest\nrequire: {/hook_event_name: PermissionRequest}\nagentId: [/session_id, /tool_input]\ntext: [/tool_input/command, /tool_input]\ntool: /tool_name\n",
        )
        .expect("data");
        assert_eq!(data.pane_wait_ms, 1000);
        let payload = json!({"tool_input": {"command": "touch a"}, "tool_name": "Bash"});
        assert_eq!(data.text[0].get(&payload), Some(&json!("touch a")));
        assert_eq!(
            data.tool.as_ref().and_then(|tool| tool.get(&payload)),
            Some(&json!("Bash"))
        );
        let error = serde_yaml_ng::from_str::<HookSignalData>(
            "event: E\nagentId: [session_id]\ntext: [/x]\n",
        )
        .unwrap_err();
        assert!(error.to_string().contains("not a JSON pointer"), "{error}");
        let unknown =
            serde_yaml_ng::from_str::<HookSignalData>("event: E\nagentId: []\ntext: []\nwhat: 1\n");
        assert!(unknown.is_err(), "unknown fields are refused");
    }
}
