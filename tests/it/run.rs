//! `oneworks run kiro` (issue 8): the real binary against the fake agent
//! over real stdio. Events, dialects, permissions over the JSON channel,
//! modes, cancel, crashes, gating on capabilities, scrubbing.

use serde_json::{json, Value};

use crate::acp_support::{events, options_full, types, AcpEnv, SetupError};

const PROMPT: &[&str] = &["--prompt", "Say hello"];

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut all: Vec<&str> = PROMPT.to_vec();
    all.extend_from_slice(extra);
    all
}

fn text_of(events: &[Value]) -> String {
    events
        .iter()
        .filter(|event| event["type"] == "agent_message_chunk")
        .filter_map(|event| event["text"].as_str())
        .collect()
}

#[test]
fn a_plain_turn_streams_json_events_and_ends_on_its_stop_reason() {
    let acp = AcpEnv::new(json!({
        "turn": [
            {"text": "Hello, "},
            {"thought": "thinking"},
            {"toolCall": {"id": "t1", "title": "Read README.md", "kind": "read"}},
            {"update": {"sessionUpdate": "plan", "entries": [{"content": "read", "status": "pending", "priority": "high"}]}},
            {"text": "world."}
        ]
    }));
    let outcome = acp.run(&args(&["--json"]));
    outcome.assert_success();
    let events = events(&outcome);
    assert_eq!(
        types(&events),
        [
            "session_started",
            "agent_message_chunk",
            "agent_thought_chunk",
            "tool_call",
            "plan",
            "agent_message_chunk",
            "turn_end"
        ]
    );
    assert_eq!(events[0]["sessionId"], "fake-session-1");
    assert_eq!(events[0]["resumed"], false);
    assert_eq!(events[3]["toolCallId"], "t1");
    assert_eq!(events[3]["kind"], "read");
    assert_eq!(events[6]["stopReason"], "end_turn");
    assert_eq!(text_of(&events), "Hello, world.");

    // On the wire: initialize v1 with our name, a new session in the
    // project, and the prompt as `prompt` (never `content`).
    let initialize = &acp.sent("initialize")[0];
    assert_eq!(initialize["params"]["protocolVersion"], 1);
    assert_eq!(initialize["params"]["clientInfo"]["name"], "oneworks");
    let new = &acp.sent("session/new")[0];
    assert_eq!(new["params"]["cwd"], json!(acp.env.project));
    assert_eq!(new["params"]["mcpServers"], json!([]));
    assert!(new["params"].get("additionalDirectories").is_none());
    let prompt = &acp.sent("session/prompt")[0];
    assert_eq!(
        prompt["params"]["prompt"],
        json!([{"type": "text", "text": "Say hello"}])
    );
    assert!(prompt["params"].get("content").is_none());
    assert_eq!(prompt["params"]["sessionId"], "fake-session-1");
    assert!(acp.sent("session/load").is_empty());
    assert!(gone(acp.agent_pid()), "the agent still runs after the turn");
    let invocations = acp.acp_invocations();
    assert_eq!(invocations.len(), 1);
    assert_eq!(
        invocations[0]["argv"],
        json!(["acp", "--agent", "oneworks"])
    );
}

#[test]
fn human_mode_puts_agent_text_on_stdout_and_the_rest_on_stderr() {
    let acp = AcpEnv::new(json!({
        "turn": [
            {"text": "Hello \u{1b}]0;pwned\u{7}"},
            {"toolCall": {"id": "t1", "title": "Write \u{1b}[2Jnotes.md", "kind": "edit"}},
            {"text": "world"}
        ]
    }));
    let outcome = acp.run(&args(&[]));
    outcome.assert_success();
    assert_eq!(
        outcome.stdout,
        "Hello \u{fffd}]0;pwned\u{fffd}\nworld\n",
        "{}",
        outcome.describe()
    );
    assert!(
        outcome
            .stderr
            .contains("tool: Write \u{fffd}[2Jnotes.md [edit]"),
        "{}",
        outcome.describe()
    );
    assert!(!outcome.all_text().contains('\u{1b}'));
}

#[test]
fn both_dialects_give_the_same_event_stream() {
    let turn = json!([
        {"text": "a"},
        {"thought": "b"},
        {"toolCall": {"id": "t1", "title": "Edit x", "kind": "edit"}},
        {"text": "c"}
    ]);
    let mut streams = Vec::new();
    for dialect in ["standard", "kiro"] {
        let acp = AcpEnv::new(json!({"dialect": dialect, "turn": turn}));
        let outcome = acp.run(&args(&["--json"]));
        outcome.assert_success();
        streams.push(events(&outcome));
    }
    assert_eq!(streams[0], streams[1]);
    assert_eq!(types(&streams[0]).len(), 6);
}

