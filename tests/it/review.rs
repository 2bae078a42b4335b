//! Defects found by the review of issue 6, each with the test that failed
//! before its fix: status and list text through the scrubber and the
//! sanitizer without panicking on a closed stderr, one line per retry,
//! completions on a full disk, usage errors scrubbed, and config control
//! characters at their real position.

use std::process::Stdio;

use crate::support::archive::{self, Format};
use crate::support::fake::{self, install_fake};
use crate::support::manifest::{self, Libc};
use crate::support::server::Route;
use crate::support::{Artifact, TestEnv};

const SECRET: &str = "ksk_review_secret_value_8841";

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
    assert!(!outcome.stderr.contains(SECRET), "{}", outcome.describe());
    assert!(
        outcome.stderr.contains("boom [redacted]"),
        "{}",
        outcome.describe()
    );
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
    let mut command = env.cmd(args);
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
fn each_retry_prints_one_line() {
    let mut env = TestEnv::new();
    env.set_env("ONEWORKS_TEST_BACKOFF_MS", "0");
    let artifact = Artifact::new(
        "2.15.1",
        Format::TarGz,
        Libc::Gnu,
        archive::kiro_archive(Format::TarGz, "2.15.1"),
    );
    env.server.route(&artifact.server_path, Route::Status(500));
    env.serve_manifest(&manifest::document(
        "2.15.1",
        std::slice::from_ref(&artifact.entry),
    ));
    let outcome = env.prepare(&[]);
    outcome.assert_error(4, "network");
    let url = env.server.url(&artifact.server_path);
    let expected = format!(
        "`{url}` answered HTTP 500; retrying in 0.0s (attempt 2 of 3)\n\
         `{url}` answered HTTP 500; retrying in 0.0s (attempt 3 of 3)\n\
         error: `{url}` answered HTTP 500\n"
    );
    assert!(
        outcome.stderr.starts_with(&expected),
        "one line per retry\n{}",
        outcome.describe()
    );
    assert_eq!(outcome.stderr.matches("retrying").count(), 2);
}

#[test]
fn usage_errors_pass_the_scrubber_and_the_sanitizer() {
    let mut env = TestEnv::new();
    env.set_env("KIRO_API_KEY", SECRET);
    let value = format!("{SECRET}\r\u{7}!");
    let outcome = env.run(&["config", "render", "kiro", "--session", &value]);
    outcome.assert_code(2);
    assert!(!outcome.stderr.contains(SECRET), "{}", outcome.describe());
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

/// A project's `kiro.lock` comes from a repository that may be hostile: a
/// FIFO is refused rather than waited on, a link is not followed out of
/// the project, and a huge file is not swallowed.
#[test]
fn a_hostile_kiro_lock_is_refused_not_followed_or_waited_on() {
    let env = TestEnv::new();
    let lock = env.kiro_lock();
    let victim = env.outside.join("victim.json");
    std::fs::write(&victim, "{}").expect("victim");
    std::os::unix::fs::symlink(&victim, &lock).expect("link kiro.lock");
    for args in [
        &["adapter", "prepare", "kiro", "--offline", "--json"][..],
        &["adapter", "status", "kiro", "--json"][..],
    ] {
        let outcome = env.run(args);
        let message = outcome.assert_error(6, "unsafe_archive");
        assert_eq!(
            message,
            format!(
                "refusing to read `{}`: it is a symbolic link",
                lock.display()
            )
        );
    }
    assert_eq!(std::fs::read_to_string(&victim).expect("victim"), "{}");

    std::fs::remove_file(&lock).expect("unlink");
    let made = std::process::Command::new("mkfifo")
        .arg(&lock)
        .status()
        .expect("mkfifo");
    assert!(made.success(), "mkfifo");
    let outcome = env.prepare(&["--offline"]);
    let message = outcome.assert_error(6, "unsafe_archive");
    assert_eq!(
        message,
        format!(
            "refusing to read `{}`: it is a FIFO, not a regular file",
            lock.display()
        )
    );

    std::fs::remove_file(&lock).expect("unlink");
    let file = std::fs::File::create(&lock).expect("create");
    file.set_len(2 * 1024 * 1024).expect("grow");
    let outcome = env.prepare(&["--offline"]);
    let message = outcome.assert_error(3, "config");
    assert_eq!(
        message,
        format!("`{}` is larger than 1048576 bytes", lock.display())
    );
    env.assert_nothing_published("2.15.1");
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
        assert!(!outcome.stderr.contains(key), "{}", outcome.describe());
    }
}

