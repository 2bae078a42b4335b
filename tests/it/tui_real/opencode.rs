//! The real opencode 1.18.33 TUI (`opencode-ai` + `opencode-linux-x64`,
//! prepared from the loopback registry) under `oneworks session start
//! opencode`, against the fake model's OpenAI chat completions: its own
//! `bash` tool asks (`permission.bash: ask` forced by the data), the box
//! is read from the pane (opencode has no recorder and no hook that fires
//! before it asks) with the buttons side by side and the focus by colour.
//! After a decline opencode ends its turn without a word to the model: the
//! refusal reaches it with the person's next message
//! ([`DeclineEndsTurn`]).

use super::{DeclineEndsTurn, Declined, TuiAgent, TuiCase};
use crate::agents_real::{RealAgent, Snapshot, SECRET};

use crate::agents_real::opencode::VERSION;

/// opencode's world: the managed install of [`VERSION`], a `local`
/// provider pointing at the fake model, the key only in the environment.
fn opencode() -> TuiAgent {
    let snapshot = Snapshot::get("opencode");
    assert_eq!(snapshot.root.version, VERSION);
    let mut agent = RealAgent::new("opencode", "bash").sharing_installs();
    agent.write_user_config(&crate::agents_real::opencode::user_config(
        &agent.model.url("/v1"),
    ));
    let prepared = agent.prepare();
    assert_eq!(prepared["version"], VERSION, "{prepared}");
    agent.env.set_env("OPENAI_API_KEY", SECRET);
    // Its own npm, if it ran, would ask this loopback registry (never the
    // public one): the test checks it asks nothing.
    agent
        .env
        .set_env("npm_config_registry", &agent.registry.url("/"));
    TuiAgent::new(agent).declined(Declined::WithTheNextMessage(DeclineEndsTurn {
        question: "Permission required",
        next: "Go on without that file.",
        // opencode's PermissionRejectedError, in the tool result it sends.
        refusal: "The user rejected permission to use this specific tool call.",
    }))
}

const CASE: TuiCase = TuiCase {
    // The home screen's prompt placeholder.
    ready: "Ask anything",
    ready_again: None,
    // The focus opens on `Allow once`.
    terminal_allow: &["Enter"],
    // The box shows the command itself (`$ touch …`).
    title: str::to_owned,
    // opencode asks nothing about folder trust.
    start_args: &[],
};

#[test]
fn the_real_opencode_tui_is_supervised_from_its_pane() {
    let _share = crate::support::heavy::share();
    let tui = opencode();
    let before = tui.agent.registry.total_hits();
    // Right (the bridge's), Right (the person's): the focus is past
    // `Allow always`, on `Reject` instead.
    let reason = tui.standard_checks_then_a_box_changed_between_keys("probe-changed.txt", &CASE);
    assert!(
        matches!(
            &reason,
            oneworks::session::delivery::keystroke_bridge::DeliveryRefusal::FocusMoved { .. }
        ),
        "{reason}"
    );
    // No npm install of `@opencode-ai/plugin` at start
    // (`npm_config_offline` in opencode's data).
    assert_eq!(
        tui.agent.registry.total_hits(),
        before,
        "opencode fetched from the npm registry in its session"
    );
}

/// `benches/session.sh`'s figures for opencode ([`super::measure::run`]):
/// its box read from the pane.
#[test]
#[ignore = "a measurement: benches/session.sh runs it"]
fn measure() {
    super::measure::serially(opencode, &CASE, "pane", super::measure::Rounds::EVEN);
}
