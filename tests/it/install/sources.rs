//! The `system` and `path` sources: which CLI on PATH wins, when a
//! `q` is accepted as a Kiro alias, how an explicit path is checked, and
//! what `adapter status` says about each candidate.

use std::time::Duration;

use serde_json::{json, Value};

use crate::support::fake::{self, install_fake};
use crate::support::{assert_prepared, path_of, set_mode, Outcome, TestEnv};

const SYSTEM: &str = "adapters:\n  kiro:\n    cli:\n      source: system\n";

fn path_config(path: &str) -> String {
    format!("adapters:\n  kiro:\n    cli:\n      source: path\n      path: {path}\n")
}

fn candidates(outcome: &Outcome) -> Vec<Value> {
    outcome.json()["candidates"]
        .as_array()
        .unwrap_or_else(|| panic!("status needs a candidates array\n{}", outcome.describe()))
        .clone()
}

#[test]
fn system_kiro_cli_on_path_wins_over_q() {
    let env = TestEnv::new();
    env.write_config(SYSTEM);
    let kiro = install_fake(&env.bin, "kiro-cli", &fake::kiro_script("2.15.1"));
    install_fake(&env.bin, "q", &fake::kiro_q_script("2.14.0"));
    let outcome = env.prepare(&[]);
    let document = assert_prepared(&outcome, "system", "2.15.1");
    assert_eq!(path_of(&document), kiro);
    assert_eq!(
        env.server.total_hits(),
        0,
        "the system source needs no network"
    );
    assert!(
        std::fs::symlink_metadata(env.kiro_root()).is_err(),
        "the system source creates nothing under ONEWORKS_HOME"
    );
}

#[test]
fn system_accepts_a_kiro_flavoured_q() {
    let env = TestEnv::new();
    env.write_config(SYSTEM);
    let q = install_fake(&env.bin, "q", &fake::kiro_q_script("2.15.1"));
    let document = assert_prepared(&env.prepare(&[]), "system", "2.15.1");
    assert_eq!(path_of(&document), q);
}

#[test]
fn system_rejects_an_amazon_q_and_status_says_why() {
    let env = TestEnv::new();
    env.write_config(SYSTEM);
    let q = install_fake(&env.bin, "q", &fake::amazon_q_script());
    let outcome = env.prepare(&[]);
    outcome.assert_error(7, "no_usable_cli");

    let status = env.status();
    let document = status.json();
    assert_eq!(document["adapter"], "kiro", "{}", status.describe());
    assert!(
        document["selected"].is_null(),
        "nothing is usable\n{}",
        status.describe()
    );
    let candidates = candidates(&status);
    let candidate = candidates
        .iter()
        .find(|candidate| candidate["path"] == json!(q.to_string_lossy()))
        .unwrap_or_else(|| panic!("status must list {}\n{}", q.display(), status.describe()));
    assert_eq!(candidate["source"], "system", "{}", status.describe());
    assert_eq!(
        candidate["version_output"],
        "q 1.17.0",
        "{}",
        status.describe()
    );
    assert_eq!(candidate["usable"], false, "{}", status.describe());
    assert!(
        candidate["reason"]
            .as_str()
            .is_some_and(|reason| reason.contains("q 1.17.0") && reason.contains("not Kiro")),
        "status must say why q was skipped\n{}",
        status.describe()
    );
}

#[test]
fn system_q_that_says_kiro_but_has_no_acp_is_rejected() {
    let env = TestEnv::new();
    env.write_config(SYSTEM);
    let script = fake::with(&fake::kiro_q_script("2.15.1"), "acpHelpExit", json!(2));
    install_fake(&env.bin, "q", &script);
    env.prepare(&[]).assert_error(7, "no_usable_cli");
}

#[test]
fn status_lists_the_skipped_q_next_to_the_chosen_kiro_cli() {
    let env = TestEnv::new();
    env.write_config(SYSTEM);
    let kiro = install_fake(&env.bin, "kiro-cli", &fake::kiro_script("2.15.1"));
    let q = install_fake(&env.bin, "q", &fake::amazon_q_script());
    let status = env.status();
    status.assert_success();
    let document = status.json();
    assert_eq!(
        document["selected"]["source"],
        "system",
        "{}",
        status.describe()
    );
    assert_eq!(
        document["selected"]["path"],
        json!(kiro.to_string_lossy()),
        "{}",
        status.describe()
    );
    assert_eq!(
        document["selected"]["version"],
        "2.15.1",
        "{}",
        status.describe()
    );
    let candidates = candidates(&status);
    assert!(
        candidates
            .iter()
            .any(|candidate| candidate["path"] == json!(q.to_string_lossy())
                && candidate["usable"] == false),
        "the Amazon Q `q` must be listed as skipped\n{}",
        status.describe()
    );
}

