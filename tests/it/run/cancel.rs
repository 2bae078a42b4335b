//! How a run is cut short: a cancel on the JSON channel,
//! SIGINT, a second interrupt, SIGTERM, `--timeout` (echoed as written), a
//! closed stdout, an agent that crashes or closes its stdout mid-turn —
//! each with the exit code it owes and no agent left behind.

use serde_json::{json, Value};

use super::{answer_and_cancel_positions, args};
use crate::run::acp_env::{events, gone, options_full, types, AcpEnv, SetupError};
use crate::support::wait::wait_until;

#[test]
fn cancel_on_the_json_channel_answers_pending_questions_first() {
    let acp = AcpEnv::new(json!({
        "turn": [
            {"permission": {"id": "p1", "title": "Run ls", "kind": "execute", "options": options_full()}},
            "waitForCancel"
        ]
    }));
    let mut live = acp.live(&args(&["--json"]));
    live.expect("permission_request");
    live.send(r#"{"cancel":true}"#);
    let resolved = live.expect("permission_resolved");
    assert_eq!(resolved["by"], "cancel");
    assert_eq!(resolved["optionId"], Value::Null);
    let end = live.expect("turn_end");
    assert_eq!(end["stopReason"], "cancelled");
    let (code, seen, _) = live.finish();
    assert_eq!(code, Some(130));
    assert_eq!(
        types(&seen)
            .iter()
            .filter(|kind| *kind == "turn_end")
            .count(),
        1
    );
    let (answer, cancel) = answer_and_cancel_positions(&acp, &json!("p1"));
    assert!(
        answer < cancel,
        "the question is answered before session/cancel"
    );
    assert_eq!(
        acp.sent("session/cancel")[0]["params"]["sessionId"],
        "fake-session-1"
    );
}

#[test]
fn sigint_runs_the_cancel_sequence_and_leaves_no_agent_behind() {
    let acp = AcpEnv::new(json!({
        "turn": [
            {"permission": {"id": 11, "title": "Run ls", "kind": "execute", "options": options_full()}},
            "waitForCancel"
        ]
    }));
    let mut live = acp.live(&args(&["--json"]));
    live.expect("permission_request");
    let agent = acp.agent_pid();
    let status = std::process::Command::new("kill")
        .args(["-INT", &live.pid().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let (code, seen, stderr) = live.finish();
    assert_eq!(code, Some(130), "{stderr}");
    assert!(types(&seen).contains(&"turn_end".to_owned()), "{seen:#?}");
    let (answer, cancel) = answer_and_cancel_positions(&acp, &json!(11));
    assert!(answer < cancel);
    assert!(gone(agent), "the agent {agent} still runs");
}

#[test]
fn a_second_interrupt_stops_the_agent_at_once() {
    // The first cancel comes from a signal or from the JSON channel.
    for first_by_signal in [true, false] {
        let acp = AcpEnv::new(json!({}));
        let never = acp.env.outside.join("never-created");
        // The agent takes the cancelled answer, then stops reading: it never
        // sees `session/cancel` and never ends the turn by itself.
        acp.script(json!({
            "turn": [
                {"permission": {"id": "p1", "title": "Run ls", "kind": "execute", "options": options_full()}},
                {"waitForFile": never}
            ]
        }));
        let mut live = acp.live(&args(&["--json"]));
        live.expect("permission_request");
        let agent = acp.agent_pid();
        let pid = live.pid().to_string();
        let interrupt = || {
            let status = std::process::Command::new("kill")
                .args(["-INT", &pid])
                .status()
                .expect("kill");
            assert!(status.success());
        };
        if first_by_signal {
            interrupt();
        } else {
            live.send(r#"{"cancel":true}"#);
        }
        wait_until(
            "the agent received the cancelled answer",
            crate::run::acp_env::EVENT_DEADLINE,
            || acp.received().iter().any(|message| message["id"] == "p1"),
        );
        let started = std::time::Instant::now();
        interrupt();
        let (code, _, stderr) = live.finish();
        assert_eq!(code, Some(130), "{stderr}");
        // Without the second interrupt the run would wait out the cancel
        // grace (10 s) and the polite stop (2 s + 3 s).
        assert!(
            started.elapsed() < std::time::Duration::from_secs(8),
            "{:?}",
            started.elapsed()
        );
        assert!(gone(agent), "the agent {agent} still runs");
    }
}

#[test]
fn sigterm_runs_the_same_cancel_sequence() {
    let acp = AcpEnv::new(json!({
        "turn": [
            {"permission": {"id": "t-1", "title": "Run ls", "kind": "execute", "options": options_full()}},
            "waitForCancel"
        ]
    }));
    let mut live = acp.live(&args(&["--json"]));
    live.expect("permission_request");
    let status = std::process::Command::new("kill")
        .args(["-TERM", &live.pid().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let (code, seen, stderr) = live.finish();
    assert_eq!(code, Some(130), "{stderr}");
    assert_eq!(
        seen.iter()
            .filter(|event| event["type"] == "turn_end")
            .map(|event| event["stopReason"].clone())
            .collect::<Vec<_>>(),
        [json!("cancelled")]
    );
    let (answer, cancel) = answer_and_cancel_positions(&acp, &json!("t-1"));
    assert!(answer < cancel);
    assert!(gone(acp.agent_pid()));
}

#[test]
fn a_timeout_cancels_the_turn_and_fails() {
    let acp = AcpEnv::new(json!({"turn": [{"text": "slow"}, "waitForCancel"]}));
    let outcome = acp.run(&args(&["--json", "--timeout", "1s"]));
    let events = events(&outcome);
    outcome.assert_code(9);
    outcome.assert_stderr_contains("--timeout 1s");
    assert_eq!(acp.sent("session/cancel").len(), 1);
    assert_eq!(
        events
            .iter()
            .filter(|event| event["type"] == "turn_end")
            .count(),
        1
    );
}

/// Item 17: the `--timeout` value is echoed as the user wrote it (`1000ms`,
/// not `1s`) when it cancels a turn and when it cuts the handshake short.
#[test]
fn the_timeout_is_echoed_as_written() {
    let acp = AcpEnv::new(json!({"turn": ["waitForCancel"]}));
    let outcome = acp.run(&["--prompt", "Say hello", "--timeout", "1000ms"]);
    outcome.assert_code(9);
    outcome.assert_stderr_contains("`--timeout 1000ms`");
    acp.script(json!({"neverAnswer": ["initialize"]}));
    let outcome = acp.run(&["--prompt", "Say hello", "--json", "--timeout", "1000ms"]);
    let message = outcome.assert_setup_error(9, "agent_failed");
    assert!(message.contains("`--timeout 1000ms`"), "{message}");
}

#[test]
fn a_closed_stdout_ends_the_run_quietly_and_stops_the_agent() {
    let acp = AcpEnv::new(json!({"turn": [{"chunks": {"count": 50000, "text": "chunk"}}]}));
    let line = format!(
        "{} run kiro --prompt x --json | head -1; exit ${{PIPESTATUS[0]}}",
        crate::support::shell_quote(crate::support::ONEWORKS)
    );
    let outcome = acp.env.program("bash").args(["-c", &line]).run();
    outcome.assert_success();
    assert_eq!(outcome.stdout.lines().count(), 1, "{}", outcome.describe());
    outcome.assert_stderr_lacks("panicked");
    assert!(gone(acp.agent_pid()));
}

#[test]
fn an_agent_crash_mid_turn_is_exit_9_with_its_stderr_tail() {
    let acp = AcpEnv::new(json!({
        "turn": [{"text": "working"}, {"crash": {"stderr": "thread main panicked: out of tokens", "code": 3}}]
    }));
    let outcome = acp.run(&args(&["--json"]));
    outcome.assert_code(9);
    outcome.assert_stderr_contains("out of tokens");
    outcome.assert_stderr_contains("mid-turn");
    let events = events(&outcome);
    assert!(types(&events).contains(&"error".to_owned()));
    assert_eq!(events.last().expect("doc")["error"]["kind"], "agent_failed");
    assert!(gone(acp.agent_pid()));
}

#[test]
fn eof_mid_turn_is_exit_9_not_a_hang() {
    // The agent closes its stdout but keeps running; and one that exits 0.
    for step in [
        json!("closeStdout"),
        json!({"crash": {"stderr": "", "code": 0}}),
    ] {
        let acp = AcpEnv::new(json!({"turn": [{"text": "partial"}, step]}));
        let outcome = acp.run(&args(&["--json"]));
        outcome.assert_code(9);
        outcome.assert_stderr_contains("mid-turn");
        assert!(gone(acp.agent_pid()));
    }
}
