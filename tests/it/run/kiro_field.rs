//! Kiro as the field reports it: `kiro-cli-chat
//! acp` as the current entry with `kiro-cli acp` as the older alias, the
//! `kiro-login` method, a permission request under a subagent's session,
//! a `session/load` that makes Kiro exit 0, and an agent's JSON-RPC error
//! shown with its `data` details. The real binary against the fake agent.

use serde_json::{json, Value};

use crate::run::acp_env::{events, options_full, AcpEnv, SetupError};
use crate::support::fake::{install_fake, kiro_script, with};

const PROMPT: &[&str] = &["--prompt", "Say hello"];

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut all: Vec<&str> = PROMPT.to_vec();
    all.extend_from_slice(extra);
    all
}

fn error_events(outcome: &crate::support::Outcome, code: i32, kind: &str) -> Vec<Value> {
    outcome.assert_setup_error(code, kind);
    events(outcome)
        .into_iter()
        .filter(|event| event["type"] == "error")
        .collect()
}

/// The answers the fake received to its request `id`.
fn answers(acp: &AcpEnv, id: &Value) -> Vec<Value> {
    acp.received()
        .into_iter()
        .filter(|message| message.get("method").is_none() && &message["id"] == id)
        .collect()
}

const API_KEY_CONFIG: &str =
    "adapters:\n  kiro:\n    cli:\n      source: system\n    auth:\n      method: api-key\n";

#[test]
fn an_authenticate_error_shows_its_data_details_scrubbed_and_on_one_line() {
    let secret = "ksk_fieldSecret0123456789";
    let mut acp = AcpEnv::new(json!({
        "authMethods": [{"id": "api-key", "name": "API key"}],
        "authError": {
            "code": -32603,
            "message": "Internal error",
            "data": {"details": format!("KIRO_API_KEY is not set\u{1b}[2J (had {secret})\nretry")},
        },
    }));
    acp.env.set_env("KIRO_API_KEY", secret);
    acp.env.write_config(API_KEY_CONFIG);
    let outcome = acp.run(&args(&["--json"]));
    let errors = error_events(&outcome, 9, "agent_failed");
    let message = errors[0]["message"].as_str().expect("a message");
    assert!(
        message.contains("`authenticate`")
            && message.contains("Internal error: KIRO_API_KEY is not set"),
        "{message}"
    );
    let text = outcome.all_text();
    assert!(!text.contains(secret), "the secret leaked\n{text}");
    assert!(!text.contains('\u{1b}'), "{text:?}");
    assert!(acp.sent("session/new").is_empty());
    assert!(acp.sent("session/prompt").is_empty());
}

#[test]
fn kiro_login_is_never_sent_over_acp_and_the_login_hint_is_given() {
    let acp = AcpEnv::new(json!({
        "authRequired": true,
        "authMethods": [{"id": "kiro-login", "name": "Log in to Kiro"}],
    }));
    // Without a method configured: the error names `kiro-login`.
    let outcome = acp.run(&args(&["--json"]));
    let errors = error_events(&outcome, 9, "agent_failed");
    let message = errors[0]["message"].as_str().expect("a message");
    assert!(message.contains("`kiro-login`"), "{message}");
    // Configured: refused before anything is sent (it is a browser login).
    acp.env.write_config(
        "adapters:\n  kiro:\n    cli:\n      source: system\n    auth:\n      method: kiro-login\n",
    );
    let outcome = acp.run(&args(&["--json"]));
    let document = events(&outcome).last().cloned().expect("a document");
    outcome.assert_failure();
    let hint = document["error"]["hint"].as_str().unwrap_or_default();
    assert!(
        hint.contains("oneworks adapter login kiro"),
        "{}",
        outcome.describe()
    );
    assert!(acp.sent("authenticate").is_empty());
}

#[test]
fn a_permission_request_under_a_subagents_session_is_answered_and_names_it() {
    let acp = AcpEnv::new(json!({
        "turn": [
            {"send": {
                "jsonrpc": "2.0",
                "id": "sub-1",
                "method": "session/request_permission",
                "params": {
                    "sessionId": "subagent-7f\u{1b}[31m",
                    "toolCall": {"toolCallId": "call-sub", "title": "touch notes.txt", "kind": "edit"},
                    "options": options_full(),
                },
            }},
            {"awaitAnswer": "sub-1"},
            {"text": "subagent done"}
        ]
    }));
    let mut live = acp.live(&args(&["--json"]));
    let question = live.expect("permission_request");
    let subagent = question["subagent"].as_str().unwrap_or_default();
    assert!(subagent.starts_with("subagent-7f"), "{question}");
    assert!(!subagent.contains('\u{1b}'), "{question}");
    assert_eq!(question["title"], "touch notes.txt");
    let id = question["id"].as_str().expect("an id").to_owned();
    live.send(&json!({"id": id, "reply": "1"}).to_string());
    let (code, events, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        events.iter().any(|event| event["type"] == "turn_end"),
        "{events:?}"
    );
    let answered = answers(&acp, &json!("sub-1"));
    assert_eq!(answered.len(), 1, "{answered:?}");
    assert_eq!(answered[0]["result"]["outcome"]["optionId"], "proceed_once");
}

