//! The real Qwen Code 0.24.4 TUI, supervised (issue 21 item 3): `qwen` in
//! `session start`'s private tmux on the managed Node 24 (its `engines`
//! want ≥ 22; the machine's is 20), against the fake model's chat
//! completions (`OPENAI_*` from the environment only), its approval box
//! read from the pane (`manifests/qwen.yaml` `tui:`, the captures in
//! `tests/it/fixtures/qwen-pane/`).
//!
//! No first-run dialog comes up: the profile world selects the auth type
//! (`security.auth.selectedType: openai`, implied by `OPENAI_API_KEY`),
//! forces `tools.approvalMode: default` and the English interface; Qwen's
//! folder trust is off by default.
//!
//! Qwen's No ends the turn (`- Shell …` stays in the history) without a
//! word to the model ([`Declined::EndsTheTurn`], silent), and it drops keys
//! that arrive while it still initializes
//! ([`TuiAgent::enter_once_shown`]).

use serde_json::Value;

use super::{Declined, TuiAgent, TuiCase};
use crate::agents_real::{RealAgent, Snapshot, SECRET, SERIAL};
use crate::support::node_mirror::{self, NodeRelease};

const VERSION: &str = "0.24.4";

/// The input line of a ready TUI (shown once Qwen has initialized).
const READY: &str = "Type your message or @path/to/file";

const CASE: TuiCase = TuiCase {
    ready: READY,
    // `› 1. Yes, allow once` is focused when the box comes up.
    terminal_allow: &["Enter"],
    // The tool line shows `? Shell COMMAND ←`: the title is the command.
    title: |command| command.to_owned(),
    // Qwen 0.24.4 asks no folder trust question (off by default).
    start_args: &[],
};

/// Qwen prepared from the loopback registry (on the managed Node 24),
/// pointed at the fake model.
fn prepared() -> TuiAgent {
    let snapshot = Snapshot::get("qwen");
    assert_eq!(snapshot.root.version, VERSION);
    let mut qwen = RealAgent::new("qwen", "run_shell_command");
    node_mirror::serve(&qwen.env.server, &[&NodeRelease::real()], &[]);
    qwen.write_user_config(&format!(
        "adapters:\n  qwen:\n    cli:\n      source: managed\n      version: {VERSION}\n"
    ));
    let prepared = qwen.prepare();
    assert_eq!(prepared["version"], VERSION, "{prepared}");
    qwen.env.set_env("OPENAI_API_KEY", SECRET);
    qwen.env.set_env("OPENAI_BASE_URL", &qwen.model.url("/v1"));
    qwen.env.set_env("OPENAI_MODEL", "fake-model");
    TuiAgent::new(qwen)
        .declined(Declined::EndsTheTurn {
            shows: |command| format!("- Shell {command}"),
            silent: true,
        })
        .enter_once_shown()
}

#[test]
fn the_real_qwen_tui_is_supervised_accept_decline_and_the_terminal_answer() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let tui = prepared();
    tui.standard_checks(&CASE);
    // A box whose focus moves between two keys gets no further key.
    let reason = tui.box_changed_between_keys("nudged", "probe-nudged.txt", &CASE);
    assert!(!reason.to_string().is_empty());
    assert!(!tui.agent.env.project.join("probe-nudged.txt").exists());
    let model = &tui.agent.model;
    assert!(
        model.requests().iter().any(|r| r.carries(SECRET)),
        "the key reached the model from the environment:\n{}",
        model.describe()
    );
    assert!(
        model
            .tool_calls()
            .iter()
            .all(|c| c.path.ends_with("/chat/completions")),
        "{}",
        model.describe()
    );
    // The key was never in a file; the world forced the English interface.
    tui.agent.assert_no_file_holds_the_secret();
    let settings = tui
        .agent
        .env
        .project
        .join(".oneworks/sessions/accept/qwen-home/settings.json");
    let settings: Value =
        serde_json::from_slice(&std::fs::read(&settings).expect("settings.json")).expect("json");
    assert_eq!(settings["general"]["language"], "en", "{settings:#}");
    assert_eq!(settings["tools"]["approvalMode"], "default", "{settings:#}");
}

