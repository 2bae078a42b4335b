//! The npm registry managed source through the real binary:
//! a loopback registry serves a fake `gemini` package; oneworks resolves
//! `latest` or an exact version, verifies the tarball's sha512 `integrity`
//! while streaming, extracts it through the hostile-archive rules, checks
//! Node.js against `engines.node`, publishes, pins, and honours
//! `--offline`, `--locked` and `prune` as for the vendor manifest.

use serde_json::{json, Value};

use crate::support::archive::Entry;
use crate::support::npm_registry::{self, Published, DOCUMENT_PATH};
use crate::support::{assert_prepared, path_of, reused, TestEnv};

mod bounds;
mod refusals;

/// A world whose adapter installs the fake npm package from the loopback
/// registry, with a fake Node.js `v22.3.0` as the only thing on PATH.
fn npm_env() -> TestEnv {
    let mut env = TestEnv::new();
    let data = env.base().join("npm-adapter.yaml");
    std::fs::write(&data, npm_registry::adapter_data()).expect("write adapter data");
    npm_registry::install_node(&env.bin, "v22.3.0");
    let registry = env.server.url("/");
    let bin = env.bin.to_string_lossy().into_owned();
    env.set_env("ONEWORKS_KIRO_ADAPTER_FILE", &data.to_string_lossy());
    env.set_env("ONEWORKS_NPM_REGISTRY", &registry);
    env.set_env("PATH", &bin);
    env.set_env("ONEWORKS_TEST_BACKOFF_MS", "1");
    env
}

/// Where a published version's bin lives.
fn bin_of(env: &TestEnv, version: &str) -> std::path::PathBuf {
    env.version_dir(version)
        .join("package")
        .join(npm_registry::BIN)
}

fn lock_json(env: &TestEnv) -> Value {
    serde_json::from_slice(&std::fs::read(env.kiro_lock()).expect("read the lock file"))
        .expect("lock json")
}

#[test]
fn npm_prepare_resolves_latest_verifies_and_pins() {
    let env = npm_env();
    let old = Published::new(&env.server, "1.0.0");
    let new = Published::new(&env.server, "1.1.0");
    npm_registry::publish(&env.server, "1.1.0", &[&old, &new]);

    let outcome = env.prepare(&[]);
    let document = assert_prepared(&outcome, "managed", "1.1.0");
    assert!(!reused(&document));
    assert_eq!(path_of(&document), bin_of(&env, "1.1.0"));
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(bin_of(&env, "1.1.0"))
            .expect("bin")
            .permissions(),
    );
    assert_eq!(mode & 0o111, 0o111, "the bin is made executable");
    assert_eq!(env.server.hits(&new.path), 1);
    assert_eq!(env.server.hits(&old.path), 0);
    let lock = lock_json(&env);
    assert_eq!(lock["version"], "1.1.0");
    assert_eq!(lock["npm"]["package"], npm_registry::PACKAGE);
    assert_eq!(lock["npm"]["integrity"], npm_registry::sri(&new.bytes));
    assert_eq!(lock["npm"]["bin"], npm_registry::BIN);
    assert_eq!(lock["npm"]["enginesNode"], ">=20");
    let record: Value = serde_json::from_slice(
        &std::fs::read(env.version_dir("1.1.0").join("install.json")).expect("record"),
    )
    .expect("record json");
    assert_eq!(record["integrity"], npm_registry::sri(&new.bytes));

    // Again: the same artifact is reused, the tarball not fetched again.
    let again = env.prepare(&[]);
    let document = assert_prepared(&again, "managed", "1.1.0");
    assert!(reused(&document));
    assert_eq!(env.server.hits(&new.path), 1);
    env.assert_no_leftovers();
}

#[test]
fn npm_prepare_installs_an_exact_version_and_refuses_an_unlisted_one() {
    let env = npm_env();
    let old = Published::new(&env.server, "1.0.0");
    let new = Published::new(&env.server, "1.1.0");
    npm_registry::publish(&env.server, "1.1.0", &[&old, &new]);
    env.write_config("adapters:\n  kiro:\n    cli: { source: managed, version: 1.0.0 }\n");
    let outcome = env.prepare(&[]);
    assert_prepared(&outcome, "managed", "1.0.0");
    assert_eq!(env.server.hits(&new.path), 0);

    env.write_config("adapters:\n  kiro:\n    cli: { source: managed, version: 9.9.9 }\n");
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(7, "no_usable_cli");
    assert_eq!(
        message,
        "`gemini` 9.9.9 is not published: the npm package `@fake/gemini-cli` lists 1.1.0, 1.0.0 (newest first)"
    );
    assert!(std::fs::symlink_metadata(env.version_dir("9.9.9")).is_err());
}

#[test]
fn npm_registry_404_is_a_clear_network_error() {
    let env = npm_env();
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(4, "network");
    assert_eq!(
        message,
        format!("`{}` answered HTTP 404", env.server.url(DOCUMENT_PATH))
    );
    let text = outcome.all_text();
    assert!(text.contains("ONEWORKS_NPM_REGISTRY"), "{text}");
    assert!(!text.to_lowercase().contains("kiro_manifest"), "{text}");
    // 404 is not transient: asked once.
    assert_eq!(env.server.hits(DOCUMENT_PATH), 1);
}

