//! The fake `kiro-cli chat --tui`: draws Kiro's approval prompt
//! with or without the trust row, moves the focus on Up/Down
//! (`ESC [ B` and `ESC O B` alike), answers on Enter and Esc, and appends
//! the request and response lines to `KIRO_ACP_RECORD_PATH` like Kiro. It
//! logs every key it receives so tests assert the exact sequence.

use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::process::monotonic_ns;
use crate::tui_script::{Action, HookCall, RequestScript, TuiScript};

#[derive(Debug, Clone, PartialEq, Eq)]
enum Key {
    Up,
    Down,
    /// Down as `ESC O B` (application cursor keys).
    DownApplication,
    Enter,
    Esc,
    Tab,
    CtrlD,
    Other(String),
}

impl Key {
    fn name(&self) -> String {
        match self {
            Key::Up => "Up".into(),
            Key::Down | Key::DownApplication => "Down".into(),
            Key::Enter => "Enter".into(),
            Key::Esc => "Esc".into(),
            Key::Tab => "Tab".into(),
            Key::CtrlD => "C-d".into(),
            Key::Other(text) => format!("other:{text}"),
        }
    }
}

/// Splits what one `read` returned into keys.
fn parse_keys(bytes: &[u8]) -> Vec<Key> {
    let mut keys = Vec::new();
    let mut index = 0;
    while index < bytes.len() {
        let byte = bytes[index];
        index += 1;
        let key = match byte {
            0x1b => match (bytes.get(index), bytes.get(index + 1)) {
                (Some(intro @ (b'[' | b'O')), Some(last)) => {
                    index += 2;
                    match last {
                        b'A' => Key::Up,
                        b'B' if *intro == b'O' => Key::DownApplication,
                        b'B' => Key::Down,
                        other => Key::Other(format!("esc-{}", char::from(*other))),
                    }
                }
                _ => Key::Esc,
            },
            b'\r' | b'\n' => Key::Enter,
            b'\t' => Key::Tab,
            0x04 => Key::CtrlD,
            other => Key::Other(format!("{other:02x}")),
        };
        keys.push(key);
    }
    keys
}

struct Shown {
    request: RequestScript,
    tool_line: String,
    focus: usize,
}

impl Shown {
    fn options(&self) -> Vec<&'static str> {
        if self.request.trust {
            vec!["allow_once", "allow_always", "reject_once"]
        } else {
            vec!["allow_once", "reject_once"]
        }
    }
}

struct Tui<'a> {
    script: &'a TuiScript,
    next_request: usize,
    shown: Option<Shown>,
    keys: usize,
    fired: Vec<bool>,
    last_answer: String,
    /// Downs that arrived as `ESC O B` (shown on screen for the tests).
    application_downs: usize,
}

pub fn run(script: &TuiScript) -> ExitCode {
    // Raw keys, no echo: like a full-screen TUI.
    let _ = std::process::Command::new("stty")
        .args(["-icanon", "-echo", "-isig", "min", "1", "time", "0"])
        .status();
    if script.cursor_keys_application {
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(b"\x1b[?1h");
        let _ = stdout.flush();
    }
    let (sender, receiver) = mpsc::channel::<Key>();
    let key_times = script.key_times.clone();
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut buffer = [0u8; 256];
        while let Ok(count) = stdin.read(&mut buffer) {
            if count == 0 {
                break;
            }
            let arrived = monotonic_ns();
            for key in parse_keys(&buffer[..count]) {
                if let Some(log) = &key_times {
                    append(log, format!("{arrived} {}\n", key.name()).as_bytes());
                }
                if sender.send(key).is_err() {
                    return;
                }
            }
        }
    });
    let mut tui = Tui {
        script,
        next_request: 0,
        shown: None,
        keys: 0,
        fired: vec![false; script.events.len()],
        last_answer: String::new(),
        application_downs: 0,
    };
    let mut dirty = true;
    loop {
        dirty |= tui.advance();
        dirty |= tui.file_events();
        if dirty {
            tui.draw();
            dirty = false;
        }
        if script.exit_file.as_deref().is_some_and(Path::exists) {
            return ExitCode::SUCCESS;
        }
        match receiver.recv_timeout(Duration::from_millis(20)) {
            Ok(Key::CtrlD) => return ExitCode::SUCCESS,
            Ok(key) => {
                tui.key(&key);
                dirty = true;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return ExitCode::SUCCESS,
        }
    }
}

