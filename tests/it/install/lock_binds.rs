//! A lock file binds; it never names. A cloned
//! `.oneworks/<adapter>.lock` can only narrow what the source of truth
//! publishes: a Gemini lock naming another package's tarball, a tarball of
//! another version, or a relabelled version, and a Kiro lock filing an
//! older release under a newer version, are exit 5 naming the field and
//! both values — before any download — and nothing is installed, run,
//! published or relabelled. What an install is filed under is what the
//! artifact says: its own `package.json`, its version probe.

use std::path::PathBuf;

use serde_json::{json, Value};

use crate::support::archive::{Entry, Format};
use crate::support::npm_registry::{self, Published};
use crate::support::server::Route;
use crate::support::{assert_empty_or_missing, Outcome, TestEnv};

/// The built-in Gemini adapter's package.
const GEMINI: &str = "@google/gemini-cli";
/// Where its bin sits (`bin.gemini`).
const BIN: &str = "bundle/gemini.js";

/// A world where the built-in `gemini` adapter installs from the loopback
/// registry, with a fake Node.js as the only thing on PATH.
fn gemini_env() -> TestEnv {
    let mut env = TestEnv::new();
    npm_registry::install_node(&env.bin, "v22.3.0");
    let registry = env.server.url("/");
    let bin = env.bin.to_string_lossy().into_owned();
    env.set_env("ONEWORKS_NPM_REGISTRY", &registry);
    env.set_env("PATH", &bin);
    env.set_env("ONEWORKS_TEST_BACKOFF_MS", "1");
    env
}

/// A version of `name` whose bin is `script`, its `package.json` saying
/// `manifest_version` (the version it is published as, unless a test
/// forges it).
fn package(
    env: &TestEnv,
    name: &str,
    version: &str,
    manifest_version: &str,
    script: &str,
) -> Published {
    let entries = vec![
        Entry::file(
            "package/package.json",
            0o644,
            json!({ "name": name, "version": manifest_version, "bin": { "gemini": BIN } })
                .to_string(),
        ),
        Entry::file(&format!("package/{BIN}"), 0o644, script),
    ];
    let extra = json!({ "bin": { "gemini": BIN }, "engines": { "node": ">=20" } });
    Published::named(&env.server, name, version, extra, &entries)
}

/// Gemini `version` as the registry publishes it.
fn gemini(env: &TestEnv, version: &str) -> Published {
    package(
        env,
        GEMINI,
        version,
        version,
        &npm_registry::bin_script(version),
    )
}

/// Another package on the same registry whose bin, if anything ever ran
/// it, would leave `marker` behind.
fn payload(env: &TestEnv) -> Published {
    let script = format!(
        "#!/usr/bin/env node\necho ran >> '{}'\necho 0.99.0\n",
        marker(env).display()
    );
    package(env, "@evil/payload", "1.0.0", "1.0.0", &script)
}

fn marker(env: &TestEnv) -> PathBuf {
    env.outside.join("payload-ran")
}

fn lock_path(env: &TestEnv) -> PathBuf {
    env.project.join(".oneworks").join("gemini.lock")
}

/// A lock for `version` naming `tarball` and `integrity`.
fn write_lock(env: &TestEnv, version: &str, tarball: &str, integrity: &str) {
    let lock = json!({
        "version": version,
        "npm": {
            "package": GEMINI,
            "tarball": tarball,
            "integrity": integrity,
            "bin": BIN,
            "enginesNode": ">=20",
        }
    });
    std::fs::write(lock_path(env), lock.to_string()).expect("write gemini.lock");
}

fn prepare(env: &TestEnv, extra: &[&str]) -> Outcome {
    let mut args = vec!["adapter", "prepare", "gemini", "--json"];
    args.extend_from_slice(extra);
    env.run(&args)
}

/// A successful prepare of Gemini `version`: its document.
#[track_caller]
fn assert_prepared(outcome: &Outcome, version: &str) -> Value {
    outcome.assert_success();
    let document = outcome.json();
    assert_eq!(document["adapter"], "gemini", "{}", outcome.describe());
    assert_eq!(document["version"], version, "{}", outcome.describe());
    document
}

fn gemini_root(env: &TestEnv) -> PathBuf {
    env.oneworks_home.join("adapters").join("gemini")
}

/// Nothing published, nothing left in staging, nothing of the payload run.
#[track_caller]
fn assert_nothing_installed(env: &TestEnv) {
    assert_empty_or_missing(&gemini_root(env).join("versions"), "the gemini versions");
    assert_empty_or_missing(&gemini_root(env).join(".staging"), "the gemini staging");
    assert!(!marker(env).exists(), "the payload ran");
}

