//! npm packages of every shape through the real binary, on
//! the loopback registry: platform packages in `optionalDependencies`
//! picked by `os`/`cpu`/`libc` (the others never downloaded), `npm:`
//! aliases, a dependency tree laid out as Node resolves it (hoisted,
//! nested on conflict; checked with the real `node`), every tarball
//! verified by its own integrity, hostile entries refused in any package,
//! the postinstall equivalents of the adapter's data (`platformBin`,
//! `executables`), and the pin covering the whole tree (`--locked` asks no
//! document, `--offline` reuses only a complete tree).

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::support::archive::Entry;
use crate::support::npm_registry::{self, document_path, Published, DOCUMENT_PATH};
use crate::support::{assert_prepared, path_of, reused, TestEnv};

mod platform;

/// This host as npm names it.
fn npm_cpu() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => panic!("no npm cpu name for {other}"),
    }
}

/// The C library this host has, as npm's `libc` field names it.
fn npm_libc() -> &'static str {
    if cfg!(target_env = "musl") {
        "musl"
    } else {
        "glibc"
    }
}

fn other_libc() -> &'static str {
    if npm_libc() == "glibc" {
        "musl"
    } else {
        "glibc"
    }
}

fn other_cpu() -> &'static str {
    if npm_cpu() == "x64" {
        "arm64"
    } else {
        "x64"
    }
}

/// A world whose adapter installs `@fake/gemini-cli` from the loopback
/// registry, its data's `npm` section extended by `npm_keys`.
fn tree_env(npm_keys: &str) -> TestEnv {
    let mut env = TestEnv::new();
    let data = env.base().join("npm-adapter.yaml");
    std::fs::write(&data, npm_registry::adapter_data_with(npm_keys)).expect("write adapter data");
    npm_registry::install_node(&env.bin, "v22.3.0");
    let registry = env.server.url("/");
    let bin = env.bin.to_string_lossy().into_owned();
    env.set_env("ONEWORKS_KIRO_ADAPTER_FILE", &data.to_string_lossy());
    env.set_env("ONEWORKS_NPM_REGISTRY", &registry);
    env.set_env("PATH", &bin);
    env.set_env("ONEWORKS_TEST_BACKOFF_MS", "1");
    env
}

/// The main package (`@fake/gemini-cli` `version`) with `extra` fields
/// (its `dependencies`, `optionalDependencies`).
fn main_package(env: &TestEnv, version: &str, extra: Value) -> Published {
    let mut published = Published::new(&env.server, version);
    if let Value::Object(fields) = extra {
        for (field, value) in fields {
            published = published.field(&field, value);
        }
    }
    published
}

/// A dependency whose `index.js` exports `label` and whatever its own
/// dependencies export (`require` as Node resolves it).
fn js_package(env: &TestEnv, name: &str, version: &str, deps: Value, label: &str) -> Published {
    let requires: Vec<String> = deps
        .as_object()
        .map(|deps| {
            deps.keys()
                .map(|dep| format!(" + ',' + require('{dep}')"))
                .collect()
        })
        .unwrap_or_default();
    let index = format!("module.exports = '{label}'{};\n", requires.join(""));
    Published::package(
        &env.server,
        name,
        version,
        json!({ "dependencies": deps, "main": "index.js" }),
        &[("index.js", 0o644, &index)],
    )
}

fn package_dir(env: &TestEnv, version: &str) -> PathBuf {
    env.version_dir(version).join("package")
}

fn lock_json(env: &TestEnv) -> Value {
    serde_json::from_slice(&std::fs::read(env.kiro_lock()).expect("read the lock file"))
        .expect("lock json")
}

fn installed_version(dir: &Path) -> String {
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(dir.join("package.json")).expect("package.json"))
            .expect("package.json json");
    manifest["version"].as_str().expect("version").to_owned()
}

/// The real `node` (from the test's own PATH): Node is what the layout
/// is for, so Node judges it.
fn real_node() -> PathBuf {
    let path = std::env::var("PATH").unwrap_or_default();
    path.split(':')
        .map(|dir| Path::new(dir).join("node"))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| {
            panic!("these tests need Node.js on PATH (the real `node`, any version ≥ 16): install it, e.g. `apt-get install nodejs`")
        })
}