#[test]
fn a_subagents_question_on_a_terminal_names_the_subagent_and_policy_still_decides() {
    // No person (no TTY, no --json): the same refusal as for our own
    // session's questions — answered `cancelled`, never left waiting.
    let acp = AcpEnv::new(json!({
        "turn": [
            {"send": {
                "jsonrpc": "2.0",
                "id": 41,
                "method": "session/request_permission",
                "params": {
                    "sessionId": "subagent-9",
                    "toolCall": {"toolCallId": "call-sub", "title": "rm -rf build", "kind": "delete"},
                    "options": options_full(),
                },
            }},
            {"awaitAnswer": 41}
        ]
    }));
    let outcome = acp.run(PROMPT);
    outcome.assert_code(10);
    let answered = answers(&acp, &json!(41));
    assert_eq!(answered.len(), 1, "{answered:?}");
    assert_eq!(answered[0]["result"]["outcome"]["outcome"], "cancelled");
}

#[test]
fn resume_of_a_session_kiro_exits_on_starts_a_new_one_with_a_diagnostic() {
    let acp = AcpEnv::new(json!({"agentCapabilities": {"loadSession": true}}));
    acp.run(&args(&["--json", "--session", "work"]))
        .assert_success();
    // The agent no longer has `fake-session-1`: it exits 0 on its load.
    acp.script(json!({
        "agentCapabilities": {"loadSession": true},
        "sessionId": "fake-session-2",
        "exitOnUnknownLoad": true,
    }));
    std::fs::remove_file(&acp.wire).expect("reset");
    let outcome = acp.run(&args(&["--json", "--session", "work", "--resume"]));
    outcome.assert_success();
    let events = events(&outcome);
    let diagnostic = events
        .iter()
        .find(|event| {
            event["type"] == "diagnostic"
                && event["message"].as_str().is_some_and(|message| {
                    message.contains("`session/load`") && message.contains("instead of answering")
                })
        })
        .unwrap_or_else(|| panic!("no diagnostic\n{}", outcome.describe()));
    assert!(
        diagnostic["message"]
            .as_str()
            .is_some_and(|message| message.contains("new session")),
        "{diagnostic}"
    );
    let started = events
        .iter()
        .find(|event| event["type"] == "session_started")
        .expect("started");
    assert_eq!(started["resumed"], false);
    assert_eq!(started["sessionId"], "fake-session-2", "{started}");
    assert!(
        events.iter().all(|event| event["type"] != "error"),
        "{events:?}"
    );
    assert_eq!(
        acp.sent("session/load").len(),
        1,
        "loaded once, not in a loop"
    );
    assert_eq!(acp.sent("session/new").len(), 1);
    assert_eq!(
        acp.acp_invocations().len(),
        3,
        "two starts for the resumed run"
    );

    // The new session is the cached one now: the next --resume loads it.
    std::fs::remove_file(&acp.wire).expect("reset");
    let outcome = acp.run(&args(&["--json", "--session", "work", "--resume"]));
    outcome.assert_success();
    assert_eq!(
        acp.sent("session/load")[0]["params"]["sessionId"],
        "fake-session-2"
    );
}

#[test]
fn kiro_cli_chat_beside_kiro_cli_is_the_acp_entry_and_kiro_cli_the_fallback() {
    let acp = AcpEnv::new(json!({}));
    // Without kiro-cli-chat: `kiro-cli acp --agent oneworks`.
    acp.run(PROMPT).assert_success();
    let older = acp.acp_invocations();
    assert_eq!(older.len(), 1, "{older:?}");
    assert_eq!(older[0]["argv"], json!(["acp", "--agent", "oneworks"]));

    // With it: `kiro-cli-chat acp --agent oneworks`, and kiro-cli is not
    // started for ACP.
    let chat_log = acp.env.outside.join("chat.log");
    let chat_script = with(
        &with(&kiro_script("2.15.1"), "log", json!(chat_log)),
        "acp",
        json!({"log": acp.wire, "pidFile": acp.pid_file()}),
    );
    install_fake(&acp.env.bin, "kiro-cli-chat", &chat_script);
    acp.run(PROMPT).assert_success();
    assert_eq!(acp.acp_invocations().len(), 1, "kiro-cli ran ACP again");
    let chat: Vec<Value> = std::fs::read_to_string(&chat_log)
        .expect("kiro-cli-chat ran")
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    assert_eq!(chat.len(), 1, "{chat:?}");
    assert_eq!(chat[0]["argv"], json!(["acp", "--agent", "oneworks"]));
}
