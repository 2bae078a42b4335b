//! A fake model API on 127.0.0.1 for the real agents (issue 20 item 4):
//! the three wire formats they use — OpenAI chat completions
//! (`…/chat/completions`), OpenAI responses (`…/responses`) and Anthropic
//! messages (`…/messages`, `?beta=true` too) — streamed (SSE) when the
//! request says `stream: true`, one JSON document otherwise.
//!
//! It plays a scripted turn, whatever the agent:
//! - a request whose last message is the person's (not a tool result) and
//!   whose tool list holds the agent's OWN shell tool (a name matching the
//!   test's pattern) → a call to that tool, its arguments filled from the
//!   tool's JSON schema: the command property gets [`FakeModel::set_command`]'s
//!   command, the other required ones sensible values;
//! - a request carrying a tool result → a short text reply and a normal
//!   stop;
//! - anything else (titles, summaries, classifiers) → a short harmless
//!   text; `GET …/models` → a list holding the model; `…/count_tokens` →
//!   a count.
//!
//! Every request is recorded (method, path, query, headers, body) so tests
//! can assert that the credential arrived and what was asked. One thread
//! per connection; each answer carries `Connection: close`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use regex::Regex;
use serde_json::{json, Map, Value};

/// The text that ends a turn after the tool result.
pub const DONE_TEXT: &str = "All done: the command ran.";
/// The text of every other request (titles, classifiers, summaries).
pub const OTHER_TEXT: &str = "OK";

/// Which of the three wire formats a request used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    ChatCompletions,
    Responses,
    Messages,
}

impl Wire {
    fn of(path: &str) -> Option<Wire> {
        if path.ends_with("/chat/completions") {
            Some(Wire::ChatCompletions)
        } else if path.ends_with("/responses") {
            Some(Wire::Responses)
        } else if path.ends_with("/messages") {
            Some(Wire::Messages)
        } else {
            None
        }
    }
}

/// What the fake answered to one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// A call to the shell tool `name` with these JSON arguments.
    ToolCall { name: String, arguments: String },
    /// The reply after a tool result ([`DONE_TEXT`]).
    Done,
    /// A harmless short text ([`OTHER_TEXT`]).
    Other,
    /// A model list, a token count.
    Meta,
    /// 404: a path the fake does not know.
    NotFound,
    /// 400: a model request whose body is not a JSON object (an agent's
    /// bug must show, not be answered as if it had asked something).
    BadRequest,
}

/// One request as it arrived.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// Without the query.
    pub path: String,
    pub query: Option<String>,
    /// Names lowercased, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The decoded body (`Value::Null` when empty or not JSON).
    pub body: Value,
    /// The body's bytes, after any `Content-Encoding` was undone.
    pub raw: Vec<u8>,
    pub wire: Option<Wire>,
    pub streamed: bool,
    pub answer: Answer,
}

impl Request {
    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.as_str())
    }

    /// Whether `secret` arrived as `Authorization: Bearer <secret>`,
    /// `x-api-key: <secret>` or `api-key: <secret>`.
    pub fn carries(&self, secret: &str) -> bool {
        self.header("authorization")
            .is_some_and(|value| value.strip_prefix("Bearer ").unwrap_or(value) == secret)
            || self.header("x-api-key") == Some(secret)
            || self.header("api-key") == Some(secret)
    }

    /// The body as text (lossy), to look for what was asked.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.raw).into_owned()
    }

    /// The last message or input item, cut to 160 characters (for
    /// failure messages).
    pub fn last_message(&self) -> String {
        let last = last_item(&self.body, self.wire.unwrap_or(Wire::ChatCompletions));
        last.to_string().chars().take(160).collect()
    }

    /// The names of the tools the request offered.
    pub fn tool_names(&self) -> Vec<String> {
        tools(&self.body)
            .into_iter()
            .map(|(name, _)| name)
            .collect()
    }
}

struct State {
    shell: Regex,
    command: String,
    trigger: Option<String>,
    model: String,
    requests: Vec<Request>,
    calls: usize,
    /// Arguments put over the filled ones (a model asking to leave a
    /// sandbox), for properties the tool's schema has.
    extra: Map<String, Value>,
}