#[test]
fn system_without_any_cli_is_exit_7() {
    let env = TestEnv::new();
    env.write_config(SYSTEM);
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(7, "no_usable_cli");
    assert!(message.contains("kiro-cli"), "{}", outcome.describe());
}

#[test]
fn path_source_uses_the_given_executable() {
    let env = TestEnv::new();
    let kiro = install_fake(
        &env.base().join("opt"),
        "kiro-cli",
        &fake::kiro_script("2.15.3"),
    );
    env.write_config(&path_config(&kiro.to_string_lossy()));
    let document = assert_prepared(&env.prepare(&[]), "path", "2.15.3");
    assert_eq!(path_of(&document), kiro);
    assert_eq!(env.server.total_hits(), 0);
}

#[test]
fn path_source_relative_path_is_a_config_error() {
    let env = TestEnv::new();
    install_fake(
        &env.project.join("bin"),
        "kiro-cli",
        &fake::kiro_script("2.15.1"),
    );
    env.write_config(&path_config("bin/kiro-cli"));
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(3, "config");
    assert!(message.contains("bin/kiro-cli"), "{}", outcome.describe());
}

#[test]
fn path_without_source_path_is_a_config_error() {
    let env = TestEnv::new();
    let kiro = install_fake(
        &env.base().join("opt"),
        "kiro-cli",
        &fake::kiro_script("2.15.1"),
    );
    env.write_config(&format!(
        "adapters:\n  kiro:\n    cli:\n      source: managed\n      path: {}\n",
        kiro.display()
    ));
    env.prepare(&[]).assert_error(3, "config");
}

#[test]
fn path_source_missing_file_is_exit_7() {
    let env = TestEnv::new();
    let missing = env.base().join("opt").join("kiro-cli");
    env.write_config(&path_config(&missing.to_string_lossy()));
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(7, "no_usable_cli");
    assert!(
        message.contains(&*missing.to_string_lossy()) && message.contains("does not exist"),
        "{}",
        outcome.describe()
    );
}

#[test]
fn path_source_not_executable_is_exit_7() {
    let env = TestEnv::new();
    let kiro = install_fake(
        &env.base().join("opt"),
        "kiro-cli",
        &fake::kiro_script("2.15.1"),
    );
    set_mode(&kiro, 0o644);
    env.write_config(&path_config(&kiro.to_string_lossy()));
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(7, "no_usable_cli");
    assert!(
        message.contains(&*kiro.to_string_lossy()) && message.contains("not executable"),
        "{}",
        outcome.describe()
    );
}

#[test]
fn path_source_that_is_a_folder_is_exit_7() {
    let env = TestEnv::new();
    let folder = env.base().join("opt").join("kiro-cli");
    std::fs::create_dir_all(&folder).expect("folder");
    set_mode(&folder, 0o755);
    env.write_config(&path_config(&folder.to_string_lossy()));
    env.prepare(&[]).assert_error(7, "no_usable_cli");
}

#[test]
fn path_source_failing_the_acp_probe_is_exit_7_with_its_stderr() {
    let env = TestEnv::new();
    let script = json!({
        "versionOutput": "kiro-cli 2.15.1",
        "acpHelpExit": 2,
        "acpHelpOutput": "",
        "acpHelpStderr": "error: unrecognized subcommand 'acp' (fake marker 7f3a)",
    });
    let kiro = install_fake(&env.base().join("opt"), "kiro-cli", &script);
    env.write_config(&path_config(&kiro.to_string_lossy()));
    let outcome = env.prepare(&[]);
    outcome.assert_error(7, "no_usable_cli");
    assert!(
        outcome.all_text().contains("fake marker 7f3a"),
        "the probe's stderr belongs in the error\n{}",
        outcome.describe()
    );
}

#[test]
fn path_source_failing_the_version_probe_is_exit_7() {
    let env = TestEnv::new();
    let script = fake::with(&fake::kiro_script("2.15.1"), "versionExit", json!(1));
    let kiro = install_fake(&env.base().join("opt"), "kiro-cli", &script);
    env.write_config(&path_config(&kiro.to_string_lossy()));
    env.prepare(&[]).assert_error(7, "no_usable_cli");
}

