//! Text and URLs from outside (§6.2 URLs): control characters in
//! the manifest or in a probed CLI's output never reach the terminal raw,
//! credentials in mirror URLs are never printed or recorded, and a
//! symlinked `.oneworks` is refused before `kiro.lock` is written through it.

use serde_json::json;

use crate::support::archive::Format;
use crate::support::fake::{install_fake, kiro_script, with};
use crate::support::{assert_prepared, TestEnv};

const VERSION: &str = "2.15.1";
const SYSTEM: &str = "adapters:\n  kiro:\n    cli:\n      source: system\n";

#[track_caller]
fn assert_no_controls(text: &str) {
    let found: Vec<char> = text
        .chars()
        .filter(|c| c.is_control() && *c != '\n' && *c != '\t')
        .collect();
    assert!(found.is_empty(), "control characters {found:?} in:\n{text}");
}

#[test]
fn a_manifest_version_with_escape_sequences_is_a_manifest_error_shown_inert() {
    let env = TestEnv::new();
    let release = env.stage_release(VERSION, &[Format::TarGz]);
    let mut document: serde_json::Value =
        serde_json::from_slice(&release.manifest()).expect("manifest json");
    document["version"] = json!("\u{1b}[31m2.15.1");
    env.serve_manifest(&serde_json::to_vec(&document).expect("json"));
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(4, "network");
    assert_eq!(
        message,
        format!(
            "failed to read the Kiro CLI manifest `{}`: the manifest `version` `\u{FFFD}[31m2.15.1` is not a semantic version",
            env.manifest_url()
        )
    );
    assert_no_controls(&outcome.stderr);
    assert_eq!(release.artifact_hits(&env.server), 0);
    env.assert_nothing_published(VERSION);
}

#[test]
fn probe_output_with_escape_sequences_is_shown_inert_by_status() {
    let env = TestEnv::new();
    env.write_config(SYSTEM);
    let hostile = "\u{1b}]0;pwned\u{7}\u{1b}[2Jkiro-cli 1.2.3";
    install_fake(
        &env.bin,
        "kiro-cli",
        &with(&kiro_script("1.2.3"), "versionOutput", json!(hostile)),
    );
    let outcome = env.run(&["adapter", "status", "kiro"]);
    outcome.assert_success();
    assert_no_controls(&outcome.stderr);
    assert!(
        outcome
            .stderr
            .contains("\u{FFFD}]0;pwned\u{FFFD}\u{FFFD}[2Jkiro-cli 1.2.3"),
        "{}",
        outcome.describe()
    );
    let prepared = env.run(&["adapter", "prepare", "kiro"]);
    prepared.assert_success();
    assert_no_controls(&prepared.stderr);
}

#[test]
fn credentials_in_the_manifest_url_are_never_printed() {
    let mut env = TestEnv::new();
    let password = "pa55-word-0123456789";
    let token = "t0ken-value-0123456789";
    let url = env
        .manifest_url()
        .replacen("http://", &format!("http://mirror-user:{password}@"), 1)
        + &format!("?token={token}&page=1");
    env.set_env("ONEWORKS_KIRO_MANIFEST_URL", &url);
    // Nothing served yet: a 404 names the URL.
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(4, "network");
    let shown = env.manifest_url().replacen("http://", "http://***@", 1) + "?token=***&page=1";
    assert_eq!(message, format!("`{shown}` answered HTTP 404"));
    for secret in [password, token] {
        outcome.assert_text_lacks(secret);
    }

    // Served: the install record and kiro.lock keep no credential either.
    env.publish(VERSION, &[Format::TarGz]);
    let outcome = env.prepare(&[]);
    assert_prepared(&outcome, "managed", VERSION);
    let record: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(env.version_dir(VERSION).join("install.json")).expect("record"),
    )
    .expect("record json");
    let artifact_url = record["url"].as_str().expect("url");
    assert!(
        artifact_url.starts_with("http://***@127.0.0.1:"),
        "{artifact_url}"
    );
    for text in [
        outcome.all_text(),
        std::fs::read_to_string(env.version_dir(VERSION).join("install.json")).expect("record"),
        std::fs::read_to_string(env.kiro_lock()).expect("kiro.lock"),
    ] {
        for secret in [password, token] {
            assert!(!text.contains(secret), "{text}");
        }
    }
}

#[test]
fn a_symlinked_dot_oneworks_is_refused_by_prepare() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    let elsewhere = env.outside.join("dot-oneworks");
    std::fs::create_dir_all(&elsewhere).expect("elsewhere");
    let dot = env.project.join(".oneworks");
    std::fs::remove_dir_all(&dot).expect("remove .oneworks");
    std::os::unix::fs::symlink(&elsewhere, &dot).expect("symlink");
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(6, "unsafe_archive");
    assert!(
        message.contains(&format!("`{}`", dot.display())),
        "{}",
        outcome.describe()
    );
    assert!(
        std::fs::read_dir(&elsewhere)
            .expect("read")
            .next()
            .is_none(),
        "nothing written through the link"
    );
    assert_eq!(env.server.total_hits(), 0, "refused before any request");
    env.assert_nothing_published(VERSION);
}

#[test]
fn manifest_fields_with_control_characters_are_malformed() {
    for (field, value) in [
        ("download", "2.15.1/\u{1b}[2Jkirocli.tar.gz"),
        ("os", "\u{1b}]0;pwned\u{7}linux"),
        ("targetTriple", "x86_64-unknown-linux-gnu\u{1b}[31m"),
    ] {
        let env = TestEnv::new();
        let release = env.stage_release(VERSION, &[Format::TarGz]);
        let entries: Vec<serde_json::Value> = release
            .entries()
            .into_iter()
            .map(|mut entry| {
                entry[field] = json!(value);
                entry
            })
            .collect();
        env.serve_manifest(&crate::support::manifest::document(VERSION, &entries));
        let outcome = env.prepare(&[]);
        let message = outcome.assert_error(4, "network");
        assert_eq!(
            message,
            format!(
                "failed to read the Kiro CLI manifest `{}`: manifest package #0: `{field}` contains control characters",
                env.manifest_url()
            )
        );
        assert_no_controls(&outcome.stderr);
        assert_eq!(release.artifact_hits(&env.server), 0, "{field}");
        env.assert_nothing_published(VERSION);
    }
}
