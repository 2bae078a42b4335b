//! `kiro-cli acp --agent NAME` for the tests: speaks ACP over stdio as the
//! script's `acp` section says. Every line it receives is appended to the
//! section's `log`, so tests assert what oneworks sent. Scripted steps wait
//! on events (a reply, `session/cancel`, a file the test creates), never on
//! timers. Like current Kiro, it rejects a prompt sent as `content`.

use std::io::{BufRead, Write};

pub use crate::acp_script::{AcpScript, Dialect, Step};
use crate::process::{ignore_sigterm, monotonic_ns, start_held_child};
use serde_json::{json, Map, Value};

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
            "authenticate" if script.auth_error.is_some() => {
                let error = script.auth_error.clone().unwrap_or_default();
                agent.send(&json!({"jsonrpc":"2.0","id":id,"error":error}));
                continue;
            }
            "session/load"
                if script.exit_on_unknown_load
                    && params.get("sessionId").and_then(Value::as_str)
                        != Some(script.session_id.as_str()) =>
            {
                eprintln!("fake-kiro-cli: no session to load; exiting");
                return 0;
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
            Step::FreezeParent => {
                if let Some(parent) = rustix::process::getppid() {
                    let _ = rustix::process::kill_process(parent, rustix::process::Signal::STOP);
                    let stat = format!("/proc/{}/stat", parent.as_raw_nonzero());
                    let stopped = || {
                        // The state follows the parenthesised command name.
                        fs_err::read_to_string(&stat).is_ok_and(|text| {
                            text.rsplit_once(')')
                                .and_then(|(_, rest)| rest.split_whitespace().next())
                                .is_some_and(|state| state == "T")
                        })
                    };
                    // Bounded, so a failed test leaks nothing for long.
                    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
                    while !stopped() && std::time::Instant::now() < deadline {
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    }
                }
            }
            Step::InterruptParent => {
                if let Some(parent) = rustix::process::getppid() {
                    let _ = rustix::process::kill_process(parent, rustix::process::Signal::INT);
                    let _ = rustix::process::kill_process(parent, rustix::process::Signal::CONT);
                }
            }
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
