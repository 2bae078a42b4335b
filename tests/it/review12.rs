//! Issue 12 review: what the attack found after the hardening merge,
//! through the real binary and the fake `kiro-cli`.

use serde_json::json;

use crate::acp_support::{AcpEnv, SetupError};

const PROMPT: &[&str] = &["--prompt", "Say hello"];

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
    assert!(
        outcome.stderr.contains("not json LOGTAILabc"),
        "{}",
        outcome.describe()
    );
    // The generic client names the agent, not Kiro's binary (item 8).
    assert!(
        !outcome.stderr.contains("kiro-cli"),
        "{}",
        outcome.describe()
    );
}

/// Setting the model and the effort are setup steps too (SPEC §7): an agent
/// that never answers them ends the run with exit 9 naming the step, within
/// the handshake deadline.
#[test]
fn set_model_and_set_config_option_have_the_handshake_deadline() {
    let session = json!({
        "models": {"currentModelId": "claude-a", "availableModels": [{"modelId": "claude-a"}]},
        "configOptions": [{
            "id": "reasoning", "name": "Effort", "category": "thought_level", "type": "select",
            "currentValue": "low", "options": [{"value": "low"}, {"value": "high"}]
        }]
    });
    for (method, flag, value) in [
        ("session/set_model", "--model", "claude-a"),
        ("session/set_config_option", "--effort", "high"),
    ] {
        let mut acp = AcpEnv::new(json!({"sessionResult": session, "neverAnswer": [method]}));
        acp.env.set_env("ONEWORKS_HANDSHAKE_TIMEOUT", "1s");
        let outcome = acp.run(&["--prompt", "Say hello", "--json", flag, value]);
        let message = outcome.assert_setup_error(9, "agent_failed");
        assert!(message.contains(&format!("`{method}`")), "{message}");
        assert!(message.contains("ONEWORKS_HANDSHAKE_TIMEOUT"), "{message}");
        assert!(acp.sent("session/prompt").is_empty());
    }
}

/// Item 17: the `--timeout` value is echoed as the user wrote it (`1000ms`,
/// not `1s`) when it cancels a turn and when it cuts the handshake short.
#[test]
fn the_timeout_is_echoed_as_written() {
    let acp = AcpEnv::new(json!({"turn": ["waitForCancel"]}));
    let outcome = acp.run(&["--prompt", "Say hello", "--timeout", "1000ms"]);
    outcome.assert_code(9);
    assert!(
        outcome.stderr.contains("`--timeout 1000ms`"),
        "{}",
        outcome.describe()
    );
    acp.script(json!({"neverAnswer": ["initialize"]}));
    let outcome = acp.run(&["--prompt", "Say hello", "--json", "--timeout", "1000ms"]);
    let message = outcome.assert_setup_error(9, "agent_failed");
    assert!(message.contains("`--timeout 1000ms`"), "{message}");
}

/// Item 1 in human mode: stdout carries only the agent's text, so a secret
/// whose pieces come around a thought or a tool call (which go to stderr)
/// is still one string on stdout and must not come out whole.
#[test]
fn a_secret_split_around_other_events_is_not_rebuilt_on_stdout() {
    const SECRET: &str = "AkiaSecretValueXyz0123456";
    let (head, tail) = SECRET.split_at(10);
    for between in [
        json!({"thought": "hmm"}),
        json!({"toolCall": {"id": "t1", "title": "Read a.rs", "kind": "read"}}),
    ] {
        let mut acp = AcpEnv::new(json!({
            "turn": [{"text": format!("key {head}")}, between, {"text": format!("{tail} end")}]
        }));
        acp.env.set_env("KIRO_API_KEY", SECRET);
        let outcome = acp.run(PROMPT);
        outcome.assert_success();
        assert!(!outcome.stdout.contains(SECRET), "{}", outcome.describe());
        // `jq -r 'select(.type=="agent_message_chunk").text'` rebuilds
        // nothing either.
        let outcome = acp.run(&["--prompt", "Say hello", "--json"]);
        outcome.assert_success();
        let text: String = crate::acp_support::events(&outcome)
            .iter()
            .filter(|event| event["type"] == "agent_message_chunk")
            .filter_map(|event| event["text"].as_str().map(str::to_owned))
            .collect();
        assert_eq!(text, "key [redacted] end", "{}", outcome.describe());
    }
}

