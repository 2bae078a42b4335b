//! A policy decides for unattended runs: its rules reach the
//! agent as the native `allow_once`/`reject_once`, each shown as a
//! `permission_decision` event instead of a question; the first match wins
//! and `otherwise` decides the rest; a glob never allows an incomplete card
//! (but still denies it); an allow without `allow_once` fails closed; the
//! adapter's policy replaces the top-level one; every decision — policy,
//! mode, person, cancel, refusal — is one line of the session's
//! `decisions.jsonl`; a policy in an untrusted project config decides
//! nothing until `config trust`; a bad policy is a config error.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use serde_json::{json, Value};

use super::{args, wire_answer};
use crate::run::acp_env::{events, options_full, AcpEnv};

const SYSTEM: &str = "adapters:\n  kiro:\n    cli:\n      source: system\n";

/// The session's decision record.
fn record_path(acp: &AcpEnv) -> PathBuf {
    acp.env
        .project
        .join(".oneworks/sessions/default/decisions.jsonl")
}

/// The lines of the session's decision record.
fn record(acp: &AcpEnv) -> Vec<Value> {
    std::fs::read_to_string(record_path(acp))
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

/// A `session/request_permission` whose tool call carries a shell command
/// and paths, as the fake agent sends it (and waits for its answer).
fn shell_request(id: &str, command: &str, paths: &[&str], options: Value) -> Value {
    let locations: Vec<Value> = paths.iter().map(|path| json!({"path": path})).collect();
    json!({"request": {"id": id, "method": "session/request_permission", "params": {
        "sessionId": "sess-1",
        "toolCall": {
            "toolCallId": format!("call-{id}"), "title": format!("Run {command}"),
            "kind": "execute", "rawInput": {"command": command}, "locations": locations,
        },
        "options": options,
    }}})
}

fn permission(id: &str, title: &str, kind: &str) -> Value {
    json!({"permission": {"id": id, "title": title, "kind": kind, "options": options_full()}})
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|event| event["type"] == kind)
        .collect()
}

#[test]
fn a_deny_and_an_allow_rule_answer_with_the_native_once_options_and_are_recorded() {
    const SECRET: &str = "kiro-policy-secret-27182818";
    let options = json!([
        {"optionId": "proceed_once", "name": "Yes", "kind": "allow_once"},
        {"optionId": format!("no-{SECRET}"), "name": "No", "kind": "reject_once"}
    ]);
    let mut acp = AcpEnv::new(json!({
        "turn": [
            shell_request("r1", &format!("rm -rf build {SECRET}"), &[], options),
            permission("r2", "Read README.md", "read"),
            {"text": "done"}
        ]
    }));
    acp.env.set_env("KIRO_API_KEY", SECRET);
    acp.env.write_config(&format!(
        "{SYSTEM}policy:\n  rules:\n    - decide: deny\n      command: \"rm *\"\n    - decide: allow\n      kind: read\n"
    ));
    let outcome = acp.run(&args(&["--json"]));
    outcome.assert_success();
    let events = events(&outcome);
    // Nobody was asked: each decision replaces its question.
    assert!(of_type(&events, "permission_request").is_empty());
    let decisions = of_type(&events, "permission_decision");
    assert_eq!(decisions.len(), 2, "{events:#?}");
    assert_eq!(decisions[0]["id"], "r1");
    assert_eq!(decisions[0]["decision"], "deny");
    assert_eq!(
        decisions[0]["rule"],
        json!({"index": 0, "decide": "deny", "command": "rm *"})
    );
    assert_eq!(
        *decisions[1],
        json!({"type": "permission_decision", "id": "r2", "title": "Read README.md", "decision": "allow",
               "rule": {"index": 1, "decide": "allow", "kind": "read"}})
    );
    let resolved = of_type(&events, "permission_resolved");
    assert_eq!(resolved.len(), 2);
    assert!(resolved.iter().all(|event| event["by"] == "policy"));
    outcome.assert_text_lacks(SECRET);
    // On the wire: the agent's own once-options, exactly as it named them.
    assert_eq!(
        wire_answer(&acp, &json!("r1")),
        json!({"outcome": "selected", "optionId": format!("no-{SECRET}")})
    );
    assert_eq!(
        wire_answer(&acp, &json!("r2")),
        json!({"outcome": "selected", "optionId": "proceed_once"})
    );
    // One private, scrubbed line per decision.
    let path = record_path(&acp);
    let text = std::fs::read_to_string(&path).expect("the record");
    assert!(!text.contains(SECRET), "{text}");
    let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let lines = record(&acp);
    assert_eq!(lines.len(), 2, "{text}");
    assert_eq!(lines[0]["adapter"], "kiro");
    assert_eq!(lines[0]["by"], "policy");
    assert_eq!(lines[0]["decision"], "deny");
    assert_eq!(lines[0]["optionKind"], "reject_once");
    assert_eq!(
        lines[0]["rule"],
        json!({"policy": "policy", "index": 0, "decide": "deny", "command": "rm *"})
    );
    assert!(lines[0]["title"]
        .as_str()
        .is_some_and(|title| title.starts_with("Run rm -rf build ")));
    assert!(lines[0]["time"]
        .as_str()
        .is_some_and(|time| time.ends_with('Z')));
    assert_eq!(lines[1]["optionId"], "proceed_once");
    assert_eq!(lines[1]["rule"]["index"], 1);

    // Without `--json` and without a terminal the policy still decides:
    // a CI run needs no channel when nothing is left to ask.
    let outcome = acp.run(&args(&[]));
    outcome.assert_success();
    assert!(
        outcome
            .stderr
            .contains("permission r2: allow by the policy (rule 1): Read README.md"),
        "{}",
        outcome.describe()
    );
    assert_eq!(record(&acp).len(), 4);
}