struct Shared {
    state: Mutex<State>,
    stopping: AtomicBool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The server; dropped, it stops accepting.
pub struct FakeModel {
    address: SocketAddr,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

impl FakeModel {
    /// Starts a fake whose shell tool is the one whose whole name matches
    /// `shell_tool` (a regex, e.g. `run_shell_command` or `(?i)bash|shell`),
    /// asking to run `command`.
    pub fn start(shell_tool: &str, command: &str) -> FakeModel {
        let shell = Regex::new(&format!("^(?:{shell_tool})$")).expect("shell tool pattern");
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let address = listener.local_addr().expect("local address");
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                shell,
                command: command.to_owned(),
                trigger: None,
                model: "fake-model".to_owned(),
                requests: Vec::new(),
                calls: 0,
                extra: Map::new(),
            }),
            stopping: AtomicBool::new(false),
        });
        let accepting = Arc::clone(&shared);
        let acceptor = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if accepting.stopping.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let connection = Arc::clone(&accepting);
                std::thread::spawn(move || serve(stream, &connection));
            }
        });
        FakeModel {
            address,
            shared,
            acceptor: Some(acceptor),
        }
    }

    /// `http://127.0.0.1:PORT` + `path` (`""`, `"/v1"`, …).
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.address, path)
    }

    /// The command the next tool calls ask for.
    pub fn set_command(&self, command: &str) {
        command.clone_into(&mut self.shared.lock().command);
    }

    /// The command the next tool calls ask for ([`FakeModel::set_command`]).
    pub fn command(&self) -> String {
        self.shared.lock().command.clone()
    }

    /// Only a person's message holding `trigger` asks for the tool (the
    /// test's prompt, or a word of it): the agent's background requests
    /// (memory extraction, next-prompt suggestions) that also offer the
    /// shell tool get plain text. `None` (the default): every person's
    /// message with the tool offered does.
    pub fn set_trigger(&self, trigger: Option<&str>) {
        self.shared.lock().trigger = trigger.map(str::to_owned);
    }

    /// Arguments every later tool call carries on top of the filled ones,
    /// where the tool's schema has the property (Codex's
    /// `sandbox_permissions: "require_escalated"`: the call asks to leave
    /// the sandbox, so the person is asked).
    pub fn set_extra_arguments(&self, extra: Map<String, Value>) {
        self.shared.lock().extra = extra;
    }

    /// The model name in answers and model lists (default `fake-model`).
    pub fn set_model(&self, model: &str) {
        model.clone_into(&mut self.shared.lock().model);
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        self.shared.lock().requests.clone()
    }

    /// The requests answered with a call to the shell tool.
    pub fn tool_calls(&self) -> Vec<Request> {
        self.requests()
            .into_iter()
            .filter(|request| matches!(request.answer, Answer::ToolCall { .. }))
            .collect()
    }

    /// A one-line summary of each request, for failure messages.
    pub fn describe(&self) -> String {
        self.requests()
            .iter()
            .map(|r| {
                format!(
                    "{} {}{} stream={} last={} tools={:?} -> {:?}\n",
                    r.method,
                    r.path,
                    r.query
                        .as_deref()
                        .map(|q| format!("?{q}"))
                        .unwrap_or_default(),
                    r.streamed,
                    r.last_message(),
                    r.tool_names(),
                    r.answer
                )
            })
            .collect()
    }
}

impl Drop for FakeModel {
    fn drop(&mut self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.address);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}

/// At most this much body is read (a long conversation with a big tool
/// list stays well below).
const MAX_BODY: usize = 64 << 20;

fn serve(stream: TcpStream, shared: &Shared) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(60)));
    let mut reader = BufReader::new(&stream);
    let Some(request) = read_request(&mut reader) else {
        return;
    };
    let response = {
        let mut state = shared.lock();
        let mut request = request;
        let response = decide(&mut state, &mut request);
        state.requests.push(request);
        response
    };
    let mut stream = &stream;
    let _ = stream.write_all(&response);
    let _ = stream.flush();
    let _ = stream.shutdown(Shutdown::Both);
}

