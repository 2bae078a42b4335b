//! A managed install already there: a second prepare reuses it,
//! `--offline` uses it without a request (and fails without one), `--force`
//! reinstalls it; `adapter status` reports it and `adapter prune` keeps the
//! newest and the locked version.

use crate::support::archive::Format;
use crate::support::{assert_prepared, path_of, reused, run_binary, TestEnv};

use super::VERSION;

#[test]
fn second_prepare_downloads_nothing_and_reports_reused() {
    let env = TestEnv::new();
    let release = env.publish(VERSION, &[Format::TarGz]);
    let first = assert_prepared(&env.prepare(&[]), "managed", VERSION);
    assert!(!reused(&first));
    assert_eq!(release.artifact_hits(&env.server), 1);

    let outcome = env.prepare(&[]);
    let second = assert_prepared(&outcome, "managed", VERSION);
    assert!(
        reused(&second),
        "second prepare must reuse\n{}",
        outcome.describe()
    );
    assert_eq!(path_of(&second), path_of(&first));
    assert_eq!(second["sha256"], first["sha256"]);
    assert_eq!(
        release.artifact_hits(&env.server),
        1,
        "no second artifact download"
    );
}

#[test]
fn offline_uses_the_installed_version_without_any_request() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    let first = assert_prepared(&env.prepare(&[]), "managed", VERSION);
    let requests = env.server.total_hits();

    let outcome = env.prepare(&["--offline"]);
    let offline = assert_prepared(&outcome, "managed", VERSION);
    assert!(reused(&offline), "{}", outcome.describe());
    assert_eq!(path_of(&offline), path_of(&first));
    assert_eq!(
        env.server.total_hits(),
        requests,
        "--offline made a request"
    );
}

#[test]
fn offline_without_an_installed_version_is_exit_7_without_requests() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    let outcome = env.prepare(&["--offline"]);
    outcome.assert_error(7, "no_usable_cli");
    assert_eq!(env.server.total_hits(), 0, "--offline made a request");
    env.assert_nothing_published(VERSION);
}

#[test]
fn force_reinstalls() {
    let env = TestEnv::new();
    let release = env.publish(VERSION, &[Format::TarGz]);
    assert_prepared(&env.prepare(&[]), "managed", VERSION);
    // A damaged install is what --force is for.
    std::fs::write(env.managed_binary(VERSION), "#!/bin/sh\nexit 1\n").expect("damage binary");

    let outcome = env.prepare(&["--force"]);
    let document = assert_prepared(&outcome, "managed", VERSION);
    assert!(
        !reused(&document),
        "--force is a fresh install\n{}",
        outcome.describe()
    );
    assert_eq!(release.artifact_hits(&env.server), 2);
    let (code, output) = run_binary(&path_of(&document), &["--version"]);
    assert_eq!((code, output.trim()), (Some(0), "kiro-cli 2.15.1"));
    env.assert_no_leftovers();
}

#[test]
fn status_reports_the_managed_install() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    let prepared = assert_prepared(&env.prepare(&[]), "managed", VERSION);
    let outcome = env.status();
    outcome.assert_success();
    let status = outcome.json();
    assert_eq!(status["adapter"], "kiro", "{}", outcome.describe());
    let selected = &status["selected"];
    assert_eq!(selected["source"], "managed", "{}", outcome.describe());
    assert_eq!(selected["version"], VERSION, "{}", outcome.describe());
    assert_eq!(selected["path"], prepared["path"], "{}", outcome.describe());
    assert_eq!(
        selected["sha256"],
        prepared["sha256"],
        "{}",
        outcome.describe()
    );
    assert!(status["candidates"].is_array(), "{}", outcome.describe());
}

#[test]
fn prune_keeps_the_newest_and_the_locked_version() {
    let env = TestEnv::new();
    env.publish("2.15.1", &[Format::TarGz]);
    assert_prepared(&env.prepare(&[]), "managed", "2.15.1");
    let locked_at_2_15_1 = std::fs::read(env.kiro_lock()).expect("kiro.lock");
    for version in ["2.16.0", "2.17.0"] {
        env.publish(version, &[Format::TarGz]);
        assert_prepared(&env.prepare(&[]), "managed", version);
    }
    // The project still pins 2.15.1.
    std::fs::write(env.kiro_lock(), locked_at_2_15_1).expect("restore kiro.lock");

    let outcome = env.run(&["adapter", "prune", "kiro", "--keep", "1"]);
    outcome.assert_success();
    let mut left: Vec<String> = std::fs::read_dir(env.versions_dir())
        .expect("versions")
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(
        left,
        ["2.15.1", "2.17.0"],
        "keep the newest and the locked version\n{}",
        outcome.describe()
    );
    env.assert_no_leftovers();
    assert!(
        env.install_lock().exists(),
        "the lock file is never deleted"
    );
}