#[test]
fn the_first_matching_rule_decides_and_otherwise_decides_the_rest() {
    let acp = AcpEnv::new(json!({
        "turn": [
            permission("p1", "Run rm x", "execute"),
            permission("p2", "Edit a.rs", "edit"),
            {"text": "done"}
        ]
    }));
    acp.env.write_config(&format!(
        "{SYSTEM}policy:\n  rules:\n    - decide: allow\n      title: \"Run *\"\n    - decide: deny\n      title: \"Run rm*\"\n  otherwise: deny\n"
    ));
    let outcome = acp.run(&args(&["--json", "--mode", "dontAsk"]));
    outcome.assert_success();
    let events = events(&outcome);
    let decisions = of_type(&events, "permission_decision");
    assert_eq!(decisions[0]["rule"]["index"], 0, "{events:#?}");
    assert_eq!(decisions[0]["decision"], "allow");
    // `otherwise: deny` decides before the automatic mode could allow.
    assert_eq!(decisions[1]["decision"], "deny");
    assert_eq!(decisions[1]["rule"], json!({"otherwise": "deny"}));
    assert_eq!(
        wire_answer(&acp, &json!("p1")),
        json!({"outcome": "selected", "optionId": "proceed_once"})
    );
    assert_eq!(
        wire_answer(&acp, &json!("p2")),
        json!({"outcome": "selected", "optionId": "cancel"})
    );
    let lines = record(&acp);
    assert_eq!(
        lines[1]["rule"],
        json!({"policy": "policy", "otherwise": "deny"})
    );
}

