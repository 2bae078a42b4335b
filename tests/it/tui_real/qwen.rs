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
//! The shared [`TuiAgent::standard_checks`] do not fit Qwen's No: it ends
//! the turn (`- Shell …` stays in the history) without a word to the
//! model, while the shared decline step waits for the tool result to
//! reach it. [`checks`] runs the same three checks with the decline step
//! replaced by "the pane shows the call cancelled, the model heard
//! nothing more, and no file".

use serde_json::Value;

use super::{TuiAgent, TuiCase};
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
}

/// Types `text`, waits until the pane shows it (Qwen drops keys that
/// arrive while it still initializes), then Enter.
fn type_prompt(tui: &TuiAgent, name: &str, text: &str) {
    // An argument that names no key is sent as its characters.
    tui.press(name, &[text]);
    tui.wait_pane(name, "the typed prompt", text);
    tui.press(name, &["Enter"]);
}

/// [`TuiAgent::ask`], with the prompt typed by [`type_prompt`].
fn ask(tui: &TuiAgent, name: &str, file: &str) -> Value {
    tui.agent.model.set_command(&format!("touch {file}"));
    tui.agent.model.set_trigger(Some(file));
    tui.start(name, CASE.start_args);
    tui.wait_pane(name, "the TUI ready for a prompt", CASE.ready);
    type_prompt(
        tui,
        name,
        &format!("Create the file {file} with the shell tool."),
    );
    let card = tui.wait_card(name, "pending", |card| card["state"] == "pending");
    assert_eq!(
        card["title"].as_str(),
        Some((CASE.title)(&format!("touch {file}")).as_str()),
        "{card:#}\npane:\n{}",
        tui.pane(name)
    );
    card
}

/// accept runs the command; decline does not (and tells the model
/// nothing: the turn ends); an allow pressed in the terminal resolves
/// the card `answered_in_terminal`.
fn checks(tui: &TuiAgent) {
    // accept
    let card = ask(tui, "accept", "probe-accepted.txt");
    let id = card["id"].as_str().expect("card id").to_owned();
    assert!(id.starts_with("qwen_accept_"), "{id}");
    tui.session(&["answer", "accept", &id, "accept"])
        .assert_success();
    tui.wait_file("accept", "probe-accepted.txt");
    tui.wait_tool_result("accept", 0);
    tui.wait_pane(
        "accept",
        "the call shown done",
        "✓ Shell touch probe-accepted.txt",
    );
    tui.stop("accept");

    // decline
    let card = ask(tui, "decline", "probe-declined.txt");
    let id = card["id"].as_str().expect("card id").to_owned();
    let before = tui.agent.model.requests().len();
    tui.session(&["answer", "decline", &id, "decline"])
        .assert_success();
    tui.wait_pane(
        "decline",
        "the call shown cancelled",
        "- Shell touch probe-declined.txt",
    );
    tui.wait_card("decline", "declined", |c| {
        c["id"] == id.as_str() && c["state"] != "pending"
    });
    assert!(
        !tui.agent.env.project.join("probe-declined.txt").exists(),
        "a declined touch ran:\n{}",
        tui.pane("decline")
    );
    assert_eq!(
        tui.agent.model.requests().len(),
        before,
        "No sends nothing to the model:\n{}",
        tui.agent.model.describe()
    );
    tui.stop("decline");

    // answered in the terminal
    let card = ask(tui, "terminal", "probe-terminal.txt");
    let id = card["id"].as_str().expect("card id").to_owned();
    tui.press("terminal", CASE.terminal_allow);
    let card = tui.wait_card("terminal", "answered in the terminal", |c| {
        c["id"] == id.as_str() && c["state"] == "answered_in_terminal"
    });
    assert_eq!(card["state"], "answered_in_terminal");
    tui.wait_file("terminal", "probe-terminal.txt");
    let late = tui.session(&["answer", "terminal", &id, "accept"]);
    late.assert_code(11);
    assert!(
        late.stderr.contains("no longer pending"),
        "{}",
        late.describe()
    );
    tui.stop("terminal");
}

#[test]
fn the_real_qwen_tui_is_supervised_accept_decline_and_the_terminal_answer() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let tui = prepared();
    checks(&tui);
    // A box whose focus moves between two keys gets no further key.
    let reason = tui.box_changed_between_keys("nudged", "probe-nudged.txt", &CASE);
    assert!(!reason.is_empty());
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
