//! `kiro-cli acp --agent NAME` for the tests: speaks ACP over stdio as the
//! script's `acp` section says. Every line it receives is appended to the
//! section's `log`, so tests assert what oneworks sent. Scripted steps wait
//! on events (a reply, `session/cancel`, a file the test creates), never on
//! timers. Like current Kiro, it rejects a prompt sent as `content`. The
//! steps themselves are in `acp_steps.rs`.

use std::io::{BufRead, Write};

pub use crate::acp_script::{AcpScript, Dialect, Step};
use crate::process::{ignore_sigterm, monotonic_ns, start_held_child};
use serde_json::{json, Map, Value};

/// The connection: the script, stdin and stdout, and what the client has
/// done so far.
pub struct Agent<'a> {
    pub script: &'a AcpScript,
    lines: std::io::Lines<std::io::StdinLock<'static>>,
    pub out: std::io::Stdout,
    cancelled: bool,
    /// Ids of answers read while waiting for another one.
    answered: Vec<Value>,
    /// The option id of the last permission answer read (`runIfAllowed`).
    pub last_option: Option<String>,
    /// A known `authenticate` method succeeded (the last one decides).
    authenticated: bool,
}

/// What a request comes to.
enum Answer<'a> {
    /// A result, or the message of a -32602 error.
    Reply(Result<Value, &'a str>),
    /// Already answered with its own error object: nothing more to send.
    Sent,
    /// The process ends with this status, unanswered.
    Exit(i32),
}

/// Answers ACP on stdio until stdin ends or a step ends the agent; the
/// exit status.
pub fn run(script: &AcpScript) -> i32 {
    if let Err(code) = start(script) {
        return code;
    }
    let mut agent = Agent::new(script);
    while let Some(message) = agent.next() {
        if let Some(code) = agent.handle(&message) {
            return code;
        }
    }
    agent.at_eof()
}

/// What the script asks of the agent as it starts: its pid in a file, a
/// line on stderr, SIGTERM ignored, a held child (status 70 when that
/// child does not start).
fn start(script: &AcpScript) -> Result<(), i32> {
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
            return Err(70);
        }
    }
    Ok(())
}

impl<'a> Agent<'a> {
    /// A fresh connection on stdin and stdout.
    fn new(script: &'a AcpScript) -> Self {
        Self {
            script,
            lines: std::io::stdin().lock().lines(),
            out: std::io::stdout(),
            cancelled: false,
            answered: Vec::new(),
            last_option: None,
            authenticated: false,
        }
    }

    /// One message from the client: a `session/cancel` notification is
    /// noted, other notifications and ignored methods are dropped, a
    /// request is answered. `Some(code)` ends the process.
    fn handle(&mut self, message: &Value) -> Option<i32> {
        let method = message.get("method").and_then(Value::as_str)?;
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        let Some(id) = message.get("id").cloned() else {
            if method == "session/cancel" {
                self.cancelled = true;
            }
            return None;
        };
        if self
            .script
            .never_answer
            .iter()
            .any(|silent| silent == method)
        {
            return None;
        }
        match self.answer(method, &id, &params) {
            Answer::Reply(answer) => self.reply(method, id, answer),
            Answer::Sent => None,
            Answer::Exit(code) => Some(code),
        }
    }

