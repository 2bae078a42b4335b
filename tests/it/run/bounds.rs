//! Bounds on everything fed from outside (items 12, 13 and 16):
//! an over-long line of agent stderr, of a stdin reply or of the recorder
//! is skipped with a diagnostic and the run goes on; a prompt file has a
//! ceiling; a non-UTF-8 reply line keeps the channel open; the session
//! commands give up on a supervisor that does not answer. The memory these
//! cost is measured by `benches/bounds.sh`, not here.

use std::io::Write;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::run::acp_env::{events, options_full, types, AcpEnv};
use crate::session::supervisor::{request, Session};
use crate::support::signal;

const PROMPT: &[&str] = &["--prompt", "Say hello"];

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut all: Vec<&str> = PROMPT.to_vec();
    all.extend_from_slice(extra);
    all
}

/// Larger than every line bound of stderr and stdin replies.
const HUGE: u64 = 1 << 20;

#[test]
fn an_overlong_stderr_line_is_skipped_with_a_diagnostic_and_the_run_goes_on() {
    let acp = AcpEnv::new(json!({
        "turn": [
            {"flood": {"bytes": HUGE}},
            {"stderr": "after the flood"},
            {"text": "still here"}
        ]
    }));
    // `-vv` logs every stderr line of the agent.
    let outcome = acp.run(&args(&["--json", "-vv"]));
    outcome.assert_success();
    let texts: String = events(&outcome)
        .iter()
        .filter_map(|event| event["text"].as_str())
        .collect();
    assert_eq!(texts, "still here", "{}", outcome.describe());
    assert!(
        outcome
            .stderr
            .contains(&format!("skipped a line of {HUGE} bytes on the stderr of")),
        "{}",
        outcome.describe()
    );
    outcome.assert_stderr_contains("after the flood");
    // The line itself was never logged.
    assert!(
        outcome.stderr.len() < 64 * 1024,
        "{} bytes of stderr",
        outcome.stderr.len()
    );
}

#[test]
fn the_stderr_tail_after_an_overlong_line_names_it_and_keeps_the_next_lines() {
    let acp = AcpEnv::new(json!({
        "turn": [
            {"flood": {"bytes": HUGE}},
            {"crash": {"stderr": "after the flood", "code": 3}}
        ]
    }));
    let outcome = acp.run(&args(&[]));
    outcome.assert_code(9);
    outcome.assert_stderr_contains("after the flood");
    assert!(
        outcome
            .stderr
            .contains(&format!("[a line of {HUGE} bytes was skipped]")),
        "{}",
        outcome.describe()
    );
    assert!(outcome.stderr.len() < 16 * 1024, "{}", outcome.describe());
}

fn permission_turn() -> Value {
    json!({
        "turn": [
            {"permission": {"id": "p1", "title": "Run ls", "kind": "execute", "options": options_full()}},
            {"text": "after"}
        ]
    })
}

