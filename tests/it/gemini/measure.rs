//! `benches/session.sh`'s figures for the real Gemini CLI's TUI, its box read from the pane. Gemini replays its recorded turn
//! offline ([`RealGemini`]: `--fake-responses-non-strict`, the prompt given
//! with `-i`), one turn a session: each round starts a session, times its
//! box → card and the answer (declined, then accepted, alternately); the
//! last session stays up for the idle CPU. Same figures as
//! [`crate::tui_real::measure::run`].

use std::time::Duration;

use crate::gemini::real::{RealGemini, PROBE};
use crate::support::wait::wait_for_every;
use crate::tui_real::measure::{box_and_card, idle, questions, Figures};

const ROUNDS: usize = 4;

#[test]
#[ignore = "a measurement: benches/session.sh runs it"]
fn measure() {
    let _alone = crate::support::heavy::alone();
    let gemini = RealGemini::new().expect("Node.js >= 20 for the real Gemini CLI");
    gemini.prepare();
    let questions = questions("gemini");
    let probe = gemini.env.project.join(PROBE);
    let mut figures = Figures {
        agent: "gemini",
        signal: "pane",
        to_card: Vec::new(),
        accepts: Vec::new(),
        declines: Vec::new(),
    };
    let mut last = String::new();
    for round in 0..ROUNDS {
        if round > 0 {
            gemini.session(&["stop", &last]).assert_success();
        }
        let name = format!("bench-{round}");
        let _ = std::fs::remove_file(&probe);
        // The session first (`--watch` needs it): Gemini's box comes
        // seconds later, once Node started and the replay reached it.
        gemini
            .session(&["start", "gemini", "--detach", "--name", &name])
            .assert_success();
        let watch =
            gemini
                .env
                .oneworks()
                .args(["session", "approvals", &name, "--watch", "--json"]);
        let (latency, card) = box_and_card(watch, || gemini.pane(&name), &questions, || {});
        figures.to_card.push(latency);
        let id = card["id"].as_str().expect("card id");
        let started = std::time::Instant::now();
        if round % 2 == 0 {
            gemini
                .session(&["answer", &name, id, "decline"])
                .assert_success();
            figures.declines.push(started.elapsed());
            gemini.wait_pane(&name, "the cancelled request", "Request cancelled");
            assert!(!probe.exists(), "a declined touch ran");
        } else {
            gemini
                .session(&["answer", &name, id, "accept"])
                .assert_success();
            figures.accepts.push(started.elapsed());
            wait_for_every(
                Duration::from_millis(50),
                "the accepted touch ran",
                Duration::from_secs(120),
                || {
                    if probe.is_file() {
                        Ok(())
                    } else {
                        Err(gemini.pane(&name))
                    }
                },
            );
            gemini.wait_pane(&name, "the end of the turn", "All done");
        }
        last = name;
    }
    let record = gemini.env.session_record(&last).expect("supervisor record");
    figures.idle_and_print(&record, idle());
    gemini.session(&["stop", &last]).assert_success();
}
