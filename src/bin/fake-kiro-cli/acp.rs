//! `kiro-cli acp --agent NAME` for the tests: speaks ACP over stdio as the
//! script's `acp` section says. Every line it receives is appended to the
//! section's `log`, so tests assert what oneworks sent. Scripted steps wait
//! on events (a reply, `session/cancel`, a file the test creates), never on
//! timers. Like current Kiro, it rejects a prompt sent as `content`.

use std::io::{BufRead, Write};
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
}

struct Agent<'a> {
    script: &'a AcpScript,
    lines: std::io::Lines<std::io::StdinLock<'static>>,
    out: std::io::Stdout,
    cancelled: bool,
    /// Ids of answers read while waiting for another one.
    answered: Vec<Value>,
}

pub fn run(script: &AcpScript) -> i32 {
    if let Some(path) = &script.pid_file {
        let _ = fs_err::write(path, std::process::id().to_string());
    }
    if !script.stderr.is_empty() {
        eprintln!("{}", script.stderr);
    }
    if script.ignore_sigterm {
        ignore_sigterm();
    }
    if let Some(path) = &script.held_child_pid_file {
        if let Err(message) = start_held_child(path) {
            eprintln!("fake-kiro-cli: {message}");
            return 70;
        }
    }
    let mut agent = Agent {
        script,
        lines: std::io::stdin().lock().lines(),
        out: std::io::stdout(),
        cancelled: false,
        answered: Vec::new(),
    };
    let mut authenticated = false;
    while let Some(message) = agent.next() {
        let Some(method) = message.get("method").and_then(Value::as_str) else {
            continue;
        };
        let id = message.get("id").cloned();
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        let Some(id) = id else {
            if method == "session/cancel" {
                agent.cancelled = true;
            }
            continue;
        };
        if script.never_answer.iter().any(|silent| silent == method) {
            continue;
        }
        let answer = match method {
            "initialize" => {
                for step in &script.on_initialize {
                    if let Some(code) = agent.step(step) {
                        return code;
                    }
                }
                Ok(json!({
                    "protocolVersion": script.protocol_version,
                    "agentCapabilities": script.agent_capabilities,
                    "authMethods": script.auth_methods,
                }))
            }
            "authenticate" => {
                let wanted = params.get("methodId");
                let known = script
                    .auth_methods
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|method| method.get("id") == wanted);
                authenticated = known;
                if known {
                    Ok(json!({}))
                } else {
                    Err("unknown auth method")
                }
            }
            "session/new" if script.auth_required && !authenticated => {
                let reply = json!({"jsonrpc":"2.0","id":id,"error":{"code":-32000,"message":"Authentication required"}});
                agent.send(&reply);
                continue;
            }
            "session/load" if script.load_error.is_some() => {
                Err(script.load_error.as_deref().unwrap_or_default())
            }
            "session/load" if !script.load_replay.is_empty() => {
                for step in &script.load_replay {
                    if let Some(code) = agent.step(step) {
                        return code;
                    }
                }
                Ok(Value::Object(script.session_result.clone()))
            }
            "session/new" | "session/load" => {
                let mut result = script.session_result.clone();
                if method == "session/new" {
                    result.insert("sessionId".into(), json!(script.session_id));
                }
                Ok(Value::Object(result))
            }
            "session/set_model" => Ok(json!({})),
            "session/set_config_option" => Ok(json!({
                "configOptions": [{"id": params["configId"], "currentValue": params["value"]}]
            })),
            "session/prompt" => {
                if params.get("prompt").is_none() {
                    Err("Invalid params: missing field `prompt`")
                } else {
                    match agent.turn() {
                        Some(_) if script.prompt_result.is_some() => {
                            Ok(script.prompt_result.clone().unwrap_or_default())
                        }
                        Some(stop) => Ok(json!({ "stopReason": stop })),
                        None => return agent.at_eof(),
                    }
                }
            }
            _ => Err("Method not found"),
        };
        let id = if script.stringify_answer_ids.iter().any(|m| m == method) {
            json!(id.to_string())
        } else {
            id
        };
        let reply = match answer {
            Ok(result) => json!({"jsonrpc":"2.0","id":id,"result":result}),
            Err(message) => {
                json!({"jsonrpc":"2.0","id":id,"error":{"code":-32602,"message":message}})
            }
        };
        if method == "session/prompt" {
            if let Some(path) = &script.turn_end_stamp_file {
                let _ = fs_err::write(path, monotonic_ns().to_string());
            }
        }
        agent.send(&reply);
        if method == "session/prompt" {
            for step in &script.after_turn {
                if let Some(code) = agent.step(step) {
                    return code;
                }
            }
        }
    }
    agent.at_eof()
}