impl Tui<'_> {
    /// Starts the next scripted request when its turn and trigger came.
    fn advance(&mut self) -> bool {
        let mut changed = false;
        while let Some(request) = self.script.requests.get(self.next_request) {
            if request
                .wait_for
                .as_deref()
                .is_some_and(|file| !file.exists())
            {
                break;
            }
            let silent = request.same_batch || request.record_only;
            if !silent && self.shown.is_some() {
                break;
            }
            self.next_request += 1;
            let line = self.request_line(request);
            if request.same_batch {
                let response = self.response_line(&request.id, Some("allow_once"));
                record(&format!("{line}{response}"));
            } else {
                record(&line);
            }
            if !silent {
                if let Some(hook) = &request.hook {
                    run_hooks(hook);
                }
                let tool_line = request.tool_line.clone().unwrap_or_else(|| {
                    match request.title.strip_prefix("Running: ") {
                        Some(command) => format!("Shell {command}"),
                        None => request.title.clone(),
                    }
                });
                self.shown = Some(Shown {
                    request: request.clone(),
                    tool_line,
                    focus: 0,
                });
                changed = true;
            }
        }
        changed
    }

    fn file_events(&mut self) -> bool {
        let mut changed = false;
        for index in 0..self.script.events.len() {
            let event = &self.script.events[index];
            if !self.fired[index] && event.on_file.as_deref().is_some_and(Path::exists) {
                self.fired[index] = true;
                self.act(&event.action.clone());
                changed = true;
            }
        }
        changed
    }

    fn key(&mut self, key: &Key) {
        self.keys += 1;
        if let Some(log) = &self.script.key_log {
            append(log, format!("{}\n", key.name()).as_bytes());
        }
        if *key == Key::DownApplication {
            self.application_downs += 1;
        }
        if let Some(shown) = &mut self.shown {
            let rows = shown.options().len();
            match key {
                Key::Down | Key::DownApplication => {
                    shown.focus = (shown.focus + 1).min(rows - 1);
                }
                Key::Up => shown.focus = shown.focus.saturating_sub(1),
                Key::Enter => self.answer(false),
                Key::Esc => self.answer(true),
                _ => {}
            }
        }
        for index in 0..self.script.events.len() {
            let event = &self.script.events[index];
            if !self.fired[index] && event.after_key == Some(self.keys) {
                self.fired[index] = true;
                self.act(&event.action.clone());
            }
        }
    }

    fn act(&mut self, action: &Action) {
        match action {
            Action::SetToolLine { text } => {
                if let Some(shown) = &mut self.shown {
                    shown.tool_line = text.clone();
                }
            }
            Action::Focus { row } => {
                if let Some(shown) = &mut self.shown {
                    shown.focus = (*row).min(shown.options().len() - 1);
                }
            }
            Action::Withdraw => self.shown = None,
            Action::Answer { esc } => self.answer(*esc),
        }
    }

    fn answer(&mut self, esc: bool) {
        let Some(shown) = self.shown.take() else {
            return;
        };
        let option = (!esc).then(|| shown.options()[shown.focus]);
        record(&self.response_line(&shown.request.id, option));
        self.last_answer = option.unwrap_or("cancelled").to_owned();
    }

    fn request_line(&self, request: &RequestScript) -> String {
        let mut options =
            vec![json!({"optionId": "allow_once", "kind": "allow_once", "name": "Yes"})];
        if request.trust {
            options
                .push(json!({"optionId": "allow_always", "kind": "allow_always", "name": "Trust"}));
        }
        options.push(json!({"optionId": "reject_once", "kind": "reject_once", "name": "No"}));
        let mut tool_call =
            json!({"toolCallId": format!("call-{}", request.id), "title": request.title});
        for (field, value) in request.tool_call.iter().flatten() {
            tool_call[field] = value.clone();
        }
        let message = json!({
            "jsonrpc": "2.0",
            "id": request.id,
            "method": "session/request_permission",
            "params": {
                "sessionId": "fake-session",
                "toolCall": tool_call,
                "options": options,
            }
        });
        self.wrap("in", message)
    }

    fn response_line(&self, id: &str, option: Option<&str>) -> String {
        let outcome = match option {
            Some(option) => json!({"outcome": "selected", "optionId": option}),
            None => json!({"outcome": "cancelled"}),
        };
        self.wrap(
            "out",
            json!({"jsonrpc": "2.0", "id": id, "result": {"outcome": outcome}}),
        )
    }

    fn wrap(&self, dir: &str, message: Value) -> String {
        let msg = if self.script.msg_as_object {
            message
        } else {
            Value::String(message.to_string())
        };
        let ts = if self.script.ts_as_number {
            let millis = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |elapsed| elapsed.as_millis());
            json!(u64::try_from(millis).unwrap_or(0))
        } else {
            json!(time::OffsetDateTime::now_utc()
                .format(&time::format_description::well_known::Rfc3339)
                .unwrap_or_default())
        };
        format!("{}\n", json!({"ts": ts, "dir": dir, "msg": msg}))
    }

    fn draw(&self) {
        let rule = "─".repeat(40);
        let mut lines = vec!["fake kiro-cli chat".to_owned()];
        if self.application_downs > 0 {
            lines.push(format!(
                "application-mode downs: {}",
                self.application_downs
            ));
        }
        if !self.last_answer.is_empty() {
            lines.push(format!("last answer: {}", self.last_answer));
        }
        match &self.shown {
            Some(shown) => {
                let labels: &[&str] = if shown.request.trust {
                    &[
                        "Yes, single permission",
                        "Trust, always allow in this session",
                        "No (Tab to edit)",
                    ]
                } else {
                    &["Yes, single permission", "No (Tab to edit)"]
                };
                lines.push(rule.clone());
                lines.push(format!("↓ {}", shown.tool_line));
                lines.push(String::new());
                lines.push(" shell requires approval".to_owned());
                for (index, label) in labels.iter().enumerate() {
                    let marker = if index == shown.focus { "❯" } else { " " };
                    lines.push(format!(" {marker} {label}"));
                }
                lines.push(rule);
                lines.push("ESC to close · Tab to edit".to_owned());
            }
            None => lines.push("> ".to_owned()),
        }
        let mut stdout = std::io::stdout().lock();
        let _ = write!(stdout, "\x1b[H\x1b[2J{}", lines.join("\r\n"));
        let _ = stdout.flush();
    }
}

