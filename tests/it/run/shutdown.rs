//! How a structured run ends (Cancel and Shutdown): a cancel is
//! reported as the agent confirmed it or not; the agent is stopped within
//! the adapter's grace, its whole process group with it; an interrupt
//! while it is being stopped kills it at once; and a terminal prompt still
//! open when the run ends leaves the terminal as it found it.

use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::run::acp_env::{gone, options_full, AcpEnv, EVENT_DEADLINE};
use crate::support::adapter_yaml::AdapterYaml;

/// Waits until `check` holds, within the deadline of an agent's event.
#[track_caller]
fn wait_until(what: &str, check: impl FnMut() -> bool) {
    crate::support::wait::wait_until(what, EVENT_DEADLINE, check);
}

/// The fake agent with `acp`, and the adapter's data with these timings
/// (`acp.cancelGraceSeconds`, `acp.stopGraceMs`).
fn agent(acp: Value, cancel_grace_seconds: u64, stop_grace_ms: u64) -> AcpEnv {
    let mut env = AcpEnv::new(acp);
    timings(&mut env, cancel_grace_seconds, stop_grace_ms);
    env
}

/// An agent whose script names files of its own world: `acp(outside)`.
fn agent_with(
    acp: impl FnOnce(&std::path::Path) -> Value,
    cancel_grace_seconds: u64,
    stop_grace_ms: u64,
) -> AcpEnv {
    let mut env = AcpEnv::new(json!({}));
    env.script(acp(&env.env.outside));
    timings(&mut env, cancel_grace_seconds, stop_grace_ms);
    env
}

fn timings(env: &mut AcpEnv, cancel_grace_seconds: u64, stop_grace_ms: u64) {
    let file = env.env.outside.join("kiro.yaml");
    AdapterYaml::builtin("kiro")
        .set("acp.cancelGraceSeconds", cancel_grace_seconds)
        .set("acp.stopGraceMs", stop_grace_ms)
        .write(&file);
    env.env
        .set_env("ONEWORKS_KIRO_ADAPTER_FILE", file.to_str().expect("utf-8"));
}

/// Where the agent's held child writes its pid.
fn held(outside: &std::path::Path) -> std::path::PathBuf {
    outside.join("held.pid")
}

fn interrupt(pid: u32) {
    let status = Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
}

fn turn_ends(seen: &[Value]) -> Vec<Value> {
    seen.iter()
        .filter(|event| event["type"] == "turn_end")
        .cloned()
        .collect()
}

fn read_pid(path: &std::path::Path) -> u32 {
    std::fs::read_to_string(path)
        .expect("a pid file")
        .trim()
        .parse()
        .expect("a pid")
}

// --- Item 9: a cancel is reported as the agent confirmed it, or not --------

#[test]
fn a_cancel_the_agent_confirms_is_a_plain_cancelled_turn_end() {
    let acp = agent(
        json!({"turn": [{"text": "working"}, "waitForCancel"]}),
        10,
        2000,
    );
    let mut live = acp.live(&["--prompt", "Say hello", "--json"]);
    live.expect("agent_message_chunk");
    interrupt(live.pid());
    let (code, seen, stderr) = live.finish();
    assert_eq!(code, Some(130), "{stderr}");
    assert_eq!(
        turn_ends(&seen),
        [json!({"type": "turn_end", "stopReason": "cancelled"})]
    );
}