/// An archive entry of a type oneworks does not handle is refused in plain
/// words: its tar type letter, not a Rust enum's debug name.
#[test]
fn an_unsupported_tar_entry_type_is_named_by_its_letter() {
    let env = TestEnv::new();
    let mut inner = archive::tar(&archive::kiro_entries("2.15.1"));
    // Drop the two zero blocks that end the archive, append a GNU "volume
    // header" entry (type `V`), and end the archive again.
    inner.truncate(inner.len() - 1024);
    let mut builder = tar::Builder::new(inner);
    let mut header = tar::Header::new_gnu();
    header.set_entry_type(tar::EntryType::new(b'V'));
    header.set_mode(0o644);
    header.set_size(4);
    header.set_path("kirocli/odd").expect("path");
    header.set_cksum();
    builder.append(&header, &b"data"[..]).expect("append");
    let bytes = archive::gzip(&builder.into_inner().expect("finish"));
    let artifact = Artifact::new("2.15.1", Format::TarGz, Libc::Gnu, bytes);
    env.server.route(
        &artifact.server_path,
        Route::Ok(artifact.bytes.clone().into()),
    );
    env.serve_manifest(&manifest::document(
        "2.15.1",
        std::slice::from_ref(&artifact.entry),
    ));
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(6, "unsafe_archive");
    assert!(
        message.ends_with("unsupported entry type `V`"),
        "{}",
        outcome.describe()
    );
    env.assert_nothing_published("2.15.1");
}

/// Waits (bounded) until `check` holds.
fn wait_until(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !check() {
        assert!(std::time::Instant::now() < deadline, "timed out: {what}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Whether `pid` runs (a zombie does not count).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z")
    })
}

/// The parent pid of `pid`.
fn parent_of(pid: u32) -> u32 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("PPid:"))
        .and_then(|value| value.trim().parse().ok())
        .expect("PPid")
}

/// The process group of `pid`.
fn group_of(pid: u32) -> u32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
    stat.rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().nth(2))
        .and_then(|value| value.parse().ok())
        .expect("pgrp")
}

/// SIGTERM to `oneworks adapter login` (not to the terminal's group) while
/// Kiro's login runs: oneworks stops the login within its bounds — a login
/// that ignores SIGTERM is killed — and exits 130, leaving no process.
/// Ctrl-C (SIGINT to the terminal's group) ends the login and exits 130.
#[test]
fn an_interrupted_login_stops_kiro_and_exits_130() {
    for (signal, ignores_sigterm) in [("-TERM", false), ("-TERM", true), ("-INT", false)] {
        let env = TestEnv::new();
        let pid_file = env.outside.join("login.pid");
        let trap = if ignores_sigterm {
            "trap '' TERM; "
        } else {
            ""
        };
        let cli = env.outside.join("kiro-cli");
        std::fs::write(
            &cli,
            format!(
                "#!/bin/sh\ncase \"$1\" in\n  --version) echo 'kiro-cli 2.15.1';;\n  acp) exit 0;;\n  \
                 login) {trap}echo $$ > '{}.tmp'; mv '{0}.tmp' '{0}'; while :; do sleep 1; done;;\nesac\n",
                pid_file.display()
            ),
        )
        .expect("write kiro-cli");
        crate::support::set_mode(&cli, 0o755);
        env.write_config(&format!(
            "adapters:\n  kiro:\n    cli:\n      source: path\n      path: {}\n",
            cli.display()
        ));
        let mut command = env.terminal_cmd(&["adapter", "login", "kiro"]);
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut terminal = command.spawn().expect("start login");
        wait_until("kiro-cli login started", || pid_file.is_file());
        let login: u32 = std::fs::read_to_string(&pid_file)
            .expect("pid file")
            .trim()
            .parse()
            .expect("pid");
        let oneworks = parent_of(login);
        let target = if signal == "-INT" {
            format!("-{}", group_of(oneworks))
        } else {
            oneworks.to_string()
        };
        let killed = std::process::Command::new("kill")
            .args([signal, "--", &target])
            .status()
            .expect("kill");
        assert!(killed.success());
        let mut status = None;
        wait_until("oneworks ended", || {
            status = terminal.try_wait().expect("try_wait");
            status.is_some()
        });
        let output = terminal.wait_with_output().expect("output");
        let shown = String::from_utf8_lossy(&output.stdout);
        assert_eq!(
            status.and_then(|status| status.code()),
            Some(130),
            "{signal}, ignores SIGTERM: {ignores_sigterm}\n{shown}"
        );
        assert!(!alive(login), "kiro-cli login {login} still runs");
        assert!(!alive(oneworks), "oneworks {oneworks} still runs");
    }
}

/// A session NAME outside `[A-Za-z0-9_-]{1,64}` is a usage error (exit 2)
/// before anything is created: no session folder, no runtime folder.
#[test]
fn an_invalid_session_name_is_refused_before_anything_is_written() {
    let env = TestEnv::new();
    let long = "a".repeat(65);
    for name in ["../escape", "", "a/b", ".", "name with space", &long] {
        for args in [
            &["config", "render", "kiro", "--session", name][..],
            &["adapter", "login", "kiro", "--session", name][..],
        ] {
            let outcome = env.run(args);
            outcome.assert_code(2);
            assert_eq!(
                outcome.stderr,
                format!(
                    "error: invalid value '{name}' for '--session <SESSION>': a session name \
                     is 1 to 64 characters of A-Z, a-z, 0-9, `_` and `-`\n\n\
                     For more information, try '--help'.\n"
                ),
                "{args:?}"
            );
        }
    }
    assert!(!env.project.join(".oneworks/sessions").exists());
    assert!(!env.runtime_dir.join("oneworks").exists());
    assert_eq!(env.server.total_hits(), 0);
}

