//! The fake Gemini package itself (tests/fakes/gemini-cli): what the npm
//! and run tests rely on — its package document, `--version`, strict
//! arguments, and its `--acp` agent with the real permission options
//! (read from the real 0.61.0: `proceed_always`, `proceed_once`, `cancel`;
//! a rejection goes back to the model, which answers on).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

const DEADLINE: Duration = Duration::from_secs(30);

const RESPONSES: &str = r#"{"method":"generateContentStream","response":[{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{"command":"touch probe-created.txt","description":"Create a file"}}}]},"finishReason":"STOP","index":0}]}]}
{"method":"countTokens","response":{"totalTokens":10}}
{"method":"generateContentStream","response":[{"candidates":[{"content":{"role":"model","parts":[{"text":"All done."}]},"finishReason":"STOP","index":0}]}]}
"#;

fn package() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fakes/gemini-cli")
}

fn node(args: &[&str]) -> Command {
    let mut command = Command::new("node");
    command
        .arg(package().join("bundle/gemini.js"))
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default());
    command
}

#[test]
fn gemini_fake_package_names_its_bin_and_node_range() {
    let text = std::fs::read_to_string(package().join("package.json")).expect("package.json");
    let document: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(document["bin"]["gemini"], "bundle/gemini.js");
    assert_eq!(document["engines"]["node"], ">=20");
    assert_eq!(document["private"], true, "never publishable");
    assert!(document.get("dependencies").is_none(), "no dependencies");
    let output = node(&["--version"]).output().expect("node");
    assert!(output.status.success());
    assert_eq!(String::from_utf8_lossy(&output.stdout), "0.61.0\n");
    let output = node(&["--no-such-flag"]).output().expect("node");
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("Unknown argument: --no-such-flag"));
}

/// The fake `--acp` agent on pipes, its stdout read on a thread.
struct Agent {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    cwd: tempfile::TempDir,
}

impl Agent {
    fn start(api_key: bool) -> Agent {
        let cwd = tempfile::tempdir().expect("tempdir");
        let responses = cwd.path().join("responses.jsonl");
        std::fs::write(&responses, RESPONSES).expect("responses");
        let mut command = node(&[
            "--acp",
            "--fake-responses-non-strict",
            &responses.to_string_lossy(),
        ]);
        if api_key {
            command.env("GEMINI_API_KEY", "fake-key");
        }
        let mut child = command
            .current_dir(cwd.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the fake");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Agent {
            child,
            stdin,
            lines,
            cwd,
        }
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").expect("write");
    }

    fn next(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(DEADLINE)
            .expect("a message in time");
        serde_json::from_str(&line).expect("a JSON line")
    }

    /// Messages until the response to `id` (included).
    fn until_response(&mut self, id: i64) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let message = self.next();
            let done = message["id"] == id && message.get("method").is_none();
            seen.push(message);
            if done {
                return seen;
            }
        }
    }

    fn session(&mut self) -> String {
        self.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}));
        let init = self.until_response(1).pop().expect("initialize");
        assert_eq!(init["result"]["protocolVersion"], 1);
        let cwd = self.cwd.path().to_string_lossy().into_owned();
        self.send(json!({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": cwd, "mcpServers": []}}));
        let new = self.until_response(2).pop().expect("session/new");
        new["result"]["sessionId"]
            .as_str()
            .expect("a session id")
            .to_owned()
    }

    fn probe(&self) -> PathBuf {
        self.cwd.path().join("probe-created.txt")
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn prompt(agent: &mut Agent, session: &str) -> Value {
    agent.send(json!({"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
        "params": {"sessionId": session, "prompt": [{"type": "text", "text": "create the probe file"}]}}));
    let request = agent.next();
    assert_eq!(request["method"], "session/request_permission", "{request}");
    request
}

#[test]
fn gemini_fake_acp_asks_once_and_runs_the_command_on_allow() {
    let mut agent = Agent::start(true);
    let session = agent.session();
    let request = prompt(&mut agent, &session);
    let kinds: Vec<(&str, &str)> = request["params"]["options"]
        .as_array()
        .expect("options")
        .iter()
        .map(|option| {
            (
                option["optionId"].as_str().unwrap_or_default(),
                option["kind"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("proceed_always", "allow_always"),
            ("proceed_once", "allow_once"),
            ("cancel", "reject_once"),
        ]
    );
    let tool = &request["params"]["toolCall"];
    assert_eq!(tool["title"], "touch probe-created.txt");
    assert_eq!(tool["kind"], "execute");
    assert!(!agent.probe().exists(), "nothing runs before the answer");
    let id = request["id"].clone();
    agent.send(json!({"jsonrpc": "2.0", "id": id, "result": {"outcome": {"outcome": "selected", "optionId": "proceed_once"}}}));
    let rest = agent.until_response(3);
    assert!(agent.probe().exists(), "the touch ran");
    let updates: Vec<&str> = rest
        .iter()
        .filter_map(|message| message["params"]["update"]["sessionUpdate"].as_str())
        .collect();
    assert_eq!(updates, ["tool_call_update", "agent_message_chunk"]);
    assert_eq!(
        rest.last().expect("reply")["result"]["stopReason"],
        "end_turn"
    );
}

#[test]
fn gemini_fake_acp_reject_runs_nothing_and_cancel_ends_the_turn() {
    let mut agent = Agent::start(true);
    let session = agent.session();
    let request = prompt(&mut agent, &session);
    let id = request["id"].clone();
    agent.send(json!({"jsonrpc": "2.0", "id": id, "result": {"outcome": {"outcome": "selected", "optionId": "cancel"}}}));
    let rest = agent.until_response(3);
    assert!(!agent.probe().exists());
    assert_eq!(
        rest.last().expect("reply")["result"]["stopReason"],
        "end_turn"
    );

    let mut agent = Agent::start(true);
    let session = agent.session();
    prompt(&mut agent, &session);
    agent.send(
        json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}}),
    );
    let rest = agent.until_response(3);
    assert!(!agent.probe().exists());
    assert_eq!(
        rest.last().expect("reply")["result"]["stopReason"],
        "cancelled"
    );
}

#[test]
fn gemini_fake_acp_without_a_key_refuses_a_session() {
    let mut agent = Agent::start(false);
    agent.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}));
    agent.until_response(1);
    agent.send(json!({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": "/", "mcpServers": []}}));
    let reply = agent.until_response(2).pop().expect("reply");
    assert_eq!(reply["error"]["code"], -32000);
    assert_eq!(
        reply["error"]["message"],
        "Gemini API key is missing or not configured."
    );
}
