//! `adapter status` prints the resolver's own decision: for each of
//! `managed`, `system` and `path`, the candidate it selects is the one
//! `prepare` uses, and every source says why it won or did not.

use serde_json::Value;

use crate::support::archive::Format;
use crate::support::fake::{self, install_fake};
use crate::support::{path_of, Outcome, TestEnv};

/// `status --json`'s verdict on `source`: (chosen, reason).
fn verdict(status: &Outcome, source: &str) -> (bool, String) {
    let document = status.json();
    let found = document["sources"]
        .as_array()
        .and_then(|sources| sources.iter().find(|entry| entry["source"] == source))
        .unwrap_or_else(|| panic!("status has no verdict on `{source}`\n{}", status.describe()))
        .clone();
    (
        found["chosen"].as_bool().expect("chosen is a bool"),
        found["reason"].as_str().expect("reason is text").to_owned(),
    )
}

/// Prepares, then asks status: both must name the same source, path and
/// version, and only `configured` is chosen.
fn assert_status_agrees_with_prepare(env: &TestEnv, configured: &str) {
    let prepared = env.prepare(&[]);
    prepared.assert_success();
    let prepared = prepared.json();
    let status = env.status();
    status.assert_success();
    let selected = status.json()["selected"].clone();
    assert_eq!(
        selected["source"],
        prepared["source"],
        "{}",
        status.describe()
    );
    assert_eq!(selected["source"], configured, "{}", status.describe());
    assert_eq!(
        path_of(&selected),
        path_of(&prepared),
        "{}",
        status.describe()
    );
    assert_eq!(
        selected["version"],
        prepared["version"],
        "{}",
        status.describe()
    );
    for source in ["managed", "system", "path"] {
        let (chosen, reason) = verdict(&status, source);
        assert_eq!(chosen, source == configured, "{source}: {reason}");
        assert!(!reason.is_empty(), "{source} has no reason");
        if source != configured {
            assert!(
                reason.contains(&format!(
                    "not the configured source (`source: {configured}`)"
                )),
                "{source}: {reason}"
            );
        }
    }
}

#[test]
fn status_and_prepare_agree_on_a_managed_install() {
    let env = TestEnv::new();
    env.publish("2.15.1", &[Format::TarGz]);
    assert_status_agrees_with_prepare(&env, "managed");
    let (_, system) = verdict(&env.status(), "system");
    assert!(system.contains("no `kiro-cli` on PATH"), "{system}");
}

#[test]
fn status_and_prepare_agree_on_a_system_cli() {
    let env = TestEnv::new();
    env.write_config("adapters:\n  kiro:\n    cli:\n      source: system\n");
    install_fake(&env.bin, "kiro-cli", &fake::kiro_script("2.15.1"));
    assert_status_agrees_with_prepare(&env, "system");
    let (_, managed) = verdict(&env.status(), "managed");
    assert!(managed.ends_with("not installed"), "{managed}");
}

#[test]
fn status_and_prepare_agree_on_an_explicit_path() {
    let env = TestEnv::new();
    let kiro = install_fake(
        &env.base().join("opt"),
        "kiro-cli",
        &fake::kiro_script("2.15.3"),
    );
    env.write_config(&format!(
        "adapters:\n  kiro:\n    cli:\n      source: path\n      path: {}\n",
        kiro.display()
    ));
    assert_status_agrees_with_prepare(&env, "path");
}

/// Nothing usable: `prepare` refuses, status selects nothing, and the
/// configured source's verdict says why the one candidate was skipped.
#[test]
fn status_says_why_the_system_source_lost_when_prepare_refuses() {
    let env = TestEnv::new();
    env.write_config("adapters:\n  kiro:\n    cli:\n      source: system\n");
    let q = install_fake(&env.bin, "q", &fake::amazon_q_script());
    env.prepare(&[]).assert_error(7, "no_usable_cli");
    let status = env.status();
    status.assert_success();
    assert_eq!(
        status.json()["selected"],
        Value::Null,
        "{}",
        status.describe()
    );
    let (chosen, reason) = verdict(&status, "system");
    assert!(!chosen, "{reason}");
    assert!(
        reason.contains(&format!("`{}`", q.display())) && reason.contains("not Kiro"),
        "{reason}"
    );
    // The human report prints the same verdict.
    let human = env.run(&["adapter", "status", "kiro"]);
    human.assert_success();
    assert!(
        human
            .stderr
            .lines()
            .any(|line| line.starts_with("source system: not chosen — ")
                && line.contains("not Kiro")),
        "{}",
        human.describe()
    );
}