fn read_request(reader: &mut impl BufRead) -> Option<Request> {
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_owned();
    let target = parts.next()?.to_owned();
    let (path, query) = match target.split_once('?') {
        Some((path, query)) => (path.to_owned(), Some(query.to_owned())),
        None => (target, None),
    };
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            return None;
        }
        let header = header.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let get = |name: &str| {
        headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.clone())
    };
    let mut raw = Vec::new();
    if get("transfer-encoding").is_some_and(|value| value.eq_ignore_ascii_case("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).ok()?;
            let size = usize::from_str_radix(size.trim().split(';').next()?.trim(), 16).ok()?;
            if size == 0 {
                // Trailers, then the empty line.
                loop {
                    let mut trailer = String::new();
                    if reader.read_line(&mut trailer).ok()? == 0 || trailer.trim().is_empty() {
                        break;
                    }
                }
                break;
            }
            if raw.len() + size > MAX_BODY {
                return None;
            }
            let mut chunk = vec![0; size];
            reader.read_exact(&mut chunk).ok()?;
            raw.extend_from_slice(&chunk);
            let mut end = String::new();
            reader.read_line(&mut end).ok()?;
        }
    } else if let Some(length) = get("content-length").and_then(|v| v.parse::<usize>().ok()) {
        if length > MAX_BODY {
            return None;
        }
        raw = vec![0; length];
        reader.read_exact(&mut raw).ok()?;
    }
    match get("content-encoding").as_deref() {
        Some("gzip") => {
            let mut plain = Vec::new();
            flate2::read::GzDecoder::new(&raw[..])
                .read_to_end(&mut plain)
                .ok()?;
            raw = plain;
        }
        Some("zstd") => raw = zstd::decode_all(&raw[..]).ok()?,
        _ => {}
    }
    let body = serde_json::from_slice(&raw).unwrap_or(Value::Null);
    let wire = Wire::of(&path);
    let streamed = body["stream"] == true;
    Some(Request {
        method,
        path,
        query,
        headers,
        body,
        raw,
        wire,
        streamed,
        answer: Answer::NotFound,
    })
}

/// Picks the answer, notes it in `request`, and renders the HTTP response.
fn decide(state: &mut State, request: &mut Request) -> Vec<u8> {
    let model = state.model.clone();
    if request.method.eq_ignore_ascii_case("GET") && request.path.ends_with("/models") {
        request.answer = Answer::Meta;
        let list = json!({
            "object": "list",
            "data": [{
                "id": model, "object": "model", "type": "model", "created": 0,
                "created_at": "2026-01-01T00:00:00Z", "owned_by": "fake",
                "display_name": model,
            }],
            "has_more": false, "first_id": model, "last_id": model,
        });
        return http_json(200, &list);
    }
    if request.path.ends_with("/count_tokens") {
        request.answer = Answer::Meta;
        return http_json(200, &json!({"input_tokens": 12}));
    }
    let Some(wire) = request.wire else {
        return http_json(404, &json!({"error": {"message": "not found"}}));
    };
    if !request.body.is_object() {
        request.answer = Answer::BadRequest;
        return http_json(
            400,
            &json!({"error": {"type": "invalid_request_error", "message": "the body is not a JSON object"}}),
        );
    }
    let answer = plan(state, &request.body, wire);
    request.answer = answer.clone();
    let id = state.requests.len() + 1;
    let reply = match &answer {
        Answer::ToolCall { name, arguments } => Reply::Tool {
            call_id: format!("call_{}", state.calls),
            name: name.clone(),
            arguments: arguments.clone(),
        },
        Answer::Done => Reply::Text(DONE_TEXT.to_owned()),
        _ => Reply::Text(OTHER_TEXT.to_owned()),
    };
    if request.streamed {
        http_sse(&events(wire, &reply, &model, id, &request.body))
    } else {
        http_json(200, &document(wire, &reply, &model, id))
    }
}

fn plan(state: &mut State, body: &Value, wire: Wire) -> Answer {
    match last_turn(body, wire) {
        Last::ToolResult if !written_after_the_result(body, wire, state.trigger.as_deref()) => {
            Answer::Done
        }
        Last::ToolResult | Last::Person => {
            let wanted = match &state.trigger {
                Some(trigger) => last_item(body, wire).to_string().contains(trigger.as_str()),
                None => true,
            };
            if !wanted {
                return Answer::Other;
            }
            let shell = tools(body)
                .into_iter()
                .find(|(name, _)| state.shell.is_match(name));
            match shell {
                Some((name, schema)) => {
                    state.calls += 1;
                    let mut arguments = fill(&schema, &state.command);
                    if let Value::Object(filled) = &mut arguments {
                        for (key, value) in &state.extra {
                            if schema["properties"].get(key).is_some() {
                                filled.insert(key.clone(), value.clone());
                            }
                        }
                    }
                    let arguments = arguments.to_string();
                    Answer::ToolCall { name, arguments }
                }
                None => Answer::Other,
            }
        }
        Last::Other => Answer::Other,
    }
}

