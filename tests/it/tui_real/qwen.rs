//! The real Qwen Code 0.24.4 TUI, supervised: `qwen` in
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
use crate::agents_real::{RealAgent, Snapshot, SECRET};
use crate::support::node_mirror::{self, NodeRelease};

const VERSION: &str = "0.24.4";

/// The input line of a ready TUI (shown once Qwen has initialized).
const READY: &str = "Type your message or @path/to/file";

const CASE: TuiCase = TuiCase {
    ready: READY,
    // After a turn Qwen asks the model for a suggested next prompt and
    // shows it in the input line in place of the placeholder (the fake
    // model's answer, "OK"): the box gone is the sign.
    ready_again: None,
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
    let mut qwen = RealAgent::new("qwen", "run_shell_command").sharing_installs();
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
    let _share = crate::support::heavy::share();
    let tui = prepared();
    // A box whose focus moves between two keys gets no further key.
    let reason = tui.standard_checks_then_a_box_changed_between_keys("probe-nudged.txt", &CASE);
    assert!(!reason.to_string().is_empty());
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
    // The world forced the English interface.
    let settings = tui
        .agent
        .env
        .project
        .join(".oneworks/sessions/checks/qwen-home/settings.json");
    let settings: Value =
        serde_json::from_slice(&std::fs::read(&settings).expect("settings.json")).expect("json");
    assert_eq!(settings["general"]["language"], "en", "{settings:#}");
    assert_eq!(settings["tools"]["approvalMode"], "default", "{settings:#}");
}

/// `benches/session.sh`'s figures for Qwen ([`super::measure::run`]): its
/// box read from the pane.
#[test]
#[ignore = "a measurement: benches/session.sh runs it"]
fn measure() {
    super::measure::serially(prepared, &CASE, "pane", super::measure::Rounds::EVEN);
}

/// Re-adoption with the real TUI: a supervisor killed with a card pending
/// loses nothing. The agent (same pane pid) keeps running; the next
/// command starts a supervisor that re-adopts its tmux and pane; the card
/// comes back under its id; accepting it reaches Qwen (the command runs);
/// the next box is mirrored.
#[test]
fn the_real_qwen_tui_loses_nothing_when_its_supervisor_is_killed() {
    let _share = crate::support::heavy::share();
    let tui = prepared();
    let name = "adopted";
    let card = tui.ask(name, "adopted-1.txt", &CASE);
    let record = tui.record(name);
    let supervisor = record["pid"].as_u64().expect("pid") as u32;
    crate::support::signal(supervisor, "-KILL");
    crate::support::wait::wait_until("the supervisor is gone", super::DEADLINE, || {
        !crate::support::alive(supervisor)
    });
    let back = tui.wait_card(name, "back under its id", |seen| {
        seen["id"] == card["id"] && seen["state"] == "pending"
    });
    assert_eq!(back["title"], card["title"]);
    let now = tui.record(name);
    assert_ne!(now["pid"], record["pid"], "{now}");
    assert_eq!(
        now["panePid"], record["panePid"],
        "the agent was started again: {now}"
    );
    let id = card["id"].as_str().expect("card id");
    tui.session(&["answer", name, id, "accept"])
        .assert_success();
    tui.wait_file(name, "adopted-1.txt");
    tui.wait_ready_again(name, &CASE);
    let next = tui.ask_again(name, "adopted-2.txt", &CASE);
    assert_ne!(next["id"], card["id"]);
    tui.stop(name);
}
