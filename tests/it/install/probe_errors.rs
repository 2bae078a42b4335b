//! A failed probe says why: the stderr lines behind the
//! failure (bounded, scrubbed, control characters replaced), not only the
//! last one (`Node.js v24.19.0`), and a hint chosen by cause. The probed
//! CLIs here are real programs (shell scripts printing what Node prints, a
//! file that is not an executable) named by `source: path`.

use std::path::PathBuf;

use serde_json::Value;

use crate::support::{set_mode, Outcome, TestEnv};

fn path_config(path: &str) -> String {
    format!("adapters:\n  kiro:\n    cli:\n      source: path\n      path: {path}\n")
}

/// A `kiro-cli` that writes `stderr` and exits 1, whatever it is asked.
fn failing_cli(env: &TestEnv, stderr: &str) -> PathBuf {
    let folder = env.base().join("opt");
    std::fs::create_dir_all(&folder).expect("folder");
    let path = folder.join("kiro-cli");
    let text = format!("#!/bin/sh\ncat >&2 <<'EOF'\n{stderr}\nEOF\nexit 1\n");
    std::fs::write(&path, text).expect("write the CLI");
    set_mode(&path, 0o755);
    path
}

/// `adapter prepare kiro --json` on `cli`: exit 7; the message and hint.
fn prepare_fails(env: &TestEnv, cli: &std::path::Path) -> (Outcome, String, String) {
    env.write_config(&path_config(&cli.to_string_lossy()));
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(7, "no_usable_cli");
    let hint = outcome.json()["error"]["hint"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    (outcome, message, hint)
}

const NODE_TOO_OLD: &str = "file:///opt/agent/dist/cli.js:41
  static #instances = new Map();
         ^

SyntaxError: Unexpected token '#'
    at ModuleLoader.moduleStrategy (node:internal/modules/esm/translators:117:18)

Node.js v12.22.9";

#[test]
fn node_too_old_shows_the_syntax_error_and_says_to_use_a_newer_node() {
    let env = TestEnv::new();
    let cli = failing_cli(&env, NODE_TOO_OLD);
    let (outcome, message, hint) = prepare_fails(&env, &cli);
    assert!(
        message.contains("SyntaxError: Unexpected token '#'"),
        "the line that says why is shown\n{}",
        outcome.describe()
    );
    assert!(message.contains("Node.js v12.22.9"), "{message}");
    assert!(hint.contains("newer Node.js"), "{hint}");
    assert!(hint.contains("engines.node"), "{hint}");
    assert!(
        hint.contains("adapters.kiro.cli.path"),
        "the general hint stays: {hint}"
    );
    assert!(
        outcome
            .stderr
            .contains("hint: the package needs a newer Node.js"),
        "{}",
        outcome.describe()
    );
}

#[test]
fn a_missing_dependency_names_the_package_and_says_to_install_the_tree() {
    let env = TestEnv::new();
    let cli = failing_cli(
        &env,
        "node:internal/modules/package_json_reader:268
  throw new ERR_MODULE_NOT_FOUND(packageName, fileURLToPath(base), null);
        ^

Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'minimatch' imported from /opt/agent/dist/index.js
    at Object.getPackageJSONURL (node:internal/modules/package_json_reader:268:9) {
  code: 'ERR_MODULE_NOT_FOUND'
}

Node.js v24.19.0",
    );
    let (_, message, hint) = prepare_fails(&env, &cli);
    assert!(
        message.contains("Cannot find package 'minimatch'"),
        "{message}"
    );
    assert!(hint.contains("`dependencies`"), "{hint}");
    assert!(!hint.contains("newer Node.js"), "{hint}");
}

#[test]
fn a_platform_placeholder_says_the_platform_package_is_missing() {
    let env = TestEnv::new();
    let cli = failing_cli(
        &env,
        "It seems that your package manager failed to install the right version of the CLI for your platform.
You can try manually installing the platform package.
Platform: linux, Architecture: x64",
    );
    let (_, message, hint) = prepare_fails(&env, &cli);
    assert!(
        message.contains("failed to install the right version"),
        "{message}"
    );
    assert!(
        message.contains("Platform: linux, Architecture: x64"),
        "{message}"
    );
    assert!(hint.contains("per-platform package"), "{hint}");
}

#[test]
fn a_bin_that_is_not_an_executable_for_this_host_is_a_missing_platform_binary() {
    let env = TestEnv::new();
    let folder = env.base().join("opt");
    std::fs::create_dir_all(&folder).expect("folder");
    let cli = folder.join("kiro-cli");
    // Neither an ELF for this host nor a script: exec fails with ENOEXEC.
    std::fs::write(&cli, [0x7f, b'E', b'L', b'F', 2, 1, 1, 0, 0xde, 0xad]).expect("write");
    set_mode(&cli, 0o755);
    let (_, message, hint) = prepare_fails(&env, &cli);
    assert!(
        message.to_lowercase().contains("exec format error"),
        "{message}"
    );
    assert!(hint.contains("per-platform package"), "{hint}");
}

#[test]
fn shown_stderr_is_bounded_scrubbed_and_free_of_control_characters() {
    let mut env = TestEnv::new();
    let secret = "ksk_probeSecret0123456789";
    env.set_env("KIRO_API_KEY", secret);
    let mut stderr = String::new();
    for line in 0..400 {
        stderr.push_str(&format!("noise line {line:03}\n"));
    }
    stderr.push_str(&format!("token in a trace: {secret}\n"));
    stderr.push_str("\u{1b}]0;retitled\u{7}\u{1b}[31mred\u{1b}[0m and a bell\u{7}\n");
    stderr.push_str(&"y".repeat(10_000));
    let cli = failing_cli(&env, &stderr);
    let (outcome, message, hint) = prepare_fails(&env, &cli);
    let text = outcome.all_text();
    assert!(!text.contains(secret), "the secret leaked\n{text}");
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text:?}"
    );
    assert!(message.contains("noise line 399"), "{message}");
    assert!(message.contains("and a bell"), "{message}");
    assert!(
        !message.contains("noise line 300"),
        "only the last lines are shown\n{message}"
    );
    assert!(message.len() < 6 * 1024, "bounded: {} bytes", message.len());
    assert!(
        !message.contains(&"y".repeat(400)),
        "a runaway line is cut\n{message}"
    );
    assert!(
        !hint.contains("needs a newer") && !hint.contains("per-platform"),
        "no cause is guessed from noise: {hint}"
    );
}