/// The last message (input item) of a request.
fn last_item(body: &Value, wire: Wire) -> Value {
    match wire {
        Wire::Responses => body["input"]
            .as_array()
            .and_then(|items| items.last())
            .cloned()
            .unwrap_or_else(|| body["input"].clone()),
        Wire::Messages => last_message(body).cloned().unwrap_or(Value::Null),
        Wire::ChatCompletions => body["messages"]
            .as_array()
            .and_then(|m| m.last())
            .cloned()
            .unwrap_or(Value::Null),
    }
}

/// The last message of an Anthropic messages request that is not a
/// `role: system` one: Claude Code 2.1.318 puts its environment block
/// after the person's message as such a message.
fn last_message(body: &Value) -> Option<&Value> {
    body["messages"]
        .as_array()?
        .iter()
        .rev()
        .find(|message| message["role"] != "system")
}

enum Last {
    /// The last message is the person's text.
    Person,
    /// The last message carries a tool's result.
    ToolResult,
    Other,
}

fn last_turn(body: &Value, wire: Wire) -> Last {
    match wire {
        Wire::ChatCompletions => {
            let Some(last) = body["messages"].as_array().and_then(|m| m.last()) else {
                return Last::Other;
            };
            match last["role"].as_str() {
                Some("tool") | Some("function") => Last::ToolResult,
                Some("user") => Last::Person,
                _ => Last::Other,
            }
        }
        Wire::Responses => {
            let input = &body["input"];
            if input.is_string() {
                return Last::Person;
            }
            let Some(last) = input.as_array().and_then(|items| items.last()) else {
                return Last::Other;
            };
            match last["type"].as_str() {
                Some("function_call_output")
                | Some("custom_tool_call_output")
                | Some("local_shell_call_output") => Last::ToolResult,
                Some("message") | None if last["role"] == "user" => Last::Person,
                _ => Last::Other,
            }
        }
        Wire::Messages => {
            let Some(last) = last_message(body) else {
                return Last::Other;
            };
            if last["role"] != "user" {
                return Last::Other;
            }
            let results = last["content"]
                .as_array()
                .is_some_and(|blocks| blocks.iter().any(|b| b["type"] == "tool_result"));
            if results {
                Last::ToolResult
            } else {
                Last::Person
            }
        }
    }
}

/// Whether the person wrote the trigger after the tool result the last
/// message carries: Claude Code sends the person's next message in the
/// same user message as the result of a tool call the person declined in
/// its terminal (`[tool_result, …, text]`). Only for Anthropic messages;
/// only a text block after the last `tool_result` holding the trigger.
fn written_after_the_result(body: &Value, wire: Wire, trigger: Option<&str>) -> bool {
    let (Wire::Messages, Some(trigger)) = (wire, trigger) else {
        return false;
    };
    let Some(blocks) = last_message(body).and_then(|last| last["content"].as_array()) else {
        return false;
    };
    let after = blocks
        .iter()
        .rposition(|block| block["type"] == "tool_result")
        .map_or(0, |last_result| last_result + 1);
    blocks[after..].iter().any(|block| {
        block["type"] == "text"
            && block["text"]
                .as_str()
                .is_some_and(|text| text.contains(trigger))
    })
}

/// `(name, JSON schema of its arguments)` of every function tool offered,
/// in any of the three formats.
fn tools(body: &Value) -> Vec<(String, Value)> {
    let Some(list) = body["tools"].as_array() else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|tool| {
            // Chat completions: {type: function, function: {name, parameters}};
            // responses: {type: function, name, parameters};
            // messages: {name, input_schema}.
            let function = if tool["function"].is_object() {
                &tool["function"]
            } else {
                tool
            };
            let name = function["name"].as_str()?.to_owned();
            let schema = [
                &function["parameters"],
                &function["input_schema"],
                &function["inputSchema"],
            ]
            .into_iter()
            .find(|schema| schema.is_object())
            .cloned()
            .unwrap_or_else(|| json!({}));
            Some((name, schema))
        })
        .collect()
}

