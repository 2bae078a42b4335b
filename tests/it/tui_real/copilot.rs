//! The real GitHub Copilot CLI 1.0.102 TUI, supervised:
//! `copilot` in `session start`'s private tmux against the fake model
//! (BYOK through `COPILOT_PROVIDER_*`, `COPILOT_OFFLINE=true`), its
//! approval box read from the pane (`manifests/copilot.yaml` `tui:`, the
//! captures in `tests/it/fixtures/copilot-pane/`).
//!
//! Its first start in a folder asks "Do you trust the files in this
//! folder?": settled by the profile world only when the person trusted the
//! workspace (`--trust-workspace` here), by the project in `trustedFolders`
//! of `$COPILOT_HOME/config.json`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Declined, TuiAgent, TuiCase};
use crate::agents_real::{RealAgent, SECRET};
use crate::support::TestEnv;

const VERSION: &str = "1.0.102";

fn case() -> TuiCase {
    TuiCase {
        // The input line's status bar, once the TUI takes a prompt.
        ready: "Manual Approval",
        ready_again: Some("Manual Approval"),
        terminal_allow: &["Enter"],
        // The nested box of the approval holds the command itself.
        title: |command| command.to_owned(),
        start_args: &["--trust-workspace"],
    }
}

/// A prepared Copilot pointed at the fake model, its session start
/// trusting the workspace.
fn copilot() -> TuiAgent {
    let mut agent = RealAgent::new("copilot", "bash").sharing_installs();
    agent.write_user_config(&format!(
        "adapters:\n  copilot:\n    cli:\n      source: managed\n      version: {VERSION}\n"
    ));
    let prepared = agent.prepare();
    assert_eq!(prepared["version"], VERSION, "{prepared}");
    let url = agent.model.url("/v1");
    agent.env.set_env("COPILOT_PROVIDER_BASE_URL", &url);
    agent.env.set_env("COPILOT_PROVIDER_TYPE", "openai");
    agent.env.set_env("COPILOT_PROVIDER_API_KEY", SECRET);
    agent.env.set_env("COPILOT_MODEL", "fake-model");
    agent.env.set_env("COPILOT_OFFLINE", "true");
    // Copilot declines by Esc, which ends its turn without asking the
    // model again (see the fixtures' README): the declined call's line
    // says so. Its closing `● Operation cancelled by user` does not always
    // follow (a run on 2026-12-07 ended the turn without it).
    TuiAgent::new(agent)
        .declined(Declined::EndsTheTurn {
            shows: |_| "Operation aborted by user".to_owned(),
            silent: false,
        })
        .enter_again_when_lost()
}

#[test]
fn the_real_copilot_tui_is_supervised() {
    let _share = crate::support::heavy::share();
    let tui = copilot();
    tui.standard_checks(&case());
}

/// The figures of `benches/session.sh`.
#[test]
#[ignore = "a measurement: benches/session.sh runs it"]
fn measure() {
    super::measure::serially(copilot, &case(), "pane", super::measure::Rounds::EVEN);
}

fn config_json(env: &TestEnv) -> PathBuf {
    env.project
        .join(".oneworks/sessions/default/copilot-home/config.json")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // Copilot's own comment lines, where oneworks left the file as it was.
    let body: String = text
        .lines()
        .filter(|line| !line.starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{}: {e}\n{text}", path.display()))
}

fn user_config(env: &TestEnv, yaml: &str) {
    let dir = env.config_home.join("oneworks");
    std::fs::create_dir_all(&dir).expect("config dir");
    std::fs::write(dir.join("config.yaml"), yaml).expect("write config");
}

/// The trust question is settled only when the person trusted the
/// workspace; Copilot's own keys and other folders in its managed
/// `config.json` survive; the project's own config cannot trust itself.
#[test]
fn copilot_folder_trust_is_the_persons_decision() {
    let env = TestEnv::new();
    let project = env
        .project
        .canonicalize()
        .expect("project")
        .to_string_lossy()
        .into_owned();

    // Not trusted: a note naming the way, the project not listed.
    let outcome = env.run(&["config", "render", "copilot"]);
    outcome.assert_success();
    assert!(
        outcome.stderr.contains("untrusted") && outcome.stderr.contains("--trust-workspace"),
        "{}",
        outcome.describe()
    );
    assert_eq!(
        read_json(&config_json(&env))["trustedFolders"],
        serde_json::json!([])
    );

    // What Copilot itself writes there (two comment lines, its state).
    std::fs::write(
        config_json(&env),
        "// User settings belong in settings.json.\n// This file is managed automatically.\n{\n  \"firstLaunchAt\": \"2026-03-11T00:00:00.000Z\",\n  \"trustedFolders\": [\"/elsewhere\"]\n}\n",
    )
    .expect("agent's config.json");

    // A project's config saying trustWorkspace is not the person's word.
    env.write_untrusted_config("adapters:\n  copilot:\n    trustWorkspace: true\n");
    let outcome = env.run(&["config", "render", "copilot"]);
    outcome.assert_success();
    // Nothing to change: Copilot's file is left as it wrote it.
    let text = std::fs::read_to_string(config_json(&env)).expect("config.json");
    assert!(text.starts_with("// User settings"), "{text}");
    let document = read_json(&config_json(&env));
    assert_eq!(
        document["trustedFolders"],
        serde_json::json!(["/elsewhere"]),
        "{}",
        outcome.describe()
    );

    // The user's own config: listed, Copilot's keys and folders kept.
    user_config(&env, "adapters:\n  copilot:\n    trustWorkspace: true\n");
    let outcome = env.run(&["config", "render", "copilot"]);
    outcome.assert_success();
    let document = read_json(&config_json(&env));
    assert_eq!(
        document["trustedFolders"],
        serde_json::json!(["/elsewhere", project]),
        "{}",
        outcome.describe()
    );
    assert_eq!(document["firstLaunchAt"], "2026-03-11T00:00:00.000Z");

    // Trusted no more: taken out again, the rest kept.
    user_config(&env, "adapters:\n  copilot:\n    trustWorkspace: false\n");
    env.run(&["config", "render", "copilot"]).assert_success();
    let document = read_json(&config_json(&env));
    assert_eq!(
        document["trustedFolders"],
        serde_json::json!(["/elsewhere"])
    );
    assert_eq!(document["firstLaunchAt"], "2026-03-11T00:00:00.000Z");
}
