//! The `acp` section of the fake's script: what the fake agent says and
//! does, step by step (unknown fields are refused, so a typo fails loudly).

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{json, Map, Value};

#[derive(Debug, Clone, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct AcpScript {
    /// Every received line is appended here.
    pub log: Option<PathBuf>,
    /// The agent writes its pid here when it starts.
    pub pid_file: Option<PathBuf>,
    pub protocol_version: Value,
    pub agent_capabilities: Value,
    /// Written to stderr when the agent starts.
    pub stderr: String,
    pub session_id: String,
    /// `session/new` answers "authentication required" (-32000).
    pub auth_required: bool,
    /// `authenticate` is answered with this JSON-RPC error object (its
    /// `data` included), whatever the method.
    pub auth_error: Option<Value>,
    /// `session/load` of a session id other than `sessionId` makes the
    /// agent exit with status 0 without answering (current Kiro).
    pub exit_on_unknown_load: bool,
    /// `session/load` fails with this message.
    pub load_error: Option<String>,
    /// Sent on `session/load` before its answer (Kiro replays history).
    pub load_replay: Vec<Step>,
    /// Extra fields of the `session/new` / `session/load` answer
    /// (`models`, `configOptions`, `modes`).
    pub session_result: Map<String, Value>,
    /// `standard` (`session/update`, snake_case) or `kiro`
    /// (`session/notification`, PascalCase names).
    pub dialect: Dialect,
    /// What one prompt does, in order.
    pub turn: Vec<Step>,
    pub stop_reason: String,
    /// Sent right after the prompt's answer.
    pub after_turn: Vec<Step>,
    /// Methods the fake reads and never answers (a stalled handshake).
    pub never_answer: Vec<String>,
    /// Methods whose answer carries the request's id as a string (`"1"`
    /// for `1`).
    pub stringify_answer_ids: Vec<String>,
    /// The `authMethods` of the `initialize` answer.
    pub auth_methods: Value,
    /// Sent on `initialize` before its answer (updates before the handshake).
    pub on_initialize: Vec<Step>,
    /// The `session/prompt` result in place of `{"stopReason":…}` (`null`
    /// included).
    #[serde(deserialize_with = "present")]
    pub prompt_result: Option<Value>,
    /// SIGTERM does not end the agent (a handler replaces the default).
    pub ignore_sigterm: bool,
    /// At stdin EOF the agent keeps running (bounded) instead of exiting.
    pub stay_after_eof: bool,
    /// Starts a child in the agent's process group that ignores SIGTERM and
    /// holds on (as agents that relaunch themselves do); its pid goes here.
    pub held_child_pid_file: Option<PathBuf>,
    /// The CLOCK_MONOTONIC time (ns) just before the prompt's answer is
    /// written goes here (the shutdown benchmark; tests never read it).
    pub turn_end_stamp_file: Option<PathBuf>,
}

impl Default for AcpScript {
    fn default() -> Self {
        Self {
            log: None,
            pid_file: None,
            protocol_version: json!(1),
            agent_capabilities: json!({}),
            stderr: String::new(),
            session_id: "fake-session-1".to_owned(),
            load_error: None,
            auth_error: None,
            exit_on_unknown_load: false,
            load_replay: Vec::new(),
            auth_required: false,
            session_result: Map::new(),
            dialect: Dialect::Standard,
            turn: vec![Step::Text("Hello from the fake.".to_owned())],
            stop_reason: "end_turn".to_owned(),
            after_turn: Vec::new(),
            never_answer: Vec::new(),
            stringify_answer_ids: Vec::new(),
            auth_methods: json!([]),
            on_initialize: Vec::new(),
            prompt_result: None,
            ignore_sigterm: false,
            stay_after_eof: false,
            held_child_pid_file: None,
            turn_end_stamp_file: None,
        }
    }
}

/// A field that is present is `Some`, even when it is `null`.
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Dialect {
    Standard,
    Kiro,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum Step {
    /// An `agent_message_chunk`.
    Text(String),
    /// An `agent_thought_chunk`.
    Thought(String),
    ToolCall {
        id: String,
        title: String,
        kind: Option<String>,
    },
    /// `count` message chunks of `text`, as fast as the pipe takes them.
    Chunks { count: u64, text: String },
    /// For the latency benchmark only (tests never wait on timers):
    /// `count` message chunks whose text is the CLOCK_MONOTONIC time in
    /// nanoseconds at the moment of writing, one every `interval_micros`.
    Stamped {
        count: u64,
        #[serde(rename = "intervalMicros")]
        interval_micros: u64,
    },
    /// A raw `update` object (sent in the script's dialect's method).
    Update(Value),
    /// Any notification.
    Notify { method: String, params: Value },
    /// A `session/request_permission` with this id; waits for its answer.
    Permission {
        id: Value,
        title: String,
        kind: Option<String>,
        options: Vec<Value>,
    },
    /// A `session/request_permission` with this id, not waited for: the
    /// next step runs at once (a crash while the question is open).
    AskPermission {
        id: Value,
        title: String,
        kind: Option<String>,
        options: Vec<Value>,
    },
    /// Reads and ignores every message (`session/cancel` too): the turn
    /// never ends by itself. Stdin EOF ends it as `stayAfterEof` says.
    Stall,
    /// Any request; waits for its answer.
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    /// A line that is not JSON-RPC.
    Garbage(String),
    /// Writes `stderr` and exits with `code` mid-turn.
    Crash { stderr: String, code: i32 },
    /// Points stdout at /dev/null (oneworks sees EOF) and keeps running
    /// until stdin ends.
    CloseStdout,
    /// Waits for `session/cancel`, then answers the prompt `cancelled`.
    WaitForCancel,
    /// Waits until this file exists.
    WaitForFile(PathBuf),
    /// Runs the tool the last permission was asked for, as an agent does
    /// once allowed: creates this file when the last answer's option id
    /// starts with `allow` (Cursor's `allow-once`), nothing otherwise.
    RunIfAllowed(PathBuf),
    /// Sends this message as it is (any id, even `1.5`); waits for nothing.
    Send(Value),
    /// Waits for the answer to our request with exactly this id.
    AwaitAnswer(Value),
    /// A runaway line: `bytes` bytes of `x` and a newline, streamed in
    /// blocks, on stderr (or on stdout with `stdout: true`).
    Flood {
        bytes: u64,
        #[serde(default)]
        stdout: bool,
    },
    /// One line on stderr.
    Stderr(String),
    /// Stops the fake's parent (oneworks) with SIGSTOP and waits (bounded)
    /// until it is stopped: what the next steps write waits unread.
    FreezeParent,
    /// Sends SIGINT to the fake's parent (oneworks), then SIGCONT. After
    /// `freezeParent` and a question, oneworks wakes to find the question
    /// and the Ctrl-C both waiting: the two arrive together, every time.
    InterruptParent,
}
