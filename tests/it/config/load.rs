//! Configuration as `prepare` sees it: the project file over
//! the user file, `--config` and `ONEWORKS_CONFIG` in place of the project
//! file, strict validation with positions. The `system` source keeps these
//! tests off the network.

use crate::support::fake::{self, install_fake};
use crate::support::{assert_prepared, TestEnv};

const SYSTEM: &str = "adapters:\n  kiro:\n    cli:\n      source: system\n";

fn system_env() -> TestEnv {
    let env = TestEnv::new();
    install_fake(&env.bin, "kiro-cli", &fake::kiro_script("2.15.1"));
    env
}

fn write_user_config(env: &TestEnv, yaml: &str) {
    let folder = env.config_home.join("oneworks");
    std::fs::create_dir_all(&folder).expect("user config folder");
    std::fs::write(folder.join("config.yaml"), yaml).expect("write user config");
}

#[test]
fn user_config_applies_without_a_project_file() {
    let env = system_env();
    write_user_config(&env, SYSTEM);
    assert_prepared(&env.prepare(&[]), "system", "2.15.1");
    assert_eq!(env.server.total_hits(), 0);
}

#[test]
fn project_config_wins_over_the_user_config() {
    let env = system_env();
    let kiro = install_fake(
        &env.base().join("opt"),
        "kiro-cli",
        &fake::kiro_script("2.15.9"),
    );
    write_user_config(&env, SYSTEM);
    env.write_config(&format!(
        "adapters:\n  kiro:\n    cli:\n      source: path\n      path: {}\n",
        kiro.display()
    ));
    assert_prepared(&env.prepare(&[]), "path", "2.15.9");
}

#[test]
fn maps_merge_key_by_key() {
    let env = system_env();
    let kiro = install_fake(
        &env.base().join("opt"),
        "kiro-cli",
        &fake::kiro_script("2.15.9"),
    );
    // The user file chooses the CLI; the project file sets another key of
    // the same `kiro` map, which must not drop the user's `cli`.
    write_user_config(
        &env,
        &format!(
            "adapters:\n  kiro:\n    cli:\n      source: path\n      path: {}\n",
            kiro.display()
        ),
    );
    env.write_config("adapters:\n  kiro:\n    passEnv: [MY_TOOL_HOME]\n");
    assert_prepared(&env.prepare(&[]), "path", "2.15.9");
}

#[test]
fn config_flag_and_variable_replace_the_project_file() {
    let env = system_env();
    // The project file would fail; the replacement must be used instead.
    env.write_config("adapters:\n  kiro:\n    cli:\n      source: bogus\n");
    let replacement = env.base().join("ci-config.yaml");
    std::fs::write(&replacement, SYSTEM).expect("write replacement");
    let path = replacement.to_string_lossy().into_owned();

    let flag = env.run(&["adapter", "prepare", "kiro", "--json", "--config", &path]);
    assert_prepared(&flag, "system", "2.15.1");

    let outcome = env
        .oneworks()
        .args(["adapter", "prepare", "kiro", "--json"])
        .env("ONEWORKS_CONFIG", &path)
        .run();
    assert_prepared(&outcome, "system", "2.15.1");
}

#[test]
fn missing_config_flag_file_is_a_config_error() {
    let env = system_env();
    let missing = env.base().join("nope.yaml");
    let outcome = env.run(&[
        "adapter",
        "prepare",
        "kiro",
        "--json",
        "--config",
        &missing.to_string_lossy(),
    ]);
    let message = outcome.assert_error(3, "config");
    assert!(message.contains("nope.yaml"), "{}", outcome.describe());
}

#[test]
fn unknown_key_is_a_config_error_with_file_and_line() {
    let env = system_env();
    env.write_config("adapters:\n  kiro:\n    cli:\n      source: system\n      sorce: managed\n");
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(3, "config");
    assert_eq!(
        message,
        format!(
            "invalid config `{}:5:7`: adapters.kiro.cli: unknown field `sorce`, \
             expected one of `source`, `version`, `path`, `runtime`, `sha256`",
            env.config_path().display()
        )
    );
}