/// Whether any string in `value` is `text`.
fn mentions(value: &Value, text: &str) -> bool {
    match value {
        Value::String(found) => found == text,
        Value::Array(items) => items.iter().any(|item| mentions(item, text)),
        Value::Object(fields) => fields.values().any(|item| mentions(item, text)),
        _ => false,
    }
}

#[test]
fn a_lock_naming_another_packages_tarball_installs_and_runs_nothing() {
    let env = gemini_env();
    let real = gemini(&env, "0.99.0");
    npm_registry::publish_package(&env.server, &[&real]);
    let evil = payload(&env);
    npm_registry::publish_package(&env.server, &[&evil]);
    let evil_url = env.server.url(&evil.path);
    let evil_sri = npm_registry::sri(&evil.bytes);

    // Another package's tarball and integrity, under `--locked` and under
    // a config that pins the version.
    write_lock(&env, "0.99.0", &evil_url, &evil_sri);
    env.write_config("adapters:\n  gemini:\n    cli: { version: 0.99.0 }\n");
    for extra in [&["--locked"][..], &[]] {
        let outcome = prepare(&env, extra);
        let message = outcome.assert_error(5, "checksum_mismatch");
        assert_eq!(
            message,
            format!(
                "`{}`'s `{GEMINI}` 0.99.0 disagrees with the registry's package document: \
                 `tarball` expected `{}`, found `{evil_url}`",
                lock_path(&env).display(),
                env.server.url(&real.path)
            ),
            "{extra:?}"
        );
        assert_eq!(env.server.hits(&evil.path), 0, "{extra:?}: downloaded");
        assert_nothing_installed(&env);
    }

    // Its own tarball with another package's integrity: the integrity is
    // named.
    write_lock(&env, "0.99.0", &env.server.url(&real.path), &evil_sri);
    let outcome = prepare(&env, &["--locked"]);
    let message = outcome.assert_error(5, "checksum_mismatch");
    assert!(
        message.ends_with(&format!(
            "`integrity` expected `{}`, found `{evil_sri}`",
            npm_registry::sri(&real.bytes)
        )),
        "{message}"
    );
    outcome.assert_text_contains("a lock file only narrows");
    assert_eq!(env.server.hits(&real.path), 0, "nothing downloaded");
    assert_nothing_installed(&env);

    // The lock as the registry says: installed.
    write_lock(
        &env,
        "0.99.0",
        &env.server.url(&real.path),
        &npm_registry::sri(&real.bytes),
    );
    assert_prepared(&prepare(&env, &["--locked"]), "0.99.0");
    assert!(!marker(&env).exists(), "the payload ran");
}

#[test]
fn a_lock_relabelling_a_version_files_nothing_under_it() {
    let env = gemini_env();
    let real = gemini(&env, "0.99.0");
    npm_registry::publish_package(&env.server, &[&real]);
    let url = env.server.url(&real.path);
    let sri = npm_registry::sri(&real.bytes);
    write_lock(&env, "99.0.0", &url, &sri);
    let outcome = prepare(&env, &["--locked"]);
    let message = outcome.assert_error(5, "checksum_mismatch");
    assert!(
        message.ends_with(
            "`version` expected `a version the registry lists (0.99.0)`, found `99.0.0`"
        ),
        "{message}"
    );
    assert_eq!(env.server.hits(&real.path), 0, "nothing downloaded");
    assert_nothing_installed(&env);
    // --offline with the relabelling lock: nothing to use.
    prepare(&env, &["--offline"]).assert_error(7, "no_usable_cli");

    // Another project sees no new version.
    let other = env.base().join("other-project");
    std::fs::create_dir_all(other.join(".oneworks")).expect("other project");
    let outcome = env
        .oneworks()
        .args(["adapter", "status", "gemini", "--json"])
        .current_dir(&other)
        .run();
    assert!(
        !mentions(&outcome.json(), "99.0.0"),
        "{}",
        outcome.describe()
    );
    assert!(!gemini_root(&env).join("versions/99.0.0").exists());

    // The real version installed, then its record made to look like an
    // install never checked against the registry: --offline with the lock
    // does not use it.
    write_lock(&env, "0.99.0", &url, &sri);
    assert_prepared(&prepare(&env, &[]), "0.99.0");
    let record_path = gemini_root(&env).join("versions/0.99.0/install.json");
    let mut record: Value =
        serde_json::from_slice(&std::fs::read(&record_path).expect("record")).expect("json");
    assert_eq!(
        record["package"], GEMINI,
        "the record says what was checked"
    );
    record.as_object_mut().expect("record").remove("package");
    std::fs::write(&record_path, record.to_string()).expect("write record");
    let before = env.server.total_hits();
    let outcome = prepare(&env, &["--offline"]);
    let message = outcome.assert_error(7, "no_usable_cli");
    assert!(
        message.ends_with("was not checked against the registry as the lock file's package"),
        "{message}"
    );
    assert_eq!(
        env.server.total_hits(),
        before,
        "--offline asked the network"
    );
    // A prepare checks it again and reinstalls it.
    let document = assert_prepared(&prepare(&env, &[]), "0.99.0");
    assert_eq!(document["reused"], false);
    assert_prepared(&prepare(&env, &["--offline"]), "0.99.0");
}