#[test]
fn status_json_keeps_the_stderr_lines_in_the_reason() {
    let env = TestEnv::new();
    let cli = failing_cli(&env, NODE_TOO_OLD);
    env.write_config(&path_config(&cli.to_string_lossy()));
    let outcome = env.status();
    let document = outcome.json();
    let reasons: Vec<&str> = document["candidates"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|candidate| candidate.get("reason").and_then(Value::as_str))
        .collect();
    assert!(
        reasons.iter().any(|reason| reason.contains("SyntaxError")),
        "{}",
        outcome.describe()
    );
}

#[test]
fn an_agent_that_dies_at_start_gets_the_hint_its_stderr_names() {
    use crate::run::acp_env::{events, AcpEnv};
    let acp = AcpEnv::new(serde_json::json!({
        "onInitialize": [{"crash": {
            "stderr": "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'minimatch' imported from /opt/agent/dist/index.js\n\nNode.js v24.19.0",
            "code": 1
        }}]
    }));
    let outcome = acp.run(&["--prompt", "hi", "--json"]);
    outcome.assert_code(9);
    let document = events(&outcome).last().cloned().expect("a document");
    let message = document["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("Cannot find package 'minimatch'"),
        "{message}"
    );
    let hint = document["error"]["hint"].as_str().unwrap_or_default();
    assert!(hint.contains("`dependencies`"), "{}", outcome.describe());
}

/// A package from the loopback npm registry whose bin fails as a package
/// without its dependencies does: the install's probe shows why, the hint
/// says what to do, and nothing is published.
#[test]
fn an_npm_package_missing_a_dependency_fails_its_install_probe_with_the_cause() {
    use crate::support::archive::Entry;
    use crate::support::npm_registry::{self, Published};
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
    // Only the fake `node` is on PATH: the script uses `echo`, a builtin.
    let script = "#!/usr/bin/env node\n\
        echo 'node:internal/modules/package_json_reader:268' >&2\n\
        echo '  throw new ERR_MODULE_NOT_FOUND(packageName, fileURLToPath(base), null);' >&2\n\
        echo \"Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'minimatch' imported from /x/bundle/gemini.js\" >&2\n\
        echo 'Node.js v22.3.0' >&2\n\
        exit 1\n";
    let mut entries = npm_registry::package_entries("1.0.0");
    for entry in &mut entries {
        if entry.path() == format!("package/{}", npm_registry::BIN) {
            *entry = Entry::file(&format!("package/{}", npm_registry::BIN), 0o644, script);
        }
    }
    let published = Published::with_entries(&env.server, "1.0.0", &entries);
    npm_registry::publish(&env.server, "1.0.0", &[&published]);
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(7, "no_usable_cli");
    assert!(
        message.contains("Cannot find package 'minimatch'"),
        "{message}"
    );
    assert!(message.contains("Node.js v22.3.0"), "{message}");
    let hint = outcome.json()["error"]["hint"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(hint.starts_with("nothing was installed"), "{hint}");
    assert!(hint.contains("`dependencies`"), "{hint}");
    env.assert_nothing_published("1.0.0");
    env.assert_no_leftovers();
}
