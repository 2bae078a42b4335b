//! The real Claude Code TUI (2.1.318, the native `claude` that
//! `claude-agent-acp --cli` 0.101.0 spawns), supervised by `session start
//! claude` in its private tmux against the loopback fake model: prepared
//! as in [`crate::agents_real`]'s claude test, `ANTHROPIC_BASE_URL` and
//! `ANTHROPIC_API_KEY` from the environment only. The profile world
//! settles every first-run dialog (onboarding, the auto-mode offer, the
//! "use this API key?" question, folder trust with `--trust-workspace`):
//! the test types its prompt into a ready TUI, or fails showing the pane.
//!
//! Claude's prompt is sent only once the pane shows the typed text (an
//! Enter in the same burst is a new line of the prompt:
//! [`TuiAgent::enter_once_shown`]), and its `No` ends the turn
//! ("Interrupted · What should Claude do instead?") without a word to the
//! model ([`Declined::EndsTheTurn`], silent).

use super::{Declined, TuiAgent, TuiCase};
use crate::agents_real::{RealAgent, Snapshot, SECRET, SERIAL};
use crate::support::node_mirror::{self, NodeRelease};

const VERSION: &str = "0.101.0";

/// What Claude's TUI shows once it is ready, and after its `No`.
const READY: &str = "? for shortcuts";
const INTERRUPTED: &str = "Interrupted · What should Claude do instead?";

const CASE: TuiCase = TuiCase {
    ready: READY,
    // The allow row `1. Yes` is focused when the box comes up.
    terminal_allow: &["Enter"],
    // The box shows the command itself.
    title: |command| command.to_owned(),
    // Claude asks whether to trust the folder unless the person did.
    start_args: &["--trust-workspace"],
};

/// Claude prepared from the loopback registry, pointed at the fake model.
fn prepared() -> TuiAgent {
    let snapshot = Snapshot::get("claude");
    assert_eq!(snapshot.root.version, VERSION);
    let mut claude = RealAgent::new("claude", "Bash");
    node_mirror::serve(&claude.env.server, &[&NodeRelease::real()], &[]);
    claude.write_user_config(&format!(
        "adapters:\n  claude:\n    cli:\n      source: managed\n      version: {VERSION}\n"
    ));
    let prepared = claude.prepare();
    assert_eq!(prepared["version"], VERSION, "{prepared}");
    claude
        .env
        .set_env("ANTHROPIC_BASE_URL", &claude.model.url(""));
    claude.env.set_env("ANTHROPIC_API_KEY", SECRET);
    TuiAgent::new(claude)
        .declined(Declined::EndsTheTurn {
            shows: |_| INTERRUPTED.to_owned(),
            silent: true,
        })
        .enter_once_shown()
}

#[test]
fn the_real_claude_tui_is_supervised_accept_decline_and_the_terminal_answer() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let tui = prepared();
    tui.standard_checks(&CASE);
    // A box whose focus moved between the bridge's keys gets no further key.
    tui.box_changed_between_keys("nudged", "probe-nudged.txt", &CASE);
    assert!(!tui.agent.env.project.join("probe-nudged.txt").exists());
    let model = &tui.agent.model;
    let requests = model.requests();
    assert!(
        requests.iter().any(|r| r.carries(SECRET)),
        "the key reached the model (through apiKeyHelper):\n{}",
        model.describe()
    );
    assert!(
        model
            .tool_calls()
            .iter()
            .all(|c| c.path.ends_with("/messages")),
        "{}",
        model.describe()
    );
    // The key was never in a file, nor in the TUI's own state file.
    tui.agent.assert_no_file_holds_the_secret();
    let state = tui
        .agent
        .env
        .project
        .join(".oneworks/sessions/accept/claude-home/.claude.json");
    let state: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&state).expect(".claude.json")).expect("json");
    assert_eq!(state["hasCompletedOnboarding"], true, "{state:#}");
    assert!(
        state["customApiKeyResponses"]["approved"]
            .as_array()
            .is_none_or(Vec::is_empty),
        "no part of a key approved in the state file: {state:#}"
    );
}

/// Without `--trust-workspace` the folder trust question is the person's:
/// the TUI shows it, and nothing is typed for them.
#[test]
fn the_real_claude_tui_asks_about_an_untrusted_folder_itself() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let tui = prepared();
    tui.start("untrusted", &[]);
    tui.wait_pane(
        "untrusted",
        "Claude's own folder trust question",
        "Yes, I trust this folder",
    );
    assert!(
        !tui.pane("untrusted").contains(READY),
        "{}",
        tui.pane("untrusted")
    );
    tui.stop("untrusted");
}

