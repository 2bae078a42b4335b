//! The pane-scrape fallback on real tmux: a Kiro without the recorder
//! (`paneFallback: auto`) still gets cards, read from the pane.

use serde_json::json;

use crate::supervisor::{request, Session};
use crate::support::fake::{install_fake, kiro_script, with};

#[test]
fn a_kiro_without_the_recorder_gets_cards_from_the_pane() {
    let session = Session::new(|markers| {
        json!({"requests": [
            request("r1", "Running: pwd"),
            {"id": "r2", "title": "Running: ls", "waitFor": markers.join("second")},
        ]})
    });
    // The same fake, reporting a version before the recorder (2.4).
    let script: serde_json::Value = serde_json::from_slice(
        &std::fs::read(session.env.bin.join("kiro-cli.script.json")).expect("script"),
    )
    .expect("script json");
    let old = with(
        &script,
        "versionOutput",
        kiro_script("2.3.0")["versionOutput"].clone(),
    );
    install_fake(&session.env.bin, "kiro-cli", &old);
    session.start();
    let card = session.pending_card();
    assert_eq!(card["title"], "Shell pwd");
    session.answer(&card, "decline").assert_success();
    session.assert_keys(&["Down", "Down", "Enter"]);
    assert_eq!(
        session.cards()[0]["state"],
        "delivered",
        "no recorder to confirm with"
    );

    // The next prompt is answered by a person: it vanishes.
    session.touch("second");
    let second = session.wait_card("for r2", |other| other["state"] == "pending");
    assert_eq!(second["title"], "Shell ls");
    session.person_presses("Escape");
    session.wait_card("answered in the terminal", |other| {
        other["id"] == second["id"] && other["state"] == "answered_in_terminal"
    });
    session.assert_keys(&["Down", "Down", "Enter", "Esc"]);
    session.stop_and_check();
}