#[test]
fn npm_registry_500_is_retried_then_exit_4() {
    let env = npm_env();
    let published = Published::new(&env.server, "1.0.0");
    npm_registry::publish(&env.server, "1.0.0", &[&published]);
    env.server
        .route(&published.path, crate::support::server::Route::Status(500));
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(4, "network");
    assert!(message.ends_with("answered HTTP 500"), "{message}");
    assert_eq!(env.server.hits(&published.path), 3, "three attempts");
    env.assert_nothing_published("1.0.0");
}

#[test]
fn npm_a_stalled_tarball_hits_the_idle_timeout() {
    let mut env = npm_env();
    env.set_env("ONEWORKS_HTTP_TIMEOUT", "1");
    let published = Published::new(&env.server, "1.0.0");
    npm_registry::publish(&env.server, "1.0.0", &[&published]);
    let never = env.base().join("never-released");
    env.server.route(
        &published.path,
        crate::support::server::Route::Stall {
            body: published.bytes.clone().into(),
            after_bytes: 10,
            release: never,
        },
    );
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(4, "network");
    assert!(message.ends_with("stalled: no data for 1s"), "{message}");
    assert_eq!(env.server.hits(&published.path), 3);
    env.assert_nothing_published("1.0.0");
}

#[test]
fn npm_node_missing_or_too_old_is_exit_7_before_download() {
    // No node at all on PATH, and `runtime: system`: oneworks installs no
    // Node (tests/it/node_runtime.rs covers the managed default).
    let mut env = npm_env();
    env.write_config("adapters:\n  kiro:\n    cli: { runtime: system }\n");
    let empty = env.base().join("empty-path");
    std::fs::create_dir_all(&empty).expect("empty folder");
    env.set_env("PATH", &empty.to_string_lossy());
    let published = Published::new(&env.server, "1.0.0");
    npm_registry::publish(&env.server, "1.0.0", &[&published]);
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(7, "no_usable_cli");
    assert_eq!(
        message,
        "`gemini` needs Node.js `>=20`, but no `node` was found on PATH"
    );
    assert!(outcome.all_text().contains("or set `cli.runtime: managed`"));
    assert_eq!(env.server.hits(&published.path), 0);
    env.assert_nothing_published("1.0.0");

    // A node that is too old.
    let env = npm_env();
    env.write_config("adapters:\n  kiro:\n    cli: { runtime: system }\n");
    npm_registry::install_node(&env.bin, "v18.19.1");
    let published = Published::new(&env.server, "1.0.0");
    npm_registry::publish(&env.server, "1.0.0", &[&published]);
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(7, "no_usable_cli");
    assert!(
        message.starts_with("`gemini` needs Node.js `>=20`, but `")
            && message.ends_with("` is v18.19.1"),
        "{message}"
    );
    assert_eq!(env.server.hits(&published.path), 0);
    env.assert_nothing_published("1.0.0");
}

#[test]
fn npm_offline_locked_and_prune_work_as_for_the_vendor_manifest() {
    let mut env = npm_env();
    let first = Published::new(&env.server, "1.0.0");
    npm_registry::publish(&env.server, "1.0.0", &[&first]);
    assert_prepared(&env.prepare(&[]), "managed", "1.0.0");

    // --offline: no request at all.
    let before = env.server.total_hits();
    let outcome = env.prepare(&["--offline"]);
    assert!(reused(&assert_prepared(&outcome, "managed", "1.0.0")));
    assert_eq!(env.server.total_hits(), before);

    // A newer latest appears; --locked installs the pinned version, bound
    // to the registry's document for it (asked once).
    let second = Published::new(&env.server, "2.0.0");
    npm_registry::publish(&env.server, "2.0.0", &[&first, &second]);
    std::fs::remove_dir_all(env.version_dir("1.0.0")).expect("remove the install");
    let documents = env.server.hits(DOCUMENT_PATH);
    let outcome = env.prepare(&["--locked"]);
    let document = assert_prepared(&outcome, "managed", "1.0.0");
    assert!(!reused(&document));
    assert_eq!(env.server.hits(DOCUMENT_PATH), documents + 1);
    assert_eq!(env.server.hits(&first.path), 2);
    assert_eq!(env.server.hits(&second.path), 0);

    // --locked against a tarball that changed under the pin: exit 5.
    let tampered = Published::with_entries(
        &env.server,
        "1.0.0",
        &npm_registry::package_entries("1.0.0")[..2],
    );
    env.server.route(
        &first.path,
        crate::support::server::Route::Ok(tampered.bytes.clone().into()),
    );
    let outcome = env.prepare(&["--locked", "--force"]);
    outcome.assert_error(5, "checksum_mismatch");
    assert!(
        bin_of(&env, "1.0.0").exists(),
        "the installed version stays"
    );

    // Latest moves on without --locked; prune keeps the pinned version.
    assert_prepared(&env.prepare(&[]), "managed", "2.0.0");
    assert_eq!(lock_json(&env)["version"], "2.0.0");
    std::fs::write(
        env.kiro_lock(),
        serde_json::to_vec(&json!({
            "version": "1.0.0",
            "npm": {
                "package": npm_registry::PACKAGE,
                "tarball": env.server.url(&first.path),
                "integrity": npm_registry::sri(&first.bytes),
                "bin": npm_registry::BIN,
                "enginesNode": ">=20",
            }
        }))
        .expect("pin json"),
    )
    .expect("write pin");
    let outcome = env.run(&["adapter", "prune", "kiro", "--keep", "0"]);
    outcome.assert_success();
    assert!(
        bin_of(&env, "1.0.0").exists(),
        "prune keeps the pinned version"
    );
    assert!(!env.version_dir("2.0.0").exists(), "prune removes the rest");

    // Node gone: even reusing the installed version is refused (the check
    // runs before every use, not only before install).
    let empty = env.base().join("no-node");
    std::fs::create_dir_all(&empty).expect("folder");
    env.set_env("PATH", &empty.to_string_lossy());
    let outcome = env.prepare(&["--offline"]);
    let message = outcome.assert_error(7, "no_usable_cli");
    assert!(message.contains("no `node` was found on PATH"), "{message}");
}

