//! A kept session's questions as its cards: a question the
//! caller asks a person is also the session's card, answered from another
//! process (`session answer`) or by the caller, whichever comes first; a
//! question the mode answers makes no card; a turn cancelled with its card
//! pending withdraws it.

use serde_json::{json, Value};

use crate::run::acp_env::{options_full, AcpEnv, Live, EVENT_DEADLINE};
use crate::support::wait::wait_until;

fn ask_then_answer() -> AcpEnv {
    AcpEnv::new(json!({"turn": [
        {"permission": {"id": "p1", "title": "Run ls", "kind": "execute", "options": options_full()}},
        {"text": "done"}
    ]}))
}

fn keep_args(extra: &[&'static str]) -> Vec<&'static str> {
    let mut args = vec!["--prompt", "ask", "--session", "kept", "--json"];
    args.extend_from_slice(extra);
    args
}

/// The session's cards as `session approvals --json` lists them.
fn cards(acp: &AcpEnv) -> Vec<Value> {
    let listed = acp.env.run(&["session", "approvals", "kept", "--json"]);
    listed.assert_success();
    serde_json::from_str::<Vec<Value>>(&listed.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}", listed.describe()))
}

fn pending_card(acp: &AcpEnv) -> Value {
    let mut found = None;
    wait_until("the question became a pending card", EVENT_DEADLINE, || {
        found = cards(acp)
            .into_iter()
            .find(|card| card["state"] == "pending");
        found.is_some()
    });
    found.unwrap_or_default()
}

/// Every answer the agent received to question `id`.
fn answers(acp: &AcpEnv, id: &str) -> Vec<Value> {
    acp.received()
        .into_iter()
        .filter(|message| message.get("method").is_none() && message["id"] == id)
        .map(|message| message["result"]["outcome"].clone())
        .collect()
}

fn card_state(acp: &AcpEnv, id: &Value) -> Value {
    cards(acp)
        .into_iter()
        .find(|card| card["id"] == *id)
        .map(|card| card["state"].clone())
        .unwrap_or_default()
}

fn stop(acp: &AcpEnv) {
    acp.env.run(&["session", "stop", "kept"]).assert_success();
}

#[test]
fn a_card_answered_from_another_process_reaches_the_agent_and_the_caller() {
    let acp = ask_then_answer();
    for (try_number, (action, option, state)) in [
        ("accept", json!("proceed_once"), "accepted"),
        ("decline", json!("cancel"), "declined"),
    ]
    .into_iter()
    .enumerate()
    {
        let extra: &[&str] = if try_number == 0 {
            &["--keep", "60s"]
        } else {
            &[]
        };
        let mut live = Live::start(acp.oneworks(&keep_args(extra)));
        live.expect("permission_request");
        let card = pending_card(&acp);
        assert_eq!(card["title"], "Run ls", "{card}");
        let id = card["id"].as_str().expect("card id").to_owned();
        acp.env
            .run(&["session", "answer", "kept", &id, action])
            .assert_success();
        let resolved = live.expect("permission_resolved");
        assert_eq!(resolved["optionId"], option, "{resolved}");
        let (code, seen, stderr) = live.finish();
        assert_eq!(code, Some(0), "{action}: {stderr}\n{seen:#?}");
        let told = seen.iter().any(|event| {
            event["type"] == "diagnostic"
                && event["message"]
                    .as_str()
                    .is_some_and(|message| message.contains("was answered by its card (`cli`)"))
        });
        assert!(
            told || stderr.contains("was answered by its card (`cli`)"),
            "{stderr}\n{seen:#?}"
        );
        let end = seen.iter().find(|event| event["type"] == "turn_end");
        assert_eq!(
            end.map(|e| e["stopReason"].clone()),
            Some(json!("end_turn"))
        );
        // One answer on the wire per turn, the card's.
        let wire = answers(&acp, "p1");
        assert_eq!(wire.len(), try_number + 1, "{wire:#?}");
        assert_eq!(
            wire[try_number],
            json!({"outcome": "selected", "optionId": option})
        );
        assert_eq!(card_state(&acp, &json!(id)), state);
    }
    stop(&acp);
}

#[test]
fn the_caller_answers_first_and_the_card_is_answered_where_it_was_asked() {
    let acp = ask_then_answer();
    let mut live = Live::start(acp.oneworks(&keep_args(&["--keep", "60s"])));
    live.expect("permission_request");
    let card = pending_card(&acp);
    live.send(r#"{"id":"p1","reply":"Reject once"}"#);
    let (code, _, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");
    let id = card["id"].clone();
    wait_until(
        "the card says where it was answered",
        EVENT_DEADLINE,
        || card_state(&acp, &id) == "answered_in_terminal",
    );
    // Too late: the card's answer is refused and nothing more reaches the agent.
    let late = acp.env.run(&[
        "session",
        "answer",
        "kept",
        id.as_str().unwrap_or_default(),
        "accept",
    ]);
    late.assert_failure();
    assert_eq!(
        answers(&acp, "p1"),
        [json!({"outcome": "selected", "optionId": "cancel"})]
    );
    stop(&acp);
}

#[test]
fn a_question_the_mode_answers_makes_no_card_and_a_cancelled_turn_withdraws_its_card() {
    let acp = AcpEnv::new(json!({"turn": [
        {"permission": {"id": "p2", "title": "Run rm", "kind": "execute", "options": options_full()}},
        "waitForCancel"
    ]}));
    let mut first = Live::start(acp.oneworks(&keep_args(&["--keep", "60s", "--mode", "dontAsk"])));
    let resolved = first.expect("permission_resolved");
    assert_eq!(resolved["by"], "policy", "{resolved}");
    assert!(cards(&acp).is_empty(), "{:#?}", cards(&acp));
    acp.env.run(&["session", "cancel", "kept"]).assert_success();
    let (code, _, stderr) = first.finish();
    assert_eq!(code, Some(130), "{stderr}");
    assert!(cards(&acp).is_empty(), "{:#?}", cards(&acp));

    let mut live = Live::start(acp.oneworks(&keep_args(&[])));
    live.expect("permission_request");
    let card = pending_card(&acp);
    acp.env.run(&["session", "cancel", "kept"]).assert_success();
    let (code, _, stderr) = live.finish();
    assert_eq!(code, Some(130), "{stderr}");
    let id = card["id"].clone();
    wait_until("the card was withdrawn", EVENT_DEADLINE, || {
        card_state(&acp, &id) == "cancelled"
    });
    let wire = answers(&acp, "p2");
    assert_eq!(
        wire.last(),
        Some(&json!({"outcome": "cancelled"})),
        "{wire:#?}"
    );
    stop(&acp);
}

#[test]
fn a_hostile_question_is_a_scrubbed_card_and_the_secret_is_in_no_file() {
    const SECRET: &str = "kiro-kept-secret-27182818";
    let mut acp = AcpEnv::new(json!({"turn": [
        {"permission": {"id": "p1", "title": format!("Run curl -H {SECRET}\u{1b}[2J"),
            "kind": "execute", "options": options_full()}},
        {"text": "done"}
    ]}));
    acp.env.set_env("KIRO_API_KEY", SECRET);
    let mut live = Live::start(acp.oneworks(&keep_args(&["--keep", "60s"])));
    live.expect("permission_request");
    let card = pending_card(&acp);
    let title = card["title"].as_str().expect("title");
    assert!(!title.contains(SECRET), "{title}");
    assert!(!title.contains('\u{1b}'), "{title:?}");
    acp.env
        .run(&[
            "session",
            "answer",
            "kept",
            card["id"].as_str().expect("id"),
            "decline",
        ])
        .assert_success();
    let (code, _, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains(SECRET), "{stderr}");
    stop(&acp);
    for file in crate::support::walk(&acp.env.project) {
        let bytes = std::fs::read(&file).unwrap_or_default();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(SECRET),
            "{} holds the secret",
            file.display()
        );
    }
}
