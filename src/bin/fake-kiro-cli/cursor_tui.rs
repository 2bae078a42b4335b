//! The fake `cursor-agent` TUI, run with no
//! arguments as Cursor's is: for each scripted call it writes the pending
//! call into a real SQLite chat store,
//! `$HOME/.cursor/chats/<md5 of its working folder>/<chat id>/store.db`
//! (WAL mode, table `blobs`), inside a binary checkpoint frame (`0A 20` +
//! a 32-byte hash, twice, then the JSON message behind a length byte) —
//! then draws Cursor's box. `y` runs the command; `n` or Escape opens the
//! rejection-reason prompt, where Enter declines and Escape goes back to
//! the box. Either answer commits the call (the same part without its
//! pending marker) and writes its `tool-result`. Like Cursor, it drops a
//! burst: several keys that arrive in one read are all ignored (logged
//! as `dropped:<n>`). Every key it takes is logged.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Duration;

use md5::{Digest, Md5};
use serde::Deserialize;
use serde_json::{json, Value};
use sha2::Sha256;

use crate::error::FakeError;

/// `cursorTui` of the script.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct CursorTuiScript {
    /// The calls, in order; each drawn once the one before is answered.
    pub calls: Vec<CallScript>,
    /// Every key taken (and every burst dropped), one per line.
    pub key_log: Option<PathBuf>,
    /// The chat's folder name (a UUID in Cursor).
    pub chat_id: Option<String>,
    /// Ends when this file exists.
    pub exit_file: Option<PathBuf>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CallScript {
    pub id: String,
    pub command: String,
    /// Drawn only once this file exists.
    #[serde(default)]
    pub wait_for: Option<PathBuf>,
    /// `delete`: a box of another kind ("Delete this file?"), whose keys
    /// are the same but whose lines are not the shell box's.
    #[serde(default)]
    pub kind: Option<String>,
    /// The box shows this command instead of the stored one.
    #[serde(default)]
    pub shown: Option<String>,
}

enum Screen {
    Chat,
    Box(CallScript),
    Reason(CallScript, String),
}

struct Tui<'a> {
    script: &'a CursorTuiScript,
    store: rusqlite::Connection,
    next: usize,
    screen: Screen,
    last: String,
}

pub fn run(script: &CursorTuiScript) -> ExitCode {
    let _ = std::process::Command::new("stty")
        .args(["-icanon", "-echo", "-isig", "min", "1", "time", "0"])
        .status();
    let store = match open_store(script) {
        Ok(store) => store,
        Err(error) => {
            eprintln!("fake cursor-agent: cannot open its chat store: {error}");
            return ExitCode::from(70);
        }
    };
    let (sender, keys) = mpsc::channel::<Vec<u8>>();
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut buffer = [0u8; 256];
        while let Ok(count) = stdin.read(&mut buffer) {
            if count == 0 || sender.send(buffer[..count].to_vec()).is_err() {
                return;
            }
        }
    });
    let mut tui = Tui {
        script,
        store,
        next: 0,
        screen: Screen::Chat,
        last: String::new(),
    };
    let mut dirty = true;
    loop {
        dirty |= tui.advance();
        if dirty {
            tui.draw();
            dirty = false;
        }
        if script.exit_file.as_deref().is_some_and(Path::exists) {
            return ExitCode::SUCCESS;
        }
        match keys.recv_timeout(Duration::from_millis(20)) {
            Ok(bytes) if bytes == [0x04] => return ExitCode::SUCCESS,
            Ok(bytes) => {
                tui.read(&bytes);
                dirty = true;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return ExitCode::SUCCESS,
        }
    }
}

/// The chat store, created as Cursor does (WAL, `blobs` and `meta`).
fn open_store(script: &CursorTuiScript) -> Result<rusqlite::Connection, FakeError> {
    let home = std::env::var_os("HOME").ok_or(FakeError::NoHome)?;
    let cwd = std::env::current_dir().map_err(FakeError::CurrentDir)?;
    let hash = hex::encode(Md5::digest(cwd.as_os_str().as_encoded_bytes()));
    let chat = script.chat_id.as_deref().unwrap_or("chat-1");
    let folder = Path::new(&home).join(".cursor/chats").join(hash).join(chat);
    fs_err::create_dir_all(&folder).map_err(FakeError::StoreFolder)?;
    let store = rusqlite::Connection::open(folder.join("store.db"))?;
    store.execute_batch(
        "PRAGMA journal_mode=WAL;
             CREATE TABLE IF NOT EXISTS blobs (id TEXT PRIMARY KEY, data BLOB);
             CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);",
    )?;
    let meta = hex::encode(json!({"agentId": chat, "name": "fake chat"}).to_string());
    store.execute(
        "INSERT OR REPLACE INTO meta (key, value) VALUES ('0', ?1)",
        [meta],
    )?;
    Ok(store)
}