/// Which property of an object schema takes the command: a well-known
/// name, else the first string property whose name mentions a command.
fn command_property(properties: &Map<String, Value>) -> Option<String> {
    for name in ["command", "cmd", "script", "commandLine", "shell_command"] {
        if properties.contains_key(name) {
            return Some(name.to_owned());
        }
    }
    properties
        .iter()
        .find(|(name, schema)| {
            let name = name.to_ascii_lowercase();
            (name.contains("command") || name.contains("cmd")) && schema["type"] == "string"
        })
        .map(|(name, _)| name.clone())
}

/// The shell tool's arguments: `command` in its command property (a string,
/// or `["bash", "-lc", command]` where the schema wants an array), every
/// other required property a sensible value from its schema.
pub fn fill(schema: &Value, command: &str) -> Value {
    let empty = Map::new();
    let properties = schema["properties"].as_object().unwrap_or(&empty);
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut arguments = Map::new();
    if let Some(name) = command_property(properties) {
        let value = if properties[&name]["type"] == "array" {
            json!(["bash", "-lc", command])
        } else {
            json!(command)
        };
        arguments.insert(name, value);
    }
    for name in required {
        if arguments.contains_key(name) {
            continue;
        }
        let property = properties.get(name).cloned().unwrap_or(Value::Null);
        arguments.insert(name.to_owned(), sensible(name, &property, command));
    }
    Value::Object(arguments)
}

/// A harmless value for one required property.
fn sensible(name: &str, schema: &Value, command: &str) -> Value {
    if let Some(default) = schema.get("default") {
        return default.clone();
    }
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    if let Some(constant) = schema.get("const") {
        return constant.clone();
    }
    let kind = match &schema["type"] {
        Value::Array(kinds) => kinds
            .iter()
            .find(|kind| *kind != "null")
            .cloned()
            .unwrap_or(Value::Null),
        kind => kind.clone(),
    };
    let lower = name.to_ascii_lowercase();
    match kind.as_str() {
        Some("string") => {
            if lower.contains("desc") || lower.contains("reason") || lower.contains("title") {
                json!(format!("Run `{command}`"))
            } else if lower.contains("dir") || lower.contains("cwd") || lower.contains("path") {
                json!(".")
            } else {
                json!("default")
            }
        }
        Some("integer") | Some("number") => {
            let wanted = if lower.contains("time") || lower.contains("wait") {
                30_000
            } else {
                1
            };
            let low = schema["minimum"].as_i64().unwrap_or(i64::MIN);
            let high = schema["maximum"].as_i64().unwrap_or(i64::MAX);
            json!(wanted.clamp(low, high))
        }
        Some("boolean") => json!(false),
        Some("array") => json!([]),
        Some("object") => json!({}),
        _ => json!("default"),
    }
}

enum Reply {
    Tool {
        call_id: String,
        name: String,
        arguments: String,
    },
    Text(String),
}

/// Splits `text` into a few pieces so that a client must reassemble them.
fn pieces(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let size = chars.len().div_ceil(3).max(1);
    chars
        .chunks(size)
        .map(|piece| piece.iter().collect())
        .collect()
}