#[test]
fn unknown_source_is_a_config_error() {
    let env = system_env();
    env.write_config("adapters:\n  kiro:\n    cli:\n      source: bogus\n");
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(3, "config");
    assert_eq!(
        message,
        format!(
            "invalid config `{}:4:15`: adapters.kiro.cli.source: unknown variant `bogus`, \
             expected one of `managed`, `system`, `path`",
            env.config_path().display()
        )
    );
}

#[test]
fn yaml_syntax_error_names_its_position() {
    let env = system_env();
    env.write_config("adapters:\n  kiro:\n    cli: [unclosed\n");
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(3, "config");
    assert!(
        message.contains("config.yaml"),
        "name the file\n{}",
        outcome.describe()
    );
}

#[test]
fn config_in_a_parent_project_is_found_from_a_subfolder() {
    let env = system_env();
    env.write_config(SYSTEM);
    let nested = env.project.join("src").join("deep");
    std::fs::create_dir_all(&nested).expect("nested folder");
    let outcome = env
        .oneworks()
        .args(["adapter", "prepare", "kiro", "--json"])
        .current_dir(&nested)
        .run();
    assert_prepared(&outcome, "system", "2.15.1");
}

#[test]
fn human_status_and_list_speak_on_stderr_only() {
    // No kiro-cli anywhere on PATH.
    let env = TestEnv::new();
    env.write_config(SYSTEM);
    let status = env.run(&["adapter", "status", "kiro"]);
    status.assert_success();
    assert_eq!(
        status.stdout,
        "",
        "stdout is for JSON only\n{}",
        status.describe()
    );
    status.assert_stderr_contains("selected: none");
    // `prepare` installs nothing for `source: system`: say what to fix.
    assert!(
        !status.stderr.contains("prepare") && status.stderr.contains("PATH"),
        "{}",
        status.describe()
    );

    env.write_config(&format!(
        "adapters:\n  kiro:\n    cli:\n      source: path\n      path: {}\n",
        env.base().join("missing/kiro-cli").display()
    ));
    let status = env.run(&["adapter", "status", "kiro"]);
    status.assert_success();
    assert_eq!(status.stdout, "", "{}", status.describe());
    assert!(
        !status.stderr.contains("prepare") && status.stderr.contains("adapters.kiro.cli.path"),
        "{}",
        status.describe()
    );

    let list = env.run(&["adapter", "list"]);
    list.assert_success();
    assert_eq!(list.stdout, "", "{}", list.describe());
    list.assert_stderr_contains("no managed versions installed");
}

/// `config check` with `--config PATH`, waited on with a deadline: a FIFO
/// must not hang it.
fn check_with(env: &TestEnv, path: &std::path::Path) -> crate::support::Outcome {
    env.oneworks()
        .args(["config", "check", "--config"])
        .arg(path)
        .deadline(std::time::Duration::from_secs(60))
        .run()
}

/// Replaces the test's temp folder in `text`, for snapshots.
fn filtered(env: &TestEnv, text: &str) -> String {
    text.replace(&env.base().to_string_lossy().into_owned(), "[BASE]")
}

