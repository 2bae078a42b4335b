//! Permission questions over the JSON channel: answered on
//! stdin, an ambiguous reply refused with the question left open, no
//! terminal and no `--json` failing closed with a hint, a project rule
//! answering later runs, stdin closed with a question pending, a request
//! whose id oneworks cannot echo answered "invalid request", and the bound
//! on pending questions.

use serde_json::{json, Value};

use super::{answer_and_cancel_positions, args, wire_answer};
use crate::run::acp_env::{events, options_full, types, AcpEnv};
use crate::support::wait::wait_for;

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
    // The diagnostics asked again; the event was not repeated.
    assert_eq!(
        types(&seen)
            .iter()
            .filter(|kind| *kind == "permission_request")
            .count(),
        1,
        "{seen:#?}"
    );
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
    let events = crate::run::acp_env::events(&outcome);
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
                                 "kind": "execute", "options": crate::run::acp_env::options_full()}})
    };
    let mut turn: Vec<serde_json::Value> = (0..300).map(ask).collect();
    turn.push(json!({"awaitAnswer": "q299"}));
    turn.push(json!({"text": "done"}));
    let acp = AcpEnv::new(json!({ "turn": turn }));
    let mut live = acp.live(&["--prompt", "Say hello", "--json", "--timeout", "30s"]);
    live.expect("permission_request");
    let refused = wait_for(
        "q299 was refused",
        crate::run::acp_env::EVENT_DEADLINE,
        || {
            let refused = acp.received().into_iter().find(|message| {
                message.get("method").is_none()
                    && message["id"] == "q299"
                    && message["error"].is_object()
            });
            refused.ok_or_else(String::new)
        },
    );
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

#[test]
fn a_turn_the_agent_cancels_after_a_reject_is_the_refusal_not_an_agent_failure() {
    // Codex ends its turn `cancelled` when a person says no: that is the
    // person's refusal (exit 10); a turn cancelled after an allow is the
    // agent's own doing (exit 9).
    for (reply, code, said) in [
        (
            "Reject once",
            10,
            "`Run ls` was rejected, and the agent ended its turn",
        ),
        ("Allow once", 9, "the agent cancelled the turn by itself"),
    ] {
        let acp = AcpEnv::new(json!({
            "turn": [{"permission": {"id": "p1", "title": "Run ls", "kind": "execute", "options": options_full()}}],
            "stopReason": "cancelled"
        }));
        let mut live = acp.live(&args(&["--json"]));
        live.expect("permission_request");
        live.send(&json!({"id": "p1", "reply": reply}).to_string());
        let (exit, seen, stderr) = live.finish();
        assert_eq!(exit, Some(code), "{reply}: {stderr}\n{seen:#?}");
        let error = seen.last().map(|event| event["error"]["message"].clone());
        let text = format!("{stderr}{error:?}");
        assert!(text.contains(said), "{reply}: {text}");
    }
}
