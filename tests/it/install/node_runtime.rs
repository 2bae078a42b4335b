//! Node.js as a managed runtime through the real
//! binary: a synthetic npm package on the loopback registry needs
//! `engines.node: ">=22"`, the only `node` on PATH is a fake v20, and a
//! loopback mirror laid out like nodejs.org/dist serves a REAL Node.js
//! build (tests/fixtures/node/fetch.sh). `prepare` installs that Node,
//! verified by sha256, and the package's probe and `run` use it: the
//! package's bin is a `#!/usr/bin/env node` script printing
//! `process.version`, which the fake v20 cannot run. Then the ways it must
//! refuse: a wrong SHASUMS256 entry, no release that fits, `runtime:
//! system` with Node 20, `--offline` without the Node, a hostile tar.xz.

use serde_json::{json, Value};

use crate::support::adapter_yaml::{yaml, AdapterYaml};
use crate::support::archive::Entry;
use crate::support::node_mirror::{self, NodeRelease, PREFIX, VERSION};
use crate::support::npm_registry::{self, install_node};
use crate::support::server::{Route, Server};
use crate::support::{assert_empty_or_missing, TestEnv};

const ADAPTER: &str = "nodeagent";
const PACKAGE: &str = "@fake/node-agent";
const DOCUMENT_PATH: &str = "/@fake%2fnode-agent";
const TARBALL_PATH: &str = "/@fake/node-agent/-/node-agent-1.0.0.tgz";
const BIN: &str = "bin/agent.js";

/// A minimal ACP agent in JavaScript: it answers `--version` with its
/// version and the Node that runs it, and a prompt with
/// `running on node <process.version>`.
const AGENT_JS: &str = r#"#!/usr/bin/env node
'use strict';
if (process.argv.includes('--version')) {
  console.log('1.0.0 on node ' + process.version);
  process.exit(0);
}
const send = (message) => process.stdout.write(JSON.stringify(message) + '\n');
require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
  let message;
  try { message = JSON.parse(line); } catch { return; }
  if (message.id === undefined || !message.method) return;
  const reply = (result) => send({ jsonrpc: '2.0', id: message.id, result });
  switch (message.method) {
    case 'initialize':
      return reply({ protocolVersion: 1, agentCapabilities: {}, authMethods: [] });
    case 'session/new':
      return reply({ sessionId: 'node-session' });
    case 'session/prompt':
      send({ jsonrpc: '2.0', method: 'session/update', params: {
        sessionId: message.params.sessionId,
        update: { sessionUpdate: 'agent_message_chunk',
                  content: { type: 'text', text: 'running on node ' + process.version } } } });
      return reply({ stopReason: 'end_turn' });
    default:
      return send({ jsonrpc: '2.0', id: message.id,
                    error: { code: -32601, message: 'method not found' } });
  }
});
"#;

/// The built-in Gemini data as adapter `nodeagent`, installing the
/// synthetic package and probing it at install.
fn adapter_data() -> String {
    let mut data = AdapterYaml::builtin("gemini");
    data.set("id", ADAPTER).set("displayName", "Node Agent");
    data.set(
        "npm",
        yaml(&format!("{{package: '{PACKAGE}', binCommand: node-agent}}")),
    );
    data.set(
        "binary",
        yaml(r"{name: node-agent, aliases: [], identifies: '^\d+\.\d+\.\d+', versionPattern: '(\d+\.\d+\.\d+)'}"),
    );
    data.set(
        "probes",
        yaml("{version: ['--version'], timeoutSeconds: 30, atInstall: true}"),
    );
    data.text()
}

/// Publishes the package (`engines.node` `range`) on the loopback registry.
fn publish_package(server: &Server, range: &str) -> Vec<u8> {
    let entries = [
        Entry::file(
            "package/package.json",
            0o644,
            json!({"name": PACKAGE, "version": "1.0.0", "bin": {"node-agent": BIN},
                   "engines": {"node": range}})
            .to_string(),
        ),
        Entry::file(&format!("package/{BIN}"), 0o644, AGENT_JS),
    ];
    let bytes = npm_registry::tarball(&entries);
    let document = json!({
        "name": PACKAGE,
        "dist-tags": {"latest": "1.0.0"},
        "versions": {"1.0.0": {
            "name": PACKAGE, "version": "1.0.0",
            "bin": {"node-agent": BIN},
            "engines": {"node": range},
            "dist": {"tarball": server.url(TARBALL_PATH), "integrity": npm_registry::sri(&bytes)},
        }},
    });
    server.route(TARBALL_PATH, Route::Ok(bytes.clone().into()));
    server.route(DOCUMENT_PATH, Route::ok(document.to_string().into_bytes()));
    bytes
}

