//! The owner's socket (JSON lines). A connection's first line is a
//! [`OwnerRequest`]; the owner answers with [`Reply`] lines. A `prompt`
//! connection waits in the queue (`queued`), then gets a `turn` grant,
//! after which the connection carries the agent's stdio, line for line,
//! until the caller closes it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The notification the owner writes to a caller to ask it to cancel its
/// turn (`session cancel NAME`). An ACP extension name: the agent's own
/// notifications of that name are dropped, never relayed.
pub const CANCEL_METHOD: &str = "_oneworks/cancel";

/// The names of the lines between the owner and its caller: never relayed
/// to the agent, and dropped when the agent writes them.
pub const OWNER_PREFIX: &str = "_oneworks/";

/// The longest line read from a caller before its grant (a request).
pub const MAX_REQUEST: usize = 64 * 1024;

/// The longest line relayed from a caller to the agent: a prompt of at
/// most 1 MiB (`run`'s bound) as JSON, with room for escapes.
pub const MAX_CALLER_LINE: usize = 8 << 20;

/// How many prompts wait at most; more are refused.
pub const QUEUE: usize = 16;

/// What a connection asks of the owner.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "op", rename_all = "lowercase", deny_unknown_fields)]
pub enum OwnerRequest {
    /// Wait for the agent and run a turn. `keepSeconds`: how long the
    /// agent then stays idle (the caller's `--keep`), when given.
    Prompt {
        #[serde(default, rename = "keepSeconds")]
        keep_seconds: Option<u64>,
    },
    /// Cancel the turn in progress.
    Cancel {},
    /// End the kept session.
    Stop {},
    /// How the session is (for `session list`).
    Status {},
}

/// What the owner says.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub enum Reply {
    /// The prompt waits; `ahead` callers come first.
    Queued {
        ahead: usize,
    },
    /// The agent is this connection's until it closes.
    Turn(Grant),
    /// The answer to `cancel`: whether a turn was running to cancel.
    Cancel {
        cancelled: bool,
    },
    Stopping {},
    /// The session ends before this prompt's turn: it was not sent.
    Ended {},
    Status(Status),
    /// A refusal, as the error document of `--json` commands has it (the
    /// kind keeps its exit code across the process boundary).
    Error {
        kind: String,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hint: Option<String>,
    },
}

/// A caller's turn with the agent.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Grant {
    /// The agent has no session open yet: the caller runs the handshake
    /// (`initialize`, `session/new` or `session/load`).
    pub handshake: bool,
    /// The agent was started again after it died: the caller loads the
    /// cached agent session (it says so once).
    pub recovered: bool,
    /// The agent session, when one is open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The agent's answer to opening it (its models, modes and options).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<Value>,
    pub agent_pid: u32,
    /// Carried by the owner's `_oneworks/cancel` to this caller: a line
    /// the agent wrote cannot carry it.
    pub cancel_token: String,
}

/// A kept session at a glance.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub pid: u32,
    /// The agent's pid, while it runs.
    pub agent_pid: Option<u32>,
    pub turns: u64,
    /// Seconds since the last caller left (none while one is served).
    pub idle_seconds: Option<u64>,
    /// Seconds the agent stays idle before the session ends.
    pub keep_seconds: u64,
    pub queued: usize,
    pub serving: bool,
}

/// One JSON line of `value`.
pub fn line(value: &impl Serialize) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(value).unwrap_or_else(|_| b"{}".to_vec());
    bytes.push(b'\n');
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn requests_and_replies_read_as_the_module_doc_says() {
        let prompt: OwnerRequest =
            serde_json::from_value(json!({"op": "prompt", "keepSeconds": 60})).expect("prompt");
        assert_eq!(
            prompt,
            OwnerRequest::Prompt {
                keep_seconds: Some(60)
            }
        );
        assert!(
            serde_json::from_value::<OwnerRequest>(json!({"op": "prompt", "typo": 1})).is_err()
        );
        assert_eq!(
            serde_json::to_value(Reply::Queued { ahead: 2 }).expect("json"),
            json!({"queued": {"ahead": 2}})
        );
        assert_eq!(
            serde_json::to_value(Reply::Cancel { cancelled: true }).expect("json"),
            json!({"cancel": {"cancelled": true}})
        );
    }
}
