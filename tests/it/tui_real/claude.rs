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
use crate::agents_real::{RealAgent, Snapshot, SECRET};
use crate::support::node_mirror::{self, NodeRelease};

const VERSION: &str = "0.101.0";

/// What Claude's TUI shows once it is ready, and after its `No`.
const READY: &str = "? for shortcuts";
const INTERRUPTED: &str = "Interrupted · What should Claude do instead?";

const CASE: TuiCase = TuiCase {
    ready: READY,
    ready_again: Some(READY),
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
    let mut claude = RealAgent::new("claude", "Bash").sharing_installs();
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
    let _share = crate::support::heavy::share();
    let tui = prepared();
    // A box whose focus moved between the bridge's keys gets no further key.
    tui.standard_checks_then_a_box_changed_between_keys("probe-nudged.txt", &CASE);
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
    // The key was in no file (the checks above), nor in the TUI's own
    // state file.
    let state = tui
        .agent
        .env
        .project
        .join(".oneworks/sessions/checks/claude-home/.claude.json");
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
    let _share = crate::support::heavy::share();
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

/// `benches/session.sh`'s figures for Claude ([`super::measure::run`]):
/// its card comes from its own `PermissionRequest` hook; one decline, last
/// (see [`super::measure::Rounds`]).
#[test]
#[ignore = "a measurement: benches/session.sh runs it"]
fn measure() {
    let rounds = super::measure::Rounds {
        accepts: 5,
        declines: 1,
    };
    super::measure::serially(prepared, &CASE, "hook", rounds);
}
