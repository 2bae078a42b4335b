//! A fake model API on 127.0.0.1 for the real agents:
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
//!
//! This file holds the server ([`FakeModel`]) and its dispatch; beside it,
//! `request` (reading a request), `plan` (choosing the answer, filling the
//! tool call's arguments), `reply` (the answer in each wire format) and
//! `http` (the response around it).

mod http;
mod plan;
mod reply;
mod request;

use std::io::{BufReader, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use regex::Regex;
use serde_json::{json, Map, Value};

use http::{http_json, http_sse};
use plan::plan;
use reply::{document, events, Reply};
use request::read_request;

pub use http::parse_sse;
pub use plan::fill;
pub use request::{Answer, Request, Wire};

/// The text that ends a turn after the tool result.
pub const DONE_TEXT: &str = "All done: the command ran.";
/// The text of every other request (titles, classifiers, summaries).
pub const OTHER_TEXT: &str = "OK";

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

#[cfg(test)]
mod tests;

#[cfg(test)]
mod by_hand;