#[test]
fn a_glob_never_allows_an_incomplete_card_but_still_denies_it() {
    let padding = "x".repeat(20 * 1024);
    let acp = AcpEnv::new(json!({
        "turn": [
            // Its tail lies beyond what the card shows: denied all the same.
            shell_request("p1", &format!("echo {padding}; rm -rf ~"), &[], options_full()),
            // Cut short on the card: `echo *` cannot vouch for it.
            shell_request("p2", &format!("echo {padding}"), &[], options_full()),
            shell_request("p3", "echo hi", &[], options_full()),
            {"text": "done"}
        ]
    }));
    acp.env.write_config(&format!(
        "{SYSTEM}policy:\n  rules:\n    - decide: deny\n      command: \"*rm -rf ~\"\n    - decide: allow\n      command: \"echo *\"\n"
    ));
    let mut live = acp.live(&args(&["--json"]));
    let asked = live.expect("permission_request");
    assert_eq!(asked["id"], "p2");
    assert_eq!(asked["complete"], false);
    live.send(r#"{"id":"p2","reply":"Reject once"}"#);
    let (code, seen, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");
    let decided: Vec<(&Value, &Value)> = of_type(&seen, "permission_decision")
        .iter()
        .map(|event| (&event["id"], &event["decision"]))
        .collect();
    assert_eq!(
        decided,
        [
            (&json!("p1"), &json!("deny")),
            (&json!("p3"), &json!("allow"))
        ]
    );
    assert_eq!(wire_answer(&acp, &json!("p1"))["optionId"], "cancel");
    assert_eq!(wire_answer(&acp, &json!("p2"))["optionId"], "cancel");
    assert_eq!(wire_answer(&acp, &json!("p3"))["optionId"], "proceed_once");
    let by: Vec<Value> = record(&acp).iter().map(|line| line["by"].clone()).collect();
    assert_eq!(by, [json!("policy"), json!("person"), json!("policy")]);
}

#[test]
fn paths_are_matched_relative_to_the_project_and_an_allow_needs_each() {
    let acp = AcpEnv::new(json!({"turn": [{"text": "placeholder"}]}));
    let project = acp.env.project.display().to_string();
    acp.script(json!({
        "turn": [
            shell_request("p1", "touch docs/a.md", &[&format!("{project}/docs/a.md"), "docs/b/c.md"], options_full()),
            shell_request("p2", "touch docs/../x", &[&format!("{project}/docs/../x")], options_full()),
            shell_request("p3", "cat .env", &[&format!("{project}/docs/a.md"), "app/.env"], options_full()),
            {"text": "done"}
        ]
    }));
    acp.env.write_config(&format!(
        "{SYSTEM}policy:\n  rules:\n    - decide: deny\n      path: \"**/.env\"\n    - decide: allow\n      path: \"docs/**\"\n  otherwise: deny\n"
    ));
    acp.run(&args(&["--json"])).assert_success();
    assert_eq!(wire_answer(&acp, &json!("p1"))["optionId"], "proceed_once");
    assert_eq!(wire_answer(&acp, &json!("p2"))["optionId"], "cancel");
    assert_eq!(wire_answer(&acp, &json!("p3"))["optionId"], "cancel");
    let rules: Vec<Value> = record(&acp)
        .iter()
        .map(|line| line["rule"].clone())
        .collect();
    assert_eq!(rules[0]["index"], 1);
    assert_eq!(rules[1]["otherwise"], "deny");
    assert_eq!(rules[2]["index"], 0);
}

#[test]
fn an_allow_without_the_agents_allow_once_fails_closed() {
    let acp = AcpEnv::new(json!({
        "turn": [
            {"permission": {"id": 5, "title": "Run make", "kind": "execute", "options": [
                {"optionId": "proceed_always", "name": "Yes, always", "kind": "allow_always"},
                {"optionId": "cancel", "name": "No", "kind": "reject_once"}
            ]}},
            "waitForCancel"
        ]
    }));
    acp.env
        .write_config(&format!("{SYSTEM}policy:\n  rules:\n    - decide: allow\n"));
    let outcome = acp.run(&args(&["--json"]));
    outcome.assert_code(10);
    let events = events(&outcome);
    assert_eq!(
        of_type(&events, "permission_decision")[0]["decision"],
        "allow"
    );
    let resolved = of_type(&events, "permission_resolved");
    assert_eq!(resolved[0]["optionId"], Value::Null);
    assert_eq!(resolved[0]["by"], "policy");
    assert_eq!(
        events.last().expect("error")["error"]["kind"],
        "permission_refused"
    );
    outcome.assert_stderr_contains("`policy.rules[0]`");
    assert_eq!(
        wire_answer(&acp, &json!(5)),
        json!({"outcome": "cancelled"})
    );
    let lines = record(&acp);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["by"], "refused");
    assert_eq!(lines[0]["decision"], "cancelled");
    assert_eq!(lines[0]["rule"]["index"], 0);
    assert!(lines[0]["reason"]
        .as_str()
        .is_some_and(|reason| reason.contains("allow_once")));
}

#[test]
fn the_adapters_policy_replaces_the_top_level_one_whole() {
    let acp = AcpEnv::new(json!({
        "turn": [
            permission("p1", "Run make", "execute"),
            permission("p2", "Edit a.rs", "edit"),
            {"text": "done"}
        ]
    }));
    acp.env.write_config(
        "adapters:\n  kiro:\n    cli:\n      source: system\n    policy:\n      rules:\n        - decide: allow\n          kind: execute\npolicy:\n  otherwise: deny\n",
    );
    let mut live = acp.live(&args(&["--json"]));
    // The adapter's `otherwise` (ask) applies, not the top-level deny.
    let asked = live.expect("permission_request");
    assert_eq!(asked["id"], "p2");
    live.send(r#"{"id":"p2","reply":"Allow once"}"#);
    let (code, _, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");
    let lines = record(&acp);
    assert_eq!(lines[0]["rule"]["policy"], "adapters.kiro.policy");
    assert_eq!(lines[1]["by"], "person");
}

#[test]
fn every_decision_of_a_run_is_recorded_mode_person_and_cancel() {
    let acp = AcpEnv::new(json!({
        "turn": [
            permission("p1", "Edit a.rs", "edit"),
            permission("p2", "Run ls", "execute"),
            permission("p3", "Run make", "execute"),
            "waitForCancel"
        ]
    }));
    let mut live = acp.live(&args(&["--json", "--mode", "acceptEdits"]));
    live.expect("permission_request");
    live.send(r#"{"id":"p2","reply":"Allow once"}"#);
    let third = live.expect("permission_request");
    assert_eq!(third["id"], "p3");
    live.send(r#"{"cancel":true}"#);
    let (code, _, stderr) = live.finish();
    assert_eq!(code, Some(130), "{stderr}");
    let lines = record(&acp);
    let summary: Vec<(Value, Value, Value)> = lines
        .iter()
        .map(|line| {
            (
                line["id"].clone(),
                line["by"].clone(),
                line["decision"].clone(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (json!("p1"), json!("mode"), json!("allow")),
            (json!("p2"), json!("person"), json!("allow")),
            (json!("p3"), json!("cancel"), json!("cancelled")),
        ]
    );
    assert_eq!(lines[0]["mode"], "acceptEdits");
    assert!(lines.iter().all(|line| line.get("rule").is_none()));
}

#[test]
fn a_policy_in_an_untrusted_project_config_decides_nothing_until_trusted() {
    let acp = AcpEnv::new(json!({
        "turn": [permission("p1", "Run make", "execute"), {"text": "done"}]
    }));
    // A clone that pre-approves everything, at the top and for kiro.
    let hostile = format!(
        "{SYSTEM}    policy:\n      rules:\n        - decide: allow\npolicy:\n  otherwise: allow\n"
    );
    acp.env.write_untrusted_config(&hostile);
    let outcome = acp.run(&args(&[]));
    // As without a policy: nobody to ask, so refused (exit 10).
    outcome.assert_code(10);
    assert_eq!(
        wire_answer(&acp, &json!("p1")),
        json!({"outcome": "cancelled"})
    );
    let note = outcome
        .stderr
        .lines()
        .find(|line| line.contains("is not trusted"))
        .unwrap_or_else(|| panic!("a note\n{}", outcome.describe()));
    assert!(
        note.contains("policy, adapters.kiro.policy") && note.contains("oneworks config trust"),
        "{note}"
    );
    assert_eq!(record(&acp)[0]["by"], "refused");

    // The person's own policy still applies beside the untrusted file.
    let user = acp.env.config_home.join("oneworks");
    std::fs::create_dir_all(&user).expect("user config folder");
    std::fs::write(user.join("config.yaml"), "policy:\n  otherwise: deny\n").expect("user config");
    std::fs::remove_file(&acp.wire).expect("reset the wire log");
    acp.run(&args(&[])).assert_success();
    assert_eq!(wire_answer(&acp, &json!("p1"))["optionId"], "cancel");
    std::fs::remove_file(user.join("config.yaml")).expect("remove user config");

    // Trusted, the file's policy decides.
    acp.env.run(&["config", "trust"]).assert_success();
    std::fs::remove_file(&acp.wire).expect("reset the wire log");
    let outcome = acp.run(&args(&["--json"]));
    outcome.assert_success();
    outcome.assert_stderr_lacks("is not trusted");
    let events = events(&outcome);
    assert_eq!(
        of_type(&events, "permission_decision")[0]["rule"],
        json!({"index": 0, "decide": "allow"})
    );
    assert_eq!(wire_answer(&acp, &json!("p1"))["optionId"], "proceed_once");
}

#[test]
fn a_bad_policy_is_a_config_error_naming_its_key_and_nothing_runs() {
    for (policy, expected) in [
        (
            "policy:\n  rules:\n    - decid: allow\n",
            ":7:7`: policy.rules[0]: unknown field `decid`",
        ),
        (
            "policy:\n  rules:\n    - decide: maybe\n",
            "policy.rules[0].decide: unknown variant `maybe`",
        ),
        (
            "policy:\n  rules:\n    - decide: deny\n      kind: [read, exec]\n",
            "policy.rules[0].kind[1]: unknown variant `exec`",
        ),
        (
            "policy:\n  rules:\n    - decide: deny\n      command: \"rm \\\\\"\n",
            "policy.rules[0].command: the glob ends with `\\`",
        ),
        (
            "policy:\n  otherwise: never\n",
            "policy.otherwise: unknown variant `never`",
        ),
        (
            "policy:\n  rule: []\n",
            "policy: unknown field `rule`, expected `rules` or `otherwise`",
        ),
    ] {
        let acp = AcpEnv::new(json!({"turn": [{"text": "never"}]}));
        acp.env.write_config(&format!("{SYSTEM}{policy}"));
        let outcome = acp.run(&args(&["--json"]));
        outcome.assert_code(3);
        assert!(
            outcome.stderr.contains(expected),
            "{policy}\n{}",
            outcome.describe()
        );
        assert!(acp.acp_invocations().is_empty(), "no agent started");
        assert!(!record_path(&acp).exists());
    }
    // Under an adapter, the key path names it.
    let acp = AcpEnv::new(json!({"turn": [{"text": "never"}]}));
    acp.env.write_config(&format!(
        "{SYSTEM}    policy:\n      rules:\n        - decide: deny\n          path: \"\"\n"
    ));
    let outcome = acp.run(&args(&[]));
    outcome.assert_code(3);
    assert!(
        outcome
            .stderr
            .contains("adapters.kiro.policy.rules[0].path: an empty glob matches nothing"),
        "{}",
        outcome.describe()
    );
    assert!(acp.acp_invocations().is_empty(), "no agent started");
}