/// A world with the adapter, the package needing `>=22`, a fake Node
/// v20.11.0 as the only `node` on PATH, and the mirror's URL.
fn node_env() -> TestEnv {
    let mut env = TestEnv::new();
    let adapters = env.base().join("adapters");
    std::fs::create_dir_all(&adapters).expect("adapters dir");
    std::fs::write(adapters.join(format!("{ADAPTER}.yaml")), adapter_data()).expect("write data");
    install_node(&env.bin, "v20.11.0");
    publish_package(&env.server, ">=22");
    let bin = env.bin.to_string_lossy().into_owned();
    let registry = env.server.url("/");
    let mirror = env.server.url(PREFIX);
    env.set_env("ONEWORKS_ADAPTERS_DIR", &adapters.to_string_lossy());
    env.set_env("ONEWORKS_NPM_REGISTRY", &registry);
    env.set_env("ONEWORKS_NODE_MIRROR", &mirror);
    env.set_env("PATH", &bin);
    env.set_env("ONEWORKS_TEST_BACKOFF_MS", "1");
    env
}

fn prepare(env: &TestEnv, extra: &[&str]) -> crate::support::Outcome {
    let mut args = vec!["adapter", "prepare", ADAPTER, "--json"];
    args.extend_from_slice(extra);
    env.run(&args)
}

fn node_root(env: &TestEnv) -> std::path::PathBuf {
    env.oneworks_home.join("runtimes").join("node")
}

fn agent_root(env: &TestEnv) -> std::path::PathBuf {
    env.oneworks_home.join("adapters").join(ADAPTER)
}

/// Nothing of the agent or of Node was published, and no staging is left.
#[track_caller]
fn assert_nothing_installed(env: &TestEnv) {
    assert_empty_or_missing(&node_root(env).join("versions"), "the Node versions");
    assert_empty_or_missing(&node_root(env).join(".staging"), "the Node staging");
    assert_empty_or_missing(&agent_root(env).join("versions"), "the agent versions");
    assert!(
        !env.project
            .join(".oneworks")
            .join(format!("{ADAPTER}.lock"))
            .exists(),
        "no pin for a failed install"
    );
}

#[test]
fn prepare_installs_a_real_node_and_the_agent_runs_on_it() {
    let env = node_env();
    let release = NodeRelease::real();
    // An older LTS and a newer non-LTS are listed too: the newest LTS that
    // fits is the one chosen (their files are not served).
    node_mirror::serve(&env.server, &[&release], &["20.19.5"]);

    let outcome = prepare(&env, &[]);
    outcome.assert_success();
    let document = outcome.json();
    assert_eq!(document["version"], "1.0.0", "{}", outcome.describe());
    assert!(
        outcome
            .stderr
            .contains(&format!("installing Node.js v{VERSION}")),
        "{}",
        outcome.describe()
    );
    assert_eq!(env.server.hits(&release.tarball_path()), 1);
    let node = node_root(&env)
        .join("versions")
        .join(VERSION)
        .join(node_mirror::stem(VERSION))
        .join("bin")
        .join("node");
    let (_, printed) = crate::support::run_binary(&node, &["--version"]);
    assert_eq!(printed.trim(), format!("v{VERSION}"));

    // The pin and the agent's install record name the Node and its digest.
    let lock: Value = serde_json::from_slice(
        &std::fs::read(
            env.project
                .join(".oneworks")
                .join(format!("{ADAPTER}.lock")),
        )
        .expect("lock file"),
    )
    .expect("lock json");
    assert_eq!(lock["npm"]["enginesNode"], ">=22");
    assert_eq!(lock["npm"]["node"]["version"], VERSION);
    assert_eq!(
        lock["npm"]["node"]["sha256"],
        release.listed_sha256.as_str()
    );
    let record: Value = serde_json::from_slice(
        &std::fs::read(agent_root(&env).join("versions/1.0.0/install.json")).expect("record"),
    )
    .expect("record json");
    assert_eq!(record["node"]["version"], VERSION);

    // `adapter status` names the Node that runs the agent, and the probe
    // (run with that Node first on PATH) printed its version.
    let status = env.run(&["adapter", "status", ADAPTER, "--json"]);
    status.assert_success();
    let report = status.json();
    assert_eq!(report["node"]["source"], "managed", "{}", status.describe());
    assert_eq!(report["node"]["version"], format!("v{VERSION}"));
    assert_eq!(report["node"]["path"], node.to_string_lossy().as_ref());
    assert_eq!(
        report["selected"]["version_output"],
        format!("1.0.0 on node v{VERSION}"),
        "{}",
        status.describe()
    );

    // `run`: the agent, a `#!/usr/bin/env node` script, runs on it.
    let run = env.run(&["run", ADAPTER, "--prompt", "which node?"]);
    run.assert_success();
    run.assert_stdout_contains(format!("running on node v{VERSION}"));

    // Again, and offline: the installed Node is reused, not fetched again.
    prepare(&env, &[]).assert_success();
    prepare(&env, &["--offline"]).assert_success();
    assert_eq!(env.server.hits(&release.tarball_path()), 1);

    // `prune` keeps the Node the installed agent runs on.
    env.run(&["adapter", "prune", ADAPTER, "--keep", "1"])
        .assert_success();
    assert!(node.exists(), "prune removed the Node in use");
    assert_empty_or_missing(&node_root(&env).join(".staging"), "the Node staging");
}

