//! `--mode`: `acceptEdits` allows an edit once and asks for the
//! rest, the automatic modes never grant persistent trust, and every mode
//! meets every option set (once, always, reject, unknown kinds) as the spec
//! prescribes, checked on the wire.

use serde_json::{json, Value};

use super::{answer_and_cancel_positions, args, wire_answer};
use crate::run::acp_env::{events, options_full, types, AcpEnv};

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

/// What a mode decides for one question with no person to ask (stdin
/// at EOF): the native option id oneworks must select, or `None` for
/// `cancelled` (and exit 10).
fn prescribed(mode: &str, edit: bool, options: &Value) -> Option<&'static str> {
    let automatic = match mode {
        "dontAsk" | "bypassPermissions" => true,
        "acceptEdits" => edit,
        _ => false,
    };
    let has_allow_once = options
        .as_array()
        .expect("options")
        .iter()
        .any(|option| option["kind"] == "allow_once");
    (automatic && has_allow_once).then_some("proceed_once")
}

#[test]
fn every_mode_meets_every_option_set_as_the_spec_says_on_the_wire() {
    let option_sets = [
        ("once, always, reject", crate::run::acp_env::options_full()),
        (
            "always and reject, no once",
            json!([
                {"optionId": "proceed_always", "name": "Yes, always", "kind": "allow_always"},
                {"optionId": "cancel", "name": "No", "kind": "reject_once"}
            ]),
        ),
        (
            "only always",
            json!([{"optionId": "proceed_always", "name": "Yes, always", "kind": "allow_always"}]),
        ),
        (
            "unknown kinds",
            json!([
                {"optionId": "forever", "name": "Trust forever", "kind": "allow_forever"},
                {"optionId": "maybe", "name": "Perhaps", "kind": "ask_later"}
            ]),
        ),
    ];
    // (mode, toolCall.kind, title, whether it counts as an edit)
    let requests = [
        ("default", Some("edit"), "Edit a.rs", true),
        ("plan", Some("edit"), "Edit a.rs", true),
        ("acceptEdits", Some("edit"), "Edit a.rs", true),
        ("acceptEdits", Some("delete"), "Remove a.rs", true),
        ("acceptEdits", None, "Write notes.md", true),
        ("acceptEdits", Some("execute"), "Run make", false),
        ("acceptEdits", None, "Run make", false),
        ("dontAsk", Some("execute"), "Run make", false),
        ("bypassPermissions", Some("execute"), "Run make", false),
    ];
    for (mode, kind, title, edit) in requests {
        for (set_name, options) in &option_sets {
            let expected = prescribed(mode, edit, options);
            let id = json!(format!("q-{mode}"));
            let after = if expected.is_some() {
                json!({"text": "after"})
            } else {
                json!("waitForCancel")
            };
            let acp = AcpEnv::new(json!({
                "turn": [
                    {"permission": {"id": id, "title": title, "kind": kind, "options": options}},
                    after
                ]
            }));
            let case = format!("{mode} × {set_name} × {kind:?} `{title}`");
            let outcome = acp.run(&args(&["--json", "--mode", mode]));
            let answer = wire_answer(&acp, &id);
            let events = events(&outcome);
            match expected {
                Some(option) => {
                    assert_eq!(outcome.code, Some(0), "{case}\n{}", outcome.describe());
                    assert_eq!(
                        answer,
                        json!({"outcome": "selected", "optionId": option}),
                        "{case}"
                    );
                    assert!(acp.sent("session/cancel").is_empty(), "{case}");
                }
                None => {
                    assert_eq!(outcome.code, Some(10), "{case}\n{}", outcome.describe());
                    assert_eq!(answer, json!({"outcome": "cancelled"}), "{case}");
                    let resolved = events
                        .iter()
                        .find(|event| event["type"] == "permission_resolved")
                        .unwrap_or_else(|| panic!("{case}: no permission_resolved"));
                    assert_eq!(resolved["optionId"], Value::Null, "{case}");
                    assert_eq!(acp.sent("session/cancel").len(), 1, "{case}");
                }
            }
            // oneworks' policy never reaches Kiro's own mode setter.
            assert!(acp.sent("session/set_mode").is_empty(), "{case}");
        }
    }
}
