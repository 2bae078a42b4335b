//! Qwen Code 0.24.4 (`@qwen-code/qwen-code`, SPEC §11.4) over ACP against
//! the fake model's OpenAI chat completions: `qwen --acp`, its own
//! `run_shell_command` tool, `tools.approvalMode: default` forced by the
//! adapter data so that Qwen asks.
//!
//! Path taken: `adapter prepare qwen` from the loopback registry; its
//! `engines.node >=22` is not met by the machine's Node 20, so oneworks
//! installs the real Node 24 of the loopback Node mirror (managed runtime,
//! SPEC §11.2) and runs Qwen on it.

use super::{files_named, RealAgent, Snapshot, SECRET};
use crate::support::node_mirror::{self, NodeRelease};

const PACKAGE: &str = "@qwen-code/qwen-code";
const VERSION: &str = "0.24.4";

#[test]
fn the_real_qwen_asks_before_its_shell_tool_runs_allow_once_then_reject_once() {
    let _share = crate::support::heavy::share();
    let snapshot = Snapshot::get("qwen");
    assert_eq!(snapshot.root.name, PACKAGE);
    assert_eq!(snapshot.root.version, VERSION);
    let mut qwen = RealAgent::new("qwen", "run_shell_command");
    node_mirror::serve(&qwen.env.server, &[&NodeRelease::real()], &[]);
    qwen.write_user_config(
        "adapters:\n  qwen:\n    cli:\n      source: managed\n      version: 0.24.4\n",
    );
    let prepared = qwen.prepare();
    assert_eq!(prepared["adapter"], "qwen", "{prepared}");
    assert_eq!(prepared["version"], VERSION, "{prepared}");
    // The machine's Node is 20: Qwen runs on the managed Node 24.
    let managed = qwen
        .env
        .oneworks_home
        .join("runtimes/node/versions/24.19.0/node-v24.19.0-linux-x64/bin/node");
    assert!(
        managed.is_file(),
        "no managed Node at {}: {prepared}",
        managed.display()
    );
    let tarball = format!("/{PACKAGE}/-/qwen-code-{VERSION}.tgz");
    assert_eq!(qwen.registry.hits(&tarball), 1);
    qwen.env.set_env("OPENAI_API_KEY", SECRET);
    qwen.env.set_env("OPENAI_BASE_URL", &qwen.model.url("/v1"));
    qwen.env.set_env("OPENAI_MODEL", "fake-model");
    qwen.allow_then_reject();
    // What made it ask: the session's settings force `default` over Qwen's
    // own `auto` (a model classifier that approves without asking).
    let settings = files_named(&qwen.env.base(), "settings.json");
    let forced: Vec<serde_json::Value> = settings
        .iter()
        .filter_map(|(_, text)| serde_json::from_str(text).ok())
        .filter(|json: &serde_json::Value| json["tools"]["approvalMode"] == "default")
        .collect();
    assert!(!forced.is_empty(), "{settings:#?}");
    assert!(forced
        .iter()
        .all(|json| json["general"]["enableAutoUpdate"] == false));
    // OPENAI_API_KEY implies the method (the id, never the key).
    assert!(
        forced
            .iter()
            .all(|json| json["security"]["auth"]["selectedType"] == "openai"),
        "{settings:#?}"
    );
    // The bundled ripgrep ships 0644; the install made it executable.
    use std::os::unix::fs::PermissionsExt as _;
    let rg: Vec<_> = files_named(&qwen.env.oneworks_home, "rg")
        .into_iter()
        .filter(|(path, _)| path.to_string_lossy().contains("x64-linux"))
        .collect();
    assert!(!rg.is_empty(), "no vendor/ripgrep/x64-linux/rg installed");
    for (path, _) in rg {
        let mode = std::fs::metadata(&path).expect("rg").permissions().mode();
        assert_eq!(mode & 0o111, 0o111, "{} is {mode:o}", path.display());
    }
    // Qwen spoke chat completions and offered its own shell tool.
    let calls = qwen.model.tool_calls();
    assert!(!calls.is_empty(), "{}", qwen.model.describe());
    assert!(calls.iter().all(|c| c.path.ends_with("/chat/completions")));
}
