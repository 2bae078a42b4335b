//! What a run prints: the JSON event stream and human mode (agent text on
//! stdout, the rest on stderr), both ACP dialects giving the same events,
//! what does not end a run (unknown updates, garbage, extensions, an
//! over-long line), what creates no event (messages after the turn, another
//! session's updates, a `session/load` replay), each chunk reaching a pipe
//! at once, and log text held back by the scrubber written at exit.

use serde_json::{json, Value};

use super::{args, text_of, PROMPT};
use crate::run::acp_env::{events, gone, options_full, types, AcpEnv};

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
    outcome.assert_stdout_lacks("late");
}

#[test]
fn updates_of_another_session_or_a_replay_create_no_event() {
    let other = |method: &str, update: Value| json!({"notify": {"method": method, "params": {"sessionId": "other-session", "update": update}}});
    let acp = AcpEnv::new(json!({
        "agentCapabilities": {"loadSession": true},
        "turn": [
            // The standard shape (the streaming fast path) and Kiro's.
            other("session/update", json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "not mine"}})),
            other("session/update", json!({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "not mine"}})),
            other("session/notification", json!({"AgentMessageChunk": {"content": {"Text": {"text": "not mine"}}}})),
            other("session/update", json!({"sessionUpdate": "tool_call", "toolCallId": "x", "title": "not mine"})),
            {"text": "mine"}
        ]
    }));
    let outcome = acp.run(&args(&["--json", "--session", "s"]));
    outcome.assert_success();
    let seen = events(&outcome);
    assert_eq!(
        crate::run::acp_env::types(&seen),
        ["session_started", "agent_message_chunk", "turn_end"]
    );
    outcome.assert_stdout_lacks("not mine");

    // `session/load` replays the history as updates: none is an event.
    acp.script(json!({
        "agentCapabilities": {"loadSession": true},
        "loadReplay": [
            {"text": "replayed answer"},
            {"thought": "replayed thought"},
            {"update": {"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "replayed question"}}},
            {"toolCall": {"id": "old", "title": "replayed tool", "kind": "read"}}
        ],
        "turn": [{"text": "fresh"}]
    }));
    let outcome = acp.run(&args(&["--json", "--session", "s", "--resume"]));
    outcome.assert_success();
    let seen = events(&outcome);
    assert_eq!(acp.sent("session/load").len(), 1);
    assert_eq!(
        crate::run::acp_env::types(&seen),
        ["session_started", "agent_message_chunk", "turn_end"],
        "{seen:#?}"
    );
    assert_eq!(seen[1]["text"], "fresh");
    outcome.assert_stdout_lacks("replayed");
}

#[test]
fn an_over_long_line_from_the_agent_is_skipped_not_held() {
    let mut acp = AcpEnv::new(json!({
        "turn": [{"text": "x".repeat(4096)}, {"text": "after"}]
    }));
    let file = acp.env.outside.join("kiro.yaml");
    crate::support::adapter_yaml::AdapterYaml::builtin("kiro")
        .set("acp.maxMessageBytes", 2048)
        .write(&file);
    acp.env
        .set_env("ONEWORKS_KIRO_ADAPTER_FILE", file.to_str().expect("utf-8"));
    let outcome = acp.run(&args(&["--json"]));
    outcome.assert_success();
    assert_eq!(text_of(&events(&outcome)), "after");
}

#[test]
fn each_streamed_chunk_reaches_a_pipe_at_once() {
    // The agent streams, then waits for a file the test creates only after
    // it has read the chunks: buffering them would hang the run.
    let acp = AcpEnv::new(json!({}));
    let release = acp.env.outside.join("release");
    acp.script(json!({
        "turn": [
            {"text": "first"},
            {"thought": "second"},
            {"waitForFile": release},
            {"text": "third"}
        ]
    }));
    let mut live = acp.live(&args(&["--json"]));
    assert_eq!(live.expect("agent_message_chunk")["text"], "first");
    assert_eq!(live.expect("agent_thought_chunk")["text"], "second");
    std::fs::write(&release, "").expect("release the agent");
    assert_eq!(live.expect("agent_message_chunk")["text"], "third");
    let (code, _, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");
}

/// Log text the scrubbing log writer holds back (it could begin a secret
/// that goes on in the next log line) is written when oneworks exits, not
/// lost.
#[test]
fn log_text_held_back_is_written_at_exit() {
    let mut acp = AcpEnv::new(json!({
        "turn": [{"garbage": "not json LOGTAILabc"}, {"text": "done"}]
    }));
    // A secret that begins with the end of the logged line.
    acp.env
        .set_env("KIRO_API_KEY", "LOGTAILabc\nsecret-rest-0123456789");
    let outcome = acp.run(PROMPT);
    outcome.assert_success();
    outcome.assert_stderr_contains("not json LOGTAILabc");
    // The generic client names the agent, not Kiro's binary (item 8).
    outcome.assert_stderr_lacks("kiro-cli");
}
