//! Helpers for the `oneworks run kiro` tests: the fake `kiro-cli` with an
//! `acp` script, what it received on the wire, and a live run whose stdin
//! the test writes while reading its events.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::support::fake::{install_fake, kiro_script, with};
use crate::support::wait::{holds_within, poll, wait_exit};
use crate::support::{Invocation, Outcome, TestEnv};

pub const EVENT_DEADLINE: Duration = Duration::from_secs(60);

/// A test world with the fake `kiro-cli` (source `system`) speaking `acp`.
pub struct AcpEnv {
    pub env: TestEnv,
    /// Lines the fake received.
    pub wire: PathBuf,
    /// The fake's invocations (argv, env).
    pub invocations: PathBuf,
}

impl AcpEnv {
    pub fn new(acp: Value) -> AcpEnv {
        let env = TestEnv::new();
        let wire = env.outside.join("acp-wire.log");
        let invocations = env.outside.join("fake-kiro.log");
        let acp_env = AcpEnv {
            env,
            wire,
            invocations,
        };
        acp_env.script(acp);
        acp_env
            .env
            .write_config("adapters:\n  kiro:\n    cli:\n      source: system\n");
        acp_env
    }

    /// Replaces the fake's `acp` section.
    pub fn script(&self, mut acp: Value) {
        acp.as_object_mut()
            .expect("acp script is an object")
            .insert("log".into(), json!(self.wire));
        acp.as_object_mut()
            .expect("acp script is an object")
            .insert("pidFile".into(), json!(self.pid_file()));
        let script = with(
            &with(&kiro_script("2.15.1"), "log", json!(self.invocations)),
            "acp",
            acp,
        );
        install_fake(&self.env.bin, "kiro-cli", &script);
    }

    /// `oneworks run kiro EXTRA…`, to finish with more of the builder.
    pub fn oneworks(&self, extra: &[&str]) -> Invocation<'_> {
        self.env.oneworks().args(["run", "kiro"]).args(extra)
    }

    /// Runs to the end; then no agent it started may be left (by pid).
    pub fn run(&self, extra: &[&str]) -> Outcome {
        let _ = std::fs::remove_file(self.pid_file());
        let outcome = self.oneworks(extra).run();
        assert_no_agent_left(&self.pid_file(), &outcome.describe());
        outcome
    }

    /// A live run whose stdin the test writes; [`Live::finish`] checks by
    /// pid that no agent is left.
    pub fn live(&self, extra: &[&str]) -> Live {
        let _ = std::fs::remove_file(self.pid_file());
        let mut live = Live::start(self.oneworks(extra));
        live.agent_pid_file = Some(self.pid_file());
        live
    }

    pub fn pid_file(&self) -> PathBuf {
        self.env.outside.join("agent.pid")
    }

    /// The pid of the last fake agent started.
    pub fn agent_pid(&self) -> u32 {
        std::fs::read_to_string(self.pid_file())
            .expect("the agent wrote its pid")
            .trim()
            .parse()
            .expect("a pid")
    }

    /// What the fake received, parsed (garbage skipped).
    pub fn received(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.wire)
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }

    /// The received messages with this method.
    pub fn sent(&self, method: &str) -> Vec<Value> {
        self.received()
            .into_iter()
            .filter(|message| message["method"] == method)
            .collect()
    }

    /// The `acp` invocations of the fake: their argv and environment.
    pub fn acp_invocations(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.invocations)
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|entry| entry["argv"][0] == "acp" && entry["argv"][1] == "--agent")
            .collect()
    }
}

/// The JSON events on stdout (every line must be JSON).
#[track_caller]
pub fn events(outcome: &Outcome) -> Vec<Value> {
    outcome
        .stdout
        .lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|error| {
                panic!(
                    "stdout line is not JSON ({error}): {line}\n{}",
                    outcome.describe()
                )
            })
        })
        .collect()
}

/// A `--json` run that failed before its prompt: one `error`
/// event on stdout, then the `{"error":…}` document, exit `code`.
pub trait SetupError {
    /// Returns the error message (the same in the event and the document).
    fn assert_setup_error(&self, code: i32, kind: &str) -> String;
}

