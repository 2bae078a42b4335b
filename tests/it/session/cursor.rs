//! `session start cursor` on real tmux: the managed
//! `cursor-agent` (installed from the loopback mirror, its launcher running
//! the project's fake) writes its waiting calls into a real SQLite chat
//! store inside binary frames and draws Cursor's box; the supervisor reads
//! the store read-only and makes a card per call (its `toolCallId` the
//! identity, its command the text); a verdict is typed into the box after
//! checking it names the same command: `y` to accept, Escape then Enter
//! to decline, one key per send (the fake drops a burst).

use std::path::Path;

use serde_json::{json, Value};

use crate::install::cursor::{package, serve, vendor_platform, VERSION};
use crate::session::supervisor::{Session, DEADLINE};
use crate::support::adapter_yaml::{yaml, AdapterYaml};
use crate::support::fake::FAKE_EXE;
use crate::support::manifest::sha256_hex;
use crate::support::shell_quote;
use crate::support::wait::wait_until;

/// A started session of the fake Cursor whose TUI asks `calls` (built for
/// the markers folder), with short key gaps.
fn cursor_session(calls: impl FnOnce(&Path) -> Value) -> Session {
    let mut session = Session::new(|_| json!({}));
    session.adapter = "cursor".into();
    let base = session.env.server.url("/lab/");
    session.env.set_env("ONEWORKS_CURSOR_DOWNLOAD_BASE", &base);
    let script_path = session.env.outside.join("cursor-agent.script.json");
    let script = json!({
        "versionOutput": VERSION,
        "log": session.fake_log,
        "cursorTui": {
            "calls": calls(&session.markers),
            "keyLog": session.keys,
            "chatId": "2f1c4c1e-0000-4000-8000-000000000001",
        }
    });
    std::fs::write(&script_path, script.to_string()).expect("write script");
    let launcher = format!(
        "#!/bin/sh\nexec {} --fake-script {} \"$@\"\n",
        shell_quote(FAKE_EXE),
        shell_quote(&script_path.to_string_lossy())
    );
    let bytes = package(&launcher);
    serve(&session.env, VERSION, &bytes);
    let (os, arch) = vendor_platform();
    let mut data = AdapterYaml::builtin("cursor");
    data.set("pinned.pins.0.version", VERSION)
        .set("pinned.pins.0.source", "this test")
        .set(
            "pinned.pins.0.sha256",
            yaml(&format!("{os}/{arch}: {}", sha256_hex(&bytes))),
        )
        .set("tui.renderGapMs", yaml("40"))
        .set("tui.settleMs", yaml("60"));
    let dir = session.env.base().join("adapters");
    std::fs::create_dir_all(&dir).expect("adapters dir");
    data.write(&dir.join("cursor.yaml"));
    session
        .env
        .set_env("ONEWORKS_ADAPTERS_DIR", &dir.to_string_lossy());
    session.start();
    session
}

