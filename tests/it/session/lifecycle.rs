//! Starting, listing and stopping supervised sessions: private sockets and
//! folders, the allowlisted environment, stale supervisors, missing tmux.

use std::os::unix::fs::PermissionsExt;

use serde_json::{json, Value};

use crate::session::supervisor::{alive, assert_gone, mode, request, Session};

#[test]
fn sockets_and_folders_are_private_and_kiro_sees_only_the_allowlist() {
    let mut session = Session::new(|_| json!({"requests": [request("r1", "Running: pwd")]}));
    let evil = session.env.outside.join("evil-recorder.jsonl");
    session
        .env
        .set_env("KIRO_ACP_RECORD_PATH", &evil.to_string_lossy());
    session.env.set_env("UNRELATED_SETTING", "leak-me");
    session.start();
    session.pending_card();
    let runtime = session.runtime();
    assert_eq!(mode(&runtime), 0o700);
    assert_eq!(mode(&runtime.join("approvals.sock")), 0o600);
    assert_eq!(mode(&session.session_root().join("cards.jsonl")), 0o600);
    assert!(!evil.exists(), "the parent's recorder path was used");

    let log = std::fs::read_to_string(&session.fake_log).expect("fake log");
    let tui: Value = log
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|entry| entry["argv"] == json!(["chat", "--tui", "--agent", "oneworks"]))
        .expect("the TUI was started with Kiro's arguments");
    let env = tui["env"].as_object().expect("env");
    assert_eq!(
        env["KIRO_ACP_RECORD_PATH"],
        json!(runtime.join("recorder.jsonl"))
    );
    assert!(!env.contains_key("UNRELATED_SETTING"), "{env:?}");
    assert!(!env.contains_key("ONEWORKS_KIRO_ADAPTER_FILE"), "{env:?}");
    session.stop_and_check();
}

#[test]
fn a_too_open_or_foreign_runtime_folder_is_refused() {
    let session = Session::new(|_| json!({}));
    let base = session.env.runtime_dir.join("oneworks");
    std::fs::create_dir_all(&base).expect("mkdir");
    std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let outcome = session.env.run(&["session", "start", "kiro", "--detach"]);
    outcome.assert_code(11);
    outcome.assert_stderr_contains("open to other users");
    assert!(session.record().is_none());
    assert_eq!(mode(&base), 0o755, "the folder was changed, not refused");
    assert_eq!(
        std::fs::read_dir(&base).expect("list").count(),
        0,
        "something was created"
    );

    // SAFETY of the test: only root can hand a folder to another user.
    if rustix_is_root() {
        std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        std::os::unix::fs::chown(&base, Some(65534), Some(65534)).expect("chown");
        let outcome = session.env.run(&["session", "start", "kiro", "--detach"]);
        outcome.assert_code(11);
        outcome.assert_stderr_contains("another user");
        assert!(session.record().is_none());
    }
}

fn rustix_is_root() -> bool {
    std::fs::metadata("/proc/self")
        .map(|meta| std::os::unix::fs::MetadataExt::uid(&meta) == 0)
        .unwrap_or(false)
}

#[test]
fn a_supervisor_killed_with_its_tmux_is_not_re_adopted_and_stop_cleans_up() {
    let session = Session::new(|_| json!({"requests": [request("r1", "Running: pwd")]}));
    session.start();
    session.pending_card();
    let pids = session.pids();
    for pid in &pids[..2] {
        crate::support::signal(*pid, "-KILL");
    }
    assert_gone(&pids[..2]);
    let listed = session.env.run(&["session", "list", "--json"]);
    listed.assert_success();
    assert_eq!(listed.json()[0]["state"], "stale", "{}", listed.describe());
    // The cards come from the session's history (item 16).
    let listed = session
        .env
        .run(&["session", "approvals", "default", "--json"]);
    listed.assert_success();
    assert_eq!(
        listed.json()[0]["state"],
        "pending",
        "{}",
        listed.describe()
    );
    listed.assert_stderr_contains("is gone");
    session
        .env
        .run(&["session", "approvals", "default", "--watch"])
        .assert_code(11);
    session
        .env
        .run(&["session", "stop", "default"])
        .assert_success();
    assert_gone(&pids);
    assert!(session.record().is_none());
    session
        .env
        .run(&["session", "stop", "default"])
        .assert_code(11);
}

#[test]
fn missing_tmux_is_exit_11_with_a_hint_and_nothing_is_left() {
    let mut session = Session::new(|_| json!({}));
    // Only the fake's folder: no tmux anywhere.
    let bin = session.env.bin.to_string_lossy().into_owned();
    session.env.set_env("PATH", &bin);
    let outcome = session.env.run(&["session", "start", "kiro", "--detach"]);
    outcome.assert_code(11);
    outcome.assert_stderr_contains("`tmux` was not found");
    outcome.assert_stderr_contains("hint: ");
    assert!(
        !session.session_root().exists(),
        "a session folder was created"
    );
}