/// Replaces SIGTERM's default action (ending the process) with a handler
/// nobody reads: the signal is then ignored for the process's lifetime.
fn ignore_sigterm() {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    let signal = runtime.block_on(async {
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
    });
    // Both stay alive with the process.
    std::mem::forget(signal);
    std::mem::forget(runtime);
}

/// Starts `fake-kiro-cli --fake-hold-on` (it ignores SIGTERM and holds on),
/// waits until it says it is ready, and writes its pid to `path`.
fn start_held_child(path: &std::path::Path) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|error| format!("no current exe: {error}"))?;
    let mut child = std::process::Command::new(exe)
        .arg("--fake-hold-on")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|error| format!("cannot start the held child: {error}"))?;
    let mut ready = String::new();
    if let Some(stdout) = child.stdout.take() {
        let _ = std::io::BufReader::new(stdout).read_line(&mut ready);
    }
    if ready.trim() != "ready" {
        return Err("the held child did not start".to_owned());
    }
    fs_err::write(path, child.id().to_string()).map_err(|error| error.to_string())
}

/// `fake-kiro-cli --fake-hold-on`: ignores SIGTERM, says `ready`, then
/// holds on (bounded, so a failed test leaks nothing for long).
pub fn hold_on() -> i32 {
    ignore_sigterm();
    println!("ready");
    let _ = std::io::stdout().flush();
    std::thread::sleep(std::time::Duration::from_secs(120));
    0
}

fn monotonic_ns() -> i128 {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    i128::from(now.tv_sec) * 1_000_000_000 + i128::from(now.tv_nsec)
}