impl SetupError for Outcome {
    #[track_caller]
    fn assert_setup_error(&self, code: i32, kind: &str) -> String {
        self.assert_code(code);
        let lines = events(self);
        let [event, document] = lines.as_slice() else {
            panic!(
                "expected an `error` event and the error document\n{}",
                self.describe()
            );
        };
        assert_eq!(event["type"], "error", "{}", self.describe());
        assert_eq!(event["kind"], kind, "{}", self.describe());
        assert_eq!(document["error"]["kind"], kind, "{}", self.describe());
        assert_eq!(
            event["message"],
            document["error"]["message"],
            "{}",
            self.describe()
        );
        assert!(!self.stderr.trim().is_empty(), "{}", self.describe());
        event["message"].as_str().expect("a message").to_owned()
    }
}

pub fn types(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|event| event["type"].as_str().unwrap_or("?").to_owned())
        .collect()
}

/// A running `oneworks run … --json` whose stdin the test writes.
pub struct Live {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    stderr: mpsc::Receiver<Vec<u8>>,
    pub seen: Vec<Value>,
    /// Where the agent of this run writes its pid (checked at the end).
    agent_pid_file: Option<PathBuf>,
}

/// The agent whose pid is in `pid_file` (if one started) has ended.
#[track_caller]
fn assert_no_agent_left(pid_file: &Path, context: &str) {
    let Ok(text) = std::fs::read_to_string(pid_file) else {
        return;
    };
    let pid: u32 = text.trim().parse().expect("a pid in the pid file");
    assert!(gone(pid), "the agent {pid} outlived the run\n{context}");
}

impl Live {
    pub fn start(invocation: Invocation) -> Live {
        let mut child = invocation.spawn();
        let stdout = child.stdout.take().expect("stdout");
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut stderr_pipe = child.stderr.take().expect("stderr");
        let (err_sender, stderr) = mpsc::channel();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = stderr_pipe.read_to_end(&mut bytes);
            let _ = err_sender.send(bytes);
        });
        Live {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
            seen: Vec::new(),
            agent_pid_file: None,
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the next event of `kind`, keeping every event seen.
    #[track_caller]
    pub fn expect(&mut self, kind: &str) -> Value {
        let (lines, seen) = (&self.lines, &mut self.seen);
        let found = poll(Duration::from_millis(10), EVENT_DEADLINE, || {
            while let Ok(line) = lines.try_recv() {
                let event: Value =
                    serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line}"));
                seen.push(event.clone());
                if event["type"] == kind {
                    return Ok(event);
                }
            }
            Err(String::new())
        });
        found.unwrap_or_else(|_| panic!("no `{kind}` event; seen: {:#?}", self.seen))
    }

    /// Waits for the next event of any kind (kept in `seen` too).
    #[track_caller]
    pub fn next_event(&mut self) -> Value {
        match self.lines.recv_timeout(EVENT_DEADLINE) {
            Ok(line) => {
                let event: Value =
                    serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line}"));
                self.seen.push(event.clone());
                event
            }
            Err(_) => panic!("no further event; seen: {:#?}", self.seen),
        }
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .expect("write stdin");
        stdin.flush().expect("flush stdin");
    }

    /// Writes `bytes` as they are (no newline added): hostile input.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write stdin");
        stdin.flush().expect("flush stdin");
    }

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Waits for the exit; the rest of stdout's events join `seen`.
    pub fn finish(mut self) -> (Option<i32>, Vec<Value>, String) {
        let seen = &self.seen;
        let status = wait_exit(
            "oneworks finished",
            crate::support::RUN_DEADLINE,
            &mut self.child,
            || format!("{seen:#?}"),
        );
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(10)) {
            self.seen
                .push(serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line}")));
        }
        let stderr = self
            .stderr
            .recv_timeout(Duration::from_secs(10))
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .unwrap_or_default();
        if let Some(pid_file) = &self.agent_pid_file {
            assert_no_agent_left(pid_file, &stderr);
        }
        (status.code(), self.seen, stderr)
    }
}

/// Whether the process with this pid has gone (a zombie counts as gone)
/// within 20 s.
pub fn gone(pid: u32) -> bool {
    holds_within(Duration::from_secs(20), || {
        !Path::new(&format!("/proc/{pid}")).exists()
            || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .is_ok_and(|status| status.split_whitespace().nth(2) == Some("Z"))
    })
}

/// The standard option set: allow once, always allow, reject once.
pub fn options_full() -> Value {
    json!([
        {"optionId": "proceed_once", "name": "Yes, run it", "kind": "allow_once"},
        {"optionId": "proceed_always", "name": "Yes, always", "kind": "allow_always"},
        {"optionId": "cancel", "name": "No", "kind": "reject_once"}
    ])
}
