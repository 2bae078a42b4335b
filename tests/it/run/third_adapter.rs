//! The proof that an adapter is data: a third agent, `acme`, known
//! only from a file in `ONEWORKS_ADAPTERS_DIR` (nothing under `src/` names
//! it), is prepared from a `path` source, runs a turn over ACP and is
//! supervised in tmux with approvals found in its pane.
//!
//! The agent is the project's fake under another name, with its
//! own home and recorder variables: it writes no recorder for `acme`, so
//! the supervisor reads its approval prompts from the pane (§8.4).

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::run::acp_env::{events, types};
use crate::session::supervisor::{request, Session};
use crate::support::adapter_yaml::AdapterYaml;
use crate::support::fake::{install_fake, with};

/// `acme.yaml`: every fact about the agent, written by the test. It starts
/// from the shape of the built-in Kiro file (the schema is shared) with
/// every name, variable and label its own.
fn acme_data() -> String {
    let mut data = AdapterYaml::builtin("kiro");
    assert_eq!(
        data.get("credentials.names.0").as_str(),
        Some("KIRO_API_KEY")
    );
    data.set("id", "acme")
        .set("displayName", "Acme Agent")
        .set("binary.name", "acme")
        .set("binary.aliases", Vec::<String>::new())
        .set("session.homeVariable", "ACME_HOME")
        .set("tui.recorderVariable", "ACME_RECORD_PATH")
        .set("credentials.prefix", "ACME_")
        .set("credentials.names.0", "ACME_API_KEY")
        .set("tui.renderGapMs", 40)
        .set("tui.settleMs", 60)
        // A quirk set, where the file names one, is Kiro's: acme has none.
        .set("acp.quirks", "none");
    data.text()
}

fn write_adapters_dir(base: &Path) -> PathBuf {
    let dir = base.join("adapters");
    std::fs::create_dir_all(&dir).expect("adapters dir");
    std::fs::write(dir.join("acme.yaml"), acme_data()).expect("write acme.yaml");
    dir
}

fn config(binary: &Path) -> String {
    format!(
        "adapters:\n  acme:\n    cli:\n      source: path\n      path: {}\n    approvals:\n      paneFallback: on\n",
        binary.display()
    )
}

#[test]
fn a_third_adapter_from_a_data_file_is_prepared_run_and_supervised() {
    let mut session = Session::new(|markers| {
        json!({"requests": [
            request("r1", "Running: pwd"),
            {"id": "r2", "title": "Running: ls", "waitFor": markers.join("never")},
        ]})
    });
    session.adapter = "acme".into();
    let dir = write_adapters_dir(&session.env.base());
    session
        .env
        .set_env("ONEWORKS_ADAPTERS_DIR", &dir.to_string_lossy());
    // The agent lives outside PATH: a `path` source.
    let tools = session.env.base().join("acme-tools");
    let script: Value = serde_json::from_slice(
        &std::fs::read(session.env.bin.join("kiro-cli.script.json")).expect("script"),
    )
    .expect("script json");
    let script = with(
        &script,
        "acp",
        json!({"turn": [{"text": "Hello from acme."}]}),
    );
    let binary = install_fake(&tools, "acme", &script);
    session.env.write_config(&config(&binary));

    let list = session.env.run(&["adapter", "list", "--json"]);
    list.assert_success();
    let names: Vec<Value> = list.json()["adapters"]
        .as_array()
        .expect("adapters")
        .iter()
        .map(|adapter| adapter["adapter"].clone())
        .collect();
    assert!(names.contains(&json!("acme")), "{names:?}");
    assert!(names.contains(&json!("kiro")), "{names:?}");

    let prepared = session.env.run(&["adapter", "prepare", "acme", "--json"]);
    prepared.assert_success();
    let document = prepared.json();
    assert_eq!(document["adapter"], "acme");
    assert_eq!(document["source"], "path");
    assert_eq!(document["version"], "2.15.1");
    assert_eq!(document["path"], json!(binary));

    let run = session
        .env
        .run(&["run", "acme", "--prompt", "Say hello", "--json"]);
    run.assert_success();
    let events = events(&run);
    assert_eq!(
        types(&events),
        ["session_started", "agent_message_chunk", "turn_end"]
    );
    assert_eq!(events[1]["text"], "Hello from acme.");
    // Its world is its own: the home variable from its file.
    let home = session.session_root().join("acme-home");
    assert!(home.is_dir(), "no {}", home.display());

    session.start();
    let record = session.record().expect("record");
    assert_eq!(record["adapter"], "acme");
    let card = session.pending_card();
    assert_eq!(card["title"], "Shell pwd");
    let id = card["id"].as_str().expect("card id");
    assert!(id.starts_with("acme_default_"), "{id}");
    session.answer(&card, "accept").assert_success();
    session.assert_keys(&["Enter"]);
    session.stop_and_check();
}

#[test]
fn an_unknown_adapter_is_a_usage_error_naming_the_known_ones() {
    let env = crate::support::TestEnv::new();
    for args in [
        &["adapter", "prepare", "nope"][..],
        &["adapter", "status", "nope"],
        &["run", "nope", "--prompt", "hi"],
        &["config", "render", "nope"],
    ] {
        let outcome = env.run(args);
        outcome.assert_code(2);
        let message = outcome.all_text();
        assert!(
            message.contains("unknown adapter `nope`") && message.contains("kiro"),
            "{args:?}: {message}"
        );
    }
    let bad = env.run(&["adapter", "prepare", "Not/A/Name"]);
    bad.assert_code(2);
}

#[test]
fn a_broken_adapters_dir_is_a_config_error() {
    let mut env = crate::support::TestEnv::new();
    let dir = env.base().join("adapters");
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("acme.yaml"), "id: acme\n").expect("write");
    env.set_env("ONEWORKS_ADAPTERS_DIR", &dir.to_string_lossy());
    let outcome = env.run(&["adapter", "prepare", "acme", "--json"]);
    let message = outcome.assert_error(3, "config");
    assert!(message.contains("acme.yaml"), "{message}");
    // `adapter list` skips it with a warning naming it, and lists the rest
    // (tests/it/adapter_files.rs).
    let listed = env.run(&["adapter", "list", "--json"]);
    listed.assert_success();
    assert_eq!(
        listed.json()["skipped"][0]["adapter"],
        "acme",
        "{}",
        listed.describe()
    );
    let missing = env.base().join("missing");
    env.set_env("ONEWORKS_ADAPTERS_DIR", &missing.to_string_lossy());
    env.run(&["adapter", "list", "--json"])
        .assert_error(3, "config");
}
