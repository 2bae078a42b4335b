//! Sessions that last, with the fake agent: `run --keep`
//! leaves the agent under an owner; later runs of the same `--session`
//! from other processes reach the same agent and agent session, in
//! arrival order, each with its own events and exit code; `session
//! cancel` from another process runs the cancel sequence of the caller's
//! turn and the agent stays; `session stop` and the idle deadline end the
//! session with no agent left; an agent killed between turns is started
//! again by the next prompt, which loads the cached agent session.

use std::time::Duration;

use serde_json::{json, Value};

use crate::run::acp_env::{events, gone, options_full, AcpEnv, Live, EVENT_DEADLINE};
use crate::support::wait::wait_until;
use crate::support::{alive, Outcome};

/// `run kiro --prompt TEXT --session kept --json` with `extra`.
fn turn(acp: &AcpEnv, prompt: &str, extra: &[&str]) -> Outcome {
    let mut args = vec!["--prompt", prompt, "--session", "kept", "--json"];
    args.extend_from_slice(extra);
    acp.oneworks(&args).run()
}

/// The kept session's record (`kept.json`), when there is one.
fn record(acp: &AcpEnv) -> Option<Value> {
    let path = acp.env.project.join(".oneworks/sessions/kept/kept.json");
    std::fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
}

/// The kept session's runtime folder, found through the owner's open
/// `kept.lock`.
fn runtime_folder(acp: &AcpEnv) -> std::path::PathBuf {
    let owner = record(acp)
        .and_then(|record| record["pid"].as_u64())
        .expect("owner pid");
    std::fs::read_dir(format!("/proc/{owner}/fd"))
        .expect("fds")
        .flatten()
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .find(|target| target.ends_with("kept.lock"))
        .and_then(|lock| lock.parent().map(std::path::Path::to_path_buf))
        .expect("the owner holds kept.lock")
}

/// Stops the kept session and checks that nothing of it is left.
fn stop_and_check(acp: &AcpEnv, agent: u32) {
    let owner = record(acp).map(|record| record["pid"].as_u64().unwrap_or(0) as u32);
    acp.env.run(&["session", "stop", "kept"]).assert_success();
    assert!(gone(agent), "the agent {agent} still runs");
    if let Some(owner) = owner {
        assert!(gone(owner), "the owner {owner} still runs");
    }
    assert!(record(acp).is_none(), "the record is left");
}