#[test]
fn npm_the_registry_comes_from_the_users_npmrc() {
    let mut env = npm_env();
    env.env.remove("ONEWORKS_NPM_REGISTRY");
    let published = Published::new(&env.server, "1.0.0");
    npm_registry::publish(&env.server, "1.0.0", &[&published]);
    std::fs::write(
        env.home.join(".npmrc"),
        format!("; the user's npm\nregistry={}\n", env.server.url("/")),
    )
    .expect("write .npmrc");
    assert_prepared(&env.prepare(&[]), "managed", "1.0.0");
    assert_eq!(env.server.hits(DOCUMENT_PATH), 1);
}

#[test]
fn npm_concurrent_prepares_download_once() {
    let env = npm_env();
    let published = Published::new(&env.server, "1.0.0");
    npm_registry::publish(&env.server, "1.0.0", &[&published]);
    // Hold the one download open until every process has read the
    // document, so they really contend for the install lock.
    let release = env.base().join("release-tarball");
    env.server.route(
        &published.path,
        crate::support::server::Route::Stall {
            body: published.bytes.clone().into(),
            after_bytes: published.bytes.len() / 2,
            release: release.clone(),
        },
    );
    let running: Vec<crate::support::Running> = (0..4)
        .map(|_| {
            env.oneworks()
                .args(["adapter", "prepare", "kiro", "--json"])
                .start()
        })
        .collect();
    crate::support::wait::wait_until(
        "all four processes asked for the document",
        crate::support::wait::DEADLINE,
        || {
            assert!(
                std::fs::symlink_metadata(env.version_dir("1.0.0")).is_err(),
                "the version became visible before its download finished"
            );
            env.server.hits(DOCUMENT_PATH) >= 4
        },
    );
    std::fs::write(&release, "go").expect("release the tarball");
    let outcomes: Vec<_> = running
        .into_iter()
        .map(crate::support::Running::wait)
        .collect();
    let documents: Vec<_> = outcomes
        .iter()
        .map(|outcome| assert_prepared(outcome, "managed", "1.0.0"))
        .collect();
    assert_eq!(
        documents
            .iter()
            .filter(|document| !reused(document))
            .count(),
        1,
        "exactly one process installs"
    );
    let paths: std::collections::BTreeSet<_> = documents.iter().map(path_of).collect();
    assert_eq!(paths.len(), 1, "all print the same path");
    assert_eq!(env.server.hits(&published.path), 1, "one download");
    env.assert_no_leftovers();
}

#[test]
fn npm_node_gone_or_too_old_after_install_stops_every_launch_with_exit_7() {
    let mut env = npm_env();
    // tmux for `session start`; the fake node in bin comes first.
    let path = format!("{}:/usr/bin:/bin", env.bin.display());
    env.set_env("PATH", &path);
    let published = Published::new(&env.server, "1.0.0");
    npm_registry::publish(&env.server, "1.0.0", &[&published]);
    env.prepare(&[]).assert_success();
    // Node is downgraded after the install: the launch path checks again.
    npm_registry::install_node(&env.bin, "v18.19.1");
    let outcome = env.run(&["run", "kiro", "--prompt", "hi", "--json"]);
    let message = outcome.assert_error(7, "no_usable_cli");
    assert!(
        message.starts_with("`gemini` needs Node.js `>=20`") && message.ends_with("is v18.19.1"),
        "{message}"
    );
    let outcome = env.run(&["session", "start", "kiro", "--detach"]);
    outcome.assert_code(7);
    assert!(
        outcome.all_text().contains("needs Node.js `>=20`"),
        "{}",
        outcome.all_text()
    );
    // Nothing was started: no session profile was entered.
    assert!(
        !env.project
            .join(".oneworks/sessions/default/kiro-home")
            .exists(),
        "a world was entered before the Node check"
    );
    assert_eq!(env.server.hits(&published.path), 1, "no new download");
}