/// `config render --dry-run` shows what a (possibly hostile) project's
/// config and skills would write: terminal controls in them are replaced,
/// like any outside text, so they cannot set the title or clear the screen.
#[test]
fn render_dry_run_shows_outside_text_without_terminal_controls() {
    let env = TestEnv::new();
    let skill = env.project.join(".oneworks/skills/evil");
    std::fs::create_dir_all(&skill).expect("skill dir");
    std::fs::write(skill.join("SKILL.md"), "# Evil\u{1b}[2J\u{7}\n\tbody\n").expect("skill");
    env.write_config(
        "adapters:\n  kiro:\n    systemPrompt: \"a\\e]0;pwned\\ab\\r\"\n    \
         skills:\n      - name: Evil\n        path: ./skills/evil\n",
    );
    let outcome = env.run(&["config", "render", "kiro", "--dry-run"]);
    outcome.assert_success();
    for control in ['\u{1b}', '\u{7}', '\r'] {
        assert!(
            !outcome.stdout.contains(control),
            "{control:?} reached stdout\n{}",
            outcome.describe()
        );
    }
    assert!(
        outcome
            .stdout
            .contains("a\u{fffd}]0;pwned\u{fffd}b\u{fffd}\n"),
        "{}",
        outcome.describe()
    );
    assert!(
        outcome
            .stdout
            .contains("# Evil\u{fffd}[2J\u{fffd}\n\tbody\n"),
        "{}",
        outcome.describe()
    );
    assert!(!env.project.join(".oneworks/sessions").exists());
}

/// The files named by `ONEWORKS_KIRO_ADAPTER_FILE` and a `file://` manifest
/// URL follow the config file's rule: a device is refused, not drained, and
/// a FIFO is refused, not waited on.
#[test]
fn special_files_named_by_the_environment_are_refused_not_read() {
    let mut env = TestEnv::new();
    let fifo = env.outside.join("manifest.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success(), "mkfifo");

    env.set_env("ONEWORKS_KIRO_ADAPTER_FILE", "/dev/zero");
    let refusal =
        "refusing to read adapter data file `/dev/zero`: it is a device, not a regular file";
    // `adapter list` skips it with the refusal (tests/it/adapter_files.rs);
    // a command naming the adapter fails with it.
    let outcome = env.run(&["adapter", "list", "--json"]);
    outcome.assert_success();
    assert_eq!(outcome.json()["skipped"][0]["problem"], refusal);
    let outcome = env.run(&["adapter", "status", "kiro", "--json"]);
    let message = outcome.assert_error(3, "config");
    assert_eq!(message, refusal);

    env.set_env(
        "ONEWORKS_KIRO_ADAPTER_FILE",
        fifo.to_str().expect("utf-8 path"),
    );
    let outcome = env.run(&["adapter", "list", "--json"]);
    outcome.assert_success();
    env.run(&["adapter", "status", "kiro", "--json"])
        .assert_error(3, "config");

    env.env.remove("ONEWORKS_KIRO_ADAPTER_FILE");
    env.set_env("ONEWORKS_TEST_BACKOFF_MS", "0");
    let url = format!("file://{}", fifo.display());
    env.set_env("ONEWORKS_KIRO_MANIFEST_URL", &url);
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(4, "network");
    assert_eq!(
        message,
        format!("reading `{url}` failed: it is a FIFO, not a regular file")
    );
    env.assert_nothing_published("2.15.1");
}

/// A managed install whose binary was replaced by a link is reported by
/// `adapter status` as a skipped candidate with its reason — the report
/// itself does not fail — and nothing is selected.
#[test]
fn status_reports_a_linked_managed_binary_as_skipped() {
    let env = TestEnv::new();
    env.publish("2.15.1", &[Format::TarGz]);
    env.prepare(&[]).assert_success();
    let binary = env.managed_binary("2.15.1");
    let elsewhere = env.outside.join("kiro-cli");
    std::fs::rename(&binary, &elsewhere).expect("move binary");
    std::os::unix::fs::symlink(&elsewhere, &binary).expect("link binary");
    let outcome = env.status();
    outcome.assert_success();
    let document = outcome.json();
    assert_eq!(document["selected"], serde_json::Value::Null);
    let candidate = &document["candidates"][0];
    assert_eq!(candidate["source"], "managed");
    assert_eq!(candidate["usable"], false);
    assert_eq!(
        candidate["reason"],
        format!(
            "refusing to use `{}`: it is a symbolic link (oneworks never follows links inside \
             its managed folders); `oneworks adapter prepare kiro --force` reinstalls it",
            binary.display()
        )
    );
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
        let mut command = env.cmd(args);
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
        let mut command = env.cmd(args);
        command
            .stdout(Stdio::from(std::os::fd::OwnedFd::from(writer)))
            .stderr(Stdio::piped());
        let output = command.output().expect("run oneworks");
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    }
}
