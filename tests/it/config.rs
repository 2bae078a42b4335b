//! Configuration as `prepare` sees it (SPEC §2, §1.1): the project file over
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

    let mut command = env.cmd(&["adapter", "prepare", "kiro", "--json"]);
    command.env("ONEWORKS_CONFIG", &path);
    assert_prepared(&crate::support::run(command), "system", "2.15.1");
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
    assert!(
        message.contains("sorce"),
        "name the key\n{}",
        outcome.describe()
    );
    assert!(
        message.contains("config.yaml"),
        "name the file\n{}",
        outcome.describe()
    );
    assert!(
        message.contains(":5:") || message.to_lowercase().contains("line 5"),
        "name line 5\n{}",
        outcome.describe()
    );
}

#[test]
fn unknown_source_is_a_config_error() {
    let env = system_env();
    env.write_config("adapters:\n  kiro:\n    cli:\n      source: bogus\n");
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(3, "config");
    assert!(
        message.contains("bogus") || message.contains("source"),
        "{}",
        outcome.describe()
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
    let mut command = env.cmd(&["adapter", "prepare", "kiro", "--json"]);
    command.current_dir(&nested);
    assert_prepared(&crate::support::run(command), "system", "2.15.1");
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
    assert!(
        status.stderr.contains("selected: none"),
        "{}",
        status.describe()
    );
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
    assert!(
        list.stderr.contains("no managed versions installed"),
        "{}",
        list.describe()
    );
}
