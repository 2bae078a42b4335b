//! Supervised TUI sessions on real tmux: the fake `kiro-cli chat
//! --tui` in a private tmux server, answered through `oneworks session`.
//! These tests run one at a time (a lock), wait on conditions with
//! deadlines, use short key gaps through `ONEWORKS_KIRO_ADAPTER_FILE`, and
//! check by pid that nothing is left behind.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde_json::{json, Value};

use crate::support::fake::{install_fake, kiro_script, with};
use crate::support::wait::{wait_card, wait_until};
use crate::support::TestEnv;

/// tmux tests run serially: a loaded 2-core machine, and one key timing.
static SERIAL: Mutex<()> = Mutex::new(());

pub const DEADLINE: Duration = Duration::from_secs(60);

/// One supervised session under test. Dropping it stops whatever is left
/// (a failed test must not leak a tmux server).
pub struct Session {
    pub env: TestEnv,
    pub keys: PathBuf,
    pub fake_log: PathBuf,
    pub markers: PathBuf,
    pub name: String,
    /// The adapter `start` starts (`kiro` unless a test replaces it).
    pub adapter: String,
    _serial: MutexGuard<'static, ()>,
}

/// The adapter data with short key gaps (the built-in one, edited).
fn fast_adapter_file(env: &TestEnv) -> PathBuf {
    let builtin = include_str!("../../../manifests/kiro.yaml");
    let fast = builtin
        .replace("renderGapMs: 300", "renderGapMs: 40")
        .replace("settleMs: 500", "settleMs: 60");
    assert_ne!(fast, builtin, "the gap settings moved");
    let path = env.base().join("kiro-fast.yaml");
    std::fs::write(&path, fast).expect("write adapter file");
    path
}

impl Session {
    /// A project with the fake kiro-cli (`source: system`) whose TUI runs
    /// the `tui` script section `build` returns for the markers folder
    /// (`keyLog` is added).
    pub fn new(build: impl FnOnce(&Path) -> Value) -> Session {
        let serial = SERIAL.lock().unwrap_or_else(PoisonError::into_inner);
        let mut env = TestEnv::new();
        let keys = env.outside.join("keys.log");
        let fake_log = env.outside.join("fake.log");
        let markers = env.base().join("markers");
        std::fs::create_dir_all(&markers).expect("markers folder");
        let mut tui = build(&markers);
        tui["keyLog"] = json!(keys);
        let script = with(&kiro_script("2.15.1"), "log", json!(fake_log));
        install_fake(&env.bin, "kiro-cli", &with(&script, "tui", tui));
        env.write_config("adapters:\n  kiro:\n    cli:\n      source: system\n");
        let adapter = fast_adapter_file(&env);
        env.set_env("ONEWORKS_KIRO_ADAPTER_FILE", &adapter.to_string_lossy());
        Session {
            env,
            keys,
            fake_log,
            markers,
            name: "default".into(),
            adapter: "kiro".into(),
            _serial: serial,
        }
    }

    pub fn marker(&self, name: &str) -> PathBuf {
        self.markers.join(name)
    }

    pub fn touch(&self, name: &str) {
        std::fs::write(self.marker(name), b"").expect("touch marker");
    }

    pub fn start(&self) {
        self.start_with(&[]).assert_success();
    }

    /// `session start ADAPTER --detach --name NAME` and `extra`.
    pub fn start_with(&self, extra: &[&str]) -> crate::support::Outcome {
        let mut args = vec![
            "session",
            "start",
            self.adapter.as_str(),
            "--detach",
            "--name",
            self.name.as_str(),
        ];
        args.extend_from_slice(extra);
        self.env.run(&args)
    }

    pub fn session_root(&self) -> PathBuf {
        self.env.project.join(".oneworks/sessions").join(&self.name)
    }

    pub fn record(&self) -> Option<Value> {
        self.env.session_record(&self.name)
    }

    pub fn runtime(&self) -> PathBuf {
        let record = self.record().expect("supervisor record");
        PathBuf::from(record["approvals"].as_str().expect("approvals path"))
            .parent()
            .expect("runtime folder")
            .to_owned()
    }

    pub fn cards(&self) -> Vec<Value> {
        let outcome = self
            .env
            .run(&["session", "approvals", &self.name, "--json"]);
        outcome.assert_success();
        match outcome.json() {
            Value::Array(cards) => cards,
            other => panic!("not an array: {other}"),
        }
    }

    /// Waits until a card satisfies `test`; returns it.
    #[track_caller]
    pub fn wait_card(&self, what: &str, test: impl Fn(&Value) -> bool) -> Value {
        let pace = Duration::from_millis(10);
        wait_card(pace, what, DEADLINE, || self.cards(), test, String::new)
    }