#[test]
fn unknown_updates_garbage_and_extensions_do_not_end_the_run() {
    let acp = AcpEnv::new(json!({
        "turn": [
            {"garbage": "Loading model... {not json"},
            {"update": {"sessionUpdate": "brand_new_kind", "payload": 1}},
            {"notify": {"method": "_kiro.dev/metadata", "params": {"contextUsage": 0.1}}},
            {"notify": {"method": "something/else", "params": {}}},
            {"update": {"sessionUpdate": "available_commands_update", "availableCommands": []}},
            {"text": "still here"}
        ]
    }));
    let outcome = acp.run(&args(&["--json"]));
    outcome.assert_success();
    let events = events(&outcome);
    assert_eq!(
        types(&events),
        [
            "session_started",
            "unknown_update",
            "agent_message_chunk",
            "turn_end"
        ]
    );
    assert_eq!(events[1]["sessionUpdate"], "brand_new_kind");
    assert_eq!(events[1]["raw"]["payload"], 1);
}

#[test]
fn messages_after_the_turn_ended_create_nothing() {
    let acp = AcpEnv::new(json!({
        "turn": [{"text": "done"}],
        "afterTurn": [
            {"text": "late chunk"},
            {"permission": {"id": "late-1", "title": "Late tool", "kind": "execute", "options": options_full()}}
        ]
    }));
    let outcome = acp.run(&args(&["--json"]));
    outcome.assert_success();
    let events = events(&outcome);
    assert_eq!(
        types(&events),
        ["session_started", "agent_message_chunk", "turn_end"]
    );
    assert!(!outcome.stdout.contains("late"), "{}", outcome.describe());
}

