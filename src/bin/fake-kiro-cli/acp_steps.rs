//! The steps of the fake ACP agent's script (`acp_script.rs` says what
//! each one means): one function per kind of step that does more than
//! send one line.

use std::io::Write;
use std::path::Path;

use crate::acp::Agent;
use crate::acp_script::Step;
use serde_json::{json, Map, Value};

impl Agent<'_> {
    /// One step; `Some(code)` ends the process.
    pub fn step(&mut self, step: &Step) -> Option<i32> {
        match step {
            Step::Text(text) => self.text("agent_message_chunk", text),
            Step::Thought(text) => self.text("agent_thought_chunk", text),
            Step::ToolCall { id, title, kind } => self.tool_call(id, title, kind.as_deref()),
            Step::Chunks { count, text } => self.chunks(*count, text),
            Step::Stamped {
                count,
                interval_micros,
            } => self.stamped(*count, *interval_micros),
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
                self.ask_permission(id, title, kind.as_deref(), options);
                return self.wait_for_answer(id);
            }
            Step::AskPermission {
                id,
                title,
                kind,
                options,
            } => self.ask_permission(id, title, kind.as_deref(), options),
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
            Step::CloseStdout => return Some(self.close_stdout()),
            Step::Send(message) => self.send(message),
            Step::AwaitAnswer(id) => return self.wait_for_answer(id),
            Step::Flood { bytes, stdout } => self.flood(*bytes, *stdout),
            Step::Stderr(text) => eprintln!("{text}"),
            Step::FreezeParent => freeze_parent(),
            Step::InterruptParent => interrupt_parent(),
            Step::WaitForCancel => {}
            Step::WaitForFile(path) => wait_for_file(path),
            Step::RunIfAllowed(path) => {
                if self
                    .last_option
                    .as_deref()
                    .is_some_and(|option| option.starts_with("allow"))
                {
                    let _ = fs_err::write(path, "ran\n");
                }
            }
        }
        None
    }

    /// A pending `tool_call` update.
    fn tool_call(&mut self, id: &str, title: &str, kind: Option<&str>) {
        let mut body = Map::new();
        body.insert("toolCallId".into(), json!(id));
        body.insert("title".into(), json!(title));
        body.insert("kind".into(), json!(kind));
        body.insert("status".into(), json!("pending"));
        self.update("tool_call", body);
    }

    /// `count` standard message chunks of `text`, written through one
    /// buffer, as fast as the pipe takes them.
    fn chunks(&mut self, count: u64, text: &str) {
        let line = json!({
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": self.script.session_id, "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}},
        })
        .to_string();
        let mut out = std::io::BufWriter::with_capacity(1 << 16, self.out.lock());
        for _ in 0..count {
            let _ = writeln!(out, "{line}");
        }
        let _ = out.flush();
    }

    /// `count` message chunks whose text is the CLOCK_MONOTONIC time in
    /// nanoseconds, one every `interval_micros`.
    fn stamped(&mut self, count: u64, interval_micros: u64) {
        let interval = std::time::Duration::from_micros(interval_micros);
        for _ in 0..count {
            let now = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
            let nanos = i128::from(now.tv_sec) * 1_000_000_000 + i128::from(now.tv_nsec);
            self.text("agent_message_chunk", &nanos.to_string());
            std::thread::sleep(interval);
        }
    }

    /// Sends a `session/request_permission` with this id (its tool call
    /// `call-ID`); does not wait for the answer.
    fn ask_permission(&mut self, id: &Value, title: &str, kind: Option<&str>, options: &[Value]) {
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

    /// Points stdout at /dev/null (oneworks sees EOF) and reads stdin to
    /// its end; the exit status (0).
    fn close_stdout(&mut self) -> i32 {
        let null = fs_err::OpenOptions::new()
            .write(true)
            .open("/dev/null")
            .map(fs_err::File::into_file);
        if let Ok(null) = null {
            let _ = rustix::stdio::dup2_stdout(&null);
        }
        while self.next().is_some() {}
        0
    }

    /// `bytes` bytes of `x` and a newline, in 64 KiB blocks, on stdout or
    /// stderr (stops early when the pipe is gone).
    fn flood(&mut self, bytes: u64, stdout: bool) {
        let block = [b'x'; 1 << 16];
        let mut sink: Box<dyn Write> = if stdout {
            Box::new(self.out.lock())
        } else {
            Box::new(std::io::stderr().lock())
        };
        let mut left = bytes;
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
}

/// Stops the fake's parent with SIGSTOP and waits (bounded, so a failed
/// test leaks nothing for long) until `/proc` shows it stopped.
fn freeze_parent() {
    let Some(parent) = rustix::process::getppid() else {
        return;
    };
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
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !stopped() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// Sends SIGINT to the fake's parent, then SIGCONT.
fn interrupt_parent() {
    if let Some(parent) = rustix::process::getppid() {
        let _ = rustix::process::kill_process(parent, rustix::process::Signal::INT);
        let _ = rustix::process::kill_process(parent, rustix::process::Signal::CONT);
    }
}

/// Waits until `path` exists (bounded, so a test that forgets the file
/// leaks nothing).
fn wait_for_file(path: &Path) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !path.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}