    pub fn pending_card(&self) -> Value {
        self.wait_card("pending", |card| card["state"] == "pending")
    }

    pub fn keys(&self) -> Vec<String> {
        std::fs::read_to_string(&self.keys)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// Waits until the fake logged as many keys as `expected` holds (a key
    /// reaches it after `send-keys` returns), then compares.
    #[track_caller]
    pub fn assert_keys(&self, expected: &[&str]) {
        wait_until("the fake logged every key", DEADLINE, || {
            self.keys().len() >= expected.len()
        });
        assert_eq!(self.keys(), expected);
    }

    /// The recorder lines the fake wrote.
    pub fn recorder(&self) -> String {
        std::fs::read_to_string(self.runtime().join("recorder.jsonl")).unwrap_or_default()
    }

    /// The responses the fake recorded: `(request id, optionId or null)`.
    pub fn responses(&self) -> Vec<(String, Value)> {
        self.recorder()
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter_map(|line| {
                let msg: Value = serde_json::from_str(line["msg"].as_str()?).ok()?;
                msg.get("result")?;
                Some((
                    msg["id"].as_str()?.to_owned(),
                    msg["result"]["outcome"]["optionId"].clone(),
                ))
            })
            .collect()
    }

    pub fn answer(&self, card: &Value, action: &str) -> crate::support::Outcome {
        let id = card["id"].as_str().expect("card id");
        self.env.run(&["session", "answer", &self.name, id, action])
    }

    /// A person at the terminal presses `key`.
    pub fn person_presses(&self, key: &str) {
        let record = self.record().expect("record");
        let status = std::process::Command::new("tmux")
            .args(["-S", record["tmux"].as_str().expect("tmux socket")])
            .args(["-f", "/dev/null", "-u", "send-keys", "-t", "oneworks", key])
            .status()
            .expect("run tmux");
        assert!(status.success());
    }

    /// The pids the record names: supervisor, tmux server, Kiro.
    pub fn pids(&self) -> Vec<u32> {
        record_pids(&self.record().expect("record"))
    }

    /// `session stop`, then: no process of the session left, no sockets.
    pub fn stop_and_check(&self) {
        let pids = self.pids();
        let runtime = self.runtime();
        self.env
            .run(&["session", "stop", &self.name])
            .assert_success();
        assert_gone(&pids);
        assert!(self.record().is_none(), "record left behind");
        for socket in ["approvals.sock", "signals.sock", "tmux.sock"] {
            assert!(!runtime.join(socket).exists(), "{socket} left behind");
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // Kill the supervisor first, so it cannot restart anything.
        if let Some(pid) = self.record().and_then(|record| record["pid"].as_u64()) {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .output();
        }
        // Every tmux server of this test's runtime folder, record or not.
        let sockets = std::fs::read_dir(self.env.runtime_dir.join("oneworks"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| entry.path().join("tmux.sock"))
            .filter(|socket| socket.exists());
        for socket in sockets {
            let _ = std::process::Command::new("tmux")
                .arg("-S")
                .arg(&socket)
                .arg("kill-server")
                .output();
        }
    }
}

pub use crate::support::alive;

/// The pids a supervisor record names: supervisor, tmux server, the
/// agent in the pane.
pub fn record_pids(record: &Value) -> Vec<u32> {
    ["pid", "tmuxPid", "panePid"]
        .iter()
        .map(|field| u32::try_from(record[field].as_u64().expect("pid")).expect("pid"))
        .collect()
}

#[track_caller]
pub fn assert_gone(pids: &[u32]) {
    crate::support::wait::wait_for("no process is left behind", Duration::from_secs(10), || {
        let left: Vec<u32> = pids.iter().copied().filter(|pid| alive(*pid)).collect();
        if left.is_empty() {
            Ok(())
        } else {
            Err(format!("left: {left:?}"))
        }
    });
}

pub fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .expect("metadata")
        .permissions()
        .mode()
        & 0o777
}

pub fn request(id: &str, title: &str) -> Value {
    json!({"id": id, "title": title})
}

#[test]
fn accept_from_the_channel_sends_exactly_enter() {
    let session = Session::new(|_| json!({"requests": [request("r1", "Running: pwd")]}));
    session.start();
    let card = session.pending_card();
    assert_eq!(card["title"], "Running: pwd");
    session.answer(&card, "accept").assert_success();
    session.assert_keys(&["Enter"]);
    session.wait_card("accepted", |card| card["state"] == "accepted");
    assert_eq!(
        session.responses(),
        [("r1".to_owned(), json!("allow_once"))]
    );
    session.stop_and_check();
}

#[test]
fn decline_and_cancel_move_down_one_row_at_a_time() {
    let session = Session::new(|markers| {
        json!({"requests": [
            request("r1", "Running: ls -la"),
            {"id": "r2", "title": "Running: pwd", "trust": false, "waitFor": markers.join("next")},
        ]})
    });
    session.start();
    let card = session.pending_card();
    session.answer(&card, "decline").assert_success();
    session.assert_keys(&["Down", "Down", "Enter"]);
    session.wait_card("declined", |card| card["state"] == "declined");

    session.touch("next");
    let second = session.wait_card("for r2", |other| {
        other["state"] == "pending" && other["id"] != card["id"]
    });
    session.answer(&second, "cancel").assert_success();
    session.assert_keys(&["Down", "Down", "Enter", "Down", "Enter"]);
    session.wait_card("cancelled", |card| card["state"] == "cancelled");
    assert_eq!(
        session.responses(),
        [
            ("r1".to_owned(), json!("reject_once")),
            ("r2".to_owned(), json!("reject_once"))
        ]
    );
    session.stop_and_check();
}

#[test]
fn application_cursor_keys_still_move_the_focus() {
    let session = Session::new(
        |_| json!({"requests": [request("r1", "Running: pwd")], "cursorKeysApplication": true}),
    );
    session.start();
    let card = session.pending_card();
    session.answer(&card, "decline").assert_success();
    session.assert_keys(&["Down", "Down", "Enter"]);
    session.wait_card("declined", |card| card["state"] == "declined");
    let record = session.record().expect("record");
    let screen = std::process::Command::new("tmux")
        .args(["-S", record["tmux"].as_str().expect("socket")])
        .args([
            "-f",
            "/dev/null",
            "-u",
            "capture-pane",
            "-p",
            "-t",
            "oneworks",
        ])
        .output()
        .expect("capture");
    let screen = String::from_utf8_lossy(&screen.stdout);
    assert!(
        screen.contains("application-mode downs: 2"),
        "tmux did not send ESC O B: {screen}"
    );
    session.stop_and_check();
}

#[test]
fn the_supervisor_ends_with_the_tui_and_leaves_nothing() {
    let session = Session::new(|markers| json!({"exitFile": markers.join("exit")}));
    session.start();
    let pids = session.pids();
    let runtime = session.runtime();
    session.touch("exit");
    assert_gone(&pids);
    wait_until("the record is removed", DEADLINE, || {
        session.record().is_none()
    });
    assert!(!runtime.join("approvals.sock").exists());
    session
        .env
        .run(&["session", "approvals", "default", "--json"])
        .assert_error(11, "session");
}

#[test]
fn start_without_a_terminal_needs_detach_and_starts_nothing() {
    let session = Session::new(|_| json!({}));
    let outcome = session.env.run(&["session", "start", "kiro"]);
    outcome.assert_code(2);
    outcome.assert_stderr_contains("--detach");
    assert!(session.record().is_none());
    assert!(!session.session_root().exists());
}

#[test]
fn the_fake_tui_rejects_a_misspelt_script_field() {
    let temp = tempfile::tempdir().expect("tempdir");
    let path = install_fake(
        temp.path(),
        "kiro-cli",
        &with(
            &kiro_script("2.15.1"),
            "tui",
            json!({"requests": [{"id": "r1", "title": "t", "waitFr": "x"}]}),
        ),
    );
    let output = std::process::Command::new(path)
        .args(["chat", "--tui", "--agent", "oneworks"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run fake");
    assert_eq!(output.status.code(), Some(70));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("waitFr"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn a_box_whose_focus_moves_between_two_keys_gets_no_further_key() {
    let session = Session::new(|_| json!({"requests": [request("r1", "Running: pwd")]}));
    session.start();
    let card = session.pending_card();
    let record = session.record().expect("record");
    let socket = PathBuf::from(record["tmux"].as_str().expect("tmux socket"));
    let tui = oneworks::adapter::registry::Registry::builtin()
        .load("kiro")
        .expect("kiro data")
        .tui;
    let title = card["title"].as_str().expect("title");
    let reason = crate::tui_real::assert_refuses_a_box_changed_between_keys(&socket, &tui, title);
    assert!(
        matches!(
            &reason,
            oneworks::session::delivery::keystroke_bridge::DeliveryRefusal::FocusMoved { expected, .. }
                if expected == "Trust, always allow in this session"
        ),
        "{reason}"
    );
    // The fake saw the bridge's Down and the person's, nothing else.
    session.assert_keys(&["Down", "Down"]);
    assert!(session.responses().is_empty(), "nothing was answered");
    session.wait_card("still pending", |c| {
        c["id"] == card["id"] && c["state"] == "pending"
    });
    session.stop_and_check();
}