/// CPU seconds (user + system) of `pid` and, with `tree`, all its
/// descendants, from /proc.
fn cpu_seconds(pid: u32, tree: bool) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the `(comm)`: state is field 3, utime 14, stime 15.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks = |at: usize| {
        fields
            .get(at)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    let own = (ticks(11) + ticks(12)) / 100.0;
    if !tree {
        return own;
    }
    let children: Vec<u32> = std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|text| {
            text.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect();
    own + children
        .into_iter()
        .map(|c| cpu_seconds(c, true))
        .sum::<f64>()
}

/// Figures for Qwen: box on screen → pending card over `ROUNDS` boxes
/// (each declined through its card), then the idle CPU of the supervisor
/// and of the agent (the pane's process tree) over
/// `ONEWORKS_BENCH_IDLE_SECONDS` (60 by default). Prints `TUI-BENCH {json}`.
#[test]
#[ignore = "a measure: run by hand (cargo test --release --features fakes -- --ignored tui_real::qwen::measure --nocapture)"]
fn measure() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    const ROUNDS: usize = 5;
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let idle = Duration::from_secs(
        std::env::var("ONEWORKS_BENCH_IDLE_SECONDS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(60),
    );
    let tui = prepared();
    let name = "bench";
    tui.start(name, CASE.start_args);
    tui.wait_pane(name, "the TUI ready for a prompt", READY);
    let socket = tui.socket(name);
    let mut to_card = Vec::new();
    for round in 0..ROUNDS {
        let file = format!("probe-bench-{round}.txt");
        tui.agent.model.set_command(&format!("touch {file}"));
        tui.agent.model.set_trigger(Some(&file));
        let seen = {
            let socket = socket.clone();
            let tool = format!("? Shell touch {file} ←");
            std::thread::spawn(move || {
                let deadline = Instant::now() + super::DEADLINE;
                while Instant::now() < deadline {
                    let out = std::process::Command::new("tmux")
                        .arg("-S")
                        .arg(&socket)
                        .args(["capture-pane", "-p", "-J"])
                        .output()
                        .expect("tmux capture-pane");
                    let pane = String::from_utf8_lossy(&out.stdout);
                    if pane.contains(&tool) && pane.contains("› 1. Yes, allow once") {
                        return Some(Instant::now());
                    }
                }
                None
            })
        };
        // Card changes as the supervisor streams them, each line timed
        // as it arrives.
        let mut watch = tui
            .agent
            .env
            .cmd(&["session", "approvals", name, "--watch", "--json"]);
        watch.stdout(Stdio::piped()).stderr(Stdio::null());
        let mut child = watch.spawn().expect("session approvals --watch");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let (lines_tx, lines_rx) = std::sync::mpsc::channel::<(Instant, String)>();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if lines_tx.send((Instant::now(), line)).is_err() {
                    break;
                }
            }
        });
        tui.type_line_shown(
            name,
            &format!("Create the file {file} with the shell tool."),
        );
        let title = format!("touch {file}");
        let (carded, card) = loop {
            let (at, line) = lines_rx
                .recv_timeout(super::DEADLINE)
                .expect("a pending card on the watch");
            let card: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            if card["state"] == "pending" && card["title"] == title.as_str() {
                break (at, card);
            }
        };
        let _ = child.kill();
        let _ = child.wait();
        let on_screen = seen
            .join()
            .expect("pane poller")
            .expect("the box on screen");
        to_card.push(carded.saturating_duration_since(on_screen).as_secs_f64() * 1000.0);
        let id = card["id"].as_str().expect("card id").to_owned();
        tui.session(&["answer", name, &id, "decline"])
            .assert_success();
        tui.wait_pane(name, "the call cancelled", &format!("- Shell touch {file}"));
    }
    let record = tui.record(name);
    let supervisor = record["pid"].as_u64().expect("pid") as u32;
    let agent = record["panePid"].as_u64().expect("panePid") as u32;
    // Let the turn's background calls (suggestions, memory) finish.
    std::thread::sleep(Duration::from_secs(10));
    let (s0, a0, t0) = (
        cpu_seconds(supervisor, false),
        cpu_seconds(agent, true),
        Instant::now(),
    );
    std::thread::sleep(idle);
    let (s1, a1, took) = (
        cpu_seconds(supervisor, false),
        cpu_seconds(agent, true),
        t0.elapsed(),
    );
    let percent = |a: f64, b: f64| (b - a) / took.as_secs_f64() * 100.0;
    to_card.sort_by(f64::total_cmp);
    println!(
        "TUI-BENCH {}",
        serde_json::json!({
            "agent": "qwen",
            "box_to_card_ms": to_card,
            "idle_seconds": took.as_secs_f64(),
            "supervisor_cpu_percent": percent(s0, s1),
            "agent_cpu_percent": percent(a0, a1),
        })
    );
    tui.stop(name);
}