/// The pane as text.
fn pane(session: &Session) -> String {
    let record = session.record().expect("record");
    let output = std::process::Command::new("tmux")
        .args(["-S", record["tmux"].as_str().expect("tmux socket")])
        .args([
            "-f",
            "/dev/null",
            "-u",
            "capture-pane",
            "-p",
            "-J",
            "-t",
            "oneworks",
        ])
        .output()
        .expect("run tmux");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A person's keys in one `send-keys`: they arrive in one read.
fn press_together(session: &Session, keys: &[&str]) {
    let record = session.record().expect("record");
    let status = std::process::Command::new("tmux")
        .args(["-S", record["tmux"].as_str().expect("tmux socket")])
        .args(["-f", "/dev/null", "-u", "send-keys", "-t", "oneworks"])
        .args(keys)
        .status()
        .expect("run tmux");
    assert!(status.success());
}

fn call(id: &str, command: &str) -> Value {
    json!({"id": id, "command": command})
}

/// The pending card of call `id` showing `command`: its id comes from the
/// call's id in the chat store (a card the pane made has another).
fn wait_pending(session: &Session, id: &str, command: &str) -> Value {
    let card = session.wait_card(command, |card| {
        card["state"] == "pending" && card["title"] == command
    });
    let expected = format!("cursor_default_{}", &sha256_hex(id.as_bytes())[..16]);
    assert_eq!(card["id"], expected.as_str(), "{card}");
    card
}

#[test]
fn a_waiting_call_in_the_chat_store_becomes_a_card_and_accept_types_y() {
    let session = cursor_session(|markers| {
        json!([
            call("toolu_01", "touch accepted.txt"),
            {"id": "toolu_02", "command": "touch second.txt", "waitFor": markers.join("second")},
        ])
    });
    let card = wait_pending(&session, "toolu_01", "touch accepted.txt");
    session.answer(&card, "accept").assert_success();
    session.assert_keys(&["y"]);
    let ran = session.env.project.join("accepted.txt");
    wait_until("the accepted command ran", DEADLINE, || ran.exists());
    session.wait_card("answered", |other| {
        other["id"] == card["id"] && other["state"] == "delivered"
    });

    // The next call is mirrored too, with its own card.
    session.touch("second");
    let second = wait_pending(&session, "toolu_02", "touch second.txt");
    assert_ne!(second["id"], card["id"]);
    session.stop_and_check();
}

#[test]
fn decline_types_escape_then_enter_on_the_reason_and_the_command_does_not_run() {
    let session = cursor_session(|_| json!([call("toolu_01", "touch declined.txt")]));
    let card = wait_pending(&session, "toolu_01", "touch declined.txt");
    session.answer(&card, "decline").assert_success();
    // One key per read: nothing dropped, the reason submitted empty.
    session.assert_keys(&["Esc", "Enter"]);
    wait_until("the fake skipped the call", DEADLINE, || {
        pane(&session).contains("last: skipped touch declined.txt")
    });
    assert!(!session.env.project.join("declined.txt").exists());
    session.stop_and_check();
}

#[test]
fn a_call_answered_in_the_terminal_resolves_its_card() {
    let session = cursor_session(|_| json!([call("toolu_01", "touch by-hand.txt")]));
    let card = wait_pending(&session, "toolu_01", "touch by-hand.txt");
    wait_until("the box", DEADLINE, || {
        pane(&session).contains("Run this command?")
    });
    session.person_presses("y");
    session.wait_card("answered in the terminal", |other| {
        other["id"] == card["id"] && other["state"] == "answered_in_terminal"
    });
    session.answer(&card, "accept").assert_code(11);
    session.assert_keys(&["y"]);
    session.stop_and_check();
}

#[test]
fn a_burst_of_keys_is_dropped_by_the_fake_as_by_cursor() {
    let session = cursor_session(|_| json!([call("toolu_01", "touch burst.txt")]));
    wait_pending(&session, "toolu_01", "touch burst.txt");
    wait_until("the box", DEADLINE, || {
        pane(&session).contains("Run this command?")
    });
    // Escape and Enter in one send: one read, dropped whole.
    press_together(&session, &["Escape", "Enter"]);
    session.assert_keys(&["dropped:2"]);
    assert!(
        pane(&session).contains("Run this command?"),
        "the box stays"
    );
    session.stop_and_check();
}

#[test]
fn a_box_that_names_another_command_is_not_typed_into() {
    let session = cursor_session(
        |_| json!([{"id": "toolu_01", "command": "touch stored.txt", "shown": "touch other.txt"}]),
    );
    // The box asks another command than the store: the store's card
    // fails, and nothing is typed for it.
    let failed = session.wait_card("failed", |card| {
        card["title"] == "touch stored.txt" && card["state"] == "delivery_failed"
    });
    assert_eq!(failed["refused"]["code"], "not_announced", "{failed}");
    session.answer(&failed, "accept").assert_code(11);
    assert!(
        session.keys().is_empty(),
        "no key sent: {:?}",
        session.keys()
    );
    assert!(!session.env.project.join("stored.txt").exists());
    assert!(!session.env.project.join("other.txt").exists());
    session.stop_and_check();
}

#[test]
fn a_box_oneworks_does_not_read_is_left_to_the_terminal() {
    let session = cursor_session(
        |_| json!([{"id": "toolu_01", "command": "rm notes.txt", "kind": "delete"}]),
    );
    let card = wait_pending(&session, "toolu_01", "rm notes.txt");
    wait_until("the delete box", DEADLINE, || {
        pane(&session).contains("Delete this file?")
    });
    session.answer(&card, "accept").assert_code(11);
    let failed = session.wait_card("failed", |other| {
        other["id"] == card["id"] && other["state"] == "delivery_failed"
    });
    assert_eq!(failed["refused"]["code"], "not_recognised", "{failed}");
    assert!(
        session.keys().is_empty(),
        "no key sent: {:?}",
        session.keys()
    );
    session.stop_and_check();
}

/// Re-adoption for a chat-store signal: a supervisor killed with a call
/// waiting loses nothing. The next command re-adopts the agent (same
/// pane), reads the same store again, and the call's card comes back
/// under the same id; accepting it types `y` and the command runs.
#[test]
fn a_killed_supervisor_is_replaced_and_the_stores_card_comes_back() {
    let session = cursor_session(|_| json!([call("toolu_01", "touch adopted.txt")]));
    let card = wait_pending(&session, "toolu_01", "touch adopted.txt");
    let pids = session.pids();
    crate::support::signal(pids[0], "-KILL");
    wait_until("the supervisor is gone", DEADLINE, || {
        !crate::support::alive(pids[0])
    });
    let back = wait_pending(&session, "toolu_01", "touch adopted.txt");
    assert_eq!(back["id"], card["id"]);
    let record = session.record().expect("record");
    assert_ne!(record["pid"], pids[0], "{record}");
    assert_eq!(
        record["panePid"], pids[2],
        "the agent was started again: {record}"
    );
    session.answer(&back, "accept").assert_success();
    session.assert_keys(&["y"]);
    let ran = session.env.project.join("adopted.txt");
    wait_until("the accepted command ran", DEADLINE, || ran.exists());
    session.stop_and_check();
}
