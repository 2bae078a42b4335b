//! Conformance: `oneworks run kiro` against an ACP agent written with the
//! official TypeScript SDK (`tests/conformance/acp-agent`), which validates
//! every request it receives against the ACP schema. `.ci/run` installs it
//! with `npm ci`; without `node` these tests say so loudly and pass.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use serde_json::{json, Value};

use crate::run::acp_env::{types, Live};
use crate::support::{shell_quote, Invocation, TestEnv};

fn agent_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/acp-agent")
}

/// Installs the agent's locked dependencies (`npm ci`) once per test run
/// when they are missing, so the README's test command works on a fresh
/// clone; `.ci/run` does it up front.
fn install_agent(dir: &std::path::Path) {
    static INSTALL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = INSTALL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if dir.join("node_modules/@agentclientprotocol/sdk").is_dir() {
        return;
    }
    let status = std::process::Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--omit=peer"])
        .current_dir(dir)
        .status()
        .expect("run npm ci for the conformance agent");
    assert!(
        status.success(),
        "`npm ci` failed in {}: the ACP conformance agent is not installed",
        dir.display()
    );
}

/// A world whose `kiro-cli` runs the SDK agent for `acp --agent …`; `None`
/// (after a loud message) when Node.js is missing.
fn sdk_world() -> Option<TestEnv> {
    let node = std::process::Command::new("node").arg("--version").output();
    if !node.is_ok_and(|output| output.status.success()) {
        crate::support::missing("`node` is not installed: the ACP SDK conformance test cannot run");
        return None;
    }
    let dir = agent_dir();
    install_agent(&dir);
    let env = TestEnv::new();
    let wrapper = format!(
        "#!/bin/sh\ncase \"$1 $2\" in\n  '--version '*) echo 'kiro-cli 2.15.1' ;;\n  'acp --help') echo 'Usage: kiro-cli acp' ;;\n  'acp --agent') exec node {} ;;\n  *) exit 2 ;;\nesac\n",
        shell_quote(&dir.join("agent.mjs").to_string_lossy())
    );
    let path = env.bin.join("kiro-cli");
    std::fs::write(&path, wrapper).expect("write wrapper");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    env.write_config("adapters:\n  kiro:\n    cli:\n      source: system\n");
    Some(env)
}

fn run_cmd<'a>(env: &'a TestEnv, prompt: &str) -> Invocation<'a> {
    env.oneworks()
        .args(["run", "kiro", "--prompt", prompt, "--json"])
}

fn text(events: &[Value]) -> String {
    events
        .iter()
        .filter(|event| event["type"] == "agent_message_chunk")
        .filter_map(|event| event["text"].as_str())
        .collect()
}

#[test]
fn a_plain_turn_with_the_sdk_agent() {
    let Some(env) = sdk_world() else { return };
    let outcome = run_cmd(&env, "plain").run();
    outcome.assert_success();
    let events = crate::run::acp_env::events(&outcome);
    assert_eq!(
        types(&events),
        ["session_started", "agent_message_chunk", "turn_end"],
        "{}",
        outcome.describe()
    );
    assert_eq!(events[0]["sessionId"], "conformance-1");
    assert_eq!(text(&events), "conformance hello");
    assert_eq!(events[2]["stopReason"], "end_turn");
}

#[test]
fn a_permission_answered_over_the_json_channel_with_the_sdk_agent() {
    let Some(env) = sdk_world() else { return };
    let mut live = Live::start(run_cmd(&env, "permission"));
    let request = live.expect("permission_request");
    assert_eq!(request["title"], "Edit notes.md");
    let id = request["id"].clone();
    live.send(&json!({"id": id, "reply": "允许一次"}).to_string());
    let resolved = live.expect("permission_resolved");
    assert_eq!(resolved["optionId"], "allow-once");
    let (code, seen, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(text(&seen), "outcome: allow-once", "{seen:#?}");
}

#[test]
fn a_cancel_with_the_sdk_agent() {
    let Some(env) = sdk_world() else { return };
    let mut live = Live::start(run_cmd(&env, "cancel"));
    live.expect("agent_message_chunk");
    live.send(r#"{"cancel":true}"#);
    let end = live.expect("turn_end");
    assert_eq!(end["stopReason"], "cancelled");
    let (code, _, stderr) = live.finish();
    assert_eq!(code, Some(130), "{stderr}");
}