fn diagnostics(seen: &[Value]) -> Vec<String> {
    seen.iter()
        .filter(|event| event["type"] == "diagnostic")
        .filter_map(|event| event["message"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn an_overlong_reply_line_is_refused_and_the_next_reply_is_read() {
    let acp = AcpEnv::new(permission_turn());
    let mut live = acp.live(&args(&["--json"]));
    live.expect("permission_request");
    // A well-formed reply, only far too long.
    let mut huge = br#"{"id":"p1","reply":""#.to_vec();
    huge.resize(huge.len() + HUGE as usize, b'1');
    huge.extend_from_slice(b"\"}\n");
    let length = huge.len() - 1;
    live.send_bytes(&huge);
    live.expect("diagnostic");
    live.send(&json!({"id": "p1", "reply": "Allow once"}).to_string());
    let resolved = live.expect("permission_resolved");
    assert_eq!(resolved["optionId"], "proceed_once");
    let (code, seen, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");
    let notes = diagnostics(&seen);
    assert!(
        notes.iter().any(
            |note| note.contains(&format!("a reply line of {length} bytes"))
                && note.contains("65536")
        ),
        "{notes:?}"
    );
    assert_eq!(types(&seen).last().map(String::as_str), Some("turn_end"));
}

#[test]
fn a_non_utf8_reply_line_gets_an_error_and_the_channel_stays_open() {
    let acp = AcpEnv::new(permission_turn());
    let mut live = acp.live(&args(&["--json"]));
    live.expect("permission_request");
    live.send_bytes(b"{\"id\":\"p1\",\"reply\":\"\xff\xfe\"}\n");
    live.expect("diagnostic");
    live.send(&json!({"id": "p1", "reply": "Allow once"}).to_string());
    live.expect("permission_resolved");
    let (code, seen, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");
    let notes = diagnostics(&seen);
    assert!(
        notes.iter().any(|note| note.contains("not UTF-8")),
        "{notes:?}"
    );
}

#[test]
fn a_prompt_file_has_a_ceiling() {
    let acp = AcpEnv::new(json!({}));
    let big = acp.env.outside.join("big-prompt.txt");
    std::fs::write(&big, vec![b'a'; 2 << 20]).expect("write prompt");
    for file in [big.to_str().expect("utf-8"), "/dev/zero"] {
        let started = Instant::now();
        let outcome = acp
            .oneworks(&["--prompt-file", file, "--json"])
            .deadline(Duration::from_secs(60))
            .run();
        let message = outcome.assert_error(2, "usage");
        assert!(
            message.contains("1 MiB") && message.contains(file),
            "{message}"
        );
        assert!(started.elapsed() < Duration::from_secs(30));
    }
    // `--prompt-file -` (human mode: stdin is free) likewise.
    let outcome = acp
        .oneworks(&["--prompt-file", "-"])
        .stdin_file("/dev/zero")
        .deadline(Duration::from_secs(60))
        .run();
    outcome.assert_code(2);
    outcome.assert_stderr_contains("1 MiB");
    assert!(acp.acp_invocations().is_empty(), "nothing started");
    // At the ceiling is fine.
    let exact = acp.env.outside.join("exact-prompt.txt");
    std::fs::write(&exact, vec![b'a'; 1 << 20]).expect("write prompt");
    acp.run(&["--prompt-file", exact.to_str().expect("utf-8"), "--json"])
        .assert_success();
}

#[test]
fn an_overlong_recorder_line_is_skipped_and_the_next_approval_is_a_card() {
    let session = Session::new(|markers| {
        json!({"requests": [
            {"id": "r1", "title": "Running: pwd", "waitFor": markers.join("go")},
        ]})
    });
    session.start();
    let recorder = session.runtime().join("recorder.jsonl");
    {
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&recorder)
            .expect("open the recorder");
        let line = vec![b'x'; 5 << 20];
        file.write_all(&line).expect("append");
        file.write_all(b"\n").expect("append");
    }
    session.touch("go");
    let card = session.pending_card();
    assert_eq!(card["title"], "Running: pwd");
    let log = std::fs::read_to_string(session.session_root().join("supervisor.log"))
        .expect("supervisor log");
    assert!(
        log.contains(&format!("skipped a recorder line of {} bytes", 5 << 20)),
        "{log}"
    );
    session.answer(&card, "accept").assert_success();
    session.wait_card("accepted", |card| card["state"] == "accepted");
    session.stop_and_check();
}

/// The bound a session command waits for a supervisor (within 5 s).
const GIVE_UP: Duration = Duration::from_secs(5);

/// Runs a session command; it must end within the bound (with slack for
/// starting the process on a loaded machine).
fn session_command(session: &Session, args: &[&str]) -> crate::support::Outcome {
    let started = Instant::now();
    let outcome = session
        .env
        .oneworks()
        .args(args)
        .deadline(Duration::from_secs(20))
        .run();
    let took = started.elapsed();
    assert!(
        took < GIVE_UP + Duration::from_secs(1),
        "`{}` took {took:?}\n{}",
        args.join(" "),
        outcome.describe()
    );
    outcome
}

#[test]
fn commands_give_up_on_a_stopped_supervisor_and_approvals_reads_the_history() {
    let session = Session::new(|_| json!({"requests": [request("r1", "Running: pwd")]}));
    session.start();
    let card = session.pending_card();
    let id = card["id"].as_str().expect("card id").to_owned();
    let supervisor = session.pids()[0];
    signal(supervisor, "-STOP");
    for args in [
        vec!["session", "answer", "default", &id, "accept"],
        vec!["session", "stop", "default"],
        vec!["session", "approvals", "default", "--watch"],
    ] {
        let outcome = session_command(&session, &args);
        outcome.assert_code(11);
        outcome.assert_stderr_contains("did not answer within");
    }
    // The list comes from `cards.jsonl` instead.
    let outcome = session_command(&session, &["session", "approvals", "default", "--json"]);
    outcome.assert_success();
    let cards = outcome.json();
    assert_eq!(cards[0]["id"], json!(id), "{}", outcome.describe());
    assert_eq!(cards[0]["state"], "pending");
    outcome.assert_stderr_contains("cards.jsonl");
    signal(supervisor, "-CONT");
    // Nothing was delivered while it was stopped; it still works.
    assert!(session.keys().is_empty());
    let answered = session.answer(&card, "accept");
    assert_eq!(
        answered.code,
        Some(0),
        "{}\n{}",
        answered.describe(),
        std::fs::read_to_string(session.session_root().join("supervisor.log")).unwrap_or_default()
    );
    session.stop_and_check();
    // A stopped session's cards are still listed from its history.
    let outcome = session
        .env
        .run(&["session", "approvals", "default", "--json"]);
    outcome.assert_success();
    let cards = outcome.json();
    assert_eq!(cards[0]["id"], json!(id), "{}", outcome.describe());
    assert_ne!(cards[0]["state"], "pending", "{}", outcome.describe());
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

/// The lowest fd number `pid` has free: with its limit there, every new
/// descriptor (an `accept`) fails with EMFILE.
fn lowest_free_fd(pid: u32) -> u64 {
    let used: std::collections::BTreeSet<u64> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .expect("fd folder")
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
        .collect();
    (0..).find(|fd| !used.contains(fd)).expect("a free fd")
}

fn set_nofile(pid: u32, limit: &str) {
    let status = std::process::Command::new("prlimit")
        .args(["--pid", &pid.to_string(), &format!("--nofile={limit}")])
        .status()
        .expect("prlimit");
    assert!(status.success());
}

#[test]
fn a_failing_accept_backs_off_instead_of_spinning() {
    let session = Session::new(|_| json!({}));
    session.start();
    let supervisor = session.pids()[0];
    let approvals = session.runtime().join("approvals.sock");
    let original = std::fs::read_to_string(format!("/proc/{supervisor}/limits"))
        .expect("limits")
        .lines()
        .find(|line| line.starts_with("Max open files"))
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            format!("{}:{}", fields[3], fields[4])
        })
        .expect("open files limit");
    set_nofile(
        supervisor,
        &format!(
            "{}:{}",
            lowest_free_fd(supervisor),
            original.split(':').nth(1).unwrap_or("4096")
        ),
    );
    // A client waits in the backlog: every accept fails.
    let client = std::os::unix::net::UnixStream::connect(&approvals).expect("connect");
    let before = cpu_ticks(supervisor);
    // A measurement window, not a wait for a condition.
    std::thread::sleep(Duration::from_secs(2));
    let used = cpu_ticks(supervisor) - before;
    set_nofile(supervisor, &original);
    drop(client);
    assert!(used <= 20, "the supervisor used {used} ticks in 2 s");
    let log = std::fs::read_to_string(session.session_root().join("supervisor.log"))
        .expect("supervisor log");
    assert!(log.contains("cannot accept"), "{log}");
    // Accepting works again once descriptors are free.
    let outcome = session
        .env
        .run(&["session", "approvals", "default", "--json"]);
    outcome.assert_success();
    session.stop_and_check();
}
