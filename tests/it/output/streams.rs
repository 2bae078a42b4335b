//! What oneworks prints: a closed or full stdout (for
//! `--help` and `--version` too), a closed stderr, usage errors with
//! `--json`, the print scrubber and the sanitizer on status, list and usage
//! text, and `adapter login` without a terminal.

use std::process::Stdio;

use serde_json::Value;

use crate::support::fake::{self, install_fake};
use crate::support::TestEnv;

const SECRET: &str = "ksk_output_secret_value_8841";

/// The commands that print on stdout, as a user pipes them.
const STDOUT_COMMANDS: &[&[&str]] = &[
    &["adapter", "list", "--json"],
    &["completions", "bash"],
    &["config", "render", "kiro", "--dry-run"],
];

/// Runs `args` with stdout going to `stdout`; returns the exit code and
/// stderr.
fn run_with_stdout(env: &TestEnv, args: &[&str], stdout: Stdio) -> (Option<i32>, String) {
    // A raw command: its stdout is the test's own end of a pipe.
    let mut command = env.oneworks().args(args).command();
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
    outcome.assert_stderr_contains("--bogus");
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
    outcome.assert_stdout_contains("prepare");
}

#[test]
fn an_empty_oneworks_config_means_unset() {
    let mut env = TestEnv::new();
    env.write_config("adapters:\n  kiro:\n    systemPrompt: from the project\n");
    env.set_env("ONEWORKS_CONFIG", "");
    let outcome = env.run(&["config", "check"]);
    outcome.assert_success();
    outcome.assert_stderr_lacks("a value is required");
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
    outcome.assert_stdout_lacks(secret);
    outcome.assert_stderr_lacks(secret);
    outcome.assert_stderr_contains("[redacted]");
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

/// A `source: path` kiro-cli whose `acp --help` fails with a secret and
/// terminal controls on its stderr.
fn hostile_path_cli(env: &mut TestEnv) {
    let script = fake::with(
        &fake::with(&fake::kiro_script("2.15.1"), "acpHelpExit", 3.into()),
        "acpHelpStderr",
        format!("boom {SECRET} \u{1b}]0;pwned\u{7}\u{1b}[2J\r").into(),
    );
    let path = install_fake(&env.outside, "kiro-cli", &script);
    env.write_config(&format!(
        "adapters:\n  kiro:\n    cli:\n      source: path\n      path: {}\n",
        path.display()
    ));
    env.set_env("KIRO_API_KEY", SECRET);
}

#[test]
fn status_text_passes_the_scrubber_and_the_sanitizer() {
    let mut env = TestEnv::new();
    hostile_path_cli(&mut env);
    let outcome = env.run(&["adapter", "status", "kiro"]);
    outcome.assert_success();
    outcome.assert_stderr_lacks(SECRET);
    outcome.assert_stderr_contains("boom [redacted]");
    for control in ['\u{1b}', '\u{7}', '\r'] {
        assert!(
            !outcome.stderr.contains(control),
            "{control:?} reached stderr\n{}",
            outcome.describe()
        );
    }
}

/// A connected socket pair standing in for a pipe (a write after the
/// reader is gone fails with `EPIPE`, like a pipe).
fn closed_pipe_pair() -> (
    std::os::unix::net::UnixStream,
    std::os::unix::net::UnixStream,
) {
    std::os::unix::net::UnixStream::pair().expect("socket pair")
}

/// Runs `args` with stderr writing into a pipe nobody reads any more.
fn run_with_closed_stderr(env: &TestEnv, args: &[&str]) -> Option<i32> {
    let (reader, writer) = closed_pipe_pair();
    drop(reader);
    // A raw command: its stderr is a pipe nobody reads.
    let mut command = env.oneworks().args(args).command();
    command
        .stdout(Stdio::null())
        .stderr(Stdio::from(std::os::fd::OwnedFd::from(writer)));
    command.status().expect("run oneworks").code()
}

#[test]
fn status_and_list_with_a_closed_stderr_do_not_panic() {
    let mut env = TestEnv::new();
    hostile_path_cli(&mut env);
    assert_eq!(
        run_with_closed_stderr(&env, &["adapter", "status", "kiro"]),
        Some(0)
    );
    assert_eq!(run_with_closed_stderr(&env, &["adapter", "list"]), Some(0));
}

#[test]
fn usage_errors_pass_the_scrubber_and_the_sanitizer() {
    let mut env = TestEnv::new();
    env.set_env("KIRO_API_KEY", SECRET);
    let value = format!("{SECRET}\r\u{7}!");
    let outcome = env.run(&["config", "render", "kiro", "--session", &value]);
    outcome.assert_code(2);
    outcome.assert_stderr_lacks(SECRET);
    assert!(
        outcome
            .stderr
            .starts_with("error: invalid value '[redacted]"),
        "{}",
        outcome.describe()
    );
    assert!(
        !outcome.stderr.contains(['\r', '\u{7}']),
        "{}",
        outcome.describe()
    );
    assert_eq!(outcome.stdout, "");
    assert!(!env.project.join(".oneworks/sessions").exists());
}

/// `--help` and `--version` print on stdout like any other output: a full
/// disk is a plain error (exit 1), a closed pipe ends quietly.
#[test]
fn help_and_version_on_a_full_disk_are_a_plain_error() {
    let env = TestEnv::new();
    for args in [
        &["--help"][..],
        &["--version"][..],
        &["adapter", "--help"][..],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        // Raw commands: their stdout is a full disk, then a closed pipe.
        let mut command = env.oneworks().args(args).command();
        command.stdout(Stdio::from(full)).stderr(Stdio::piped());
        let output = command.output().expect("run oneworks");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert_eq!(
            stderr,
            "error: failed to write to standard output: No space left on device (os error 28)\n"
        );
        let (reader, writer) = closed_pipe_pair();
        drop(reader);
        let mut command = env.oneworks().args(args).command();
        command
            .stdout(Stdio::from(std::os::fd::OwnedFd::from(writer)))
            .stderr(Stdio::piped());
        let output = command.output().expect("run oneworks");
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    }
}