#[test]
fn a_wrong_sha256_in_shasums_is_exit_5_and_publishes_nothing() {
    let env = node_env();
    let release = NodeRelease::real().listing(&"ab".repeat(32));
    node_mirror::serve(&env.server, &[&release], &[]);
    let outcome = prepare(&env, &[]);
    let message = outcome.assert_error(5, "checksum_mismatch");
    assert!(
        message.starts_with(&format!(
            "failed to verify Node.js v{VERSION}: expected sha256 {}",
            "ab".repeat(32)
        )),
        "{message}"
    );
    assert!(
        message.contains(&crate::support::manifest::sha256_hex(&release.tarball)),
        "the computed digest is shown: {message}"
    );
    // A checksum mismatch is not retried, and nothing is left.
    assert_eq!(env.server.hits(&release.tarball_path()), 1);
    assert_nothing_installed(&env);
}

#[test]
fn no_release_that_fits_is_a_clear_error() {
    let env = node_env();
    // The mirror lists only Node 20 and 21 for this host.
    node_mirror::serve(&env.server, &[], &["21.7.3", "20.19.5"]);
    let outcome = prepare(&env, &[]);
    let message = outcome.assert_error(7, "no_usable_cli");
    assert_eq!(
        message,
        format!(
            "`node-agent` needs Node.js `>=22`, but `{}` lists no linux-x64 release that fits (newest: v21.7.3)",
            env.server.url(&format!("{PREFIX}index.json"))
        )
    );
    outcome.assert_stderr_contains("ONEWORKS_NODE_MIRROR");
    assert_nothing_installed(&env);
}

#[test]
fn runtime_system_with_node_20_is_exit_7_naming_the_range() {
    let env = node_env();
    node_mirror::serve(&env.server, &[], &[]);
    env.write_config(&format!(
        "adapters:\n  {ADAPTER}:\n    cli: {{ runtime: system }}\n"
    ));
    let outcome = prepare(&env, &[]);
    let message = outcome.assert_error(7, "no_usable_cli");
    assert!(
        message.starts_with("`node-agent` needs Node.js `>=22`, but `"),
        "{message}"
    );
    assert!(message.ends_with("is v20.11.0"), "{message}");
    // The mirror was never asked.
    assert_eq!(env.server.hits(&format!("{PREFIX}index.json")), 0);
    assert_nothing_installed(&env);
}

#[test]
fn offline_without_an_installed_node_is_a_clear_error() {
    let env = node_env();
    let release = NodeRelease::real();
    node_mirror::serve(&env.server, &[&release], &[]);
    prepare(&env, &[]).assert_success();
    // The managed Node disappears (another tool cleaned it up).
    std::fs::remove_dir_all(node_root(&env)).expect("remove the Node store");
    let outcome = prepare(&env, &["--offline"]);
    let message = outcome.assert_error(7, "no_usable_cli");
    assert!(
        message.contains(&format!(
            "the managed Node.js v{VERSION} is not installed under `"
        )),
        "{message}"
    );
    outcome.assert_stderr_contains("oneworks adapter prepare");
    // A launch says the same and starts nothing.
    let run = env.run(&["run", ADAPTER, "--prompt", "hello"]);
    run.assert_code(7);
    run.assert_stdout_lacks("running on node");
}

#[test]
fn a_hostile_node_archive_is_refused_and_nothing_is_published() {
    let env = node_env();
    let stem = node_mirror::stem(VERSION);
    let marker = format!("node-escape-{}", std::process::id());
    let release = NodeRelease::packed(
        VERSION,
        &[
            Entry::file(
                &format!("{stem}/bin/node"),
                0o755,
                "#!/bin/sh\necho v24.19.0\n",
            ),
            Entry::file(&format!("../{marker}"), 0o644, "evil"),
        ],
    );
    node_mirror::serve(&env.server, &[&release], &[]);
    let outcome = prepare(&env, &[]);
    let message = outcome.assert_error(6, "unsafe_archive");
    assert!(
        message.starts_with(&format!("refused the `node` {VERSION} archive from `")),
        "{message}"
    );
    assert!(
        outcome.all_text().contains(&marker),
        "the offending entry is named: {}",
        outcome.describe()
    );
    let escaped: Vec<_> = crate::support::walk(&env.base())
        .into_iter()
        .filter(|path| path.to_string_lossy().contains(&marker))
        .collect();
    assert!(escaped.is_empty(), "the entry escaped: {escaped:?}");
    assert_nothing_installed(&env);
}

