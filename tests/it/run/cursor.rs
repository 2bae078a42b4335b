//! `oneworks run cursor` over ACP: the managed `cursor-agent`
//! (installed from the loopback mirror, its launcher running the project's
//! fake agent) started as `cursor-agent acp` in its world
//! (`CURSOR_CONFIG_DIR` holding `cli-config.json` and `mcp.json`), with
//! `CURSOR_API_KEY` passed through and scrubbed, and a real permission
//! round-trip: allow-once runs the tool, reject-once does not.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::install::cursor::{cursor_env, package, pin_in_data, serve, VERSION};
use crate::run::acp_env::Live;
use crate::support::fake::FAKE_EXE;
use crate::support::manifest::sha256_hex;
use crate::support::{shell_quote, TestEnv};

/// A key shaped like Cursor's, which must reach the agent and nothing else.
const KEY: &str = "key_0123456789abcdef0123456789abcdef0123456789abcdef";

/// Cursor's permission options (allow-once / allow-always / reject-once).
fn cursor_options() -> Value {
    json!([
        {"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"},
        {"optionId": "allow-always", "name": "Allow always", "kind": "allow_always"},
        {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"}
    ])
}

struct CursorRun {
    env: TestEnv,
    invocations: PathBuf,
    marker: PathBuf,
}

/// Installs a pinned Cursor whose `cursor-agent` is the fake with `acp`
/// asking to run a shell tool that creates `marker` when allowed.
fn cursor_run() -> CursorRun {
    cursor_run_with(false)
}

/// As [`cursor_run`]; `auth_required`: `session/new` fails until an
/// `authenticate` succeeded (a Cursor without a login or a key).
fn cursor_run_with(auth_required: bool) -> CursorRun {
    let mut env = cursor_env();
    let invocations = env.outside.join("cursor-invocations.log");
    let marker = env.outside.join("ran.txt");
    let script_path = env.outside.join("cursor-agent.script.json");
    let script = json!({
        "versionOutput": VERSION,
        "versionExit": 0,
        "log": invocations,
        "acp": {
            "log": env.outside.join("cursor-wire.log"),
            "authMethods": [{"id": "cursor_login", "name": "Cursor login"}],
            "authRequired": auth_required,
            "turn": [
                {"permission": {"id": "perm-1", "title": "touch ran.txt", "kind": "execute",
                                "options": cursor_options()}},
                {"runIfAllowed": marker},
                {"text": "done"}
            ]
        }
    });
    std::fs::write(&script_path, script.to_string()).expect("write script");
    let launcher = format!(
        "#!/bin/sh\nexec {} --fake-script {} \"$@\"\n",
        shell_quote(FAKE_EXE),
        shell_quote(&script_path.to_string_lossy())
    );
    let bytes = package(&launcher);
    serve(&env, VERSION, &bytes);
    pin_in_data(&mut env, VERSION, &sha256_hex(&bytes));
    env.set_env("CURSOR_API_KEY", KEY);
    CursorRun {
        env,
        invocations,
        marker,
    }
}

fn acp_invocation(path: &Path) -> Value {
    std::fs::read_to_string(path)
        .expect("the fake logged its invocations")
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|entry| entry["argv"] == json!(["acp"]))
        .expect("a `cursor-agent acp` invocation")
}

fn run_answering(run: &CursorRun, reply: &str) -> (Option<i32>, Vec<Value>, String) {
    let mut live = Live::start(
        run.env
            .oneworks()
            .args(["run", "cursor", "--prompt", "touch it", "--json"]),
    );
    let request = live.expect("permission_request");
    assert_eq!(request["title"], "touch ran.txt");
    live.send(&json!({"id": "perm-1", "reply": reply}).to_string());
    live.finish()
}

#[test]
fn run_cursor_allows_once_over_acp_and_the_tool_runs() {
    let run = cursor_run();
    let (code, events, stderr) = run_answering(&run, "1");
    assert_eq!(code, Some(0), "{stderr}");
    let resolved = events
        .iter()
        .find(|event| event["type"] == "permission_resolved")
        .expect("permission_resolved");
    assert_eq!(resolved["optionId"], "allow-once");
    assert!(run.marker.exists(), "allowed: the tool ran");

    let invocation = acp_invocation(&run.invocations);
    let env = &invocation["env"];
    assert_eq!(
        env["CURSOR_API_KEY"], KEY,
        "the credential is passed through"
    );
    let config_dir = PathBuf::from(
        env["CURSOR_CONFIG_DIR"]
            .as_str()
            .expect("CURSOR_CONFIG_DIR"),
    );
    assert!(
        config_dir.join("cli-config.json").is_file(),
        "cli-config.json"
    );
    assert!(config_dir.join("mcp.json").is_file(), "mcp.json");
    let everything = format!("{stderr}\n{events:?}");
    assert!(
        !everything.contains(KEY),
        "the key is scrubbed: {everything}"
    );
}

#[test]
fn run_cursor_rejects_once_over_acp_and_the_tool_does_not_run() {
    let run = cursor_run();
    let (code, events, stderr) = run_answering(&run, "3");
    assert_eq!(code, Some(0), "{stderr}");
    let resolved = events
        .iter()
        .find(|event| event["type"] == "permission_resolved")
        .expect("permission_resolved");
    assert_eq!(resolved["optionId"], "reject-once");
    assert!(!run.marker.exists(), "rejected: the tool did not run");
}

/// Cursor's `cursor_login` is its browser login: configured as the ACP
/// auth method, it is never sent (it would need a person at a terminal),
/// and the failure names it and the way in.
#[test]
fn run_cursor_with_cursor_login_names_it_and_sends_no_authenticate() {
    let run = cursor_run_with(true);
    run.env
        .write_config("adapters:\n  cursor:\n    auth:\n      method: cursor_login\n");
    let outcome = run
        .env
        .oneworks()
        .args(["run", "cursor", "--prompt", "touch it", "--json"])
        .env_remove("CURSOR_API_KEY")
        .run();
    outcome.assert_failure();
    let text = outcome.all_text();
    assert!(text.contains("cursor_login"), "{}", outcome.describe());
    assert!(
        text.contains("oneworks adapter login cursor"),
        "{}",
        outcome.describe()
    );
    let wire = std::fs::read_to_string(run.env.outside.join("cursor-wire.log")).unwrap_or_default();
    assert!(!wire.contains("\"authenticate\""), "{wire}");
    assert!(!run.marker.exists());
}