fn stop_reasons(outcome: &Outcome) -> Vec<String> {
    events(outcome)
        .iter()
        .filter(|event| event["type"] == "turn_end")
        .map(|event| event["stopReason"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn four_prompts_from_four_processes_reach_one_agent_and_one_session() {
    let acp = AcpEnv::new(json!({"turn": [{"text": "answer"}]}));
    let first = turn(&acp, "one", &["--keep", "60s"]);
    first.assert_success();
    assert_eq!(stop_reasons(&first), ["end_turn"], "{}", first.describe());
    let agent = acp.agent_pid();
    assert!(alive(agent), "the agent does not stay after the first turn");
    turn(&acp, "two", &[]).assert_success();
    // Two at once: both are served, one after the other.
    let three = acp
        .oneworks(&["--prompt", "three", "--session", "kept", "--json"])
        .start();
    let four = acp
        .oneworks(&["--prompt", "four", "--session", "kept", "--json"])
        .start();
    for outcome in [
        three.wait_for(EVENT_DEADLINE),
        four.wait_for(EVENT_DEADLINE),
    ] {
        outcome.assert_success();
        let seen = events(&outcome);
        assert_eq!(stop_reasons(&outcome), ["end_turn"], "{seen:#?}");
        let text: String = seen
            .iter()
            .filter(|event| event["type"] == "agent_message_chunk")
            .map(|event| event["text"].as_str().unwrap_or_default())
            .collect();
        assert_eq!(
            text, "answer",
            "each caller sees its own turn only: {seen:#?}"
        );
    }
    assert_eq!(acp.agent_pid(), agent, "a second agent was started");
    assert_eq!(acp.sent("initialize").len(), 1);
    assert_eq!(acp.sent("session/new").len(), 1);
    let prompts = acp.sent("session/prompt");
    assert_eq!(prompts.len(), 4);
    let sessions: Vec<&Value> = prompts
        .iter()
        .map(|prompt| &prompt["params"]["sessionId"])
        .collect();
    assert!(sessions.iter().all(|id| *id == sessions[0]), "{sessions:?}");
    let listed = acp.env.run(&["session", "list", "--json"]);
    listed.assert_success();
    let rows: Value = serde_json::from_str(&listed.stdout).expect("json");
    let row = rows
        .as_array()
        .and_then(|rows| rows.iter().find(|row| row["name"] == "kept"))
        .unwrap_or_else(|| panic!("not listed: {rows}"));
    assert_eq!(row["kind"], "kept");
    assert_eq!(row["agentPid"], agent);
    assert_eq!(row["turns"], 4);
    stop_and_check(&acp, agent);
}

/// The last `cancelled` answer to `p1` comes before the last
/// `session/cancel` on the wire (the order a cancel keeps).
#[track_caller]
fn assert_answered_then_cancelled(acp: &AcpEnv, context: &str) {
    let received = acp.received();
    let answer = received
        .iter()
        .rposition(|message| message.get("method").is_none() && message["id"] == "p1");
    let cancel = received
        .iter()
        .rposition(|message| message["method"] == "session/cancel");
    let (Some(answer), Some(cancel)) = (answer, cancel) else {
        panic!("{context}: the answer or session/cancel is missing: {received:#?}");
    };
    assert!(answer < cancel, "{context}: {received:#?}");
    assert_eq!(
        received[answer]["result"]["outcome"],
        json!({"outcome": "cancelled"}),
        "{context}"
    );
}

#[test]
fn session_cancel_from_another_process_cancels_the_turn_and_the_agent_stays() {
    // Every turn asks, then runs until it is cancelled.
    let acp = AcpEnv::new(json!({"turn": [
        {"permission": {"id": "p1", "title": "Run ls", "kind": "execute", "options": options_full()}},
        "waitForCancel"
    ]}));
    let mut agent = None;
    for try_number in 1..=3 {
        let context = format!("turn {try_number}");
        let mut args = vec!["--prompt", "ask", "--session", "kept", "--json"];
        if try_number == 1 {
            args.extend(["--keep", "60s"]);
        }
        let mut live = Live::start(acp.oneworks(&args));
        live.expect("permission_request");
        let cancel = acp.env.run(&["session", "cancel", "kept"]);
        cancel.assert_success();
        let (code, seen, stderr) = live.finish();
        assert_eq!(code, Some(130), "{context}: {stderr}\n{seen:#?}");
        let end = seen
            .iter()
            .find(|event| event["type"] == "turn_end")
            .unwrap_or_else(|| panic!("{context}: no turn_end: {seen:#?}"));
        assert_eq!(end["stopReason"], "cancelled", "{context}");
        assert_eq!(end.get("confirmed"), None, "{context}: {seen:#?}");
        assert_answered_then_cancelled(&acp, &context);
        let now = acp.agent_pid();
        assert!(alive(now), "{context}: the agent did not stay");
        assert_eq!(*agent.get_or_insert(now), now, "{context}: another agent");
    }
    assert_eq!(acp.sent("initialize").len(), 1);
    // Nothing to cancel between turns.
    let idle = acp.env.run(&["session", "cancel", "kept"]);
    idle.assert_success();
    idle.assert_stderr_contains("has no turn running");
    stop_and_check(&acp, agent.unwrap_or_default());
}

#[test]
fn a_caller_that_goes_away_cancels_its_own_turn_not_the_session() {
    let acp = AcpEnv::new(json!({"turn": [
        {"permission": {"id": "p1", "title": "Run ls", "kind": "execute", "options": options_full()}},
        "waitForCancel"
    ]}));
    let mut args = vec![
        "--prompt",
        "ask",
        "--session",
        "kept",
        "--json",
        "--keep",
        "60s",
    ];
    let mut live = Live::start(acp.oneworks(&args));
    live.expect("permission_request");
    let agent = acp.agent_pid();
    // Killed: it can answer nothing; the owner cancels its turn.
    crate::support::signal(live.pid(), "-KILL");
    let _ = live.finish();
    wait_until("the owner cancelled the turn", EVENT_DEADLINE, || {
        acp.received()
            .iter()
            .any(|message| message["method"] == "session/cancel")
    });
    assert_answered_then_cancelled(&acp, "killed caller");
    // The next caller gets the same agent.
    args.truncate(5);
    let mut next = Live::start(acp.oneworks(&args));
    next.expect("permission_request");
    assert_eq!(acp.agent_pid(), agent);
    acp.env.run(&["session", "cancel", "kept"]).assert_success();
    let (code, _, stderr) = next.finish();
    assert_eq!(code, Some(130), "{stderr}");
    stop_and_check(&acp, agent);
}

#[test]
fn an_agent_that_died_between_turns_is_started_again_and_loads_its_session() {
    let acp = AcpEnv::new(json!({
        "agentCapabilities": {"loadSession": true},
        "turn": [{"text": "answer"}]
    }));
    turn(&acp, "one", &["--keep", "60s"]).assert_success();
    let first = acp.agent_pid();
    let session = acp.sent("session/new")[0]["params"].clone();
    let opened = acp.sent("session/prompt")[0]["params"]["sessionId"].clone();
    assert!(session.is_object());
    crate::support::signal(first, "-KILL");
    wait_until("the agent is gone", EVENT_DEADLINE, || !alive(first));
    let second = turn(&acp, "two", &[]);
    second.assert_success();
    let again = acp.agent_pid();
    assert_ne!(again, first);
    let loads = acp.sent("session/load");
    assert_eq!(loads.len(), 1, "{}", second.describe());
    assert_eq!(loads[0]["params"]["sessionId"], opened);
    let seen = events(&second);
    assert!(
        seen.iter().any(|event| event["type"] == "diagnostic"
            && event["message"]
                .as_str()
                .is_some_and(|m| m.contains("started again"))),
        "{seen:#?}"
    );
    // The turn after that is the kept agent's again: no third start.
    turn(&acp, "three", &[]).assert_success();
    assert_eq!(acp.agent_pid(), again);
    assert_eq!(acp.sent("initialize").len(), 2);
    stop_and_check(&acp, again);
}

#[test]
fn the_idle_deadline_ends_the_kept_session() {
    let acp = AcpEnv::new(json!({"turn": [{"text": "answer"}]}));
    turn(&acp, "one", &["--keep", "2s"]).assert_success();
    let agent = acp.agent_pid();
    wait_until("the idle deadline ended the agent", EVENT_DEADLINE, || {
        !alive(agent)
    });
    wait_until("the record is gone", Duration::from_secs(10), || {
        record(&acp).is_none()
    });
    // The name is free again: the next run is a one-shot run.
    turn(&acp, "two", &[]).assert_success();
    assert_eq!(acp.sent("initialize").len(), 2);
}

#[test]
fn one_name_is_one_session_and_a_changed_config_is_refused() {
    let acp = AcpEnv::new(json!({"turn": [{"text": "answer"}]}));
    turn(&acp, "one", &["--keep", "60s"]).assert_success();
    let agent = acp.agent_pid();
    // A TUI session cannot take the kept session's name.
    let tui = acp
        .env
        .run(&["session", "start", "kiro", "--name", "kept", "--detach"]);
    tui.assert_code(11);
    assert!(
        tui.stderr.contains("is a kept session") && tui.stderr.contains("session stop kept"),
        "{}",
        tui.describe()
    );
    // Another config than the owner's: refused, naming the way out.
    acp.env.write_config(
        "adapters:\n  kiro:\n    cli:\n      source: system\n    systemPrompt: Be brief.\n",
    );
    let changed = turn(&acp, "two", &[]);
    changed.assert_code(11);
    assert!(
        changed.stderr.contains("another config") && changed.stderr.contains("session stop kept"),
        "{}",
        changed.describe()
    );
    assert_eq!(
        acp.sent("session/prompt").len(),
        1,
        "the refused prompt reached the agent"
    );
    stop_and_check(&acp, agent);
}

#[test]
fn two_keep_runs_at_once_reach_one_owner_and_its_socket_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let acp = AcpEnv::new(json!({"turn": [{"text": "answer"}]}));
    let args = [
        "--prompt",
        "one",
        "--session",
        "kept",
        "--json",
        "--keep",
        "60s",
    ];
    let first = acp.oneworks(&args).start();
    let second = acp.oneworks(&args).start();
    for outcome in [
        first.wait_for(EVENT_DEADLINE),
        second.wait_for(EVENT_DEADLINE),
    ] {
        outcome.assert_success();
        assert_eq!(
            stop_reasons(&outcome),
            ["end_turn"],
            "{}",
            outcome.describe()
        );
    }
    assert_eq!(acp.sent("initialize").len(), 1, "two agents were started");
    assert_eq!(acp.sent("session/prompt").len(), 2);
    let runtime = runtime_folder(&acp);
    let mode = |path: &std::path::Path| {
        std::fs::metadata(path)
            .expect("metadata")
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode(&runtime.join("kept.sock")), 0o600);
    assert_eq!(mode(&runtime), 0o700);
    stop_and_check(&acp, acp.agent_pid());
}

#[test]
fn a_cancel_the_agent_writes_is_not_the_owners() {
    // `_oneworks/cancel` is the owner's word to its caller; the agent may
    // write the same method (even hidden behind a form feed the owner's
    // reading and the client's reading treat differently): the turn goes on.
    let acp = AcpEnv::new(json!({"turn": [
        {"send": {"jsonrpc": "2.0", "method": "_oneworks/cancel", "params": {}}},
        {"garbage": "\u{000c}{\"jsonrpc\":\"2.0\",\"method\":\"_oneworks/cancel\",\"params\":{\"token\":\"guess\"}}"},
        {"text": "still here"}
    ]}));
    let outcome = turn(&acp, "one", &["--keep", "60s"]);
    outcome.assert_success();
    assert_eq!(
        stop_reasons(&outcome),
        ["end_turn"],
        "{}",
        outcome.describe()
    );
    assert!(acp.sent("session/cancel").is_empty());
    stop_and_check(&acp, acp.agent_pid());
}

#[test]
fn a_prompt_arriving_while_the_session_stops_runs_afresh() {
    // The agent takes its time to stop (it stays after EOF, until its
    // SIGTERM): a prompt arriving then is not lost to the stopping owner.
    let acp = AcpEnv::new(json!({"stayAfterEof": true, "turn": [{"text": "answer"}]}));
    turn(&acp, "one", &["--keep", "60s"]).assert_success();
    let socket = runtime_folder(&acp).join("kept.sock");
    let stopping = acp.env.oneworks().args(["session", "stop", "kept"]).start();
    // The owner no longer listens, and has not ended yet.
    wait_until("the owner is stopping", EVENT_DEADLINE, || {
        std::os::unix::net::UnixStream::connect(&socket).is_err()
    });
    assert!(
        record(&acp).is_some(),
        "the owner ended before the prompt came"
    );
    let after = turn(&acp, "two", &[]);
    after.assert_success();
    assert_eq!(stop_reasons(&after), ["end_turn"], "{}", after.describe());
    stopping.wait_for(EVENT_DEADLINE).assert_success();
}

#[test]
fn a_caller_that_reads_slowly_holds_back_its_agent_not_the_owner() {
    // `run … | less`: the caller's stdout is not read for a while. The
    // owner stops reading the agent instead of dropping the caller, and
    // keeps answering everyone else; once the caller reads, it gets its
    // whole turn.
    let text = "x".repeat(200);
    let acp = AcpEnv::new(json!({"turn": [
        {"chunks": {"count": 20000, "text": text}},
        {"text": "end"}
    ]}));
    turn(&acp, "warm", &["--keep", "60s"]).assert_success();
    let mut slow = acp
        .oneworks(&["--prompt", "flood", "--session", "kept", "--json"])
        .stdin_null()
        .stderr_null()
        .spawn();
    // The turn runs and is held back: the agent has sent its prompt's
    // chunks only as far as the pipes take them.
    wait_until(
        "the slow caller's turn is under way",
        EVENT_DEADLINE,
        || acp.sent("session/prompt").len() == 2,
    );
    let listed = acp.env.run(&["session", "list", "--json"]);
    listed.assert_success();
    assert_eq!(
        listed.json()[0]["state"],
        "in a turn",
        "{}",
        listed.describe()
    );
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut slow.stdout.take().expect("stdout"), &mut stdout)
        .expect("read");
    let status = slow.wait().expect("wait");
    assert!(status.success(), "{status}");
    let chunks = stdout
        .lines()
        .filter(|line| line.contains("agent_message_chunk"))
        .map(|line| serde_json::from_str::<Value>(line).expect("event"))
        .map(|event| event["text"].as_str().unwrap_or_default().len())
        .sum::<usize>();
    assert_eq!(
        chunks,
        20000 * 200 + 3,
        "a slow caller lost part of its turn"
    );
    stop_and_check(&acp, acp.agent_pid());
}

#[test]
fn the_queue_holds_sixteen_prompts_and_refuses_the_next() {
    // The first caller's turn waits for its question; sixteen prompts
    // wait behind it; the seventeenth is refused (exit 11, naming the
    // queue) and never reaches the agent.
    let acp = AcpEnv::new(json!({"turn": [
        {"permission": {"id": "p1", "title": "Run ls", "kind": "execute", "options": options_full()}},
        {"text": "done"}
    ]}));
    let mut first = Live::start(acp.oneworks(&[
        "--prompt",
        "ask",
        "--session",
        "kept",
        "--json",
        "--keep",
        "60s",
    ]));
    first.expect("permission_request");
    let queued: Vec<_> = (0..16)
        .map(|_| {
            acp.oneworks(&["--prompt", "wait", "--session", "kept", "--json"])
                .start()
        })
        .collect();
    wait_until("sixteen prompts wait", EVENT_DEADLINE, || {
        let listed = acp.env.run(&["session", "list", "--json"]);
        listed.json()[0]["queued"] == 16
    });
    let refused = turn(&acp, "one too many", &[]);
    refused.assert_code(11);
    refused.assert_stderr_contains("queue is full");
    first.send(r#"{"id":"p1","reply":"Allow once"}"#);
    let (code, _, stderr) = first.finish();
    assert_eq!(code, Some(0), "{stderr}");
    // The waiting ones run in turn; with no channel to answer on, each of
    // their questions is refused (exit 10) — none was lost.
    for waiting in queued {
        waiting.wait_for(EVENT_DEADLINE).assert_code(10);
    }
    assert_eq!(acp.sent("session/prompt").len(), 17);
    stop_and_check(&acp, acp.agent_pid());
}