#[test]
fn a_forged_record_signals_nothing_and_runs_nothing() {
    let session = Session::new(|_| json!({}));
    // A group leader, like Kiro and tmux are: a forged pid would hit it.
    let mut bystander = std::process::Command::new("sleep");
    std::os::unix::process::CommandExt::process_group(bystander.arg("60"), 0);
    let mut bystander = bystander.spawn().expect("spawn sleep");
    let trap = session.env.outside.join("trap.sh");
    let ran = session.env.outside.join("trap-ran");
    std::fs::write(&trap, format!("#!/bin/sh\ntouch '{}'\n", ran.display())).expect("trap");
    std::fs::set_permissions(&trap, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let root = session.session_root();
    std::fs::create_dir_all(&root).expect("session folder");
    let pid = bystander.id();
    let record = json!({
        "name": "default", "pid": pid, "approvals": session.env.outside.join("sock"),
        "tmux": session.env.outside.join("tmux.sock"), "tmuxProgram": trap,
        "tmuxPid": pid, "panePid": pid, "cliVersion": "2.15.1",
        "startedAt": "2026-01-01T00:00:00Z",
    });
    std::fs::write(root.join("supervisor.json"), record.to_string()).expect("record");
    std::fs::write(session.env.outside.join("tmux.sock"), b"").expect("fake socket");
    let listed = session.env.run(&["session", "list", "--json"]);
    assert_eq!(listed.json()[0]["state"], "stale", "{}", listed.describe());
    session
        .env
        .run(&["session", "stop", "default"])
        .assert_success();
    assert!(alive(pid), "a process named by a forged record was killed");
    assert!(!ran.exists(), "a program named by the record was run");
    assert!(session.record().is_none());
    let _ = bystander.kill();
    let _ = bystander.wait();
}

/// utime + stime of `pid`, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .expect("stat format")
        .1
        .split_whitespace()
        .collect();
    fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime")
}

#[test]
fn an_idle_supervisor_does_not_spin() {
    let session = Session::new(|_| json!({}));
    session.start();
    let supervisor = session.pids()[0];
    // Its start-up work done: a tenth of a second in which it used at
    // most one tick (a condition, seen; then the 2 s window is measured).
    crate::support::wait::wait_until(
        "the supervisor's start-up work is done",
        crate::session::supervisor::DEADLINE,
        || {
            let at = cpu_ticks(supervisor);
            std::thread::sleep(std::time::Duration::from_millis(100));
            cpu_ticks(supervisor) - at <= 1
        },
    );
    let before = cpu_ticks(supervisor);
    // A measurement window, not a wait for a condition.
    std::thread::sleep(std::time::Duration::from_secs(2));
    let used = cpu_ticks(supervisor) - before;
    // 2 s at 100 ticks/s; an idle supervisor wakes once per safety poll.
    assert!(
        used <= 10,
        "the supervisor used {used} ticks in 2 s of idling"
    );
    session.stop_and_check();
}

#[test]
fn start_on_a_terminal_attaches_until_the_tui_exits() {
    let mut session = Session::new(
        |markers| json!({"requests": [request("r1", "Running: pwd")], "exitFile": markers.join("exit")}),
    );
    session.env.set_env("TERM", "xterm");
    let attached = session
        .env
        .oneworks()
        .args(["session", "start", "kiro"])
        .terminal()
        .start();
    crate::support::wait::wait_until(
        "the session started",
        crate::session::supervisor::DEADLINE,
        || session.record().is_some(),
    );
    // The card is answerable from elsewhere while a person is attached.
    let card = session.pending_card();
    let record = session.record().expect("record");
    let socket = record["tmux"].as_str().expect("socket").to_owned();
    crate::support::wait::wait_until(
        "a terminal attached",
        crate::session::supervisor::DEADLINE,
        || {
            let clients = std::process::Command::new("tmux")
                .args(["-S", &socket, "list-clients"])
                .output()
                .expect("list clients");
            !clients.stdout.is_empty()
        },
    );
    session.answer(&card, "accept").assert_success();
    // The attached test terminal may type bytes of its own (`other:…`).
    crate::support::wait::wait_until(
        "an Enter arrived",
        crate::session::supervisor::DEADLINE,
        || session.keys().iter().any(|key| key == "Enter"),
    );
    let ours: Vec<String> = session
        .keys()
        .into_iter()
        .filter(|key| !key.starts_with("other:"))
        .collect();
    assert_eq!(ours, ["Enter"]);
    let pids = session.pids();
    session.touch("exit");
    let outcome = attached.wait();
    outcome.assert_success();
    assert_gone(&pids);
}