#[test]
fn a_permission_in_the_first_turn_is_answered_over_json_stdin() {
    // Each accepted reply form, with string and integer request ids.
    let cases: [(Value, &str, &str); 6] = [
        (json!("perm-1"), "Allow once", "proceed_once"),
        (json!(7), "允许一次", "proceed_once"),
        (json!("perm-2"), "Yes, always", "proceed_always"),
        (json!(8), "cancel", "cancel"),
        (json!("perm-3"), "2", "proceed_always"),
        (json!("perm-4"), "拒绝一次", "cancel"),
    ];
    for (id, reply, expected) in cases {
        let acp = AcpEnv::new(json!({
            "turn": [
                {"permission": {"id": id, "title": "Run ls", "kind": "execute", "options": options_full()}},
                {"text": "after"}
            ]
        }));
        let mut live = acp.live(&args(&["--json"]));
        let request = live.expect("permission_request");
        let key = match &id {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        assert_eq!(request["id"], json!(key));
        assert_eq!(request["title"], "Run ls");
        let options = request["options"].as_array().expect("options");
        assert_eq!(options[0]["label"], "Allow once");
        assert_eq!(options[0]["labelZh"], "允许一次");
        assert_eq!(options[0]["optionId"], "proceed_once");
        assert_eq!(options[0]["ordinal"], 1);
        assert_eq!(options[1]["scope"], "always");
        live.send(&json!({"id": key, "reply": reply}).to_string());
        let resolved = live.expect("permission_resolved");
        assert_eq!(resolved["optionId"], expected, "reply {reply}");
        assert_eq!(resolved["by"], "user");
        let (code, seen, stderr) = live.finish();
        assert_eq!(code, Some(0), "{stderr}");
        assert_eq!(types(&seen).last().map(String::as_str), Some("turn_end"));
        // On the wire: the answer echoes the agent's id exactly (string or
        // integer) with the native option id.
        let answer = acp
            .received()
            .into_iter()
            .find(|message| message.get("method").is_none() && message["id"] == id)
            .expect("the permission answer");
        assert_eq!(
            answer["result"]["outcome"],
            json!({"outcome": "selected", "optionId": expected})
        );
    }
}

#[test]
fn an_ambiguous_reply_is_refused_and_the_question_stays_open() {
    let acp = AcpEnv::new(json!({
        "turn": [{"permission": {"id": "p1", "title": "Run ls", "kind": "execute", "options": options_full()}}]
    }));
    let mut live = acp.live(&args(&["--json"]));
    live.expect("permission_request");
    live.send(r#"{"id":"p1","reply":"yes"}"#);
    let refusal = live.expect("diagnostic");
    let message = refusal["message"].as_str().expect("message");
    assert!(message.contains("ambiguous"), "{message}");
    assert!(
        message.contains("Allow once") && message.contains("Always allow"),
        "{message}"
    );
    // Still open, and nothing was sent to the agent meanwhile.
    assert!(acp.received().iter().all(|message| message["id"] != "p1"));
    live.send(r#"{"id":"p1","reply":"nonsense"}"#);
    assert!(live.expect("diagnostic")["message"]
        .as_str()
        .expect("m")
        .contains("matches no option"));
    live.send(r#"{"id":"p1","reply":"Allow once"}"#);
    assert_eq!(
        live.expect("permission_resolved")["optionId"],
        "proceed_once"
    );
    let (code, seen, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");
    // The diagnostics asked again; the event was not repeated (SPEC §8.6).
    assert_eq!(
        types(&seen)
            .iter()
            .filter(|kind| *kind == "permission_request")
            .count(),
        1,
        "{seen:#?}"
    );
}

/// The index on the wire of our answer to request `id`, and of the first
/// `session/cancel`.
fn answer_and_cancel_positions(acp: &AcpEnv, id: &Value) -> (usize, usize) {
    let received = acp.received();
    let answer = received
        .iter()
        .position(|message| message.get("method").is_none() && &message["id"] == id)
        .expect("an answer to the permission request");
    let cancel = received
        .iter()
        .position(|message| message["method"] == "session/cancel")
        .expect("a session/cancel");
    assert_eq!(
        received[answer]["result"]["outcome"],
        json!({"outcome": "cancelled"})
    );
    (answer, cancel)
}

fn wire_answer(acp: &AcpEnv, id: &Value) -> Value {
    acp.received()
        .into_iter()
        .find(|message| message.get("method").is_none() && &message["id"] == id)
        .map(|message| message["result"]["outcome"].clone())
        .expect("an answer")
}

#[test]
fn accept_edits_allows_an_edit_once_and_asks_for_the_rest() {
    let acp = AcpEnv::new(json!({
        "turn": [
            {"permission": {"id": "edit-1", "title": "Edit src/main.rs", "kind": "edit", "options": options_full()}},
            {"permission": {"id": "exec-1", "title": "Run rm -rf", "kind": "execute", "options": options_full()}}
        ]
    }));
    let mut live = acp.live(&args(&["--json", "--mode", "acceptEdits"]));
    let resolved = live.expect("permission_resolved");
    assert_eq!(
        resolved,
        json!({"type": "permission_resolved", "id": "edit-1", "optionId": "proceed_once", "by": "policy"})
    );
    let asked = live.expect("permission_request");
    assert_eq!(asked["id"], "exec-1");
    live.send(r#"{"id":"exec-1","reply":"Reject once"}"#);
    let (code, seen, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        types(&seen)
            .iter()
            .filter(|kind| *kind == "permission_request")
            .count(),
        1
    );
    assert_eq!(
        wire_answer(&acp, &json!("edit-1")),
        json!({"outcome": "selected", "optionId": "proceed_once"})
    );
    assert_eq!(
        wire_answer(&acp, &json!("exec-1")),
        json!({"outcome": "selected", "optionId": "cancel"})
    );
}

#[test]
fn automatic_modes_never_grant_persistent_trust() {
    let only_always = json!([
        {"optionId": "proceed_always", "name": "Yes, always", "kind": "allow_always"},
        {"optionId": "cancel", "name": "No", "kind": "reject_once"}
    ]);
    let unknown =
        json!([{"optionId": "forever", "name": "Trust forever", "kind": "allow_forever"}]);
    for (mode, kind, options) in [
        ("dontAsk", "execute", only_always.clone()),
        ("bypassPermissions", "execute", only_always.clone()),
        ("acceptEdits", "edit", only_always),
        ("dontAsk", "execute", unknown),
    ] {
        let acp = AcpEnv::new(json!({
            "turn": [
                {"permission": {"id": 5, "title": "Run make", "kind": kind, "options": options}},
                "waitForCancel"
            ]
        }));
        let outcome = acp.run(&args(&["--json", "--mode", mode]));
        outcome.assert_code(10);
        let events = events(&outcome);
        let resolved = events
            .iter()
            .find(|event| event["type"] == "permission_resolved")
            .expect("resolved");
        assert_eq!(resolved["optionId"], Value::Null);
        assert_eq!(resolved["by"], "policy");
        assert!(!types(&events).contains(&"permission_request".to_owned()));
        let (answer, cancel) = answer_and_cancel_positions(&acp, &json!(5));
        assert!(answer < cancel);
        assert_eq!(
            events.last().expect("error")["error"]["kind"],
            "permission_refused"
        );
    }
    // With `allow_once` offered, the same modes allow once.
    for mode in ["dontAsk", "bypassPermissions"] {
        let acp = AcpEnv::new(json!({
            "turn": [{"permission": {"id": 6, "title": "Run make", "kind": "execute", "options": options_full()}}]
        }));
        acp.run(&args(&["--json", "--mode", mode])).assert_success();
        assert_eq!(
            wire_answer(&acp, &json!(6)),
            json!({"outcome": "selected", "optionId": "proceed_once"})
        );
    }
}

#[test]
fn without_a_terminal_or_json_a_question_fails_closed_with_a_hint() {
    for mode in ["default", "plan", "acceptEdits"] {
        let acp = AcpEnv::new(json!({
            "turn": [
                {"permission": {"id": "p1", "title": "Run ls", "kind": "execute", "options": options_full()}},
                "waitForCancel"
            ]
        }));
        let outcome = acp.run(&args(&["--mode", mode]));
        outcome.assert_code(10);
        assert!(
            outcome.stderr.contains("--json") && outcome.stderr.contains("--mode"),
            "{}",
            outcome.describe()
        );
        let (answer, cancel) = answer_and_cancel_positions(&acp, &json!("p1"));
        assert!(answer < cancel);
        assert!(
            acp.sent("session/set_mode").is_empty(),
            "--mode is oneworks' policy only"
        );
    }
}

#[test]
fn a_project_rule_answers_later_runs_through_allow_once() {
    let turn = json!({
        "turn": [{"permission": {"id": "p1", "title": "Write notes.md", "kind": "edit", "options": options_full()}}]
    });
    let acp = AcpEnv::new(turn.clone());
    let mut live = acp.live(&args(&["--json"]));
    let request = live.expect("permission_request");
    let remember = request["options"]
        .as_array()
        .expect("options")
        .iter()
        .find(|option| option["scope"] == "project" && option["kind"] == "allow_once")
        .expect("a remember-for-project choice")
        .clone();
    live.send(&json!({"id": "p1", "reply": remember["labelZh"]}).to_string());
    assert_eq!(
        live.expect("permission_resolved")["optionId"],
        "proceed_once"
    );
    let (code, _, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");
    // Kept in oneworks' data folder, never in the project (tests/it/trust.rs).
    let projects = acp.env.oneworks_home.join("projects");
    let dir = std::fs::read_dir(&projects)
        .expect("projects folder")
        .next()
        .expect("one project")
        .expect("entry")
        .path();
    let rules = std::fs::read_to_string(dir.join("permissions.json")).expect("rules file");
    assert!(rules.contains("Write notes.md"), "{rules}");

    // A later run without any channel: the rule answers, nobody is asked.
    std::fs::remove_file(&acp.wire).expect("reset wire log");
    let outcome = acp.run(&args(&["--json"]));
    outcome.assert_success();
    let events = events(&outcome);
    assert!(!types(&events).contains(&"permission_request".to_owned()));
    let resolved = events
        .iter()
        .find(|event| event["type"] == "permission_resolved")
        .expect("resolved");
    assert_eq!(resolved["by"], "rule");
    assert_eq!(
        wire_answer(&acp, &json!("p1")),
        json!({"outcome": "selected", "optionId": "proceed_once"})
    );

    // The rule needs `allow_once`: with only persistent trust it fails closed.
    acp.script(json!({
        "turn": [
            {"permission": {"id": "p2", "title": "Write notes.md", "kind": "edit", "options": [
                {"optionId": "proceed_always", "name": "Yes, always", "kind": "allow_always"}
            ]}},
            "waitForCancel"
        ]
    }));
    acp.run(&args(&["--json"])).assert_code(10);
}

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
fn an_agent_crash_mid_turn_is_exit_9_with_its_stderr_tail() {
    let acp = AcpEnv::new(json!({
        "turn": [{"text": "working"}, {"crash": {"stderr": "thread main panicked: out of tokens", "code": 3}}]
    }));
    let outcome = acp.run(&args(&["--json"]));
    outcome.assert_code(9);
    assert!(
        outcome.stderr.contains("out of tokens"),
        "{}",
        outcome.describe()
    );
    assert!(
        outcome.stderr.contains("mid-turn"),
        "{}",
        outcome.describe()
    );
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
        assert!(
            outcome.stderr.contains("mid-turn"),
            "{}",
            outcome.describe()
        );
        assert!(gone(acp.agent_pid()));
    }
}

#[test]
fn the_fake_rejects_a_prompt_sent_as_content_like_kiro() {
    use std::io::Write;
    let acp = AcpEnv::new(json!({}));
    let mut child = std::process::Command::new(acp.env.bin.join("kiro-cli"))
        .args(["acp", "--agent", "oneworks"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn fake");
    let mut stdin = child.stdin.take().expect("stdin");
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "session/prompt",
        "params": {"sessionId": "fake-session-1", "content": [{"type": "text", "text": "hi"}]}});
    writeln!(stdin, "{request}").expect("write");
    drop(stdin);
    let output = child.wait_with_output().expect("wait");
    let answer: Value = serde_json::from_slice(&output.stdout).expect("one JSON answer");
    assert_eq!(
        answer["error"]["message"],
        "Invalid params: missing field `prompt`"
    );
}

#[test]
fn protocol_version_0_is_refused_before_any_session() {
    let acp = AcpEnv::new(json!({"protocolVersion": 0}));
    let outcome = acp.run(&args(&["--json"]));
    let message = outcome.assert_setup_error(9, "agent_failed");
    assert!(message.contains("protocol version 0"), "{message}");
    assert!(acp.sent("session/new").is_empty());
    assert!(gone(acp.agent_pid()));
}

#[test]
fn a_model_must_be_advertised_and_is_set_natively_before_the_prompt() {
    let models = json!({"models": {"availableModels": [{"modelId": "claude-a", "name": "A"}], "currentModelId": "claude-a"}});
    let acp = AcpEnv::new(json!({"sessionResult": models}));
    let message = acp
        .run(&args(&["--json", "--model", "gpt-x"]))
        .assert_setup_error(2, "usage");
    assert!(message.contains("gpt-x"), "{message}");
    assert!(acp.sent("session/prompt").is_empty());
    assert!(acp.sent("session/set_model").is_empty());

    std::fs::remove_file(&acp.wire).expect("reset");
    let outcome = acp.run(&args(&["--json", "--model", "claude-a"]));
    outcome.assert_success();
    assert_eq!(events(&outcome)[0]["model"], "claude-a");
    let received = acp.received();
    let set = received
        .iter()
        .position(|m| m["method"] == "session/set_model")
        .expect("set_model");
    let prompt = received
        .iter()
        .position(|m| m["method"] == "session/prompt")
        .expect("prompt");
    assert!(set < prompt);
    assert_eq!(received[set]["params"]["modelId"], "claude-a");

    // Nothing advertised: only Kiro's `Default`, without a setter call.
    acp.script(json!({}));
    std::fs::remove_file(&acp.wire).expect("reset");
    acp.run(&args(&["--json", "--model", "Default"]))
        .assert_success();
    assert!(acp.sent("session/set_model").is_empty());
    acp.run(&args(&["--json", "--model", "claude-a"]))
        .assert_setup_error(2, "usage");
    acp.run(&args(&["--json", "--effort", "high"]))
        .assert_setup_error(2, "usage");
}

#[test]
fn resume_loads_the_cached_session_only_when_advertised() {
    let acp = AcpEnv::new(json!({"agentCapabilities": {"loadSession": true}}));
    acp.run(&args(&["--json", "--session", "work"]))
        .assert_success();
    std::fs::remove_file(&acp.wire).expect("reset");
    let outcome = acp.run(&args(&["--json", "--session", "work", "--resume"]));
    outcome.assert_success();
    assert_eq!(events(&outcome)[0]["resumed"], true);
    let load = acp.sent("session/load");
    assert_eq!(load.len(), 1);
    assert_eq!(load[0]["params"]["sessionId"], "fake-session-1");
    assert!(acp.sent("session/new").is_empty());

    // Without `loadSession`: a new session, and the run says so.
    acp.script(json!({}));
    std::fs::remove_file(&acp.wire).expect("reset");
    let outcome = acp.run(&args(&["--json", "--session", "work", "--resume"]));
    outcome.assert_success();
    let events = events(&outcome);
    assert!(events.iter().any(|event| event["type"] == "diagnostic"
        && event["message"]
            .as_str()
            .unwrap_or("")
            .contains("loadSession")));
    assert_eq!(
        events
            .iter()
            .find(|e| e["type"] == "session_started")
            .expect("started")["resumed"],
        false
    );
    assert!(acp.sent("session/load").is_empty());
    assert_eq!(acp.sent("session/new").len(), 1);

    // A cached session Kiro cannot load any more: a new one, said aloud.
    acp.script(
        json!({"agentCapabilities": {"loadSession": true}, "loadError": "session not found"}),
    );
    std::fs::remove_file(&acp.wire).expect("reset");
    let outcome = acp.run(&args(&["--json", "--session", "work", "--resume"]));
    outcome.assert_success();
    assert!(
        outcome.stdout.contains("could not load the cached session"),
        "{}",
        outcome.describe()
    );
    assert_eq!(acp.sent("session/load").len(), 1);
    assert_eq!(acp.sent("session/new").len(), 1);
    assert!(acp.sent("session/new")[0]["params"]
        .get("sessionId")
        .is_none());
}

use crate::acp_support::gone;

#[test]
fn closing_stdin_with_a_question_pending_fails_closed() {
    let acp = AcpEnv::new(json!({
        "turn": [
            {"permission": {"id": "p1", "title": "Run ls", "kind": "execute", "options": options_full()}},
            "waitForCancel"
        ]
    }));
    let mut live = acp.live(&args(&["--json"]));
    live.expect("permission_request");
    live.close_stdin();
    let (code, seen, stderr) = live.finish();
    assert_eq!(code, Some(10), "{stderr}");
    assert!(seen
        .iter()
        .any(|event| event["type"] == "permission_resolved" && event["optionId"].is_null()));
    let (answer, cancel) = answer_and_cancel_positions(&acp, &json!("p1"));
    assert!(answer < cancel);
}

#[test]
fn secrets_in_agent_messages_are_scrubbed_from_output_and_files() {
    const SECRET: &str = "kiro-run-secret-31415926";
    let encoded = base64_standard(SECRET);
    let mut acp = AcpEnv::new(json!({
        "sessionId": format!("sess-{SECRET}"),
        "turn": [
            {"text": format!("the key is {SECRET} ")},
            {"toolCall": {"id": "t1", "title": format!("curl -H {encoded}"), "kind": "fetch"}},
            {"text": "done"}
        ]
    }));
    acp.env.set_env("KIRO_API_KEY", SECRET);
    for extra in [&["--json"][..], &[][..]] {
        let outcome = acp.run(&args(extra));
        outcome.assert_success();
        assert!(
            !outcome.all_text().contains(SECRET),
            "{}",
            outcome.describe()
        );
        assert!(
            !outcome.all_text().contains(&encoded),
            "{}",
            outcome.describe()
        );
        assert!(
            outcome.all_text().contains("the key is"),
            "{}",
            outcome.describe()
        );
    }
    // The secret reached Kiro (pass-through) but no file oneworks wrote.
    let invocation = &acp.acp_invocations()[0];
    assert_eq!(invocation["env"]["KIRO_API_KEY"], SECRET);
    for path in crate::support::walk(&acp.env.project.join(".oneworks")) {
        let bytes = std::fs::read(&path).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(SECRET),
            "{} holds the secret",
            path.display()
        );
    }
}

fn base64_standard(text: &str) -> String {
    const TABLE: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes = text.as_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(TABLE[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[test]
fn mcp_servers_and_additional_dirs_follow_the_advertised_capabilities() {
    const TOKEN: &str = "mcp-token-value-2718281828";
    let mut acp = AcpEnv::new(json!({}));
    let extra_dir = acp.env.outside.clone();
    acp.env.write_config(&format!(
        "adapters:\n  kiro:\n    cli:\n      source: system\n    additionalDirs: [{}]\n    mcpServers:\n      github:\n        command: /usr/bin/github-mcp\n        env: {{ GITHUB_TOKEN: \"${{MY_MCP_TOKEN}}\" }}\n      docs:\n        url: https://example.com/mcp\n        transport: http\n",
        extra_dir.display()
    ));
    acp.env.set_env("MY_MCP_TOKEN", TOKEN);
    let outcome = acp.run(&args(&["--json"]));
    outcome.assert_success();
    let new = &acp.sent("session/new")[0]["params"];
    let servers = new["mcpServers"].as_array().expect("servers");
    assert_eq!(servers.len(), 1, "{new}");
    assert_eq!(servers[0]["name"], "github");
    assert_eq!(
        servers[0]["env"],
        json!([{"name": "GITHUB_TOKEN", "value": TOKEN}])
    );
    assert!(new.get("additionalDirectories").is_none());
    let notes: Vec<String> = events(&outcome)
        .iter()
        .filter(|event| event["type"] == "diagnostic")
        .map(|event| event["message"].as_str().unwrap_or("").to_owned())
        .collect();
    assert!(notes.iter().any(|note| note.contains("docs")), "{notes:?}");
    assert!(
        notes.iter().any(|note| note.contains("additionalDirs")),
        "{notes:?}"
    );
    assert!(!outcome.all_text().contains(TOKEN));
    for path in crate::support::walk(&acp.env.project.join(".oneworks")) {
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap_or_default()).into_owned();
        assert!(!text.contains(TOKEN), "{} holds the token", path.display());
    }

    acp.script(json!({"agentCapabilities": {
        "mcpCapabilities": {"http": true},
        "sessionCapabilities": {"additionalDirectories": true}
    }}));
    std::fs::remove_file(&acp.wire).expect("reset");
    acp.run(&args(&["--json"])).assert_success();
    let new = &acp.sent("session/new")[0]["params"];
    let names: Vec<&str> = new["mcpServers"]
        .as_array()
        .expect("servers")
        .iter()
        .filter_map(|server| server["name"].as_str())
        .collect();
    assert_eq!(names, ["docs", "github"]);
    assert_eq!(new["additionalDirectories"], json!([extra_dir]));
}

#[test]
fn a_timeout_cancels_the_turn_and_fails() {
    let acp = AcpEnv::new(json!({"turn": [{"text": "slow"}, "waitForCancel"]}));
    let outcome = acp.run(&args(&["--json", "--timeout", "1s"]));
    let events = events(&outcome);
    outcome.assert_code(9);
    assert!(
        outcome.stderr.contains("--timeout 1s"),
        "{}",
        outcome.describe()
    );
    assert_eq!(acp.sent("session/cancel").len(), 1);
    assert_eq!(
        events
            .iter()
            .filter(|event| event["type"] == "turn_end")
            .count(),
        1
    );
}

#[test]
fn prompt_files_and_their_refusal_with_json() {
    let acp = AcpEnv::new(json!({}));
    let outcome = acp.run(&["--prompt-file", "-", "--json"]);
    outcome.assert_error(2, "usage");
    assert!(acp.acp_invocations().is_empty(), "nothing started");
    let file = acp.env.outside.join("prompt.txt");
    std::fs::write(&file, "from a file\n").expect("write prompt");
    acp.run(&["--prompt-file", file.to_str().expect("utf-8"), "--json"])
        .assert_success();
    assert_eq!(
        acp.sent("session/prompt")[0]["params"]["prompt"][0]["text"],
        "from a file\n"
    );
    acp.run(&["--json"]).assert_code(2);

    // `-` reads the prompt from stdin (human mode).
    let mut command = acp.cmd(&["--prompt-file", "-"]);
    command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = command.spawn().expect("spawn");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(b"from stdin").expect("write");
    }
    let output = child.wait_with_output().expect("wait");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let prompts = acp.sent("session/prompt");
    assert_eq!(
        prompts.last().expect("prompt")["params"]["prompt"][0]["text"],
        "from stdin"
    );
}

#[test]
fn requests_we_do_not_serve_are_answered_method_not_found() {
    let acp = AcpEnv::new(json!({
        "turn": [
            {"request": {"id": "fs-1", "method": "fs/read_text_file", "params": {"path": "/etc/passwd"}}},
            {"request": {"id": 3, "method": "terminal/create", "params": {"command": "sh"}}},
            {"text": "ok"}
        ]
    }));
    let outcome = acp.run(&args(&["--json"]));
    outcome.assert_success();
    for id in [json!("fs-1"), json!(3)] {
        let answer = acp
            .received()
            .into_iter()
            .find(|message| message.get("method").is_none() && message["id"] == id)
            .expect("an answer");
        assert_eq!(answer["error"]["code"], -32601, "{answer}");
    }
    assert_eq!(text_of(&events(&outcome)), "ok");
}

#[test]
fn the_agent_sees_only_the_allowlisted_environment_and_a_fresh_home() {
    let mut acp = AcpEnv::new(json!({}));
    acp.env.set_env("GITHUB_TOKEN", "ghp-not-for-kiro-123456");
    acp.env.set_env("KIRO_API_KEY", "kiro-key-for-kiro-123456");
    acp.run(&args(&["--json"])).assert_success();
    let invocation = &acp.acp_invocations()[0];
    let env = invocation["env"].as_object().expect("env");
    assert!(!env.contains_key("GITHUB_TOKEN"), "{env:?}");
    assert_eq!(env["KIRO_API_KEY"], "kiro-key-for-kiro-123456");
    let home = env["HOME"].as_str().expect("HOME");
    assert_ne!(home, acp.env.home.to_str().expect("utf-8"));
    assert!(
        home.starts_with(acp.env.runtime_dir.to_str().expect("utf-8")),
        "{home}"
    );
    assert_eq!(invocation["homeMode"], 0o700);
    // The temp HOME is gone after the run.
    assert!(!std::path::Path::new(home).exists(), "{home} left behind");
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
        // Wait (bounded) until the agent received the cancelled answer.
        let deadline = std::time::Instant::now() + crate::acp_support::EVENT_DEADLINE;
        while !acp.received().iter().any(|message| message["id"] == "p1") {
            assert!(
                std::time::Instant::now() < deadline,
                "the answer never arrived"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
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
fn an_over_long_line_from_the_agent_is_skipped_not_held() {
    let mut acp = AcpEnv::new(json!({
        "turn": [{"text": "x".repeat(4096)}, {"text": "after"}]
    }));
    let builtin =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/manifests/kiro.yaml"))
            .expect("adapter data");
    let small = builtin.replace("maxMessageBytes: 16777216", "maxMessageBytes: 2048");
    assert_ne!(small, builtin, "the bound moved in manifests/kiro.yaml");
    let file = acp.env.outside.join("kiro.yaml");
    std::fs::write(&file, small).expect("write adapter data");
    acp.env
        .set_env("ONEWORKS_KIRO_ADAPTER_FILE", file.to_str().expect("utf-8"));
    let outcome = acp.run(&args(&["--json"]));
    outcome.assert_success();
    assert_eq!(text_of(&events(&outcome)), "after");
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
fn effort_is_set_through_the_config_option_and_reported_only_when_confirmed() {
    let acp = AcpEnv::new(json!({
        "sessionResult": {"configOptions": [{
            "id": "reasoning", "name": "Effort", "category": "thought_level", "type": "select",
            "currentValue": "low", "options": [{"value": "low", "name": "Low"}, {"value": "high", "name": "High"}]
        }]}
    }));
    let outcome = acp.run(&args(&["--json", "--effort", "high"]));
    outcome.assert_success();
    assert_eq!(events(&outcome)[0]["effort"], "high");
    let received = acp.received();
    let set = received
        .iter()
        .position(|message| message["method"] == "session/set_config_option")
        .expect("set_config_option");
    let prompt = received
        .iter()
        .position(|message| message["method"] == "session/prompt")
        .expect("prompt");
    assert!(set < prompt);
    assert_eq!(received[set]["params"]["configId"], "reasoning");
    assert_eq!(received[set]["params"]["value"], "high");
    std::fs::remove_file(&acp.wire).expect("reset");
    let message = acp
        .run(&args(&["--json", "--effort", "max"]))
        .assert_setup_error(2, "usage");
    assert!(message.contains("max"), "{message}");
    assert!(acp.sent("session/prompt").is_empty());
}

#[test]
fn a_closed_stdout_ends_the_run_quietly_and_stops_the_agent() {
    let acp = AcpEnv::new(json!({"turn": [{"chunks": {"count": 50000, "text": "chunk"}}]}));
    let line = format!(
        "{} run kiro --prompt x --json | head -1; exit ${{PIPESTATUS[0]}}",
        crate::support::shell_quote(crate::support::ONEWORKS)
    );
    let mut command = acp.env.cmd(&[]);
    let mut bash = std::process::Command::new("bash");
    bash.args(["-c", &line])
        .env_clear()
        .envs(
            command
                .get_envs()
                .filter_map(|(name, value)| Some((name, value?))),
        )
        .current_dir(&acp.env.project);
    command.stdin(std::process::Stdio::null());
    let outcome = crate::support::run(bash);
    outcome.assert_success();
    assert_eq!(outcome.stdout.lines().count(), 1, "{}", outcome.describe());
    assert!(
        !outcome.stderr.contains("panicked"),
        "{}",
        outcome.describe()
    );
    assert!(gone(acp.agent_pid()));
}

#[test]
fn a_typo_in_the_fake_agents_script_fails_loudly() {
    let acp = AcpEnv::new(json!({"turnn": [{"text": "typo"}]}));
    let output = std::process::Command::new(acp.env.bin.join("kiro-cli"))
        .args(["acp", "--agent", "oneworks"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run fake");
    assert_eq!(output.status.code(), Some(70));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("unknown field `turnn`"), "{stderr}");
    // A run against it fails at once (the probe already trips), not a hang.
    let outcome = acp.run(&args(&["--json"]));
    assert_ne!(outcome.code, Some(0), "{}", outcome.describe());
    assert!(outcome.stderr.contains("turnn"), "{}", outcome.describe());
}

#[test]
fn an_agent_that_needs_a_login_says_how_to_log_in() {
    let acp = AcpEnv::new(json!({"authRequired": true}));
    let outcome = acp.run(&args(&["--json"]));
    let message = outcome.assert_setup_error(9, "agent_failed");
    assert!(message.contains("login"), "{message}");
    assert!(
        outcome.stderr.contains("oneworks adapter login kiro"),
        "{}",
        outcome.describe()
    );
    assert!(acp.sent("session/prompt").is_empty());
}