#[test]
fn a_cancel_the_agent_ignores_is_reported_unconfirmed() {
    // The agent reads `session/cancel` and does nothing; the cancel grace
    // (1 s here) runs out and the agent is stopped.
    let acp = agent(json!({"turn": [{"text": "working"}, "stall"]}), 1, 100);
    let mut live = acp.live(&["--prompt", "Say hello", "--json"]);
    live.expect("agent_message_chunk");
    interrupt(live.pid());
    let (code, seen, stderr) = live.finish();
    assert_eq!(code, Some(130), "{stderr}");
    assert_eq!(
        turn_ends(&seen),
        [json!({"type": "turn_end", "stopReason": "cancelled", "confirmed": false})]
    );
    assert_eq!(acp.sent("session/cancel").len(), 1);

    // Human mode says so too.
    let _ = std::fs::remove_file(acp.pid_file());
    let running = acp.oneworks(&["--prompt", "Say hello"]).start();
    wait_until("the second prompt reached the agent", || {
        acp.sent("session/prompt").len() == 2
    });
    interrupt(running.pid());
    let outcome = running.wait();
    outcome.assert_code(130);
    assert!(
        outcome
            .stderr
            .contains("turn ended: cancelled (the agent did not confirm; it was stopped)"),
        "{}",
        outcome.describe()
    );
    assert!(gone(acp.agent_pid()));
}

#[test]
fn an_agent_that_dies_during_a_cancel_is_an_unconfirmed_cancel() {
    // The agent takes the `cancelled` answer to its question and crashes
    // before it answers `session/cancel`.
    let acp = agent(
        json!({"turn": [
            {"permission": {"id": "p1", "title": "Run ls", "kind": "execute", "options": options_full()}},
            {"crash": {"stderr": "boom", "code": 3}}
        ]}),
        10,
        2000,
    );
    let mut live = acp.live(&["--prompt", "Say hello", "--json"]);
    live.expect("permission_request");
    interrupt(live.pid());
    let (code, seen, stderr) = live.finish();
    assert_eq!(code, Some(130), "{stderr}");
    assert_eq!(
        turn_ends(&seen),
        [json!({"type": "turn_end", "stopReason": "cancelled", "confirmed": false})]
    );
    assert!(
        !seen.iter().any(|event| event["type"] == "error"),
        "{seen:#?}"
    );
}

// --- Item 10: the stop grace is the adapter's data; the group goes --------