fn usage_chat() -> Value {
    json!({"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17})
}

fn usage_responses() -> Value {
    json!({
        "input_tokens": 12, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 17,
    })
}

/// The non-streamed answer.
fn document(wire: Wire, reply: &Reply, model: &str, id: usize) -> Value {
    match wire {
        Wire::ChatCompletions => {
            let (message, finish) = match reply {
                Reply::Tool {
                    call_id,
                    name,
                    arguments,
                } => (
                    json!({"role": "assistant", "content": null, "tool_calls": [{
                        "id": call_id, "type": "function",
                        "function": {"name": name, "arguments": arguments},
                    }]}),
                    "tool_calls",
                ),
                Reply::Text(text) => (json!({"role": "assistant", "content": text}), "stop"),
            };
            json!({
                "id": format!("chatcmpl-{id}"), "object": "chat.completion",
                "created": 1_767_225_600, "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": usage_chat(),
            })
        }
        Wire::Responses => {
            let item = responses_item(reply, id, true);
            responses_object(id, model, "completed", vec![item])
        }
        Wire::Messages => {
            let (block, stop) = match reply {
                Reply::Tool {
                    call_id,
                    name,
                    arguments,
                } => (
                    json!({"type": "tool_use", "id": format!("toolu_{call_id}"), "name": name,
                        "input": serde_json::from_str::<Value>(arguments).unwrap_or(json!({}))}),
                    "tool_use",
                ),
                Reply::Text(text) => (json!({"type": "text", "text": text}), "end_turn"),
            };
            json!({
                "id": format!("msg_{id}"), "type": "message", "role": "assistant",
                "model": model, "content": [block], "stop_reason": stop,
                "stop_sequence": null,
                "usage": {"input_tokens": 12, "output_tokens": 5},
            })
        }
    }
}

fn responses_object(id: usize, model: &str, status: &str, output: Vec<Value>) -> Value {
    json!({
        "id": format!("resp_{id}"), "object": "response", "created_at": 1_767_225_600,
        "status": status, "model": model, "output": output,
        "parallel_tool_calls": true, "tool_choice": "auto", "tools": [],
        "usage": if status == "completed" { usage_responses() } else { Value::Null },
        "error": null, "incomplete_details": null,
    })
}

fn responses_item(reply: &Reply, id: usize, done: bool) -> Value {
    let status = if done { "completed" } else { "in_progress" };
    match reply {
        Reply::Tool {
            call_id,
            name,
            arguments,
        } => json!({
            "type": "function_call", "id": format!("fc_{id}"), "call_id": call_id,
            "name": name, "arguments": if done { arguments.as_str() } else { "" },
            "status": status,
        }),
        Reply::Text(text) => json!({
            "type": "message", "id": format!("msg_{id}"), "role": "assistant",
            "status": status,
            "content": if done {
                json!([{"type": "output_text", "text": text, "annotations": []}])
            } else {
                json!([])
            },
        }),
    }
}

/// The streamed answer: `(event name or "", data)` pairs.
fn events(
    wire: Wire,
    reply: &Reply,
    model: &str,
    id: usize,
    body: &Value,
) -> Vec<(String, String)> {
    let data = |value: Value| value.to_string();
    let mut out: Vec<(String, String)> = Vec::new();
    match wire {
        Wire::ChatCompletions => {
            let chunk = |delta: Value, finish: Value| {
                data(json!({
                    "id": format!("chatcmpl-{id}"), "object": "chat.completion.chunk",
                    "created": 1_767_225_600, "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                }))
            };
            let finish = match reply {
                Reply::Tool {
                    call_id,
                    name,
                    arguments,
                } => {
                    out.push((
                        String::new(),
                        chunk(
                            json!({"role": "assistant", "content": null, "tool_calls": [{
                                "index": 0, "id": call_id, "type": "function",
                                "function": {"name": name, "arguments": ""},
                            }]}),
                            Value::Null,
                        ),
                    ));
                    for piece in pieces(arguments) {
                        out.push((
                            String::new(),
                            chunk(
                                json!({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}),
                                Value::Null,
                            ),
                        ));
                    }
                    "tool_calls"
                }
                Reply::Text(text) => {
                    out.push((
                        String::new(),
                        chunk(json!({"role": "assistant", "content": ""}), Value::Null),
                    ));
                    for piece in pieces(text) {
                        out.push((String::new(), chunk(json!({"content": piece}), Value::Null)));
                    }
                    "stop"
                }
            };
            out.push((String::new(), chunk(json!({}), json!(finish))));
            if body["stream_options"]["include_usage"] == true {
                out.push((
                    String::new(),
                    data(json!({
                        "id": format!("chatcmpl-{id}"), "object": "chat.completion.chunk",
                        "created": 1_767_225_600, "model": model, "choices": [],
                        "usage": usage_chat(),
                    })),
                ));
            }
            out.push((String::new(), "[DONE]".to_owned()));
        }
        Wire::Responses => {
            let mut sequence = 0;
            let mut event = |out: &mut Vec<(String, String)>, kind: &str, mut value: Value| {
                value["type"] = json!(kind);
                value["sequence_number"] = json!(sequence);
                sequence += 1;
                out.push((kind.to_owned(), data(value)));
            };
            let started = responses_object(id, model, "in_progress", Vec::new());
            event(&mut out, "response.created", json!({"response": started}));
            event(
                &mut out,
                "response.in_progress",
                json!({"response": started}),
            );
            let item_id = responses_item(reply, id, false)["id"].clone();
            event(
                &mut out,
                "response.output_item.added",
                json!({"output_index": 0, "item": responses_item(reply, id, false)}),
            );
            match reply {
                Reply::Tool { arguments, .. } => {
                    for piece in pieces(arguments) {
                        event(
                            &mut out,
                            "response.function_call_arguments.delta",
                            json!({"item_id": item_id, "output_index": 0, "delta": piece}),
                        );
                    }
                    event(
                        &mut out,
                        "response.function_call_arguments.done",
                        json!({"item_id": item_id, "output_index": 0, "arguments": arguments}),
                    );
                }
                Reply::Text(text) => {
                    let part = |text: &str| json!({"type": "output_text", "text": text, "annotations": []});
                    event(
                        &mut out,
                        "response.content_part.added",
                        json!({"item_id": item_id, "output_index": 0, "content_index": 0, "part": part("")}),
                    );
                    for piece in pieces(text) {
                        event(
                            &mut out,
                            "response.output_text.delta",
                            json!({"item_id": item_id, "output_index": 0, "content_index": 0, "delta": piece, "logprobs": []}),
                        );
                    }
                    event(
                        &mut out,
                        "response.output_text.done",
                        json!({"item_id": item_id, "output_index": 0, "content_index": 0, "text": text, "logprobs": []}),
                    );
                    event(
                        &mut out,
                        "response.content_part.done",
                        json!({"item_id": item_id, "output_index": 0, "content_index": 0, "part": part(text)}),
                    );
                }
            }
            let done = responses_item(reply, id, true);
            event(
                &mut out,
                "response.output_item.done",
                json!({"output_index": 0, "item": done}),
            );
            event(
                &mut out,
                "response.completed",
                json!({"response": responses_object(id, model, "completed", vec![done])}),
            );
        }
        Wire::Messages => {
            let mut event = |kind: &str, mut value: Value| {
                value["type"] = json!(kind);
                out.push((kind.to_owned(), data(value)));
            };
            event(
                "message_start",
                json!({"message": {
                    "id": format!("msg_{id}"), "type": "message", "role": "assistant",
                    "model": model, "content": [], "stop_reason": null, "stop_sequence": null,
                    "usage": {"input_tokens": 12, "output_tokens": 1},
                }}),
            );
            let stop = match reply {
                Reply::Tool {
                    call_id,
                    name,
                    arguments,
                } => {
                    event(
                        "content_block_start",
                        json!({"index": 0, "content_block": {
                            "type": "tool_use", "id": format!("toolu_{call_id}"), "name": name, "input": {},
                        }}),
                    );
                    for piece in pieces(arguments) {
                        event(
                            "content_block_delta",
                            json!({"index": 0, "delta": {"type": "input_json_delta", "partial_json": piece}}),
                        );
                    }
                    "tool_use"
                }
                Reply::Text(text) => {
                    event(
                        "content_block_start",
                        json!({"index": 0, "content_block": {"type": "text", "text": ""}}),
                    );
                    for piece in pieces(text) {
                        event(
                            "content_block_delta",
                            json!({"index": 0, "delta": {"type": "text_delta", "text": piece}}),
                        );
                    }
                    "end_turn"
                }
            };
            event("content_block_stop", json!({"index": 0}));
            event(
                "message_delta",
                json!({"delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 5}}),
            );
            event("message_stop", json!({}));
        }
    }
    out
}

fn reason(code: u16) -> &'static str {
    match code {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        _ => "Status",
    }
}

fn http_json(code: u16, value: &Value) -> Vec<u8> {
    let body = value.to_string();
    let mut out = format!(
        "HTTP/1.1 {code} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        reason(code),
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

fn http_sse(events: &[(String, String)]) -> Vec<u8> {
    let mut body = String::new();
    for (name, data) in events {
        if !name.is_empty() {
            body.push_str(&format!("event: {name}\n"));
        }
        body.push_str(&format!("data: {data}\n\n"));
    }
    let mut out = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

/// Reads one SSE stream into `(event, data)` pairs (for the unit tests and
/// for tests that want to look at what an agent was sent).
pub fn parse_sse(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for block in text.split("\n\n") {
        let mut name = String::new();
        let mut data = String::new();
        for line in block.lines() {
            if let Some(value) = line.strip_prefix("event: ") {
                value.clone_into(&mut name);
            } else if let Some(value) = line.strip_prefix("data: ") {
                data.push_str(value);
            }
        }
        if !data.is_empty() {
            out.push((name, data));
        }
    }
    out
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod by_hand;
