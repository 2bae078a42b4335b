//! `adapter login kiro`: resolves Kiro like `run` — no request
//! when a version is installed — needs a terminal, and stops Kiro's login
//! within its bounds when interrupted (exit 130, no process left).

use crate::support::archive::Format;
use crate::support::wait::{wait_until, DEADLINE};
use crate::support::TestEnv;

const VERSION: &str = "2.15.1";

#[test]
fn login_with_a_version_installed_makes_no_request() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    env.prepare(&[]).assert_success();
    let requests = env.server.total_hits();
    assert!(requests > 0, "prepare asked the server");
    let outcome = env.run_on_terminal(&["adapter", "login", "kiro"]);
    outcome.assert_success();
    assert_eq!(
        env.server.total_hits(),
        requests,
        "login made a request although {VERSION} is installed\n{}",
        outcome.describe()
    );
}

#[test]
fn login_with_nothing_installed_prepares_first() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    let outcome = env.run_on_terminal(&["adapter", "login", "kiro"]);
    outcome.assert_success();
    assert!(env.server.total_hits() > 0, "{}", outcome.describe());
    assert!(env.version_dir(VERSION).join("install.json").is_file());
}

#[test]
fn login_without_a_terminal_is_refused_before_any_request() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    let outcome = env.run(&["adapter", "login", "kiro"]);
    outcome.assert_code(2);
    assert_eq!(env.server.total_hits(), 0, "{}", outcome.describe());
    assert!(!env.version_dir(VERSION).exists(), "nothing installed");
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
        let mut terminal = env
            .oneworks()
            .args(["adapter", "login", "kiro"])
            .terminal()
            .stdin_null()
            .spawn();
        wait_until("kiro-cli login started", DEADLINE, || pid_file.is_file());
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
        wait_until("oneworks ended", DEADLINE, || {
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