#[test]
fn an_agent_that_exits_on_eof_is_not_waited_for() {
    // A grace of a minute: the run still ends as soon as the agent does.
    let acp = agent(json!({}), 10, 60_000);
    let started = Instant::now();
    acp.run(&["--prompt", "Say hello", "--json"])
        .assert_success();
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn an_agent_still_running_after_eof_gets_the_adapters_grace_then_sigterm() {
    // A grace longer than the old fixed 2 s is waited out in full…
    let acp = agent(json!({"stayAfterEof": true}), 10, 4_000);
    let mut live = acp.live(&["--prompt", "Say hello", "--json"]);
    live.expect("turn_end");
    let turn_end = Instant::now();
    let (code, _, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");
    // Measured from the moment this test read `turn_end`, which comes a
    // little after oneworks closed the agent's stdin and started the grace
    // (3.99 s was seen once on a loaded machine): a margin, still far from
    // the old fixed 2 s.
    assert!(
        turn_end.elapsed() >= Duration::from_millis(3_500),
        "SIGTERM came before the grace: {:?}",
        turn_end.elapsed()
    );
    // …and a short one is not padded to it (SIGTERM ends this agent).
    let acp = agent(json!({"stayAfterEof": true}), 10, 100);
    let mut live = acp.live(&["--prompt", "Say hello", "--json"]);
    live.expect("turn_end");
    let turn_end = Instant::now();
    let (code, _, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        turn_end.elapsed() < Duration::from_millis(1_900),
        "{:?}",
        turn_end.elapsed()
    );
}

#[test]
fn the_whole_process_group_is_stopped_even_when_it_ignores_sigterm() {
    // The agent ignores SIGTERM and stays after EOF; its child (a relaunch)
    // ignores SIGTERM too and holds on.
    let acp = agent_with(
        |outside| json!({"ignoreSigterm": true, "stayAfterEof": true, "heldChildPidFile": held(outside)}),
        10,
        100,
    );
    let outcome = acp.run(&["--prompt", "Say hello", "--json"]);
    outcome.assert_success();
    let child = read_pid(&held(&acp.env.outside));
    assert!(gone(acp.agent_pid()), "the agent outlived the run");
    assert!(gone(child), "the agent's child {child} outlived the run");
}

#[test]
fn the_group_goes_when_the_agent_itself_exits_on_eof() {
    // The leader exits at once; its child would hold on.
    let acp = agent_with(
        |outside| json!({"heldChildPidFile": held(outside)}),
        10,
        60_000,
    );
    acp.run(&["--prompt", "Say hello", "--json"])
        .assert_success();
    let child = read_pid(&held(&acp.env.outside));
    assert!(gone(child), "the agent's child {child} outlived the run");
}

// --- Item 15: an interrupt during the stop phase kills at once ------------

/// An agent deaf to `session/cancel`, SIGTERM and EOF, with a child just as
/// stubborn; a one-minute stop grace.
fn stubborn_agent(turn: Value, cancel_grace_seconds: u64) -> AcpEnv {
    agent_with(
        |outside| {
            json!({
                "turn": turn,
                "ignoreSigterm": true, "stayAfterEof": true, "heldChildPidFile": held(outside)
            })
        },
        cancel_grace_seconds,
        60_000,
    )
}

#[test]
fn a_second_interrupt_during_the_stop_kills_the_group_at_once() {
    let acp = stubborn_agent(json!([{"text": "working"}, "stall"]), 1);
    let mut live = acp.live(&["--prompt", "Say hello", "--json"]);
    live.expect("agent_message_chunk");
    interrupt(live.pid());
    // The cancel grace ran out: the turn is over, the stop phase begins.
    let end = live.expect("turn_end");
    assert_eq!(end["confirmed"], false);
    let agent = acp.agent_pid();
    let child = read_pid(&held(&acp.env.outside));
    let second = Instant::now();
    interrupt(live.pid());
    let (code, _, stderr) = live.finish();
    assert_eq!(code, Some(130), "{stderr}");
    // Not the grace (60 s), nor the old fixed stop (2 s + 3 s).
    assert!(
        second.elapsed() < Duration::from_secs(3),
        "{:?}",
        second.elapsed()
    );
    assert!(gone(agent), "the agent {agent} outlived the run");
    assert!(gone(child), "the agent's child {child} outlived the run");
}

#[test]
fn an_interrupt_while_a_finished_turn_waits_for_the_agent_kills_at_once() {
    let acp = stubborn_agent(json!([{"text": "done"}]), 10);
    let mut live = acp.live(&["--prompt", "Say hello", "--json"]);
    let end = live.expect("turn_end");
    assert_eq!(end["stopReason"], "end_turn");
    let child = read_pid(&held(&acp.env.outside));
    let started = Instant::now();
    interrupt(live.pid());
    let (code, _, stderr) = live.finish();
    assert_eq!(code, Some(130), "{stderr}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert!(gone(child), "the agent's child {child} outlived the run");
}

// --- Item 14: the terminal is restored while a prompt is open -------------

/// `oneworks ARGS…` on a pseudo-terminal (util-linux `script`), followed
/// by `stty -a` on the same terminal once oneworks has exited.
struct OnTerminal {
    child: std::process::Child,
    output: Arc<Mutex<Vec<u8>>>,
}

impl OnTerminal {
    fn start(acp: &AcpEnv, args: &[&str]) -> OnTerminal {
        let oneworks = crate::support::oneworks_line(&[&["run", "kiro"][..], args].concat());
        let line = format!("{oneworks}; echo \"oneworks-exit=$?\"; stty -a");
        let mut child = acp.env.shell(&line).terminal().stderr_null().spawn();
        let output = crate::support::capture_stdout(&mut child);
        OnTerminal { child, output }
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.output.lock().expect("lock")).into_owned()
    }

    fn wait_for_prompt(&self) {
        wait_until("the permission prompt on the terminal", || {
            self.text().contains("允许一次")
        });
    }

    /// Waits for the end; oneworks' exit code and what `stty -a` said.
    fn finish(mut self) -> (Option<i32>, String) {
        let output = &self.output;
        crate::support::wait::wait_exit(
            "the terminal run finished",
            crate::support::RUN_DEADLINE,
            &mut self.child,
            || String::from_utf8_lossy(&output.lock().expect("lock")).into_owned(),
        );
        wait_until("the output of `stty -a`", || self.text().contains("icanon"));
        let text = self.text();
        let code = text
            .split("oneworks-exit=")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|code| code.parse().ok());
        (code, text)
    }
}

/// `stty -a` shows echo and canonical mode on.
#[track_caller]
fn assert_terminal_restored(text: &str) {
    let stty = text.split("oneworks-exit=").nth(1).unwrap_or(text);
    let flags: Vec<&str> = stty
        .split(|c: char| c.is_whitespace() || c == ';')
        .collect();
    for flag in ["echo", "icanon"] {
        assert!(
            flags.contains(&flag) && !flags.contains(&format!("-{flag}").as_str()),
            "`{flag}` is off after the run:\n{text}"
        );
    }
}

/// The agent asks a question and, without waiting for the answer, goes on
/// with `then` (after the test creates the `go` file).
fn question_then(then: Value) -> (AcpEnv, std::path::PathBuf) {
    let acp = AcpEnv::new(json!({}));
    let go = acp.env.outside.join("go");
    acp.script(json!({"turn": [
        {"askPermission": {"id": "p1", "title": "Run ls", "kind": "execute", "options": options_full()}},
        {"waitForFile": go},
        then
    ]}));
    (acp, go)
}

#[test]
fn an_agent_crash_during_a_terminal_prompt_restores_the_terminal() {
    let (acp, go) = question_then(json!({"crash": {"stderr": "boom", "code": 3}}));
    let terminal = OnTerminal::start(&acp, &["--prompt", "Say hello"]);
    terminal.wait_for_prompt();
    std::fs::write(&go, "").expect("go");
    let (code, text) = terminal.finish();
    assert_eq!(code, Some(9), "{text}");
    assert_terminal_restored(&text);
}

#[test]
fn a_turn_that_ends_during_a_terminal_prompt_restores_the_terminal() {
    let (acp, go) = question_then(json!({"text": "done"}));
    let terminal = OnTerminal::start(&acp, &["--prompt", "Say hello"]);
    terminal.wait_for_prompt();
    std::fs::write(&go, "").expect("go");
    let (code, text) = terminal.finish();
    assert_eq!(code, Some(0), "{text}");
    assert_terminal_restored(&text);
}

#[test]
fn a_cancel_during_a_terminal_prompt_restores_the_terminal() {
    let acp = AcpEnv::new(json!({"turn": [
        {"askPermission": {"id": "p1", "title": "Run ls", "kind": "execute", "options": options_full()}},
        "waitForCancel"
    ]}));
    let terminal = OnTerminal::start(&acp, &["--prompt", "Say hello"]);
    terminal.wait_for_prompt();
    // oneworks is the agent's parent.
    let status =
        std::fs::read_to_string(format!("/proc/{}/status", acp.agent_pid())).expect("agent status");
    let oneworks: u32 = status
        .lines()
        .find_map(|line| line.strip_prefix("PPid:"))
        .and_then(|pid| pid.trim().parse().ok())
        .expect("PPid");
    interrupt(oneworks);
    let (code, text) = terminal.finish();
    assert_eq!(code, Some(130), "{text}");
    assert_terminal_restored(&text);
}

#[test]
fn a_timeout_during_a_terminal_prompt_restores_the_terminal() {
    let acp = AcpEnv::new(json!({"turn": [
        {"askPermission": {"id": "p1", "title": "Run ls", "kind": "execute", "options": options_full()}},
        "waitForCancel"
    ]}));
    let terminal = OnTerminal::start(&acp, &["--prompt", "Say hello", "--timeout", "3s"]);
    // The prompt was open when the timeout struck (else it never shows).
    terminal.wait_for_prompt();
    let (code, text) = terminal.finish();
    assert_eq!(code, Some(9), "{text}");
    assert!(text.contains("--timeout 3s"), "{text}");
    assert_terminal_restored(&text);
}