#[test]
fn path_source_that_does_not_identify_as_kiro_is_exit_7() {
    let env = TestEnv::new();
    let kiro = install_fake(
        &env.base().join("opt"),
        "kiro-cli",
        &fake::amazon_q_script(),
    );
    env.write_config(&path_config(&kiro.to_string_lossy()));
    env.prepare(&[]).assert_error(7, "no_usable_cli");
}

/// Points `ONEWORKS_KIRO_ADAPTER_FILE` at a copy of the adapter data whose
/// probe timeout is 1 s.
fn use_one_second_probe_timeout(env: &mut TestEnv) {
    let adapter_file = env.base().join("kiro.yaml");
    crate::support::adapter_yaml::AdapterYaml::builtin("kiro")
        .set("probes.timeoutSeconds", 1)
        .write(&adapter_file);
    env.set_env(
        "ONEWORKS_KIRO_ADAPTER_FILE",
        &adapter_file.to_string_lossy(),
    );
}

/// Runs `prepare` and checks it gave up (exit 7) before a 60 s hang ended
/// (`wait_for` fails the test at 30 s): the 1 s probe timeout stopped the
/// probe and all it started.
fn prepare_stops_at_the_probe_timeout(env: &TestEnv) -> Outcome {
    let outcome = env
        .oneworks()
        .args(["adapter", "prepare", "kiro", "--json"])
        .deadline(Duration::from_secs(30))
        .run();
    outcome.assert_error(7, "no_usable_cli");
    outcome
}

#[test]
fn a_hanging_probe_times_out() {
    let mut env = TestEnv::new();
    use_one_second_probe_timeout(&mut env);
    let script = fake::with(&fake::kiro_script("2.15.1"), "hangSeconds", json!(60));
    let kiro = install_fake(&env.base().join("opt"), "kiro-cli", &script);
    env.write_config(&path_config(&kiro.to_string_lossy()));

    let outcome = prepare_stops_at_the_probe_timeout(&env);
    assert_eq!(
        outcome.json()["error"]["message"],
        format!(
            "`{}` is not a usable kiro-cli: `--version` timed out after 1s",
            kiro.display()
        ),
        "say that the probe timed out\n{}",
        outcome.describe()
    );
}

#[test]
fn probes_do_not_inherit_unrelated_credentials() {
    let mut env = TestEnv::new();
    let log = env.base().join("probe-log.jsonl");
    let script = fake::with(
        &fake::kiro_script("2.15.1"),
        "log",
        json!(log.to_string_lossy()),
    );
    let kiro = install_fake(&env.base().join("opt"), "kiro-cli", &script);
    env.write_config(&path_config(&kiro.to_string_lossy()));
    env.set_env("GITHUB_TOKEN", "ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    env.set_env("OPENAI_API_KEY", "sk-test-not-for-kiro-0123456789");
    assert_prepared(&env.prepare(&[]), "path", "2.15.1");

    let text = std::fs::read_to_string(&log).expect("the fake logged its invocations");
    let lines: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("log line is JSON"))
        .collect();
    let argv: Vec<&Value> = lines.iter().map(|line| &line["argv"]).collect();
    assert!(
        argv.contains(&&json!(["--version"])),
        "version probe ran: {argv:?}"
    );
    assert!(
        argv.contains(&&json!(["acp", "--help"])),
        "acp probe ran: {argv:?}"
    );
    for line in &lines {
        for name in ["GITHUB_TOKEN", "OPENAI_API_KEY"] {
            assert!(
                line["env"].get(name).is_none(),
                "a probe saw {name}: {}",
                line["argv"]
            );
        }
    }
}

#[test]
fn a_probe_whose_children_hold_its_pipes_still_times_out() {
    let mut env = TestEnv::new();
    use_one_second_probe_timeout(&mut env);
    // The shell does not exec `sleep`: a grandchild keeps stdout open.
    let dir = env.base().join("opt");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let kiro = dir.join("kiro-cli");
    std::fs::write(&kiro, "#!/bin/sh\nsleep 60\necho done\n").expect("write");
    set_mode(&kiro, 0o755);
    env.write_config(&path_config(&kiro.to_string_lossy()));
    prepare_stops_at_the_probe_timeout(&env);
}
