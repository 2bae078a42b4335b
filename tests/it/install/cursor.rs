//! Cursor CLI as a pinned managed source: Cursor publishes no
//! checksum, so a version is installed only against a reviewed pin (the
//! adapter's data) or a trusted config's `cli.sha256`. A loopback mirror
//! in the download host's layout (`lab/<version>/<os>/<arch>/
//! agent-cli-package.tar.gz` holding `dist-package/cursor-agent`) serves a
//! real tar.gz built here; `ONEWORKS_CURSOR_DOWNLOAD_BASE` points at it.

use serde_json::Value;

use crate::support::adapter_yaml::AdapterYaml;
use crate::support::archive::{self, Entry, Format};
use crate::support::manifest::sha256_hex;
use crate::support::server::Route;
use crate::support::{Outcome, TestEnv};

/// A version in Cursor's scheme (a date with leading zeros, a commit).
pub const VERSION: &str = "2026.07.01-abc1234";

/// This host as Cursor's download host spells it.
pub fn vendor_platform() -> (&'static str, &'static str) {
    let arch = match std::env::consts::ARCH {
        "aarch64" => "arm64",
        _ => "x64",
    };
    ("linux", arch)
}

/// `os/arch`, the key of a pin.
fn pin_key() -> String {
    let (os, arch) = vendor_platform();
    format!("{os}/{arch}")
}

/// The mirror path of `version`'s archive for this host.
pub fn archive_path(version: &str) -> String {
    let (os, arch) = vendor_platform();
    format!("/lab/{version}/{os}/{arch}/agent-cli-package.tar.gz")
}

/// Cursor's package: `dist-package/cursor-agent` running `launcher`
/// (beside the bundled Node and `index.js` the real one has).
pub fn package(launcher: &str) -> Vec<u8> {
    archive::pack(
        Format::TarGz,
        &[
            Entry::dir("dist-package/"),
            Entry::file("dist-package/cursor-agent", 0o755, launcher),
            Entry::file("dist-package/index.js", 0o644, "// the agent\n"),
        ],
    )
}

/// A launcher that answers `--version` with `version`.
fn version_launcher(version: &str) -> String {
    format!("#!/bin/sh\ncase \"$1\" in\n  --version) echo \"{version}\" ;;\nesac\nexit 0\n")
}

/// A world whose Cursor downloads come from the loopback mirror.
pub fn cursor_env() -> TestEnv {
    let mut env = TestEnv::new();
    let base = env.server.url("/lab/");
    env.set_env("ONEWORKS_CURSOR_DOWNLOAD_BASE", &base);
    env.set_env("ONEWORKS_TEST_BACKOFF_MS", "1");
    env
}

/// Serves `bytes` as `version`'s archive for this host.
pub fn serve(env: &TestEnv, version: &str, bytes: &[u8]) {
    env.server
        .route(&archive_path(version), Route::Ok(bytes.to_vec().into()));
}

/// The built-in Cursor adapter with `sha256` as the reviewed pin of
/// `version` for this host, placed in `ONEWORKS_ADAPTERS_DIR`.
pub fn pin_in_data(env: &mut TestEnv, version: &str, sha256: &str) {
    let mut data = AdapterYaml::builtin("cursor");
    assert_eq!(
        data.get("pinned.pins.0.source").as_str(),
        Some("nixpkgs pkgs/by-name/cu/cursor-cli/package.nix")
    );
    data.set("pinned.pins.0.version", version)
        .set("pinned.pins.0.source", "this test")
        .set(
            "pinned.pins.0.sha256",
            crate::support::adapter_yaml::yaml(&format!("{}: {sha256}", pin_key())),
        );
    let dir = env.base().join("adapters");
    std::fs::create_dir_all(&dir).expect("adapters dir");
    data.write(&dir.join("cursor.yaml"));
    env.set_env("ONEWORKS_ADAPTERS_DIR", &dir.to_string_lossy());
}

fn prepare(env: &TestEnv, extra: &[&str]) -> Outcome {
    let mut args = vec!["adapter", "prepare", "cursor", "--json"];
    args.extend_from_slice(extra);
    env.run(&args)
}

fn versions_dir(env: &TestEnv) -> std::path::PathBuf {
    env.oneworks_home.join("adapters/cursor/versions")
}

fn lock_path(env: &TestEnv) -> std::path::PathBuf {
    env.project.join(".oneworks/cursor.lock")
}

