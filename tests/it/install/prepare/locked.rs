//! `.oneworks/kiro.lock` and `--locked`: the locked artifact is
//! reinstalled after the manifest moved on, its recorded sha256 is checked,
//! and a missing or corrupt lock is a config error.

use serde_json::Value;

use crate::support::archive::Format;
use crate::support::{assert_prepared, path_of, reused, TestEnv};

use super::{read_json, VERSION};

#[test]
fn locked_reinstalls_the_locked_artifact_after_the_manifest_moved_on() {
    let env = TestEnv::new();
    let old = env.publish(VERSION, &[Format::TarGz]);
    assert_prepared(&env.prepare(&[]), "managed", VERSION);
    assert!(env.kiro_lock().exists(), "kiro.lock written by prepare");

    // Upstream moves to 2.16.0; the 2.15.1 artifacts stay downloadable.
    let new = env.publish("2.16.0", &[Format::TarGz]);
    std::fs::remove_dir_all(env.versions_dir()).expect("remove versions");
    let manifest_requests = env.manifest_hits();

    let outcome = env.prepare(&["--locked"]);
    let document = assert_prepared(&outcome, "managed", VERSION);
    assert!(!reused(&document));
    assert_eq!(path_of(&document), env.managed_binary(VERSION));
    assert_eq!(
        document["sha256"].as_str(),
        Some(old.gnu(Format::TarGz).sha256.as_str())
    );
    assert_eq!(
        env.manifest_hits(),
        manifest_requests,
        "--locked consulted the manifest"
    );
    assert_eq!(old.artifact_hits(&env.server), 2);
    assert_eq!(new.artifact_hits(&env.server), 0);
    let lock = read_json(&env.kiro_lock());
    assert_eq!(lock["version"], VERSION, "--locked must not move the pin");
}

#[test]
fn locked_without_kiro_lock_is_a_config_error() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    let outcome = env.prepare(&["--locked"]);
    let message = outcome.assert_error(3, "config");
    assert!(message.contains("kiro.lock"), "{}", outcome.describe());
    assert_eq!(env.server.total_hits(), 0);
    env.assert_nothing_published(VERSION);
}

#[test]
fn locked_verifies_the_recorded_sha256() {
    let env = TestEnv::new();
    let release = env.publish(VERSION, &[Format::TarGz]);
    assert_prepared(&env.prepare(&[]), "managed", VERSION);
    std::fs::remove_dir_all(env.versions_dir()).expect("remove versions");

    let mut lock = read_json(&env.kiro_lock());
    let forged = "0".repeat(64);
    for package in lock["packages"].as_array_mut().expect("packages") {
        package["sha256"] = Value::String(forged.clone());
    }
    std::fs::write(
        env.kiro_lock(),
        serde_json::to_vec_pretty(&lock).expect("json"),
    )
    .expect("write kiro.lock");

    let outcome = env.prepare(&["--locked"]);
    let message = outcome.assert_error(5, "checksum_mismatch");
    assert!(
        message.contains(&forged),
        "expected digest missing\n{}",
        outcome.describe()
    );
    assert!(
        message.contains(&release.gnu(Format::TarGz).sha256),
        "computed digest missing\n{}",
        outcome.describe()
    );
    env.assert_nothing_published(VERSION);
}

#[test]
fn offline_locked_without_kiro_lock_is_still_a_config_error() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    assert_prepared(&env.prepare(&[]), "managed", VERSION);
    std::fs::remove_file(env.kiro_lock()).expect("remove kiro.lock");
    let requests = env.server.total_hits();
    env.prepare(&["--offline", "--locked"])
        .assert_error(3, "config");
    assert_eq!(
        env.server.total_hits(),
        requests,
        "--offline made a request"
    );
}

#[test]
fn a_corrupt_kiro_lock_is_a_config_error_with_a_hint() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    std::fs::write(env.kiro_lock(), "{ not json").expect("corrupt kiro.lock");
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(3, "config");
    assert!(
        message.starts_with(&format!(
            "`{}` is not a valid kiro.lock: ",
            env.kiro_lock().display()
        )),
        "{}",
        outcome.describe()
    );
    assert_eq!(
        outcome.json()["error"]["hint"],
        format!(
            "fix or delete `{}`; `oneworks adapter prepare kiro` writes it again",
            env.kiro_lock().display()
        )
    );
    assert_eq!(env.server.total_hits(), 0);
    assert_eq!(
        std::fs::read_to_string(env.kiro_lock()).expect("kiro.lock"),
        "{ not json",
        "left as it was"
    );
    env.assert_nothing_published(VERSION);
}