#[test]
fn runtime_managed_forces_a_managed_node_even_when_the_system_one_fits() {
    let env = node_env();
    // The system's Node fits the range now.
    install_node(&env.bin, "v22.3.0");
    let release = NodeRelease::real();
    node_mirror::serve(&env.server, &[&release], &[]);
    env.write_config(&format!(
        "adapters:\n  {ADAPTER}:\n    cli: {{ runtime: managed }}\n"
    ));
    prepare(&env, &[]).assert_success();
    assert_eq!(env.server.hits(&release.tarball_path()), 1);
    let status = env.run(&["adapter", "status", ADAPTER, "--json"]);
    assert_eq!(
        status.json()["node"]["source"],
        "managed",
        "{}",
        status.describe()
    );
    assert_eq!(status.json()["node"]["version"], format!("v{VERSION}"));

    // `runtime: system`: the fake system v22 fits the range, so the
    // install (it names a managed Node) is not the artifact any more and
    // is redone on it, and the fake, which cannot run JavaScript, fails
    // the probe: the system's Node is the one that ran it.
    env.write_config(&format!(
        "adapters:\n  {ADAPTER}:\n    cli: {{ runtime: system }}\n"
    ));
    let outcome = prepare(&env, &[]);
    let message = outcome.assert_error(7, "no_usable_cli");
    assert!(message.contains("failed its probe"), "{message}");
}

#[test]
fn locked_refuses_a_node_digest_other_than_the_pinned_one() {
    let env = node_env();
    let release = NodeRelease::real();
    node_mirror::serve(&env.server, &[&release], &[]);
    prepare(&env, &[]).assert_success();
    let lock_path = env
        .project
        .join(".oneworks")
        .join(format!("{ADAPTER}.lock"));
    let mut lock: Value =
        serde_json::from_slice(&std::fs::read(&lock_path).expect("lock")).expect("lock json");
    let other = "cd".repeat(32);
    lock["npm"]["node"]["sha256"] = json!(other);
    std::fs::write(&lock_path, serde_json::to_vec(&lock).expect("json")).expect("write lock");
    std::fs::remove_dir_all(node_root(&env)).expect("remove the Node store");

    let outcome = prepare(&env, &["--locked", "--force"]);
    let message = outcome.assert_error(5, "checksum_mismatch");
    assert!(
        message.starts_with(&format!(
            "failed to verify Node.js v{VERSION} (as the lock file records it): expected sha256 {other}, computed {}",
            release.listed_sha256
        )),
        "{message}"
    );
    // Refused before the tarball was asked for again.
    assert_eq!(env.server.hits(&release.tarball_path()), 1);
    assert_empty_or_missing(&node_root(&env).join("versions"), "the Node versions");
}

#[test]
fn prune_removes_a_node_that_no_installed_agent_runs_on() {
    let env = node_env();
    let release = NodeRelease::real();
    node_mirror::serve(&env.server, &[&release], &[]);
    prepare(&env, &[]).assert_success();
    let node_version = node_root(&env).join("versions").join(VERSION);
    assert!(node_version.exists());
    // Without the pin, `--keep 0` removes the agent, then the Node it ran on.
    std::fs::remove_file(
        env.project
            .join(".oneworks")
            .join(format!("{ADAPTER}.lock")),
    )
    .expect("remove the pin");
    let outcome = env.run(&["adapter", "prune", ADAPTER, "--keep", "0"]);
    outcome.assert_success();
    assert!(
        outcome
            .stderr
            .contains(&format!("removed Node.js v{VERSION}")),
        "{}",
        outcome.describe()
    );
    assert!(!node_version.exists(), "the unused Node was kept");
    assert_empty_or_missing(&node_root(&env).join(".staging"), "the Node staging");
}

#[test]
fn a_mirror_that_is_not_a_url_is_a_config_error() {
    let mut env = node_env();
    env.set_env("ONEWORKS_NODE_MIRROR", "ftp://mirror.test/node/");
    let outcome = prepare(&env, &[]);
    let message = outcome.assert_error(3, "config");
    assert_eq!(
        message,
        "ONEWORKS_NODE_MIRROR `ftp://mirror.test/node/` is not an http(s) URL of a folder"
    );
    assert_eq!(env.server.total_hits(), 0);
    assert_nothing_installed(&env);
}
