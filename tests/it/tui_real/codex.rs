//! The real Codex TUI (`codex-acp cli`: codex-acp 2.6.0 runs its own
//! `@openai/codex` 0.166.0), supervised by `session start codex` against
//! the fake model's responses API: the provider entry of the user's
//! `configContent` (the key stays in the environment), the folder (a git
//! repository) trusted by `--trust-workspace` (`[projects."<project>"]
//! trust_level` in config.toml, so Codex asks nothing at start; without
//! it Codex asks the person), its background daemon and
//! its update check switched off by the adapter data. Approvals come from
//! the pane (no recorder, no hook wired).
//!
//! In Codex's defaults (`on-request`, `workspace-write`) a `touch` inside
//! the project runs in its sandbox without asking; the fake model's call
//! asks to leave the sandbox (`sandbox_permissions: "require_escalated"`,
//! as in `agents_real::codex`), and Codex shows the person its box.
//! Codex's one "no" (`No, and tell Codex what to do differently`) ends its
//! turn: the model is not asked again, the pane says so.

use super::{Declined, TuiAgent, TuiCase};
use crate::agents_real::{RealAgent, Snapshot, SECRET};

use crate::agents_real::codex::VERSION;

fn codex() -> TuiAgent {
    let snapshot = Snapshot::get("codex");
    assert_eq!(snapshot.root.version, VERSION);
    let mut codex = RealAgent::new("codex", "exec_command").sharing_installs();
    // `tui.disable_paste_burst`: the test types its prompt with one
    // `send-keys -l`, which Codex takes for a paste, and an Enter right
    // after a paste is not a submit (0.166.0); a person typing is not.
    let config = crate::agents_real::codex::user_config(&codex.model.url("/v1"));
    codex.write_user_config(&format!(
        "{config}      tui:\n        disable_paste_burst: true\n"
    ));
    let prepared = codex.prepare();
    assert_eq!(prepared["version"], VERSION, "{prepared}");
    codex.env.set_env("OPENAI_API_KEY", SECRET);
    // No justification: a `Reason:` line makes the box terminal-only
    // (manifests/codex.yaml says why).
    let mut escalated = serde_json::Map::new();
    escalated.insert("sandbox_permissions".into(), "require_escalated".into());
    codex.model.set_extra_arguments(escalated);
    // A git repository: Codex asks whether to trust it unless config.toml
    // says so, which `--trust-workspace` makes oneworks write.
    let status = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&codex.env.project)
        .status()
        .expect("git (apt-get install git)");
    assert!(status.success(), "git init");
    // Codex's `No, and tell Codex what to do differently` interrupts the
    // turn; the pane says it did not run.
    TuiAgent::new(codex).declined(Declined::EndsTheTurn {
        shows: |command| format!("You canceled the request to run {command}"),
        silent: false,
    })
}

fn case() -> TuiCase {
    TuiCase {
        ready: "Ask Codex to do anything",
        ready_again: Some("Ask Codex to do anything"),
        terminal_allow: &["Enter"],
        title: |command| command.to_owned(),
        start_args: &["--trust-workspace"],
    }
}

#[test]
fn the_real_codex_tui_box_is_answered_from_a_card() {
    let _share = crate::support::heavy::share();
    let codex = codex();
    // Not trusted, the folder question is the person's: oneworks writes
    // no trust level and Codex asks.
    codex.start("untrusted", &[]);
    codex.wait_pane("untrusted", "Codex's folder question", "Trust this folder?");
    codex.stop("untrusted");
    codex.standard_checks(&case());
}

/// `benches/session.sh`'s figures for Codex ([`super::measure::run`]): its
/// box read from the pane.
#[test]
#[ignore = "a measurement: benches/session.sh runs it"]
fn measure() {
    super::measure::serially(codex, &case(), "pane", super::measure::Rounds::EVEN);
}