/// `b` needs another `a` than the main package: `a` is hoisted, `b`'s
/// own `a` nested beneath it; `c`, wanted by both in ranges that meet, is
/// installed once. Node, run in the install, resolves each as intended.
/// A cycle (`c` → `d` → `c`) ends.
#[test]
fn npm_tree_hoists_dedupes_nests_conflicts_and_ends_cycles() {
    let env = tree_env("");
    let a1 = js_package(&env, "a", "1.4.0", json!({}), "a1");
    let a2 = js_package(&env, "a", "2.1.0", json!({}), "a2");
    let a3 = js_package(&env, "a", "3.0.0-beta.1", json!({}), "a3");
    npm_registry::publish_package(&env.server, &[&a1, &a2, &a3]);
    let b = js_package(
        &env,
        "b",
        "1.0.0",
        json!({ "a": "^2.0.0", "c": "~1.2" }),
        "b",
    );
    npm_registry::publish_package(&env.server, &[&b]);
    let c1 = js_package(&env, "c", "1.2.5", json!({ "d": "1" }), "c");
    let c2 = js_package(&env, "c", "1.3.0", json!({ "d": "1" }), "c13");
    npm_registry::publish_package(&env.server, &[&c1, &c2]);
    let d = Published::package(
        &env.server,
        "d",
        "1.0.0",
        json!({ "dependencies": { "c": "^1.0.0" }, "main": "index.js" }),
        &[("index.js", 0o644, "module.exports = 'd';\n")],
    );
    npm_registry::publish_package(&env.server, &[&d]);
    let main = main_package(
        &env,
        "1.0.0",
        json!({ "dependencies": { "a": "1.x", "b": "^1", "c": ">=1.2.0 <1.3.0" } }),
    );
    npm_registry::publish(&env.server, "1.0.0", &[&main]);

    let outcome = env.prepare(&[]);
    assert_prepared(&outcome, "managed", "1.0.0");
    let root = package_dir(&env, "1.0.0");
    assert_eq!(installed_version(&root.join("node_modules/a")), "1.4.0");
    assert_eq!(
        installed_version(&root.join("node_modules/b/node_modules/a")),
        "2.1.0"
    );
    assert_eq!(installed_version(&root.join("node_modules/c")), "1.2.5");
    assert!(
        !root.join("node_modules/b/node_modules/c").exists(),
        "deduplicated"
    );
    assert_eq!(installed_version(&root.join("node_modules/d")), "1.0.0");
    for never in [&a3.path, &c2.path] {
        assert_eq!(
            env.server.hits(never),
            0,
            "{never} is not the version picked"
        );
    }
    // Each tarball once, each document once.
    for published in [&a1, &a2, &b, &c1, &d] {
        assert_eq!(env.server.hits(&published.path), 1, "{}", published.path);
    }
    for name in ["a", "b", "c", "d"] {
        assert_eq!(env.server.hits(&document_path(name)), 1, "{name}");
    }
    let output = std::process::Command::new(real_node())
        .args(["-p", "require('a') + ' ' + require('b')"])
        .current_dir(&root)
        .output()
        .expect("run node");
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        "a1 b,a2,c,d"
    );
    let lock = lock_json(&env);
    let paths: Vec<&str> = lock["npm"]["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|package| package["path"].as_str().expect("path"))
        .collect();
    assert_eq!(
        paths,
        [
            "node_modules/a",
            "node_modules/b",
            "node_modules/b/node_modules/a",
            "node_modules/c",
            "node_modules/d"
        ]
    );
    env.assert_no_leftovers();
}

