//! Qwen Code 0.24.4 (`@qwen-code/qwen-code`, SPEC §11.4) over ACP against
//! the fake model's OpenAI chat completions: `qwen --acp`, its own
//! `run_shell_command` tool, `tools.approvalMode: default` forced by the
//! adapter data so that Qwen asks.
//!
//! Path taken: `source: path` — the verified tarball of the snapshot,
//! extracted by the test (no npm, no install script), run by the cached
//! real Node 24 (`engines.node >=22`; the system's Node is 20) first on
//! PATH. `adapter prepare qwen` from the loopback registry replaces it once
//! managed Node (helper "node") lands.

use super::{files_named, node22_dir, RealAgent, Snapshot, SECRET, SERIAL};

const PACKAGE: &str = "@qwen-code/qwen-code";
const VERSION: &str = "0.24.4";

#[test]
fn the_real_qwen_asks_before_its_shell_tool_runs_allow_once_then_reject_once() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let snapshot = Snapshot::get("qwen");
    assert_eq!(snapshot.root.name, PACKAGE);
    assert_eq!(snapshot.root.version, VERSION);
    let mut qwen = RealAgent::new("qwen", "run_shell_command");
    qwen.path_first(&node22_dir());
    qwen.write_user_config(
        "adapters:\n  qwen:\n    cli:\n      source: managed\n      version: 0.24.4\n",
    );
    let prepared = qwen.prepare();
    assert_eq!(prepared["adapter"], "qwen", "{prepared}");
    assert_eq!(prepared["version"], VERSION, "{prepared}");
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