#[test]
fn a_tarball_of_another_version_or_package_is_refused() {
    let env = gemini_env();
    let old = gemini(&env, "0.98.0");
    let real = gemini(&env, "0.99.0");
    npm_registry::publish_package(&env.server, &[&old, &real]);

    // The lock names the older version's tarball for 0.99.0.
    write_lock(
        &env,
        "0.99.0",
        &env.server.url(&old.path),
        &npm_registry::sri(&old.bytes),
    );
    let outcome = prepare(&env, &["--locked"]);
    let message = outcome.assert_error(5, "checksum_mismatch");
    assert!(message.contains("`tarball` expected"), "{message}");
    assert_eq!(env.server.hits(&old.path) + env.server.hits(&real.path), 0);
    assert_nothing_installed(&env);
    std::fs::remove_file(lock_path(&env)).expect("remove the lock");

    // The registry itself serves 0.98.0's tarball (its own integrity) as
    // 0.99.0, or another package's: the tarball's `package.json` says so.
    for (field, forged) in [
        (
            "version",
            package(
                &env,
                GEMINI,
                "0.99.0",
                "0.98.0",
                &npm_registry::bin_script("0.98.0"),
            ),
        ),
        (
            "name",
            package(&env, "@evil/payload", "0.99.0", "0.99.0", "#!/bin/sh\n"),
        ),
    ] {
        let mut relabelled = forged;
        relabelled.name = GEMINI.to_owned();
        relabelled.path = real.path.clone();
        relabelled.doc["dist"]["tarball"] = json!(env.server.url(&real.path));
        npm_registry::publish_package(&env.server, &[&old, &relabelled]);
        let outcome = prepare(&env, &[]);
        let message = outcome.assert_error(5, "checksum_mismatch");
        let (expected, found) = if field == "version" {
            ("0.99.0", "0.98.0")
        } else {
            (GEMINI, "@evil/payload")
        };
        assert_eq!(
            message,
            format!(
                "the tarball of `{GEMINI}` 0.99.0 disagrees with its own `package.json`: \
                 `{field}` expected `{expected}`, found `{found}`"
            )
        );
        assert_nothing_installed(&env);
        assert!(!lock_path(&env).exists(), "no lock for a refused install");
    }
}

#[test]
fn a_dependency_whose_tarball_is_another_version_is_refused() {
    let env = gemini_env();
    // `helper` 1.0.0 as the registry lists it (its integrity the bytes'),
    // but its tarball says 2.0.0.
    let helper = Published::named(
        &env.server,
        "helper",
        "1.0.0",
        json!({}),
        &[Entry::file(
            "package/package.json",
            0o644,
            json!({ "name": "helper", "version": "2.0.0" }).to_string(),
        )],
    );
    npm_registry::publish_package(&env.server, &[&helper]);
    let main = gemini(&env, "0.99.0").field("dependencies", json!({ "helper": "^1" }));
    npm_registry::publish_package(&env.server, &[&main]);
    let outcome = prepare(&env, &[]);
    let message = outcome.assert_error(5, "checksum_mismatch");
    assert_eq!(
        message,
        "the tarball of `helper` 1.0.0 disagrees with its own `package.json`: \
         `version` expected `1.0.0`, found `2.0.0`"
    );
    assert_nothing_installed(&env);
}