/// Appends to the recorder Kiro was given, in one write (a same-batch
/// pair arrives together).
fn record(text: &str) {
    if let Some(path) = std::env::var_os("KIRO_ACP_RECORD_PATH") {
        append(Path::new(&path), text.as_bytes());
    }
}

fn append(path: &Path, bytes: &[u8]) {
    if let Ok(mut file) = fs_err::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = file.write_all(bytes);
    }
}

/// Runs the hooks registered for `hook.event` and waits for each, logging
/// what it printed and how it exited (a signal hook must print nothing).
fn run_hooks(hook: &HookCall) {
    let Some(home) = std::env::var_os("KIRO_HOME") else {
        return;
    };
    let file = Path::new(&home)
        .join("agents")
        .join(format!("{}.json", hook.agent));
    let agent: Value = fs_err::read(&file)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or(Value::Null);
    let commands: Vec<String> = agent["hooks"][&hook.event]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|entry| entry["command"].as_str().map(str::to_owned))
        .collect();
    for command in commands {
        let start = monotonic_ns();
        let child = std::process::Command::new("sh")
            .args(["-c", &command])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn();
        let Ok(mut child) = child else {
            append(
                &hook.log,
                format!("{}\n", json!({"command": command, "spawn": false})).as_bytes(),
            );
            continue;
        };
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(hook.payload.to_string().as_bytes());
        }
        let output = child.wait_with_output();
        let end = monotonic_ns();
        let line = match output {
            Ok(output) => json!({
                "command": command,
                "exit": output.status.code(),
                "stdout": String::from_utf8_lossy(&output.stdout),
                "stderr": String::from_utf8_lossy(&output.stderr),
                "startNs": start,
                "endNs": end,
            }),
            Err(error) => json!({"command": command, "error": error.to_string()}),
        };
        append(&hook.log, format!("{line}\n").as_bytes());
    }
    if let Some(file) = &hook.then_wait_for {
        // Bounded: a test that never creates it fails on its own deadline.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while !file.exists() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}