#[track_caller]
fn assert_nothing_installed(env: &TestEnv) {
    let left: Vec<_> = std::fs::read_dir(versions_dir(env))
        .map(|entries| entries.flatten().map(|entry| entry.file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "nothing may be published: {left:?}");
    crate::support::assert_empty_or_missing(
        &env.oneworks_home.join("adapters/cursor/staging"),
        "the staging folder",
    );
    assert!(!lock_path(env).exists(), "no cursor.lock may be written");
}

#[track_caller]
fn assert_installed(outcome: &Outcome, version: &str) -> Value {
    outcome.assert_success();
    let document = outcome.json();
    assert_eq!(document["adapter"], "cursor", "{}", outcome.describe());
    assert_eq!(document["version"], version, "{}", outcome.describe());
    let path = document["path"].as_str().expect("path");
    assert!(
        path.ends_with("/dist-package/cursor-agent"),
        "{}",
        outcome.describe()
    );
    document
}

#[test]
fn a_pinned_version_installs_from_the_mirror_and_is_reused_and_offline() {
    let mut env = cursor_env();
    let bytes = package(&version_launcher(VERSION));
    serve(&env, VERSION, &bytes);
    pin_in_data(&mut env, VERSION, &sha256_hex(&bytes));
    let listed = env.run(&["adapter", "list"]);
    listed.assert_success();
    listed.assert_text_contains("cursor (Cursor CLI)");

    let first = assert_installed(&prepare(&env, &[]), VERSION);
    assert_eq!(first["reused"], false);
    assert_eq!(env.server.hits(&archive_path(VERSION)), 1);
    let lock: Value =
        serde_json::from_str(&std::fs::read_to_string(lock_path(&env)).expect("cursor.lock"))
            .expect("lock json");
    assert_eq!(lock["version"], VERSION);
    assert_eq!(lock["packages"][0]["sha256"], sha256_hex(&bytes));

    let again = assert_installed(&prepare(&env, &[]), VERSION);
    assert_eq!(again["reused"], true);
    let offline = assert_installed(&prepare(&env, &["--offline"]), VERSION);
    assert_eq!(offline["reused"], true);
    let locked = assert_installed(&prepare(&env, &["--locked"]), VERSION);
    assert_eq!(locked["reused"], true);
    assert_eq!(
        env.server.hits(&archive_path(VERSION)),
        1,
        "reuse, --offline and --locked download nothing"
    );
}

#[test]
fn a_wrong_pin_is_exit_5_and_publishes_nothing() {
    let mut env = cursor_env();
    let bytes = package(&version_launcher(VERSION));
    serve(&env, VERSION, &bytes);
    pin_in_data(&mut env, VERSION, &sha256_hex(b"another archive"));
    let outcome = prepare(&env, &[]);
    let message = outcome.assert_error(5, "checksum_mismatch");
    assert!(
        message.contains(&sha256_hex(b"another archive")),
        "{message}"
    );
    assert!(message.contains(&sha256_hex(&bytes)), "{message}");
    assert_nothing_installed(&env);
}

#[test]
fn an_unpinned_version_is_refused_before_any_download() {
    let env = cursor_env();
    let bytes = package(&version_launcher(VERSION));
    serve(&env, VERSION, &bytes);
    env.write_config(&format!(
        "adapters:\n  cursor:\n    cli:\n      version: \"{VERSION}\"\n"
    ));
    let outcome = prepare(&env, &[]);
    let message = outcome.assert_error(3, "config");
    assert!(message.contains(VERSION), "{message}");
    assert!(
        outcome.all_text().contains("adapters.cursor.cli.sha256"),
        "the hint names cli.sha256\n{}",
        outcome.describe()
    );
    assert_eq!(env.server.total_hits(), 0, "nothing was fetched");
    assert_nothing_installed(&env);
}

/// The same `cli.sha256`: ignored from a cloned (untrusted) project
/// config, honoured once the person trusts the file.
#[test]
fn a_cloned_projects_sha256_is_ignored_and_a_trusted_one_installs() {
    let env = cursor_env();
    let bytes = package(&version_launcher(VERSION));
    serve(&env, VERSION, &bytes);
    let config = format!(
        "adapters:\n  cursor:\n    cli:\n      version: \"{VERSION}\"\n      sha256: {}\n",
        sha256_hex(&bytes)
    );
    env.write_untrusted_config(&config);
    let outcome = prepare(&env, &[]);
    outcome.assert_error(3, "config");
    outcome.assert_text_contains("adapters.cursor.cli.sha256");
    assert_eq!(env.server.total_hits(), 0, "nothing was fetched");
    assert_nothing_installed(&env);

    env.write_config(&config);
    assert_installed(&prepare(&env, &[]), VERSION);
    assert_eq!(env.server.hits(&archive_path(VERSION)), 1);
}

/// A cloned lock file cannot vouch for another archive: its sha256 must
/// be the pin's (exit 5 before any download, nothing installed).
#[test]
fn a_lock_naming_another_sha256_than_the_pin_is_refused() {
    let mut env = cursor_env();
    let bytes = package(&version_launcher(VERSION));
    serve(&env, VERSION, &bytes);
    pin_in_data(&mut env, VERSION, &sha256_hex(&bytes));
    let (os, arch) = vendor_platform();
    let host_arch = std::env::consts::ARCH;
    let lock = serde_json::json!({
        "version": VERSION,
        "packages": [{
            "targetTriple": "", "os": "linux", "fileType": "tarGz",
            "architecture": host_arch,
            "download": format!("{VERSION}/{os}/{arch}/agent-cli-package.tar.gz"),
            "sha256": sha256_hex(b"forged"), "size": 1,
        }],
    });
    std::fs::write(lock_path(&env), lock.to_string()).expect("write lock");
    let outcome = prepare(&env, &["--locked"]);
    let message = outcome.assert_error(5, "checksum_mismatch");
    assert!(message.contains("reviewed pin"), "{message}");
    assert_eq!(env.server.total_hits(), 0, "nothing was fetched");
    let left: Vec<_> = std::fs::read_dir(versions_dir(&env))
        .map(|entries| entries.flatten().collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "nothing installed");
}