#[test]
fn config_paths_that_are_not_small_regular_files_are_errors() {
    let env = TestEnv::new();
    let folder = env.base().join("folder.yaml");
    std::fs::create_dir(&folder).expect("mkdir");
    let fifo = env.base().join("fifo.yaml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let dangling = env.base().join("dangling.yaml");
    std::os::unix::fs::symlink(env.base().join("gone.yaml"), &dangling).expect("symlink");
    let large = env.base().join("large.yaml");
    let mut text = String::from("# padding\n");
    text.push_str(&"#".repeat(4 * 1024 * 1024));
    std::fs::write(&large, text).expect("write");
    let mut messages = String::new();
    for path in [
        folder.as_path(),
        std::path::Path::new("/dev/zero"),
        fifo.as_path(),
        dangling.as_path(),
        large.as_path(),
    ] {
        let outcome = check_with(&env, path);
        outcome.assert_code(3);
        assert!(
            outcome.stderr.contains(&*path.to_string_lossy()),
            "names the file\n{}",
            outcome.describe()
        );
        outcome.assert_stderr_lacks("no config files found");
        messages.push_str(&filtered(&env, &outcome.stderr));
    }
    insta::assert_snapshot!(messages);
    crate::support::assert_empty_or_missing(&env.project.join(".oneworks/sessions"), "sessions");
}

#[test]
fn a_dangling_project_config_link_is_an_error_not_no_config() {
    let env = TestEnv::new();
    std::os::unix::fs::symlink(env.base().join("gone.yaml"), env.config_path()).expect("symlink");
    let outcome = env.run(&["config", "check"]);
    outcome.assert_code(3);
    assert!(
        outcome.stderr.contains("config.yaml") && outcome.stderr.contains("symbolic link"),
        "{}",
        outcome.describe()
    );
    let outcome = env
        .oneworks()
        .args(["config", "check"])
        .env("ONEWORKS_CONFIG", "/dev/zero")
        .run();
    outcome.assert_code(3);
    outcome.assert_stderr_contains("/dev/zero");
}

#[test]
fn a_symlinked_dot_oneworks_is_refused_by_check_as_by_render() {
    let env = TestEnv::new();
    let elsewhere = env.outside.join("dot");
    std::fs::create_dir_all(&elsewhere).expect("mkdir");
    std::fs::write(
        elsewhere.join("config.yaml"),
        "adapters:\n  kiro:\n    systemPrompt: hi\n",
    )
    .expect("write");
    std::fs::remove_dir(env.project.join(".oneworks")).expect("rmdir");
    std::os::unix::fs::symlink(&elsewhere, env.project.join(".oneworks")).expect("symlink");
    for args in [
        &["config", "check"][..],
        &["config", "render", "kiro"][..],
        &["adapter", "prepare", "kiro"][..],
    ] {
        let outcome = env.run(args);
        outcome.assert_code(6);
        assert!(
            outcome.stderr.contains(".oneworks") && outcome.stderr.contains("symbolic link"),
            "{args:?}\n{}",
            outcome.describe()
        );
    }
    let left: Vec<_> = std::fs::read_dir(&elsewhere)
        .expect("list")
        .map(|entry| entry.expect("entry").file_name())
        .collect();
    assert_eq!(left, ["config.yaml"], "nothing written through the link");
    assert_eq!(env.server.total_hits(), 0, "refused before the network");
}

#[test]
fn config_errors_speak_user_words_and_do_not_echo_credentials() {
    let env = TestEnv::new();
    let key = "ghp_abcdefghijklmnopqrstuvwxyz0123";
    let mut messages = String::new();
    for text in [
        "adapters: 5\n".to_owned(),
        "just a string\n".to_owned(),
        "adapters:\n  kiro: [1]\n".to_owned(),
        "adapters:\n  kiro:\n    cli\0: x\n".to_owned(),
        format!("adapters:\n  kiro:\n    cli:\n      version: {key}\n"),
        format!("adapters:\n  kiro:\n    passEnv: {key}\n"),
        format!("adapters:\n  kiro:\n    {key}: 1\n"),
        "adapters:\n  kiro:\n    approvals:\n      webhook: ftp://hooks.example/x\n".to_owned(),
        "adapters:\n  kiro:\n    approvals:\n      paneFallback: sometimes\n".to_owned(),
        "adapters:\n  kiro:\n    approvals:\n      webhookAuth: X\n".to_owned(),
        "adapters:\n  kiro:\n    approvals:\n      webhookAuthEnv: not-a-name\n".to_owned(),
    ] {
        env.write_config(&text);
        let outcome = env.run(&["config", "check"]);
        outcome.assert_code(3);
        let all = outcome.all_text();
        assert!(
            !all.contains(key),
            "echoed a credential\n{}",
            outcome.describe()
        );
        assert!(
            !all.contains("struct")
                && !all.contains("ConfigFile")
                && !all.contains("AdapterConfig"),
            "Rust internals\n{}",
            outcome.describe()
        );
        messages.push_str(&filtered(&env, &outcome.stderr));
    }
    assert!(
        messages.contains("config.yaml:3:8`: the file contains a NUL byte"),
        "{messages}"
    );
    insta::assert_snapshot!(messages);
}

#[test]
fn the_approvals_block_is_accepted() {
    let env = TestEnv::new();
    env.write_config(
        "adapters:\n  kiro:\n    approvals:\n      webhook: https://hooks.example.com/kiro\n      webhookAuthEnv: KIRO_WEBHOOK_TOKEN\n      paneFallback: off\n",
    );
    env.run(&["config", "check"]).assert_success();
}

#[test]
fn render_notes_redact_url_credentials() {
    let mut env = TestEnv::new();
    let secret = "abcdefgh12345678";
    env.set_env("KIRO_API_KEY", secret);
    env.write_config(&format!(
        "adapters:\n  kiro:\n    mcpServers:\n      docs:\n        url: https://me:${{PASS}}@example.com/mcp?token=${{TOKEN}}&k={secret}\n        transport: sse\n",
    ));
    let outcome = env.run(&["config", "render", "kiro", "--dry-run"]);
    outcome.assert_success();
    outcome.assert_text_lacks(secret);
    let notes: String = outcome
        .stderr
        .lines()
        .filter(|line| line.starts_with("note:"))
        .map(|line| format!("{line}\n"))
        .collect();
    insta::assert_snapshot!(notes);
}

#[test]
fn control_characters_from_the_config_do_not_reach_the_terminal() {
    let env = TestEnv::new();
    env.write_config(
        "adapters:\n  kiro:\n    mcpServers:\n      \"\\e]0;title\\a\\e[2J\":\n        url: https://example.com/mcp\n",
    );
    let outcome = env.run(&["config", "render", "kiro", "--dry-run"]);
    outcome.assert_success();
    assert!(
        outcome.stderr.contains("pending capability check") && !outcome.stderr.contains('\u{1b}'),
        "{:?}",
        outcome.stderr
    );
    env.write_config("adapters:\n  kiro:\n    \"\\e[2J\": 1\n");
    let outcome = env.run(&["config", "check"]);
    outcome.assert_code(3);
    assert!(
        !outcome.all_text().contains('\u{1b}'),
        "{:?}",
        outcome.stderr
    );
}

#[test]
fn a_control_character_in_config_is_named_at_its_place() {
    let env = TestEnv::new();
    env.write_config("adapters:\n  kiro:\n    systemPrompt: \"a\u{1}b\"\n");
    let outcome = env.run(&["config", "check"]);
    outcome.assert_code(3);
    let path = env.config_path();
    assert_eq!(
        outcome.stderr,
        format!(
            "error: invalid config `{}:3:21`: the file contains a control character (U+0001)\n",
            path.display()
        )
    );
    assert!(!env.project.join(".oneworks/sessions").exists());
}

/// A key pasted into the wrong place is refused, and the refusal does not
/// print it back: the key path shows it masked.
#[test]
fn a_credential_shaped_key_is_not_echoed_in_the_refusal() {
    let env = TestEnv::new();
    let key = "AKIAIOSFODNN7EXAMPLE";
    for (yaml, shown) in [
        (
            format!("adapters:\n  kiro:\n    configContent:\n      {key}: 1\n"),
            "error: credential in config at `adapters.kiro.configContent.***`: \
             the value looks like an access key or token\n",
        ),
        (
            format!("adapters:\n  kiro:\n    mcpServers:\n      {key}:\n        command: x\n"),
            "error: credential in config at `adapters.kiro.mcpServers.***`: \
             the value looks like an access key or token\n",
        ),
        (
            format!("adapters:\n  kiro:\n    hooks:\n      {key}: []\n"),
            "error: invalid config at `adapters.kiro.hooks.***`: unknown hook trigger `***`; \
             known triggers: agentSpawn, userPromptSubmit, preToolUse, postToolUse, stop\n",
        ),
    ] {
        env.write_config(&yaml);
        let outcome = env.run(&["config", "check"]);
        outcome.assert_code(3);
        assert!(
            outcome.stderr.starts_with(shown),
            "{yaml}\n{}",
            outcome.describe()
        );
        outcome.assert_stderr_lacks(key);
    }
}