    /// What the request `method` comes to, one method at a time.
    fn answer(&mut self, method: &str, id: &Value, params: &Value) -> Answer<'a> {
        match method {
            "initialize" => self.initialize(),
            "authenticate" => self.authenticate(id, params),
            "session/new" => self.new_session(id),
            "session/load" => self.load_session(params),
            "session/set_model" => Answer::Reply(Ok(json!({}))),
            "session/set_config_option" => Answer::Reply(Ok(json!({
                "configOptions": [{"id": params["configId"], "currentValue": params["value"]}]
            }))),
            "session/prompt" => self.prompt(params),
            _ => Answer::Reply(Err("Method not found")),
        }
    }

    /// `initialize`: the `onInitialize` steps, then the script's version,
    /// capabilities and auth methods.
    fn initialize(&mut self) -> Answer<'a> {
        let script = self.script;
        if let Some(code) = self.steps(&script.on_initialize) {
            return Answer::Exit(code);
        }
        Answer::Reply(Ok(json!({
            "protocolVersion": script.protocol_version,
            "agentCapabilities": script.agent_capabilities,
            "authMethods": script.auth_methods,
        })))
    }

    /// `authenticate`: the script's `authError` if it has one, else success
    /// for a method of `authMethods` (which then allows `session/new`).
    fn authenticate(&mut self, id: &Value, params: &Value) -> Answer<'a> {
        let script = self.script;
        if script.auth_error.is_some() {
            let error = script.auth_error.clone().unwrap_or_default();
            self.send(&json!({"jsonrpc":"2.0","id":id,"error":error}));
            return Answer::Sent;
        }
        let wanted = params.get("methodId");
        let known = script
            .auth_methods
            .as_array()
            .into_iter()
            .flatten()
            .any(|method| method.get("id") == wanted);
        self.authenticated = known;
        if known {
            Answer::Reply(Ok(json!({})))
        } else {
            Answer::Reply(Err("unknown auth method"))
        }
    }

    /// `session/new`: "authentication required" (-32000) until an
    /// `authenticate` succeeded when the script says so, else the session.
    fn new_session(&mut self, id: &Value) -> Answer<'a> {
        if self.script.auth_required && !self.authenticated {
            let reply = json!({"jsonrpc":"2.0","id":id,"error":{"code":-32000,"message":"Authentication required"}});
            self.send(&reply);
            return Answer::Sent;
        }
        let mut result = self.script.session_result.clone();
        result.insert("sessionId".into(), json!(self.script.session_id));
        Answer::Reply(Ok(Value::Object(result)))
    }

    /// `session/load`: exits on an unknown session when the script says
    /// so, fails with `loadError`, or replays `loadReplay` and answers.
    fn load_session(&mut self, params: &Value) -> Answer<'a> {
        let script = self.script;
        if script.exit_on_unknown_load
            && params.get("sessionId").and_then(Value::as_str) != Some(script.session_id.as_str())
        {
            eprintln!("fake-kiro-cli: no session to load; exiting");
            return Answer::Exit(0);
        }
        if script.load_error.is_some() {
            return Answer::Reply(Err(script.load_error.as_deref().unwrap_or_default()));
        }
        if let Some(code) = self.steps(&script.load_replay) {
            return Answer::Exit(code);
        }
        Answer::Reply(Ok(Value::Object(script.session_result.clone())))
    }

    /// `session/prompt`: refused without `prompt` (as Kiro refuses
    /// `content`), else the turn and its stop reason (or `promptResult`).
    fn prompt(&mut self, params: &Value) -> Answer<'a> {
        if params.get("prompt").is_none() {
            return Answer::Reply(Err("Invalid params: missing field `prompt`"));
        }
        match self.turn() {
            Some(_) if self.script.prompt_result.is_some() => {
                Answer::Reply(Ok(self.script.prompt_result.clone().unwrap_or_default()))
            }
            Some(stop) => Answer::Reply(Ok(json!({ "stopReason": stop }))),
            None => Answer::Exit(self.at_eof()),
        }
    }

    /// Sends the answer to request `id` (its id a string when the script
    /// says so); after a prompt's answer, its time stamp first and the
    /// `afterTurn` steps next. `Some(code)` ends the process.
    fn reply(&mut self, method: &str, id: Value, answer: Result<Value, &str>) -> Option<i32> {
        let script = self.script;
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
        self.send(&reply);
        if method == "session/prompt" {
            return self.steps(&script.after_turn);
        }
        None
    }

    /// Runs `steps` in order; `Some(code)` (from a step) ends the process.
    fn steps(&mut self, steps: &[Step]) -> Option<i32> {
        for step in steps {
            if let Some(code) = self.step(step) {
                return Some(code);
            }
        }
        None
    }

    /// Stdin ended: exit (status 0), or with `stayAfterEof` keep running
    /// until a signal ends the agent (bounded).
    pub fn at_eof(&self) -> i32 {
        if self.script.stay_after_eof {
            std::thread::sleep(std::time::Duration::from_secs(120));
        }
        0
    }

    /// The next message, logged; `None` at EOF. Garbage is logged too.
    pub fn next(&mut self) -> Option<Value> {
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

    /// Writes one message as one line.
    pub fn send(&mut self, value: &Value) {
        self.raw(&value.to_string());
    }

    /// Writes `line` and a newline, flushed.
    pub fn raw(&mut self, line: &str) {
        let mut out = self.out.lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }

    /// A session update of `kind` with `body`, in the script's dialect.
    pub fn update(&mut self, kind: &str, mut body: Map<String, Value>) {
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

    /// Sends a ready `update` object in the dialect's notification.
    pub fn send_update(&mut self, update: Value) {
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

    /// A text content update of `kind` (a message or thought chunk).
    pub fn text(&mut self, kind: &str, text: &str) {
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
    pub fn wait_for_answer(&mut self, id: &Value) -> Option<i32> {
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
                if let Some(option) = message
                    .pointer("/result/outcome/optionId")
                    .and_then(Value::as_str)
                {
                    self.last_option = Some(option.to_owned());
                }
            }
        }
    }
}
