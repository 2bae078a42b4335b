//! The agent's own hook as an approval signal, through the
//! binary on real tmux: the fake `kiro-cli chat --tui`, given adapter data
//! with `tui.signals.hook`, runs the hook the profile registered in its
//! agent file (`sh -c`, the payload on stdin, waited for — as Qwen Code
//! and Gemini CLI do) right before it draws its box. The card takes its id
//! and text from the hook; the pane attaches it; the bridge still checks
//! the box before every key.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::session::supervisor::{Session, DEADLINE};
use crate::support::fake::{install_fake, kiro_script, with};

const SIGNALS: &str = "  signals:
    hook:
      event: PermissionRequest
      require: {/hook_event_name: PermissionRequest}
      agentId: [/session_id, /tool_name, /tool_input]
      text: [/tool_input/command, /tool_input]
      tool: /tool_name
      cwd: /cwd
";

/// A payload shaped like Claude Code's `PermissionRequest`.
fn payload(command: &str) -> Value {
    json!({
        "session_id": "agent-session-1",
        "transcript_path": "/nowhere.jsonl",
        "cwd": "/work/project",
        "permission_mode": "default",
        "hook_event_name": "PermissionRequest",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "a probe"},
    })
}

/// The card id the hook's payload must give: `<adapter>_<session>_` and
/// the digest of the agent's own id (session, tool, input).
fn card_id_of(payload: &Value) -> String {
    let parts = [
        &payload["session_id"],
        &payload["tool_name"],
        &payload["tool_input"],
    ];
    let agent_id = hex::encode(Sha256::digest(
        serde_json::to_string(&parts).expect("json").as_bytes(),
    ));
    let digest = hex::encode(&Sha256::digest(agent_id.as_bytes())[..8]);
    format!("kiro_default_{digest}")
}

/// A session whose Kiro writes no recorder (the pane is read) and whose
/// adapter data has the hook signal; the box shows `touch probe.txt`,
/// the hook says `hook_command`.
fn session(hook_command: &str) -> (Session, PathBuf) {
    let hook_log = std::env::temp_dir().join(format!(
        "oneworks-hook-{}-{}.log",
        std::process::id(),
        hook_command.len()
    ));
    let _ = std::fs::remove_file(&hook_log);
    let log = hook_log.clone();
    let hook = payload(hook_command);
    let session = Session::new(move |_| {
        json!({"requests": [{
            "id": "r1",
            "title": "Running: touch probe.txt",
            "toolLine": "touch probe.txt",
            "trust": false,
            "hook": {"agent": "oneworks", "event": "PermissionRequest", "payload": hook, "log": log},
        }]})
    });
    // The same fake, reporting a version before the recorder (2.4).
    let script: Value = serde_json::from_slice(
        &std::fs::read(session.env.bin.join("kiro-cli.script.json")).expect("script"),
    )
    .expect("script json");
    let old = with(
        &script,
        "versionOutput",
        kiro_script("2.3.0")["versionOutput"].clone(),
    );
    install_fake(&session.env.bin, "kiro-cli", &old);
    let adapter = session.env.base().join("kiro-fast.yaml");
    let mut data = std::fs::read_to_string(&adapter).expect("adapter file");
    assert!(data.ends_with("  height: 50\n"), "tui is the last section");
    data.push_str(SIGNALS);
    std::fs::write(&adapter, data).expect("write adapter file");
    (session, hook_log)
}