/// `benches/session.sh`'s figures for Claude (the shape of
/// [`super::measure::run`], whose decline step waits for a tool result
/// Claude never sends): box on screen → pending card over `ROUNDS` boxes
/// (accepted, the last declined), each answer's time, then the idle CPU
/// of the supervisor and of the agent over `ONEWORKS_BENCH_IDLE_SECONDS`
/// (60 by default). Prints `TUI-BENCH {json}`.
#[test]
#[ignore = "a measure: benches/session.sh runs it in a release build"]
fn measure() {
    use super::measure::{
        answer, box_on_screen, cpu_seconds, percentile, questions, tree_cpu_seconds,
    };
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    const ROUNDS: usize = 6;
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
    let questions = questions("claude");
    let name = "bench";
    tui.start(name, CASE.start_args);
    tui.wait_pane(name, "the TUI ready for a prompt", READY);
    let (mut to_card, mut accepts, mut declines) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let file = format!("probe-bench-{round}.txt");
        tui.agent.model.set_command(&format!("touch {file}"));
        tui.agent.model.set_trigger(Some(&file));
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
        let deadline = Instant::now() + super::DEADLINE;
        let (mut shown, mut card) = (None, None);
        while shown.is_none() || card.is_none() {
            assert!(
                Instant::now() < deadline,
                "no box/card:\n{}",
                tui.pane(name)
            );
            if shown.is_none() && box_on_screen(&tui.pane(name), &questions) {
                shown = Some(Instant::now());
            }
            while let Ok((at, line)) = lines_rx.try_recv() {
                let Ok(value) = serde_json::from_str::<serde_json::Value>(&line) else {
                    continue;
                };
                let found = if value["card"].is_object() {
                    value["card"].clone()
                } else {
                    value
                };
                if found["state"] == "pending" && card.is_none() {
                    card = Some((at, found));
                }
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = child.kill();
        let _ = child.wait();
        let (carded, card) = card.expect("card");
        // A card first (the hook): 0 by this measure.
        to_card.push(carded.saturating_duration_since(shown.expect("shown")));
        // Declined last: after Claude's `No` its next request carries the
        // refused call's result with the new prompt, which the fake model
        // answers as a finished turn (no box).
        if round + 1 == ROUNDS {
            declines.push(answer(&tui, name, &card, "decline"));
            tui.wait_pane(name, "the turn interrupted", INTERRUPTED);
        } else {
            accepts.push(answer(&tui, name, &card, "accept"));
            tui.wait_file(name, &file);
        }
        // The box gone and the prompt back: the turn is over.
        let deadline = Instant::now() + super::DEADLINE;
        while box_on_screen(&tui.pane(name), &questions) || !tui.pane(name).contains(READY) {
            assert!(
                Instant::now() < deadline,
                "never ready again:\n{}",
                tui.pane(name)
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    let record = tui.record(name);
    let supervisor = record["pid"].as_u64().expect("supervisor pid") as u32;
    let agent = record["panePid"].as_u64().expect("pane pid") as u32;
    let (s0, a0, t0) = (
        cpu_seconds(supervisor),
        tree_cpu_seconds(agent),
        Instant::now(),
    );
    std::thread::sleep(idle);
    let wall = t0.elapsed().as_secs_f64();
    let supervisor_cpu = (cpu_seconds(supervisor) - s0) / wall * 100.0;
    let agent_cpu = ((tree_cpu_seconds(agent) - a0) / wall * 100.0).max(0.0);
    tui.stop(name);
    let figures = serde_json::json!({
        "agent": "claude",
        "signal": "pane",
        "rounds": ROUNDS,
        "box_to_card_ms": {"p50": percentile(&to_card, 50.0), "p95": percentile(&to_card, 95.0), "max": percentile(&to_card, 100.0)},
        "accept_ms": {"p50": percentile(&accepts, 50.0), "max": percentile(&accepts, 100.0)},
        "decline_ms": {"p50": percentile(&declines, 50.0), "max": percentile(&declines, 100.0)},
        "idle_seconds": wall,
        "supervisor_cpu_percent": supervisor_cpu,
        "agent_cpu_percent": agent_cpu,
    });
    println!("TUI-BENCH {figures}");
}