#[test]
fn a_tmux_server_left_without_a_record_is_replaced() {
    let session = Session::new(|_| json!({"requests": [request("r1", "Running: pwd")]}));
    session.start();
    session.pending_card();
    let pids = session.pids();
    let runtime = session.runtime();
    // The supervisor dies and its record is lost; tmux and Kiro live on.
    std::process::Command::new("kill")
        .args(["-KILL", &pids[0].to_string()])
        .status()
        .expect("kill");
    assert_gone(&pids[..1]);
    std::fs::remove_file(session.session_root().join("supervisor.json")).expect("remove record");
    assert!(runtime.join("tmux.sock").exists());
    session.start();
    session.pending_card();
    assert_gone(&pids[1..]);
    session.stop_and_check();
}

#[test]
fn a_config_broken_while_a_session_runs_still_lets_it_be_listed_answered_and_stopped() {
    let session = Session::new(|_| json!({"requests": [request("r1", "Running: pwd")]}));
    session.start();
    let card = session.pending_card();
    // The person breaks config.yaml: an adapter oneworks does not know.
    session
        .env
        .write_config("adapters:\n  nosuch-agent:\n    cli:\n      source: system\n");
    let warned = |outcome: &crate::support::Outcome| {
        outcome.assert_stderr_contains("warning: the config does not load");
    };
    let list = session.env.run(&["session", "list", "--json"]);
    list.assert_success();
    warned(&list);
    list.assert_stdout_contains(&session.name);
    let approvals = session
        .env
        .run(&["session", "approvals", &session.name, "--json"]);
    approvals.assert_success();
    warned(&approvals);
    let answer = session.answer(&card, "decline");
    answer.assert_success();
    warned(&answer);
    // Starting needs the config: it is refused.
    let start = session
        .env
        .run(&["session", "start", "kiro", "--detach", "--name", "second"]);
    start.assert_code(3);
    let pids = session.pids();
    let stop = session.env.run(&["session", "stop", &session.name]);
    stop.assert_success();
    warned(&stop);
    assert_gone(&pids);
}

/// `tmux` on the test's own socket `socket`, failing the test when it fails.
fn tmux(socket: &std::path::Path, args: &[&str]) -> String {
    let output = std::process::Command::new("tmux")
        .arg("-S")
        .arg(socket)
        .args(["-f", "/dev/null", "-u"])
        .args(args)
        .output()
        .expect("run tmux");
    assert!(
        output.status.success(),
        "tmux {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

#[test]
fn a_person_attaching_from_a_wider_terminal_does_not_widen_the_agents_pane() {
    // The pane grammars are written for the data's 200×50 (`within`
    // columns, where a long command wraps): a wider pane would let a
    // command padded with spaces past the cut read as its first words.
    let session = Session::new(|_| json!({"requests": [request("r1", "Running: pwd")]}));
    session.start();
    session.pending_card();
    let record = session.record().expect("record");
    let inner = std::path::PathBuf::from(record["tmux"].as_str().expect("tmux socket"));
    let size = || {
        tmux(
            &inner,
            &[
                "display-message",
                "-p",
                "-t",
                "oneworks",
                "#{window_width}x#{window_height}",
            ],
        )
    };
    assert_eq!(size(), "200x50");

    // The person's terminal, 250×60: an outer tmux running `tmux attach`.
    let outer = session.env.outside.join("terminal.sock");
    let attach = format!(
        "tmux -S '{}' -f /dev/null -u attach -t oneworks",
        inner.display()
    );
    tmux(
        &outer,
        &[
            "new-session",
            "-d",
            "-x",
            "250",
            "-y",
            "60",
            "--",
            "sh",
            "-c",
            &attach,
        ],
    );
    crate::support::wait::wait_until(
        "the person's 250-column client is attached",
        crate::support::wait::DEADLINE,
        || tmux(&inner, &["list-clients", "-F", "#{client_width}"]) == "250",
    );
    let seen = size();
    let _ = std::process::Command::new("tmux")
        .arg("-S")
        .arg(&outer)
        .arg("kill-server")
        .status();
    assert_eq!(seen, "200x50", "the attached terminal resized the pane");
    session.stop_and_check();
}

#[test]
fn a_working_folder_ending_in_a_semicolon_starts_the_agent_there() {
    // tmux ends a command at an argument ending in `;`: unescaped, this
    // folder split `new-session` in two and the session never started.
    let session = Session::new(|_| json!({"requests": [request("r1", "Running: pwd")]}));
    let folder = session.env.project.join("app;");
    std::fs::create_dir_all(&folder).expect("mkdir");
    session
        .start_with(&["--cwd", &folder.to_string_lossy()])
        .assert_success();
    session.pending_card();
    let record = session.record().expect("record");
    let inner = std::path::PathBuf::from(record["tmux"].as_str().expect("tmux socket"));
    let cwd = tmux(
        &inner,
        &[
            "display-message",
            "-p",
            "-t",
            "oneworks",
            "#{pane_current_path}",
        ],
    );
    assert_eq!(
        std::path::Path::new(&cwd),
        folder.canonicalize().expect("canonical")
    );
    session.stop_and_check();
}