/// A dependency whose tarball does not match its integrity: exit 5
/// naming it; nothing published, no pin.
#[test]
fn npm_tree_a_dependency_with_a_wrong_integrity_is_exit_5() {
    let env = tree_env("");
    let wrong = npm_registry::sri(b"another tarball");
    let dep = js_package(&env, "dep", "1.0.0", json!({}), "dep")
        .dist("integrity", Some(json!(wrong.clone())));
    npm_registry::publish_package(&env.server, &[&dep]);
    let main = main_package(&env, "1.0.0", json!({ "dependencies": { "dep": "^1" } }));
    npm_registry::publish(&env.server, "1.0.0", &[&main]);
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(5, "checksum_mismatch");
    assert!(
        message.starts_with("failed to verify `dep` 1.0.0: expected sha512 "),
        "{message}"
    );
    assert!(message.contains(&wrong), "{message}");
    assert!(
        message.contains(&npm_registry::sri(&dep.bytes)),
        "{message}"
    );
    assert_eq!(env.server.hits(&dep.path), 1, "a mismatch is not retried");
    env.assert_nothing_published("1.0.0");
    assert!(!env.kiro_lock().exists());
}

/// A dependency the registry does not have, one with no version in range,
/// and one from git: each a clear error before anything is downloaded.
#[test]
fn npm_tree_a_missing_dependency_is_named() {
    let env = tree_env("");
    let old = js_package(&env, "old", "1.0.0", json!({}), "old");
    npm_registry::publish_package(&env.server, &[&old]);
    for (deps, code, kind, expected) in [
        (
            json!({ "ghost": "^1.0.0" }),
            4,
            "network",
            format!("`{}` needs `ghost` `^1.0.0`, which the registry does not have", npm_registry::PACKAGE),
        ),
        (
            json!({ "old": "^2.0.0" }),
            4,
            "network",
            format!("`{}` needs `old` `^2.0.0`, but the registry lists no such version (newest: 1.0.0)", npm_registry::PACKAGE),
        ),
        (
            json!({ "old": "git+https://example.test/old.git" }),
            7,
            "no_usable_cli",
            format!("`{}` needs `old` as `git+https://example.test/old.git`, which oneworks does not install (only registry versions, ranges, tags and `npm:` aliases)", npm_registry::PACKAGE),
        ),
    ] {
        let main = main_package(&env, "1.0.0", json!({ "dependencies": deps }));
        npm_registry::publish(&env.server, "1.0.0", &[&main]);
        let outcome = env.prepare(&[]);
        let message = outcome.assert_error(code, kind);
        assert_eq!(message, expected);
        assert_eq!(env.server.hits(&main.path), 0);
        assert_eq!(env.server.hits(&old.path), 0);
        env.assert_nothing_published("1.0.0");
    }
}

/// A dependency's tarball with an entry leaving the package: exit 6,
/// nothing written outside, nothing published.
#[test]
fn npm_tree_a_hostile_entry_in_a_dependency_is_refused() {
    let env = tree_env("");
    let marker = format!("npm-tree-evil-{}", std::process::id());
    let entries = [
        Entry::file(
            "package/package.json",
            0o644,
            json!({"name": "evil", "version": "1.0.0"}).to_string(),
        ),
        Entry::file(&format!("package/../../../{marker}"), 0o644, "evil"),
    ];
    let evil = Published::named(&env.server, "evil", "1.0.0", json!({}), &entries);
    npm_registry::publish_package(&env.server, &[&evil]);
    let main = main_package(
        &env,
        "1.0.0",
        json!({ "dependencies": { "evil": "1.0.0" } }),
    );
    npm_registry::publish(&env.server, "1.0.0", &[&main]);
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(6, "unsafe_archive");
    assert!(
        message.starts_with("refused the `evil` 1.0.0 archive from"),
        "{message}"
    );
    env.assert_nothing_published("1.0.0");
    let mut dir = env.staging_dir();
    for _ in 0..5 {
        assert!(!dir.join(&marker).exists(), "{} escaped", dir.display());
        dir = dir.parent().expect("parent").to_owned();
    }
}

