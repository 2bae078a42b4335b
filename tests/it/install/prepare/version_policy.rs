//! The version policy: an exact version installs only when
//! the manifest (or the project's kiro.lock) has it, refused before any
//! download otherwise; a nonsense version is a config error naming its line.

use crate::support::archive::Format;
use crate::support::{assert_prepared, TestEnv};

use super::VERSION;

#[test]
fn exact_version_equal_to_the_manifest_installs() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    env.write_config(
        "adapters:\n  kiro:\n    cli:\n      source: managed\n      version: 2.15.1\n",
    );
    assert_prepared(&env.prepare(&[]), "managed", VERSION);
}

#[test]
fn other_exact_version_is_refused_before_any_download() {
    let env = TestEnv::new();
    let release = env.publish(VERSION, &Format::ALL);
    env.write_config("adapters:\n  kiro:\n    cli:\n      version: 2.0.0\n");
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(7, "no_usable_cli");
    assert!(message.contains("2.0.0"), "{}", outcome.describe());
    assert!(
        message.contains(VERSION),
        "should name the manifest's version\n{}",
        outcome.describe()
    );
    assert_eq!(
        release.artifact_hits(&env.server),
        0,
        "refused only after downloading"
    );
    env.assert_nothing_published("2.0.0");
    env.assert_nothing_published(VERSION);
}

#[test]
fn pinned_version_fails_once_latest_moves_on_without_a_lock() {
    let env = TestEnv::new();
    let release = env.publish("2.16.0", &[Format::TarGz]);
    env.write_config("adapters:\n  kiro:\n    cli:\n      version: 2.15.1\n");
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(7, "no_usable_cli");
    assert!(message.contains(VERSION), "{}", outcome.describe());
    assert_eq!(release.artifact_hits(&env.server), 0);
}

#[test]
fn pinned_version_recorded_in_kiro_lock_is_accepted_after_latest_moved_on() {
    let env = TestEnv::new();
    let old = env.publish(VERSION, &[Format::TarGz]);
    assert_prepared(&env.prepare(&[]), "managed", VERSION);
    env.publish("2.16.0", &[Format::TarGz]);
    std::fs::remove_dir_all(env.versions_dir()).expect("remove versions");
    env.write_config("adapters:\n  kiro:\n    cli:\n      version: 2.15.1\n");

    let outcome = env.prepare(&[]);
    let document = assert_prepared(&outcome, "managed", VERSION);
    assert_eq!(
        document["sha256"].as_str(),
        Some(old.gnu(Format::TarGz).sha256.as_str())
    );
}

#[test]
fn nonsense_version_is_a_config_error_with_its_line() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    env.write_config("adapters:\n  kiro:\n    cli:\n      version: nonsense\n");
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(3, "config");
    assert!(
        message.contains("config.yaml:4:7"),
        "the message must name line 4, column 7 (the `version` key)\n{}",
        outcome.describe()
    );
    assert!(
        message.contains("invalid version"),
        "{}",
        outcome.describe()
    );
    assert!(
        !outcome.all_text().contains("nonsense"),
        "the value is not echoed (it could be a pasted secret)\n{}",
        outcome.describe()
    );
    assert_eq!(
        env.server.total_hits(),
        0,
        "a config error comes before the network"
    );
}