/// The Kiro lock's `download` must lie in its pinned version's own folder,
/// and the installed binary must say the pinned version.
#[test]
fn a_kiro_lock_filing_an_older_release_under_a_newer_version_is_refused() {
    let env = TestEnv::new();
    let old = env.publish("2.15.1", &[Format::TarGz]);
    let new = env.publish("2.16.0", &[Format::TarGz]);
    // The lock names the older release's artifacts (gnu and musl), their
    // `download` changed by `forge`.
    let write_kiro_lock = |forge: &dyn Fn(&Value) -> Value| {
        let packages: Vec<Value> = old.entries().iter().map(forge).collect();
        let lock = json!({ "version": "2.16.0", "packages": packages });
        std::fs::write(env.kiro_lock(), lock.to_string()).expect("write kiro.lock");
    };
    let chosen = old.gnu(Format::TarGz).entry["download"]
        .as_str()
        .expect("download")
        .to_owned();
    let older = |entry: &Value| entry.clone();
    let encoded = |entry: &Value| {
        let mut entry = entry.clone();
        let download = entry["download"].as_str().expect("download").to_owned();
        entry["download"] = json!(format!("2.16.0/%2e%2e/{download}"));
        entry
    };
    for (forge, shown) in [
        (&older as &dyn Fn(&Value) -> Value, chosen.clone()),
        (&encoded, format!("2.16.0/%2e%2e/{chosen}")),
    ] {
        write_kiro_lock(forge);
        let outcome = env.prepare(&["--locked"]);
        let message = outcome.assert_error(5, "checksum_mismatch");
        assert_eq!(
            message,
            format!(
                "`{}`'s `kiro-cli` 2.16.0 disagrees with the vendor's download layout: \
                 `download` expected `2.16.0/…`, found `{shown}`",
                env.kiro_lock().display()
            )
        );
        assert_eq!(
            old.artifact_hits(&env.server) + new.artifact_hits(&env.server),
            0
        );
        env.assert_nothing_published("2.16.0");
    }

    // The mirror serves the older release at the newer version's paths,
    // and the lock records their digests: the binary's version probe says
    // which release it is.
    for (older, newer) in old.artifacts.iter().zip(&new.artifacts) {
        env.server
            .route(&newer.server_path, Route::Ok(older.bytes.clone().into()));
    }
    let moved = |entry: &Value| {
        let mut entry = entry.clone();
        let download = entry["download"].as_str().expect("download").to_owned();
        entry["download"] = json!(download.replacen("2.15.1/", "2.16.0/", 1));
        entry
    };
    write_kiro_lock(&moved);
    let outcome = env.prepare(&["--locked"]);
    let message = outcome.assert_error(5, "checksum_mismatch");
    assert_eq!(
        message,
        "the downloaded `kiro-cli` 2.16.0 disagrees with its version probe: \
         `version` expected `2.16.0`, found `2.15.1`"
    );
    assert_eq!(new.artifact_hits(&env.server), 1);
    env.assert_nothing_published("2.16.0");
}

/// The lock's tree: a package no package of the tree declares, or one
/// made the platform package, is refused — another registry package
/// cannot be slipped in under a dependency's name.
#[test]
fn a_lock_adding_a_package_the_tree_does_not_declare_is_refused() {
    let env = gemini_env();
    let helper = Published::package(&env.server, "helper", "1.0.0", json!({}), &[]);
    npm_registry::publish_package(&env.server, &[&helper]);
    let evil = payload(&env);
    npm_registry::publish_package(&env.server, &[&evil]);
    let main = gemini(&env, "0.99.0").field("dependencies", json!({ "helper": "^1" }));
    npm_registry::publish_package(&env.server, &[&main]);
    let entry = |published: &Published, platform: bool| {
        json!({
            "path": "node_modules/helper",
            "name": published.name,
            "version": published.version,
            "tarball": env.server.url(&published.path),
            "integrity": npm_registry::sri(&published.bytes),
            "platform": platform,
        })
    };
    for (package, field, found) in [
        (entry(&evil, false), "path", "node_modules/helper"),
        (entry(&helper, true), "platform", "true"),
    ] {
        let lock = json!({
            "version": "0.99.0",
            "npm": {
                "package": GEMINI,
                "tarball": env.server.url(&main.path),
                "integrity": npm_registry::sri(&main.bytes),
                "bin": BIN,
                "enginesNode": ">=20",
                "packages": [package],
            }
        });
        std::fs::write(lock_path(&env), lock.to_string()).expect("write gemini.lock");
        let outcome = prepare(&env, &["--locked"]);
        let message = outcome.assert_error(5, "checksum_mismatch");
        assert!(
            message.contains(&format!("`{field}` expected `"))
                && message.ends_with(&format!("found `{found}`")),
            "{message}"
        );
        assert_eq!(env.server.hits(&evil.path) + env.server.hits(&main.path), 0);
        assert_nothing_installed(&env);
    }
}