/// `--locked` reinstalls the pinned tree, each package bound to its
/// registry document; `--offline` reuses it only while every package is there; the
/// pin's tarballs must stay on the registry; an `npm:` alias installs
/// under its own name; `executables` sets the exec bit.
#[test]
fn npm_tree_locked_offline_aliases_and_executables() {
    let env = tree_env("executables: ['node_modules/tools/vendor/{cpu}-{os}/rg']");
    let rg_path = format!("vendor/{}-linux/rg", npm_cpu());
    let tools = Published::package(
        &env.server,
        "@fake/tools",
        "2.0.0",
        json!({}),
        &[(&rg_path, 0o644, "#!/bin/sh\necho rg\n")],
    );
    npm_registry::publish_package(&env.server, &[&tools]);
    let main = main_package(
        &env,
        "1.0.0",
        json!({ "dependencies": { "tools": "npm:@fake/tools@^2" } }),
    );
    npm_registry::publish(&env.server, "1.0.0", &[&main]);
    assert_prepared(&env.prepare(&[]), "managed", "1.0.0");
    let root = package_dir(&env, "1.0.0");
    let rg = root.join("node_modules/tools").join(&rg_path);
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&rg).expect("rg").permissions());
    assert_eq!(mode & 0o111, 0o111, "executables: the exec bit is set");
    let lock = lock_json(&env);
    assert_eq!(lock["npm"]["packages"][0]["path"], "node_modules/tools");
    assert_eq!(lock["npm"]["packages"][0]["name"], "@fake/tools");
    assert_eq!(lock["npm"]["packages"][0]["version"], "2.0.0");

    // --locked: the tree again from the pin, every entry checked against
    // its document (each asked once).
    std::fs::remove_dir_all(env.version_dir("1.0.0")).expect("remove the install");
    let documents = env.server.hits(DOCUMENT_PATH) + env.server.hits(&document_path("@fake/tools"));
    let outcome = env.prepare(&["--locked"]);
    assert!(!reused(&assert_prepared(&outcome, "managed", "1.0.0")));
    assert_eq!(
        env.server.hits(DOCUMENT_PATH) + env.server.hits(&document_path("@fake/tools")),
        documents + 2,
        "--locked asks for each package's document"
    );
    assert_eq!(env.server.hits(&tools.path), 2);
    assert!(rg.is_file());

    // --offline: reused with no request while complete.
    let before = env.server.total_hits();
    assert!(reused(&assert_prepared(
        &env.prepare(&["--offline"]),
        "managed",
        "1.0.0"
    )));
    assert_eq!(env.server.total_hits(), before);
    // A package gone: --offline refuses (nothing is asked), naming it.
    std::fs::remove_file(root.join("node_modules/tools/package.json")).expect("damage");
    let outcome = env.prepare(&["--offline"]);
    let message = outcome.assert_error(7, "no_usable_cli");
    assert!(
        message.ends_with("is incomplete: `node_modules/tools` is missing or damaged"),
        "{message}"
    );
    assert_eq!(env.server.total_hits(), before);
    // Without --offline it is seen as not the same install and replaced.
    assert!(!reused(&assert_prepared(
        &env.prepare(&["--locked"]),
        "managed",
        "1.0.0"
    )));
    assert!(root.join("node_modules/tools/package.json").is_file());

    // A pin from the project whose dependency tarball leaves the registry.
    let mut pin = lock_json(&env);
    pin["npm"]["packages"][0]["tarball"] = json!("http://evil.test/tools.tgz");
    std::fs::write(env.kiro_lock(), serde_json::to_vec(&pin).expect("pin")).expect("write pin");
    let outcome = env.prepare(&["--locked", "--force"]);
    let message = outcome.assert_error(4, "network");
    assert!(message.contains("http://evil.test/tools.tgz"), "{message}");
    // …or whose path climbs out of the tree.
    pin["npm"]["packages"][0]["tarball"] = json!(env.server.url(&tools.path));
    pin["npm"]["packages"][0]["path"] = json!("node_modules/../../escape");
    std::fs::write(env.kiro_lock(), serde_json::to_vec(&pin).expect("pin")).expect("write pin");
    let outcome = env.prepare(&["--locked", "--force"]);
    let message = outcome.assert_error(3, "config");
    assert!(
        message.contains("not a `node_modules/<name>` path"),
        "{message}"
    );
    assert!(
        root.join("node_modules/tools/package.json").is_file(),
        "the install stays"
    );
    env.assert_no_leftovers();
}