/// Item 8 ("hints never name Kiro for another agent"): the setup errors of
/// the generic ACP client speak of the agent, whichever it is.
#[test]
fn setup_errors_name_the_agent_not_kiro() {
    let session = json!({"models": {"availableModels": [{"modelId": "claude-a"}]}});
    let acp = AcpEnv::new(json!({"sessionResult": session}));
    for extra in [["--model", "gpt-x"], ["--effort", "high"]] {
        let mut all = vec!["--prompt", "Say hello", "--json"];
        all.extend_from_slice(&extra);
        let message = acp.run(&all).assert_setup_error(2, "usage");
        assert!(!message.contains("Kiro"), "{message}");
    }
}

/// Item 5's "never dropped, never left waiting" for ids of the wrong type:
/// a request whose id is an object (or `true`) is not an id oneworks can
/// echo, so it is answered with JSON-RPC's "invalid request" and id `null`
/// instead of being skipped while the agent waits forever.
#[test]
fn a_request_with_an_id_that_is_not_a_string_or_number_is_answered_invalid() {
    let ask = |id: serde_json::Value| {
        json!({"send": {"jsonrpc": "2.0", "id": id, "method": "session/request_permission",
            "params": {"sessionId": "fake-session-1", "toolCall": {"toolCallId": "t", "title": "odd id"},
                       "options": [{"optionId": "allow", "name": "Allow once", "kind": "allow_once"}]}}})
    };
    let acp = AcpEnv::new(json!({"turn": [
        ask(json!({"a": 1})), {"awaitAnswer": null},
        ask(json!(true)), {"awaitAnswer": null},
        {"text": "done"}
    ]}));
    let outcome = acp.run(&["--prompt", "Say hello", "--json", "--timeout", "20s"]);
    outcome.assert_success();
    let answers: Vec<serde_json::Value> = acp
        .received()
        .into_iter()
        .filter(|message| message.get("method").is_none() && message["id"].is_null())
        .collect();
    assert_eq!(answers.len(), 2, "{}", outcome.describe());
    for answer in answers {
        assert_eq!(answer["error"]["code"], -32600, "{answer}");
    }
    let events = crate::acp_support::events(&outcome);
    assert!(
        !events
            .iter()
            .any(|event| event["type"] == "permission_request"),
        "{events:?}"
    );
}

/// Item 12 (nothing grows without bound) for questions: an agent that
/// keeps asking without waiting cannot grow the pending questions without
/// bound; past the bound a request is answered with an error, never shown.
#[test]
fn pending_questions_have_a_bound() {
    let ask = |n: usize| {
        json!({"askPermission": {"id": format!("q{n}"), "title": format!("Run job {n}"),
                                 "kind": "execute", "options": crate::acp_support::options_full()}})
    };
    let mut turn: Vec<serde_json::Value> = (0..300).map(ask).collect();
    turn.push(json!({"awaitAnswer": "q299"}));
    turn.push(json!({"text": "done"}));
    let acp = AcpEnv::new(json!({ "turn": turn }));
    let mut live = acp.live(&["--prompt", "Say hello", "--json", "--timeout", "30s"]);
    live.expect("permission_request");
    let deadline = std::time::Instant::now() + crate::acp_support::EVENT_DEADLINE;
    let refused = loop {
        let refused = acp.received().into_iter().find(|message| {
            message.get("method").is_none()
                && message["id"] == "q299"
                && message["error"].is_object()
        });
        if let Some(refused) = refused {
            break refused;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "q299 was never refused"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("pending")),
        "{refused}"
    );
    live.close_stdin();
    let (_, events, _) = live.finish();
    let shown = events
        .iter()
        .filter(|event| event["type"] == "permission_request")
        .count();
    assert_eq!(shown, 256, "{}", shown);
}