impl Agent<'_> {
    /// Stdin ended: exit (status 0), or with `stayAfterEof` keep running
    /// until a signal ends the agent (bounded).
    fn at_eof(&self) -> i32 {
        if self.script.stay_after_eof {
            std::thread::sleep(std::time::Duration::from_secs(120));
        }
        0
    }

    /// The next message, logged; `None` at EOF. Garbage is logged too.
    fn next(&mut self) -> Option<Value> {
        loop {
            let line = self.lines.next()?.ok()?;
            if let Some(path) = &self.script.log {
                if let Ok(mut file) = fs_err::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                {
                    let _ = file.write_all(format!("{line}\n").as_bytes());
                }
            }
            if let Ok(value) = serde_json::from_str(&line) {
                return Some(value);
            }
        }
    }

    fn send(&mut self, value: &Value) {
        self.raw(&value.to_string());
    }

    fn raw(&mut self, line: &str) {
        let mut out = self.out.lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }

    fn update(&mut self, kind: &str, mut body: Map<String, Value>) {
        let update = match self.script.dialect {
            Dialect::Standard => {
                body.insert("sessionUpdate".into(), json!(kind));
                Value::Object(body)
            }
            Dialect::Kiro => {
                // Kiro's PascalCase names; content blocks as `{"Text":…}`.
                let pascal: String = kind
                    .split('_')
                    .map(|word| {
                        let mut chars = word.chars();
                        chars
                            .next()
                            .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                            .unwrap_or_default()
                    })
                    .collect();
                if let Some(Value::Object(content)) = body.get("content").cloned() {
                    if let Some(text) = content.get("text") {
                        body.insert("content".into(), json!({"Text": {"text": text}}));
                    }
                }
                json!({ pascal: Value::Object(body) })
            }
        };
        self.send_update(update);
    }

    fn send_update(&mut self, update: Value) {
        let method = match self.script.dialect {
            Dialect::Standard => "session/update",
            Dialect::Kiro => "session/notification",
        };
        let message = json!({
            "jsonrpc": "2.0",
            "method": method,
            "params": {"sessionId": self.script.session_id, "update": update},
        });
        self.send(&message);
    }

    fn text(&mut self, kind: &str, text: &str) {
        let mut body = Map::new();
        body.insert("content".into(), json!({"type": "text", "text": text}));
        self.update(kind, body);
    }

    /// Runs the turn; the stop reason, or `None` when stdin ended.
    fn turn(&mut self) -> Option<String> {
        self.cancelled = false;
        for step in &self.script.turn {
            if let Step::WaitForCancel = step {
                while !self.cancelled {
                    let message = self.next()?;
                    if message.get("method").and_then(Value::as_str) == Some("session/cancel") {
                        self.cancelled = true;
                    }
                }
            } else if let Some(code) = self.step(step) {
                std::process::exit(code);
            }
            if self.cancelled {
                return Some("cancelled".to_owned());
            }
        }
        Some(self.script.stop_reason.clone())
    }

    /// Reads until the answer to our request `id` arrives (noting a
    /// `session/cancel` on the way); `Some(0)` when stdin ends first.
    fn wait_for_answer(&mut self, id: &Value) -> Option<i32> {
        loop {
            if let Some(index) = self.answered.iter().position(|seen| seen == id) {
                self.answered.remove(index);
                return None;
            }
            let Some(message) = self.next() else {
                return Some(self.at_eof());
            };
            if message.get("method").and_then(Value::as_str) == Some("session/cancel") {
                self.cancelled = true;
            }
            if message.get("method").is_none() {
                if let Some(seen) = message.get("id") {
                    self.answered.push(seen.clone());
                }
            }
        }
    }

    /// One step; `Some(code)` ends the process.
    fn step(&mut self, step: &Step) -> Option<i32> {
        match step {
            Step::Text(text) => self.text("agent_message_chunk", text),
            Step::Thought(text) => self.text("agent_thought_chunk", text),
            Step::ToolCall { id, title, kind } => {
                let mut body = Map::new();
                body.insert("toolCallId".into(), json!(id));
                body.insert("title".into(), json!(title));
                body.insert("kind".into(), json!(kind));
                body.insert("status".into(), json!("pending"));
                self.update("tool_call", body);
            }
            Step::Chunks { count, text } => {
                let line = json!({
                    "jsonrpc": "2.0",
                    "method": "session/update",
                    "params": {"sessionId": self.script.session_id, "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}},
                })
                .to_string();
                let mut out = std::io::BufWriter::with_capacity(1 << 16, self.out.lock());
                for _ in 0..*count {
                    let _ = writeln!(out, "{line}");
                }
                let _ = out.flush();
            }
            Step::Stamped {
                count,
                interval_micros,
            } => {
                let interval = std::time::Duration::from_micros(*interval_micros);
                for _ in 0..*count {
                    let now = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
                    let nanos = i128::from(now.tv_sec) * 1_000_000_000 + i128::from(now.tv_nsec);
                    self.text("agent_message_chunk", &nanos.to_string());
                    std::thread::sleep(interval);
                }
            }
            Step::Update(update) => self.send_update(update.clone()),
            Step::Notify { method, params } => {
                self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
            }
            Step::Permission {
                id,
                title,
                kind,
                options,
            } => {
                let request = json!({
                    "jsonrpc": "2.0",
                    "id": id,
                    "method": "session/request_permission",
                    "params": {
                        "sessionId": self.script.session_id,
                        "toolCall": {"toolCallId": format!("call-{id}"), "title": title, "kind": kind},
                        "options": options,
                    },
                });
                self.send(&request);
                return self.wait_for_answer(id);
            }
            Step::AskPermission {
                id,
                title,
                kind,
                options,
            } => {
                let request = json!({
                    "jsonrpc": "2.0",
                    "id": id,
                    "method": "session/request_permission",
                    "params": {
                        "sessionId": self.script.session_id,
                        "toolCall": {"toolCallId": format!("call-{id}"), "title": title, "kind": kind},
                        "options": options,
                    },
                });
                self.send(&request);
            }
            Step::Stall => {
                while self.next().is_some() {}
                return Some(self.at_eof());
            }
            Step::Request { id, method, params } => {
                self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
                return self.wait_for_answer(id);
            }
            Step::Garbage(text) => self.raw(text),
            Step::Crash { stderr, code } => {
                eprintln!("{stderr}");
                return Some(*code);
            }
            Step::CloseStdout => {
                let null = fs_err::OpenOptions::new()
                    .write(true)
                    .open("/dev/null")
                    .map(fs_err::File::into_file);
                if let Ok(null) = null {
                    let _ = rustix::stdio::dup2_stdout(&null);
                }
                while self.next().is_some() {}
                return Some(0);
            }
            Step::Send(message) => self.send(message),
            Step::AwaitAnswer(id) => return self.wait_for_answer(id),
            Step::Flood { bytes, stdout } => {
                let block = [b'x'; 1 << 16];
                let mut sink: Box<dyn Write> = if *stdout {
                    Box::new(self.out.lock())
                } else {
                    Box::new(std::io::stderr().lock())
                };
                let mut left = *bytes;
                while left > 0 {
                    let take = usize::try_from(left.min(block.len() as u64)).unwrap_or(block.len());
                    if sink.write_all(&block[..take]).is_err() {
                        break;
                    }
                    left -= take as u64;
                }
                let _ = sink.write_all(b"\n");
                let _ = sink.flush();
            }
            Step::Stderr(text) => eprintln!("{text}"),
            Step::WaitForCancel => {}
            Step::WaitForFile(path) => {
                // Bounded, so a test that forgets the file leaks nothing.
                let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
                while !path.exists() && std::time::Instant::now() < deadline {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
            }
        }
        None
    }
}
