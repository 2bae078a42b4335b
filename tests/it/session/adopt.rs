//! A supervisor that dies loses no agent work. The agent keeps
//! running in its pane; the next command starts a supervisor over the same
//! tmux server and pane, the pending card comes back under its id, and a
//! card whose request was answered in the terminal meanwhile ends
//! `answered_in_terminal` instead of staying pending.

use serde_json::{json, Value};

use crate::session::supervisor::{alive, assert_gone, request, Session};

#[test]
fn a_killed_supervisor_is_replaced_by_one_that_re_adopts_the_agent() {
    // The agent keeps running in its pane; the next command
    // starts a supervisor over the same tmux server and pane, the pending
    // card comes back under its id, answering it reaches the TUI, and the
    // next request is mirrored.
    let session = Session::new(
        |_| json!({"requests": [request("r1", "Running: pwd"), request("r2", "Running: ls")]}),
    );
    session.start();
    let card = session.pending_card();
    let pids = session.pids();
    let again = session.env.run(&["session", "start", "kiro", "--detach"]);
    again.assert_code(11);
    again.assert_stderr_contains("already running");
    crate::support::signal(pids[0], "-KILL");
    assert_gone(&pids[..1]);
    assert!(alive(pids[1]), "tmux went with the supervisor");
    let listed = session.env.run(&["session", "list", "--json"]);
    listed.assert_success();
    assert_eq!(
        listed.json()[0]["state"],
        "recovered",
        "{}",
        listed.describe()
    );
    let record = session.record().expect("a record");
    assert_ne!(record["pid"], pids[0], "{record}");
    assert_eq!(
        record["panePid"], pids[2],
        "the agent was started again: {record}"
    );
    assert!(alive(pids[2]), "the agent is gone");
    // Said once.
    let listed = session.env.run(&["session", "list", "--json"]);
    assert_eq!(
        listed.json()[0]["state"],
        "running",
        "{}",
        listed.describe()
    );
    let back = session.pending_card();
    assert_eq!(
        back["id"], card["id"],
        "the card came back under another id"
    );
    assert_eq!(back["title"], "Running: pwd");
    session.answer(&back, "accept").assert_success();
    session.assert_keys(&["Enter"]);
    session.wait_card("accepted", |seen| {
        seen["id"] == card["id"] && seen["state"] == "accepted"
    });
    let next = session.wait_card("the next request", |seen| {
        seen["title"] == "Running: ls" && seen["state"] == "pending"
    });
    assert_ne!(next["id"], card["id"]);
    session.stop_and_check();
}

#[test]
fn a_card_answered_in_the_terminal_while_no_supervisor_watched_ends_so() {
    let session = Session::new(|markers| {
        json!({"requests": [
            request("r1", "Running: pwd"),
            {"id": "r2", "title": "Running: ls", "waitFor": markers.join("second")},
        ]})
    });
    session.start();
    let card = session.pending_card();
    let pids = session.pids();
    crate::support::signal(pids[0], "-KILL");
    assert_gone(&pids[..1]);
    session.person_presses("Enter");
    crate::support::wait::wait_until(
        "the TUI answered r1",
        crate::session::supervisor::DEADLINE,
        || session.responses().iter().any(|(id, _)| id == "r1"),
    );
    session.env.run(&["session", "list"]).assert_success();
    let history =
        std::fs::read_to_string(session.session_root().join("cards.jsonl")).expect("cards.jsonl");
    let last: Value = history
        .lines()
        .rev()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|seen| seen["id"] == card["id"])
        .expect("the card's lines");
    assert_eq!(last["state"], "answered_in_terminal", "{history}");
    // The new supervisor mirrors the next request.
    session.touch("second");
    let next = session.wait_card("the next request", |seen| {
        seen["title"] == "Running: ls" && seen["state"] == "pending"
    });
    assert_ne!(next["id"], card["id"]);
    assert!(alive(pids[2]), "the agent is gone");
    session.stop_and_check();
}