#[test]
fn a_card_answered_before_its_box_is_drawn_takes_that_box() {
    // The hook's card is answered at once (a webhook, a person watching)
    // and the box comes later: the box on screen is that card's, never a
    // second card (which then read `answered_in_terminal`).
    let (mut session, log) = session("touch probe.txt");
    let draw = session.marker("draw");
    let script_path = session.env.bin.join("kiro-cli.script.json");
    let mut script: Value =
        serde_json::from_slice(&std::fs::read(&script_path).expect("script")).expect("json");
    script["tui"]["requests"][0]["hook"]["thenWaitFor"] = json!(draw);
    install_fake(&session.env.bin, "kiro-cli", &script);
    // The bridge holds the box up a while before its Enter: the watcher
    // sees it while the card is `delivering`.
    let adapter = session.env.base().join("kiro-fast.yaml");
    let data = std::fs::read_to_string(&adapter).expect("adapter file");
    let slow = data.replace("settleMs: 60", "settleMs: 1500");
    assert_ne!(slow, data, "the settle setting moved");
    std::fs::write(&adapter, slow).expect("write adapter file");
    session.env.set_env("RUST_LOG", "info");
    session.start();
    let card = session.pending_card();
    let id = card["id"].as_str().expect("id").to_owned();
    let answer = session
        .env
        .oneworks()
        .args(["session", "answer", &session.name, &id, "accept"])
        .start();
    session.wait_card("delivering", |other| {
        other["id"] == card["id"] && other["state"] == "delivering"
    });
    session.touch("draw");
    answer.wait().assert_success();
    session.assert_keys(&["Enter"]);
    let supervisor_log =
        std::fs::read_to_string(session.session_root().join("supervisor.log")).unwrap_or_default();
    assert!(
        supervisor_log.contains(&format!("card `{id}`: its box is on screen")),
        "{supervisor_log}"
    );
    let cards = session.cards();
    assert_eq!(cards.len(), 1, "{cards:?}");
    assert_eq!(cards[0]["state"], "delivered", "{cards:?}");
    let _ = std::fs::remove_file(&log);
    session.stop_and_check();
}

/// The hook runs the fake logged: each exited 0 and printed nothing.
#[track_caller]
fn hook_runs(log: &Path) -> Vec<Value> {
    crate::support::wait::wait_for("the fake ran its hook", DEADLINE, || {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let runs: Vec<Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).expect("hook log line"))
            .collect();
        if runs.is_empty() {
            Err(String::new())
        } else {
            Ok(runs)
        }
    })
}

#[test]
fn the_hook_makes_the_card_and_the_pane_attaches_it() {
    let (mut session, log) = session("touch probe.txt");
    // The supervisor says when the pane attached the card.
    session.env.set_env("RUST_LOG", "info");
    session.start();
    let card = session.pending_card();
    let supervisor_log = session.session_root().join("supervisor.log");
    assert_eq!(
        card["id"],
        card_id_of(&payload("touch probe.txt")),
        "{:?}\n{}",
        session.cards(),
        std::fs::read_to_string(&supervisor_log).unwrap_or_default()
    );
    assert_eq!(card["title"], "touch probe.txt");
    assert_eq!(card["kind"], "Bash");
    assert_eq!(card["cwd"], "/work/project");
    let runs = hook_runs(&log);
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["exit"], 0, "{runs:?}");
    assert_eq!(runs[0]["stdout"], "", "the hook decides nothing");
    assert_eq!(runs[0]["stderr"], "");
    assert!(
        runs[0]["command"]
            .as_str()
            .is_some_and(|command| command.ends_with("' session hook")),
        "{runs:?}"
    );

    // A person answers at the terminal: the pane attached the hook's card
    // (no card of its own), so its box vanishing resolves it.
    let on_screen = format!(
        "card `{}`: its box is on screen",
        card["id"].as_str().expect("id")
    );
    crate::support::wait::wait_until("the pane attached the card", DEADLINE, || {
        std::fs::read_to_string(&supervisor_log)
            .unwrap_or_default()
            .contains(&on_screen)
    });
    session.person_presses("Escape");
    session.wait_card("answered in the terminal", |other| {
        other["id"] == card["id"] && other["state"] == "answered_in_terminal"
    });
    assert_eq!(session.cards().len(), 1, "{:?}", session.cards());
    session.stop_and_check();
    let _ = std::fs::remove_file(&log);
}