impl Tui<'_> {
    /// Draws the next call's box once its turn and marker came.
    fn advance(&mut self) -> bool {
        if !matches!(self.screen, Screen::Chat) {
            return false;
        }
        let Some(call) = self.script.calls.get(self.next) else {
            return false;
        };
        if call.wait_for.as_deref().is_some_and(|file| !file.exists()) {
            return false;
        }
        self.next += 1;
        self.put(&frame(&message(call, true)));
        self.screen = Screen::Box(call.clone());
        true
    }

    /// One read: a single key is taken; a burst is dropped whole.
    fn read(&mut self, bytes: &[u8]) {
        let keys = split_keys(bytes);
        if keys.len() > 1 {
            self.log(&format!("dropped:{}", keys.len()));
            return;
        }
        let Some(key) = keys.first() else {
            return;
        };
        self.log(key);
        let screen = std::mem::replace(&mut self.screen, Screen::Chat);
        self.screen = match (screen, key.as_str()) {
            (Screen::Box(call), "y") => {
                self.answer(&call, true);
                Screen::Chat
            }
            (Screen::Box(call), "n" | "Esc") => Screen::Reason(call, String::new()),
            (Screen::Reason(call, _), "Enter") => {
                self.answer(&call, false);
                Screen::Chat
            }
            (Screen::Reason(call, _), "Esc") => Screen::Box(call),
            (Screen::Reason(call, mut reason), other) if other.chars().count() == 1 => {
                reason.push_str(other);
                Screen::Reason(call, reason)
            }
            (other, _) => other,
        };
    }

    fn answer(&mut self, call: &CallScript, run: bool) {
        if run {
            let _ = std::process::Command::new("sh")
                .args(["-c", &call.command])
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status();
        }
        let result = json!({"role": "tool", "content": [{
            "type": "tool-result", "toolCallId": call.id, "toolName": "Shell",
            "result": if run { "ran" } else { "rejected by the user" },
        }]});
        self.put(message(call, false).to_string().as_bytes());
        self.put(result.to_string().as_bytes());
        self.last = format!("{} {}", if run { "ran" } else { "skipped" }, call.command);
    }

    fn put(&self, data: &[u8]) {
        let id = hex::encode(Sha256::digest(data));
        let _ = self.store.execute(
            "INSERT OR REPLACE INTO blobs (id, data) VALUES (?1, ?2)",
            rusqlite::params![id, data],
        );
    }

    fn log(&self, line: &str) {
        if let Some(path) = &self.script.key_log {
            if let Ok(mut file) = fs_err::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
            {
                let _ = file.write_all(format!("{line}\n").as_bytes());
            }
        }
    }

    fn draw(&self) {
        let mut lines = vec!["fake cursor-agent".to_owned()];
        if !self.last.is_empty() {
            lines.push(format!("last: {}", self.last));
        }
        match &self.screen {
            Screen::Chat => lines.push("> ".to_owned()),
            Screen::Box(call) => lines.extend(box_lines(call)),
            Screen::Reason(_, reason) => {
                lines.push(" Reason for rejection (Enter to submit, Esc to cancel)".to_owned());
                lines.push(format!(" > {reason}"));
            }
        }
        let mut stdout = std::io::stdout().lock();
        let _ = write!(stdout, "\x1b[H\x1b[2J{}", lines.join("\r\n"));
        let _ = stdout.flush();
    }
}

/// Cursor's box as captured from 2026.06.19, or its delete
/// box.
fn box_lines(call: &CallScript) -> Vec<String> {
    let shown = call.shown.as_deref().unwrap_or(&call.command);
    if call.kind.as_deref() == Some("delete") {
        return vec![
            format!(" {shown}"),
            " Delete this file?".to_owned(),
            "  → Delete (y)".to_owned(),
            "    Keep (n)".to_owned(),
        ];
    }
    vec![
        format!(" $  {shown} in ."),
        " Run this command?".to_owned(),
        " Shell allowlist is empty".to_owned(),
        "  → Run (once) (y)".to_owned(),
        "    Run Everything (shift+tab)".to_owned(),
        "    Skip (esc or n)".to_owned(),
    ]
}

/// The assistant message holding the call; `pending`: with Cursor's
/// marker (not committed yet).
fn message(call: &CallScript, pending: bool) -> Value {
    let mut part = json!({
        "type": "tool-call", "toolCallId": call.id, "toolName": "Shell",
        "args": {"command": call.command},
    });
    if pending {
        part["providerOptions"] =
            json!({"cursor": {"pendingToolCallStartedAtMs": 1_767_000_000_000u64}});
    }
    json!({"role": "assistant", "id": "1", "content": [part]})
}

/// A checkpoint frame: two child references (`0A 20` + 32 bytes, the
/// hashes' bytes as they come, braces and quotes among them), then the
/// message behind a field tag and a varint length.
fn frame(message: &Value) -> Vec<u8> {
    let json = message.to_string();
    let mut bytes = Vec::new();
    for seed in [b"parent".as_slice(), b"{\"child".as_slice()] {
        bytes.extend_from_slice(&[0x0A, 0x20]);
        let mut hash: Vec<u8> = Sha256::digest(seed).to_vec();
        // A brace and a quote inside the binary part, as real hashes have.
        hash[3] = b'{';
        hash[4] = b'"';
        bytes.extend_from_slice(&hash);
    }
    bytes.push(0x12);
    let mut length = json.len();
    while length >= 0x80 {
        bytes.push(u8::try_from(length & 0x7f).unwrap_or(0) | 0x80);
        length >>= 7;
    }
    bytes.push(u8::try_from(length).unwrap_or(0));
    bytes.extend_from_slice(json.as_bytes());
    bytes.extend_from_slice(&[0x1a, 0x02, 0x08, 0x01]);
    bytes
}

/// What one read holds: `Esc`, `Enter`, `BTab`, `Tab` or the character.
fn split_keys(bytes: &[u8]) -> Vec<String> {
    let mut keys = Vec::new();
    let mut index = 0;
    while index < bytes.len() {
        let byte = bytes[index];
        index += 1;
        let key = match byte {
            0x1b if bytes.get(index) == Some(&b'[') && bytes.get(index + 1) == Some(&b'Z') => {
                index += 2;
                "BTab".to_owned()
            }
            0x1b => "Esc".to_owned(),
            b'\r' | b'\n' => "Enter".to_owned(),
            b'\t' => "Tab".to_owned(),
            other => char::from(other).to_string(),
        };
        keys.push(key);
    }
    keys
}
