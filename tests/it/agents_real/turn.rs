//! One `oneworks run <agent> --json` turn of a [`RealAgent`], driven:
//! the prompt asking for `touch FILE`, each permission request answered on
//! the run's stdin, and what the turn showed ([`Turn`]).

use std::io::{BufRead, BufReader, Read, Write};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::RealAgent;
use crate::support::wait::poll;

/// How long one turn of a real agent may take.
const TURN_DEADLINE: Duration = Duration::from_secs(180);

/// What one turn showed.
pub struct Turn {
    /// From spawning `oneworks run` to its exit.
    pub elapsed: Duration,
    /// From the `turn_end` event to the exit of `oneworks run` (how long
    /// stopping the agent took).
    pub stopping: Option<Duration>,
    pub events: Vec<Value>,
    pub requests: Vec<Value>,
    pub stderr: String,
}

impl Turn {
    pub fn types(&self) -> Vec<&str> {
        self.events
            .iter()
            .filter_map(|e| e["type"].as_str())
            .collect()
    }

    pub fn text(&self) -> String {
        self.events
            .iter()
            .filter(|e| e["type"] == "agent_message_chunk")
            .filter_map(|e| e["text"].as_str())
            .collect()
    }

    pub fn stop_reason(&self) -> Option<&str> {
        self.events
            .iter()
            .rev()
            .find(|e| e["type"] == "turn_end")
            .and_then(|e| e["stopReason"].as_str())
    }
}

impl RealAgent {
    /// One `oneworks run <agent> --json` turn asking for `touch file`;
    /// every permission request is answered with `reply` (a label `run`
    /// offers, e.g. "Allow once").
    pub fn turn(&self, file: &str, reply: &str) -> Turn {
        self.turn_with(file, reply, &[])
    }

    /// [`Self::turn`] whatever `run` exits with (an agent that ends its
    /// turn `cancelled` when a command is rejected: exit 10).
    pub fn turn_ending(&self, file: &str, reply: &str) -> (Turn, std::process::ExitStatus) {
        self.turn_ending_with(file, reply, &[])
    }

    /// [`Self::turn`] with more arguments for `run` (`--session`, `--keep`).
    pub fn turn_with(&self, file: &str, reply: &str, extra: &[&str]) -> Turn {
        let (turn, status) = self.turn_ending_with(file, reply, extra);
        assert!(
            status.success(),
            "{status}: {:?}\n{:#?}\nstderr:\n{}\nmodel:\n{}",
            turn.types(),
            turn.events,
            turn.stderr,
            self.model.describe()
        );
        turn
    }

    fn turn_ending_with(
        &self,
        file: &str,
        reply: &str,
        extra: &[&str],
    ) -> (Turn, std::process::ExitStatus) {
        let answer = |event: &Value, stdin: &mut std::process::ChildStdin| {
            let answer = json!({"id": event["id"], "reply": reply});
            writeln!(stdin, "{answer}").expect("reply");
        };
        self.turn_answered_by(file, &answer, extra)
    }

    /// A turn whose permission requests `answer` answers (on the run's
    /// stdin, or anywhere else).
    pub fn turn_answered_by(
        &self,
        file: &str,
        answer: &dyn Fn(&Value, &mut std::process::ChildStdin),
        extra: &[&str],
    ) -> (Turn, std::process::ExitStatus) {
        self.model.set_command(&format!("touch {file}"));
        self.model.set_trigger(Some(file));
        let prompt = format!("Create the file {file} with the shell tool.");
        let mut args = vec!["run", self.agent, "--prompt", &prompt, "--json"];
        args.extend_from_slice(extra);
        let invocation = self.env.oneworks().args(&args);
        let started = Instant::now();
        let mut child = invocation.spawn();
        let mut stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut stderr_pipe = child.stderr.take().expect("stderr");
        let stderr_reader = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr_pipe.read_to_string(&mut text);
            text
        });
        let (lines_tx, lines_rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                if lines_tx.send((Instant::now(), line)).is_err() {
                    break;
                }
            }
        });
        let mut events = Vec::new();
        let mut requests = Vec::new();
        let mut ended = None;
        // Until stdout closes; each line stamped as it was read.
        let closed = poll(Duration::from_millis(10), TURN_DEADLINE, || loop {
            match lines_rx.try_recv() {
                Ok((at, line)) => {
                    let event: Value = serde_json::from_str(&line)
                        .unwrap_or_else(|e| panic!("not an event ({e}): {line}"));
                    if event["type"] == "permission_request" {
                        answer(&event, &mut stdin);
                        requests.push(event.clone());
                    }
                    if event["type"] == "turn_end" {
                        ended = Some(at);
                    }
                    events.push(event);
                }
                Err(std::sync::mpsc::TryRecvError::Disconnected) => return Ok(()),
                Err(std::sync::mpsc::TryRecvError::Empty) => return Err(String::new()),
            }
        });
        if closed.is_err() {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "the {} turn did not end within {TURN_DEADLINE:?}: {events:#?}\nmodel:\n{}",
                self.agent,
                self.model.describe()
            );
        }
        drop(stdin);
        let status = child.wait().expect("wait");
        let stderr = stderr_reader.join().unwrap_or_default();
        let turn = Turn {
            elapsed: started.elapsed(),
            stopping: ended.map(|at| at.elapsed()),
            events,
            requests,
            stderr,
        };
        (turn, status)
    }
}