#[test]
fn a_hook_card_is_answered_through_the_verified_box() {
    let (session, log) = session("touch probe.txt");
    session.start();
    let card = session.pending_card();
    assert_eq!(card["title"], "touch probe.txt");
    session.answer(&card, "decline").assert_success();
    session.assert_keys(&["Down", "Enter"]);
    session.wait_card("delivered", |other| {
        other["id"] == card["id"] && other["state"] == "delivered"
    });
    let _ = std::fs::remove_file(&log);
    session.stop_and_check();
}

#[test]
fn a_hook_that_names_another_command_gets_no_key() {
    // Another local process (or a confused agent) signals `touch other`
    // while the box asks for `touch probe.txt`.
    let (session, log) = session("touch other.txt");
    session.start();
    let forged = session.wait_card("from the hook", |card| card["title"] == "touch other.txt");
    // The pane makes its own card for the box it shows.
    let shown = session.wait_card("from the pane", |card| card["title"] == "touch probe.txt");
    assert_ne!(forged["id"], shown["id"]);
    // The hook's card cannot be this box's: it failed, naming why.
    let failed = session.wait_card("failed", |card| {
        card["id"] == forged["id"] && card["state"] == "delivery_failed"
    });
    assert_eq!(failed["refused"]["code"], "not_announced", "{failed}");
    assert_eq!(failed["refused"]["message"], failed["reason"], "{failed}");
    let outcome = session.answer(&forged, "accept");
    outcome.assert_code(11);
    assert!(outcome.stderr.contains("no longer pending"), "{outcome:?}");
    assert!(session.keys().is_empty(), "no key reached the box");
    let _ = std::fs::remove_file(&log);
    session.stop_and_check();
}

/// Signal → card: from just before `oneworks session hook` starts to the
/// card arriving on an approvals watch, over 50 hooks (each a new
/// command). Prints p50/p95; the bound is loose for a loaded CI machine
/// (the target, 20 ms, is checked by `benches/session.sh`).
#[test]
fn signal_to_card_latency() {
    let (session, log) = session("touch probe.txt");
    session.start();
    session.pending_card();
    let runtime = session.runtime();
    let mut watch = UnixStream::connect(runtime.join("approvals.sock")).expect("connect");
    watch.write_all(b"{\"op\":\"watch\"}\n").expect("watch");
    watch
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let mut lines = BufReader::new(watch.try_clone().expect("clone"));
    let (mut latencies, mut hook_times) = (Vec::new(), Vec::new());
    for round in 0..50 {
        let command = format!("echo round-{round}");
        let start = Instant::now();
        // A raw command: the hook runs as the agent runs it, with the
        // signal socket its only variable.
        let mut hook = Command::new(crate::support::ONEWORKS)
            .args(["session", "hook"])
            .env_clear()
            .env("ONEWORKS_SESSION_SIGNALS", runtime.join("signals.sock"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run the hook");
        hook.stdin
            .take()
            .expect("stdin")
            .write_all(payload(&command).to_string().as_bytes())
            .expect("payload");
        let output = hook.wait_with_output().expect("hook");
        hook_times.push(start.elapsed());
        assert!(output.status.success());
        assert!(output.stdout.is_empty() && output.stderr.is_empty());
        loop {
            let mut line = String::new();
            lines.read_line(&mut line).expect("a watch line");
            let card: Value = serde_json::from_str(&line).expect("json");
            if card["title"] == command.as_str() {
                break;
            }
        }
        latencies.push(start.elapsed());
    }
    let p = |times: &mut Vec<Duration>, q: f64| {
        times.sort();
        times[((times.len() as f64 * q).ceil() as usize).saturating_sub(1)]
    };
    let (card50, card95) = (p(&mut latencies, 0.5), p(&mut latencies, 0.95));
    let (hook50, hook95) = (p(&mut hook_times, 0.5), p(&mut hook_times, 0.95));
    println!(
        "signal → card over 50 hooks: p50 {card50:?}, p95 {card95:?}; the hook process alone: p50 {hook50:?}, p95 {hook95:?}"
    );
    assert!(card95 < Duration::from_millis(250), "p95 {card95:?}");
    let _ = std::fs::remove_file(&log);
    session.stop_and_check();
}
