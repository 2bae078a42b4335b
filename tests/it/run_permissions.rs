//! `oneworks run kiro` with questions that overlap: each permission
//! request is one `permission_request` event, answered once on the wire
//! (SPEC §8.6).

use serde_json::{json, Value};

use crate::acp_support::{options_full, types, AcpEnv};

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut all = vec!["--prompt", "Say hello"];
    all.extend_from_slice(extra);
    all
}

/// The messages oneworks sent that answer the agent's request `id`.
fn answers_to(acp: &AcpEnv, id: &Value) -> Vec<Value> {
    acp.received()
        .into_iter()
        .filter(|message| message.get("method").is_none() && &message["id"] == id)
        .collect()
}

#[test]
fn each_overlapping_permission_request_is_one_event_and_one_answer() {
    // Three questions at once; the agent then waits for each answer.
    let ids = ["p1", "p2", "p3"];
    let mut turn: Vec<Value> = ids
        .iter()
        .map(|id| {
            json!({"askPermission": {"id": id, "title": format!("Run step {id}"), "kind": "execute", "options": options_full()}})
        })
        .collect();
    turn.extend(ids.iter().map(|id| json!({"awaitAnswer": id})));
    turn.push(json!({"text": "all answered"}));
    let acp = AcpEnv::new(json!({ "turn": turn }));
    let mut live = acp.live(&args(&["--json"]));
    // A client that answers every `permission_request` event it sees.
    loop {
        let event = live.next_event();
        match event["type"].as_str() {
            Some("permission_request") => {
                let id = event["id"].as_str().expect("an id");
                live.send(&json!({"id": id, "reply": "Allow once"}).to_string());
            }
            Some("turn_end") => break,
            _ => {}
        }
    }
    let (code, seen, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}\n{seen:#?}");
    let of_type = |kind: &str| -> Vec<Value> {
        seen.iter()
            .filter(|event| event["type"] == kind)
            .map(|event| event["id"].clone())
            .collect()
    };
    assert_eq!(of_type("permission_request"), ids, "{seen:#?}");
    assert_eq!(of_type("permission_resolved"), ids, "{seen:#?}");
    // No second reply went unanswered (nothing was asked twice).
    assert!(
        !seen.iter().any(|event| event["type"] == "diagnostic"),
        "{seen:#?}"
    );
    for id in ids {
        let answers = answers_to(&acp, &json!(id));
        assert_eq!(answers.len(), 1, "{id} answered {answers:#?}");
        assert_eq!(
            answers[0]["result"]["outcome"],
            json!({"outcome": "selected", "optionId": "proceed_once"})
        );
    }
    assert!(types(&seen).contains(&"agent_message_chunk".to_owned()));
}

#[test]
fn a_reply_that_fits_no_option_does_not_repeat_the_event() {
    let acp = AcpEnv::new(json!({
        "turn": [
            {"permission": {"id": "p1", "title": "Run ls", "kind": "execute", "options": options_full()}},
            {"text": "done"}
        ]
    }));
    let mut live = acp.live(&args(&["--json"]));
    live.expect("permission_request");
    live.send(r#"{"id":"p1","reply":"nonsense"}"#);
    let refusal = live.expect("diagnostic");
    assert!(
        refusal["message"]
            .as_str()
            .is_some_and(|message| message.contains("`p1`") && message.contains("Answer again")),
        "{refusal}"
    );
    live.send(r#"{"id":"p1","reply":"Allow once"}"#);
    live.expect("permission_resolved");
    let (code, seen, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");
    let asked = seen
        .iter()
        .filter(|event| event["type"] == "permission_request")
        .count();
    assert_eq!(asked, 1, "{seen:#?}");
}
