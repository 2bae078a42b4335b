//! The protocol of a run, the real binary against the fake
//! agent: exact JSON-RPC ids (7 and "7" apart, a fractional id, id 0, a
//! reused pending id refused), the handshake deadline, setup failures as
//! `error` events, refusals of what oneworks does not speak (a protocol
//! version, a prompt result that is not an object, updates before the
//! handshake, duplicate option ids), and `--timeout` bounds; `auth` and
//! `adapter_data` below.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::run::acp_env::{events, options_full, types, AcpEnv, SetupError};
use crate::support::adapter_yaml::{yaml, AdapterYaml};
use crate::support::fake::{install_fake, kiro_script, with};
use crate::support::wait::{wait_until, DEADLINE};
use crate::support::Outcome;

mod adapter_data;
mod auth;

const PROMPT: &[&str] = &["--prompt", "Say hello"];

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut all: Vec<&str> = PROMPT.to_vec();
    all.extend_from_slice(extra);
    all
}

/// A `session/request_permission` the fake sends without waiting.
fn permission(id: Value, title: &str, options: Value) -> Value {
    json!({"send": {
        "jsonrpc": "2.0",
        "id": id,
        "method": "session/request_permission",
        "params": {
            "sessionId": "fake-session-1",
            "toolCall": {"toolCallId": format!("call-{title}"), "title": title},
            "options": options
        }
    }})
}

/// Every answer the fake received for request `id` (exact JSON id), in order.
fn answers(acp: &AcpEnv, id: &Value) -> Vec<Value> {
    acp.received()
        .into_iter()
        .filter(|message| message.get("method").is_none() && &message["id"] == id)
        .collect()
}

/// The one `error` event of a `--json` run that failed before its prompt.
#[track_caller]
fn error_events(outcome: &Outcome, code: i32, kind: &str) -> Vec<Value> {
    outcome.assert_setup_error(code, kind);
    events(outcome)
        .into_iter()
        .filter(|event| event["type"] == "error")
        .collect()
}

// Item 5: ids are exact JSON values.

