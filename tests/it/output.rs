//! What oneworks prints (SPEC §1.3, §6.2): a closed or full stdout, usage
//! errors with `--json`, the print scrubber, and `adapter login` without a
//! terminal.

use std::process::Stdio;

use serde_json::Value;

use crate::support::TestEnv;

/// The commands that print on stdout, as a user pipes them.
const STDOUT_COMMANDS: &[&[&str]] = &[
    &["adapter", "list", "--json"],
    &["completions", "bash"],
    &["config", "render", "kiro", "--dry-run"],
];

/// Runs `args` with stdout going to `stdout`; returns the exit code and
/// stderr.
fn run_with_stdout(env: &TestEnv, args: &[&str], stdout: Stdio) -> (Option<i32>, String) {
    let mut command = env.cmd(args);
    command.stdout(stdout).stderr(Stdio::piped());
    let output = command.output().expect("run oneworks");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    let env = TestEnv::new();
    for args in STDOUT_COMMANDS {
        let (reader, writer) = std::io::pipe().expect("pipe");
        drop(reader);
        let (code, stderr) = run_with_stdout(&env, args, Stdio::from(writer));
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert_eq!(stderr, "", "{args:?}: a closed pipe prints nothing");
    }
}

#[test]
fn a_full_disk_on_stdout_is_a_plain_error() {
    let env = TestEnv::new();
    for args in STDOUT_COMMANDS {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let (code, stderr) = run_with_stdout(&env, args, Stdio::from(full));
        assert_eq!(code, Some(1), "{args:?}: {stderr}");
        assert_eq!(
            stderr,
            "error: failed to write to standard output: No space left on device (os error 28)\n",
            "{args:?}"
        );
    }
}

#[test]
fn usage_errors_with_json_print_the_error_document() {
    let env = TestEnv::new();
    let outcome = env.run(&["adapter", "prepare", "kiro", "--json", "--bogus"]);
    let message = outcome.assert_error(2, "usage");
    assert_eq!(message, "unexpected argument '--bogus' found");
    let document = outcome.json();
    assert_eq!(
        document["error"]["hint"],
        "run with --help to see the accepted arguments"
    );
    assert!(outcome.stderr.contains("--bogus"), "{}", outcome.describe());
    // Without --json, stdout stays empty.
    let outcome = env.run(&["adapter", "prepare", "kiro", "--bogus"]);
    outcome.assert_code(2);
    assert_eq!(outcome.stdout, "");
}

#[test]
fn help_is_not_an_error() {
    let env = TestEnv::new();
    let outcome = env.run(&["adapter", "--help"]);
    outcome.assert_success();
    assert!(outcome.stdout.contains("prepare"), "{}", outcome.describe());
}

#[test]
fn an_empty_oneworks_config_means_unset() {
    let mut env = TestEnv::new();
    env.write_config("adapters:\n  kiro:\n    systemPrompt: from the project\n");
    env.set_env("ONEWORKS_CONFIG", "");
    let outcome = env.run(&["config", "check"]);
    outcome.assert_success();
    assert!(
        !outcome.stderr.contains("a value is required"),
        "{}",
        outcome.describe()
    );
}

#[test]
fn printed_errors_pass_the_scrubber() {
    let mut env = TestEnv::new();
    let secret = "ksk_printed_secret_value_1234";
    env.set_env("KIRO_API_KEY", secret);
    let missing = env.outside.join(secret).join("config.yaml");
    let path = missing.to_string_lossy().into_owned();
    let outcome = env.run(&["--config", &path, "adapter", "status", "kiro", "--json"]);
    outcome.assert_code(3);
    assert!(!outcome.stdout.contains(secret), "{}", outcome.describe());
    assert!(!outcome.stderr.contains(secret), "{}", outcome.describe());
    assert!(
        outcome.stderr.contains("[redacted]"),
        "{}",
        outcome.describe()
    );
    let document: Value = outcome.json();
    assert!(document["error"]["message"]
        .as_str()
        .is_some_and(|message| message.contains("[redacted]")));
}

#[test]
fn login_without_a_terminal_is_a_usage_error_with_a_hint() {
    let env = TestEnv::new();
    let outcome = env.run(&["adapter", "login", "kiro"]);
    outcome.assert_code(2);
    assert_eq!(
        outcome.stderr,
        "error: `adapter login` needs a terminal on standard input\n\
         hint: in CI, set `KIRO_API_KEY` in the environment instead of logging in; \
         it reaches Kiro CLI as is\n"
    );
    assert_eq!(env.server.total_hits(), 0, "no request before the refusal");
}
