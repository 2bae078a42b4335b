//! `oneworks adapter prepare kiro` with the managed source: cold installs in
//! every archive format, reuse, `--offline`, `--force`, `--locked`, and the
//! version policy.
//!
//! This file holds a cold install in every archive format and the checks
//! on what it records; beside it, a file per feature: `reuse` (reuse,
//! `--offline`, `--force`, status, prune), `locked` (kiro.lock and
//! `--locked`), `version_policy`, `environment` (credentials and settings
//! from the environment) and `not_installed` (downloads that must not be
//! published).

mod environment;
mod locked;
mod not_installed;
mod reuse;
mod version_policy;

use serde_json::Value;

use crate::support::archive::Format;
use crate::support::manifest::Libc;
use crate::support::{assert_prepared, path_of, reused, run_binary, Artifact, TestEnv};

pub(super) const VERSION: &str = "2.15.1";

pub(super) fn read_json(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("read {}: {error}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("{} is not JSON ({error}):\n{text}", path.display()))
}

/// Every field of the install record describes `artifact`.
fn assert_install_record(env: &TestEnv, artifact: &Artifact) {
    let record = read_json(&env.version_dir(VERSION).join("install.json"));
    assert_eq!(record["version"], VERSION, "install.json: {record:#}");
    assert_eq!(
        record["sha256"].as_str().map(str::to_ascii_lowercase),
        Some(artifact.sha256.clone()),
        "install.json: {record:#}"
    );
    assert_eq!(
        record["url"],
        env.server.url(&artifact.server_path),
        "install.json: {record:#}"
    );
    assert_eq!(
        record["size"].as_u64(),
        Some(artifact.bytes.len() as u64),
        "install.json: {record:#}"
    );
    assert!(
        record["installedAt"]
            .as_str()
            .is_some_and(|time| !time.is_empty()),
        "install.json needs installedAt: {record:#}"
    );
}

/// `.oneworks/kiro.lock` names the version and, for every archive entry of
/// the manifest's version, the platform keys, download, sha256 and size.
fn assert_kiro_lock(env: &TestEnv, version: &str, entries: &[Value]) {
    let lock = read_json(&env.kiro_lock());
    assert_eq!(lock["version"], version, "kiro.lock: {lock:#}");
    let packages = lock["packages"]
        .as_array()
        .unwrap_or_else(|| panic!("kiro.lock needs a packages array: {lock:#}"));
    for entry in entries {
        let found = packages
            .iter()
            .find(|package| package["download"] == entry["download"])
            .unwrap_or_else(|| panic!("kiro.lock lacks {}: {lock:#}", entry["download"]));
        for key in [
            "sha256",
            "size",
            "fileType",
            "targetTriple",
            "os",
            "architecture",
            "variant",
        ] {
            assert_eq!(found[key], entry[key], "kiro.lock `{key}` of {found:#}");
        }
    }
}

fn cold_install(format: Format) {
    let mut env = TestEnv::new();
    env.force_format(format);
    let release = env.publish(VERSION, &Format::ALL);

    let outcome = env.prepare(&[]);
    let document = assert_prepared(&outcome, "managed", VERSION);
    let artifact = release.gnu(format);
    assert!(
        !reused(&document),
        "a cold install is not reused\n{}",
        outcome.describe()
    );
    assert_eq!(document["sha256"].as_str(), Some(artifact.sha256.as_str()));
    assert_eq!(path_of(&document), env.managed_binary(VERSION));
    assert_eq!(
        document.as_object().map(|object| {
            let mut keys: Vec<_> = object.keys().cloned().collect();
            keys.sort();
            keys
        }),
        Some(
            ["adapter", "path", "reused", "sha256", "source", "version"]
                .map(String::from)
                .to_vec()
        ),
        "prepare --json fields"
    );

    // Exactly the glibc artifact of the forced format was downloaded, once.
    assert_eq!(env.server.hits(&artifact.server_path), 1);
    assert_eq!(release.artifact_hits(&env.server), 1);
    assert_eq!(
        env.server
            .hits(&release.artifact(format, Libc::Musl).server_path),
        0
    );

    let (code, output) = run_binary(&path_of(&document), &["--version"]);
    assert_eq!(code, Some(0));
    assert_eq!(output.trim(), format!("kiro-cli {VERSION}"));
    assert!(
        std::fs::symlink_metadata(env.version_dir(VERSION).join("kirocli").join("MUSL")).is_err(),
        "the musl build was installed on a glibc host"
    );
    assert_install_record(&env, artifact);
    assert_kiro_lock(&env, VERSION, &release.entries());
    env.assert_no_leftovers();
    assert!(env.install_lock().exists(), "the install lock file is kept");
}

#[test]
fn cold_install_tar_gz() {
    cold_install(Format::TarGz);
}

#[test]
fn cold_install_tar_xz() {
    cold_install(Format::TarXz);
}

#[test]
fn cold_install_tar_zst() {
    cold_install(Format::TarZst);
}

#[test]
fn cold_install_zip() {
    cold_install(Format::Zip);
}

#[test]
fn default_format_preference_picks_one_supported_archive() {
    let env = TestEnv::new();
    let release = env.publish(VERSION, &Format::ALL);
    let document = assert_prepared(&env.prepare(&[]), "managed", VERSION);
    assert_eq!(release.artifact_hits(&env.server), 1);
    let chosen = release
        .artifacts
        .iter()
        .find(|artifact| env.server.hits(&artifact.server_path) == 1)
        .expect("one artifact was downloaded");
    assert_eq!(chosen.libc, Libc::Gnu, "a glibc host takes the gnu build");
    assert_eq!(
        chosen.format,
        Format::TarZst,
        "the documented default preference starts with tarZst"
    );
    assert_eq!(document["sha256"].as_str(), Some(chosen.sha256.as_str()));
}