#[test]
fn number_7_and_string_7_are_two_questions_answered_apart() {
    let acp = AcpEnv::new(json!({
        "turn": [
            permission(json!(7), "ls", options_full()),
            permission(json!("7"), "rm -rf /", options_full()),
            {"awaitAnswer": 7},
            {"awaitAnswer": "7"}
        ]
    }));
    let mut live = acp.live(&args(&["--json"]));
    let first = live.expect("permission_request");
    let second = live.expect("permission_request");
    let by_title = |title: &str| {
        [&first, &second]
            .into_iter()
            .find(|event| event["title"] == title)
            .unwrap_or_else(|| panic!("no question `{title}`: {first} {second}"))["id"]
            .as_str()
            .expect("an id")
            .to_owned()
    };
    let (ls, rm) = (by_title("ls"), by_title("rm -rf /"));
    assert_ne!(ls, rm, "two questions share one id");
    live.send(&json!({"id": rm, "reply": "3"}).to_string());
    live.send(&json!({"id": ls, "reply": "1"}).to_string());
    let (code, _, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");
    let number = answers(&acp, &json!(7));
    let text = answers(&acp, &json!("7"));
    assert_eq!(number.len(), 1, "{number:?}");
    assert_eq!(text.len(), 1, "{text:?}");
    assert_eq!(
        number[0]["result"]["outcome"]["optionId"], "proceed_once",
        "the answer for `ls` reached `ls`"
    );
    assert_eq!(
        text[0]["result"]["outcome"]["optionId"], "cancel",
        "the answer for `rm -rf /` reached `rm -rf /`"
    );
}

#[test]
fn a_request_that_reuses_a_pending_id_is_refused_and_never_shown() {
    let acp = AcpEnv::new(json!({
        "turn": [
            permission(json!("p-1"), "ls", options_full()),
            permission(json!("p-1"), "rm -rf /", options_full()),
            {"awaitAnswer": "p-1"},
            {"awaitAnswer": "p-1"}
        ]
    }));
    let mut live = acp.live(&args(&["--json"]));
    let shown = live.expect("permission_request");
    assert_eq!(shown["title"], "ls");
    wait_until("the reused id is answered with an error", DEADLINE, || {
        answers(&acp, &json!("p-1"))
            .iter()
            .any(|answer| answer.get("error").is_some())
    });
    live.send(&json!({"id": shown["id"], "reply": "1"}).to_string());
    let (code, seen, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");
    let questions: Vec<&Value> = seen
        .iter()
        .filter(|event| event["type"] == "permission_request")
        .collect();
    assert_eq!(questions.len(), 1, "{seen:#?}");
    assert!(!stderr.contains("rm -rf"), "{stderr}");
    let answers = answers(&acp, &json!("p-1"));
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert_eq!(answers[0]["error"]["code"], -32600, "{answers:?}");
    assert_eq!(
        answers[1]["result"]["outcome"]["optionId"], "proceed_once",
        "{answers:?}"
    );
}

#[test]
fn a_fractional_id_is_an_id_and_is_answered_exactly() {
    let acp = AcpEnv::new(json!({
        "turn": [{"permission": {"id": 1.5, "title": "ls", "options": options_full()}}]
    }));
    let mut live = acp.live(&args(&["--json"]));
    let shown = live.expect("permission_request");
    assert_eq!(shown["id"], "1.5");
    live.send(&json!({"id": "1.5", "reply": "1"}).to_string());
    let (code, _, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");
    let answers = answers(&acp, &json!(1.5));
    assert_eq!(answers.len(), 1);
    assert_eq!(answers[0]["result"]["outcome"]["optionId"], "proceed_once");
}

#[test]
fn an_answer_to_our_request_must_carry_its_exact_id() {
    // `"1"` does not answer our request `1`: `initialize` stays unanswered.
    let mut acp = AcpEnv::new(json!({"stringifyAnswerIds": ["initialize"]}));
    acp.env.set_env("ONEWORKS_HANDSHAKE_TIMEOUT", "1s");
    let outcome = acp.run(&args(&["--json"]));
    let errors = error_events(&outcome, 9, "agent_failed");
    assert!(errors[0]["message"]
        .as_str()
        .is_some_and(|message| message.contains("`initialize`")));
    assert!(acp.sent("session/new").is_empty());
}

// Item 6: the handshake has a deadline.

#[test]
fn an_agent_that_never_answers_initialize_ends_with_exit_9_naming_the_step() {
    let mut acp = AcpEnv::new(json!({
        "neverAnswer": ["initialize"],
        "stderr": "warming up the model cache"
    }));
    acp.env.set_env("ONEWORKS_HANDSHAKE_TIMEOUT", "1s");
    let started = Instant::now();
    let outcome = acp.run(&args(&["--json"]));
    let errors = error_events(&outcome, 9, "agent_failed");
    let message = errors[0]["message"].as_str().expect("a message");
    assert!(message.contains("`initialize`"), "{message}");
    assert!(message.contains("ONEWORKS_HANDSHAKE_TIMEOUT"), "{message}");
    assert!(
        message.contains("warming up the model cache"),
        "the stderr tail: {message}"
    );
    outcome.assert_stderr_contains("`initialize`");
    assert!(acp.sent("session/new").is_empty());
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[test]
fn an_agent_that_stalls_session_new_ends_with_exit_9_naming_the_step() {
    let mut acp = AcpEnv::new(json!({"neverAnswer": ["session/new"]}));
    acp.env.set_env("ONEWORKS_HANDSHAKE_TIMEOUT", "1");
    let outcome = acp.run(&args(&["--json"]));
    let errors = error_events(&outcome, 9, "agent_failed");
    let message = errors[0]["message"].as_str().expect("a message");
    assert!(message.contains("`session/new`"), "{message}");
    assert!(acp.sent("session/prompt").is_empty());
}

#[test]
fn timeout_covers_the_handshake_and_says_so() {
    let acp = AcpEnv::new(json!({"neverAnswer": ["initialize"]}));
    let outcome = acp.run(&args(&["--json", "--timeout", "1s"]));
    let errors = error_events(&outcome, 9, "agent_failed");
    let message = errors[0]["message"].as_str().expect("a message");
    assert!(message.contains("`initialize`"), "{message}");
    assert!(message.contains("--timeout 1s"), "{message}");
    assert!(!message.contains("turn"), "no turn had begun: {message}");
}

#[test]
fn a_bad_handshake_timeout_is_a_config_error() {
    let mut acp = AcpEnv::new(json!({}));
    acp.env.set_env("ONEWORKS_HANDSHAKE_TIMEOUT", "soon");
    let outcome = acp.run(&args(&["--json"]));
    let message = outcome.assert_error(3, "config");
    assert!(message.contains("ONEWORKS_HANDSHAKE_TIMEOUT"), "{message}");
    assert!(acp.sent("initialize").is_empty());
}

// Item 7: every setup failure is an `error` event.

#[test]
fn setup_failures_are_error_events() {
    let acp = AcpEnv::new(json!({"protocolVersion": 0}));
    let outcome = acp.run(&args(&["--json"]));
    let errors = error_events(&outcome, 9, "agent_failed");
    assert!(errors[0]["message"]
        .as_str()
        .is_some_and(|message| message.contains("protocol version 0")));

    acp.script(json!({"authRequired": true}));
    error_events(&acp.run(&args(&["--json"])), 9, "agent_failed");

    let models = json!({"models": {"availableModels": [{"modelId": "claude-a"}]}});
    acp.script(json!({"sessionResult": models}));
    let outcome = acp.run(&args(&["--json", "--model", "gpt-x"]));
    let errors = error_events(&outcome, 2, "usage");
    assert!(errors[0]["message"]
        .as_str()
        .is_some_and(|message| message.contains("gpt-x")));
}

#[test]
fn a_spawn_failure_is_an_error_event() {
    let acp = AcpEnv::new(json!({}));
    // The probe passes, then the wrapper is gone when the run starts it.
    let wrapper = acp.env.bin.join("kiro-cli");
    let script = with(
        &with(&kiro_script("2.15.1"), "acp", json!({})),
        "acpHelpRemoves",
        json!(wrapper),
    );
    install_fake(&acp.env.bin, "kiro-cli", &script);
    let outcome = acp.run(&args(&["--json"]));
    let errors = error_events(&outcome, 9, "agent_failed");
    let message = errors[0]["message"].as_str().expect("a message");
    assert!(message.contains("could not start"), "{message}");
    let hint = events(&outcome).last().expect("document")["error"]["hint"].clone();
    assert_eq!(hint, "check `oneworks adapter status kiro`");
}

// Item 8: authentication.

fn auth_methods() -> Value {
    json!([
        {"id": "browser-login", "name": "Log in with a browser"},
        {"id": "api-key", "name": "API key"}
    ])
}

// Item 11: what oneworks does not speak is refused.

#[test]
fn a_protocol_version_oneworks_does_not_speak_is_refused() {
    let acp = AcpEnv::new(json!({"protocolVersion": 99}));
    let outcome = acp.run(&args(&["--json"]));
    let errors = error_events(&outcome, 9, "agent_failed");
    assert!(errors[0]["message"]
        .as_str()
        .is_some_and(|message| message.contains("protocol version 99")));
    assert!(acp.sent("session/new").is_empty());
}

#[test]
fn updates_before_the_handshake_are_dropped() {
    let acp = AcpEnv::new(json!({
        "onInitialize": [{"text": "too early"}],
        "turn": [{"text": "in the turn"}]
    }));
    let outcome = acp.run(&args(&["--json"]));
    outcome.assert_success();
    let events = events(&outcome);
    let text: String = events
        .iter()
        .filter_map(|event| event["text"].as_str())
        .collect();
    assert_eq!(text, "in the turn", "{events:#?}");
}

#[test]
fn a_prompt_result_that_is_not_an_object_is_a_protocol_error() {
    for result in [json!(null), json!("end_turn")] {
        let acp = AcpEnv::new(json!({"promptResult": result}));
        let outcome = acp.run(&args(&["--json"]));
        outcome.assert_code(9);
        let events = events(&outcome);
        let errors: Vec<&Value> = events.iter().filter(|e| e["type"] == "error").collect();
        assert_eq!(errors.len(), 1, "{}", outcome.describe());
        assert!(
            errors[0]["message"]
                .as_str()
                .is_some_and(|message| message.contains("session/prompt")),
            "{}",
            outcome.describe()
        );
        assert!(!types(&events).contains(&"turn_end".to_owned()));
        assert_eq!(
            events.last().expect("document")["error"]["kind"],
            "agent_failed"
        );
    }
}

#[test]
fn duplicate_option_ids_are_answered_cancelled() {
    let twice = json!([
        {"optionId": "same", "name": "Yes", "kind": "allow_once"},
        {"optionId": "same", "name": "No", "kind": "reject_once"}
    ]);
    let acp = AcpEnv::new(json!({
        "turn": [{"permission": {"id": "p-1", "title": "ls", "options": twice}}]
    }));
    let outcome = acp.run(&args(&["--json", "--mode", "dontAsk"]));
    outcome.assert_code(10);
    let answers = answers(&acp, &json!("p-1"));
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(
        answers[0]["result"]["outcome"],
        json!({"outcome": "cancelled"})
    );
}

#[test]
fn accept_edits_matches_write_and_edit_as_whole_words() {
    let turn = |title: &str| json!({"turn": [{"permission": {"id": "p-1", "title": title, "options": options_full()}}]});
    // No terminal and no `--json`: a question that needs a person fails
    // closed (exit 10), an automatic allow succeeds.
    let acp = AcpEnv::new(turn("Check credit balance"));
    acp.run(&args(&["--mode", "acceptEdits"])).assert_code(10);
    acp.script(turn("write notes.txt"));
    acp.run(&args(&["--mode", "acceptEdits"])).assert_success();
    assert_eq!(
        answers(&acp, &json!("p-1")).last().expect("an answer")["result"]["outcome"]["optionId"],
        "proceed_once"
    );
}

// Item 17: a huge `--timeout` is a usage error.

#[test]
fn a_huge_timeout_is_a_usage_error_echoed_as_written() {
    let acp = AcpEnv::new(json!({}));
    for value in [
        "10000000000000000000s",
        "99999999999999999999d",
        "99999999999d",
    ] {
        let outcome = acp.run(&args(&["--json", "--timeout", value]));
        outcome.assert_error(2, "usage");
        outcome.assert_stderr_contains(value);
        outcome.assert_stderr_lacks("panicked");
    }
    assert!(acp.sent("initialize").is_empty());
}

// Open list: models only from `availableModels`.

#[test]
fn a_model_is_accepted_only_from_available_models() {
    // Named elsewhere in the answer (current model, a `model` config
    // option), but not in `availableModels`.
    let elsewhere = json!({
        "currentModelId": "claude-c",
        "availableModels": [{"modelId": "claude-a"}]
    });
    let option = json!([{"id": "model", "category": "model", "currentValue": "claude-c",
                         "options": [{"value": "claude-c"}]}]);
    for session in [
        json!({"models": {"currentModelId": "claude-c"}, "configOptions": option}),
        json!({"models": elsewhere, "configOptions": option}),
    ] {
        let acp = AcpEnv::new(json!({ "sessionResult": session }));
        let outcome = acp.run(&args(&["--json", "--model", "claude-c"]));
        error_events(&outcome, 2, "usage");
        assert!(acp.sent("session/set_model").is_empty());
        assert!(acp.sent("session/set_config_option").is_empty());
        assert!(acp.sent("session/prompt").is_empty());
    }
}

// Vendor facts of the `acp:` section and the quirk sets.

/// Points the run at a copy of the built-in Kiro data whose `acp:` section
/// `change` rewrote (the fake still answers `kiro-cli acp --agent NAME`).
fn with_acp_data(acp: &mut AcpEnv, change: impl FnOnce(&mut AdapterYaml)) {
    let mut data = AdapterYaml::builtin("kiro");
    change(&mut data);
    let file = acp.env.outside.join("adapter.yaml");
    data.write(&file);
    acp.env
        .set_env("ONEWORKS_KIRO_ADAPTER_FILE", file.to_str().expect("utf-8"));
}

/// Gemini CLI numbers its permission requests from the integer `0` and
/// offers `proceed_once`/`proceed_always`/`cancel`: `0` is an id like any
/// other, answered with its native option id.
#[test]
fn a_permission_request_with_id_0_is_answered() {
    let acp = AcpEnv::new(json!({
        "turn": [permission(json!(0), "touch probe-created.txt", options_full()), {"awaitAnswer": 0}, {"text": "All done"}]
    }));
    let mut live = acp.live(&args(&["--json"]));
    let asked = live.expect("permission_request");
    assert_eq!(asked["id"], "0");
    live.send(&json!({"id": "0", "reply": "Allow once"}).to_string());
    let (code, _, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");
    let answers = answers(&acp, &json!(0));
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(
        answers[0]["result"],
        json!({"outcome": {"outcome": "selected", "optionId": "proceed_once"}})
    );
}
