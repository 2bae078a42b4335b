//! The keystroke bridge's hostile twins and the recorder race rules, on
//! real tmux: a prompt that changes between keys gets no Enter, the
//! terminal wins when it answers first, one card at a time.

use serde_json::{json, Value};

use crate::session::supervisor::{request, Session};

/// The answer fails with exit 11, naming the refusal's `code`; the card
/// ends `delivery_failed` with that code and its sentence as the reason.
fn failed_closed(session: &Session, card: &Value, action: &str, code: &str) {
    let outcome = session.answer(card, action);
    outcome.assert_code(11);
    assert!(
        outcome
            .stderr
            .contains(&format!("(delivery_failed): {code}: ")),
        "{}",
        outcome.describe()
    );
    let ended = session.wait_card("delivery_failed", |other| other["id"] == card["id"]);
    assert_eq!(ended["state"], "delivery_failed", "{ended}");
    assert_eq!(ended["refused"]["code"], code, "{ended}");
    assert!(ended["reason"].is_string(), "{ended}");
    assert_eq!(ended["refused"]["message"], ended["reason"], "{ended}");
}

#[test]
fn a_title_change_between_keys_sends_no_enter_and_the_terminal_still_works() {
    let session = Session::new(|_| {
        json!({
            "requests": [request("r1", "Running: pwd")],
            "events": [{"afterKey": 1, "action": {"do": "setToolLine", "text": "Shell rm -rf /"}}],
        })
    });
    session.start();
    let card = session.pending_card();
    failed_closed(&session, &card, "decline", "another_prompt");
    session.assert_keys(&["Down"]);
    assert!(session.responses().is_empty(), "the prompt was answered");
    // A person at the terminal still answers it.
    session.person_presses("Escape");
    crate::support::wait::wait_until(
        "the TUI answered",
        crate::session::supervisor::DEADLINE,
        || !session.responses().is_empty(),
    );
    assert_eq!(session.responses(), [("r1".to_owned(), Value::Null)]);
    session.assert_keys(&["Down", "Esc"]);
    assert_eq!(session.cards()[0]["state"], "delivery_failed");
    session.stop_and_check();
}

#[test]
fn a_focus_moved_or_a_prompt_withdrawn_between_keys_fails_closed() {
    let session = Session::new(|markers| {
        json!({
            "requests": [
                request("r1", "Running: pwd"),
                {"id": "r2", "title": "Running: ls", "waitFor": markers.join("second")},
            ],
            "events": [
                {"afterKey": 1, "action": {"do": "focus", "row": 2}},
                {"afterKey": 3, "action": {"do": "withdraw"}},
            ],
        })
    });
    session.start();
    let card = session.pending_card();
    // Our Down lands the focus two rows further: even though `No` is now
    // focused, nothing more is sent.
    failed_closed(&session, &card, "decline", "focus_moved");
    session.assert_keys(&["Down"]);
    // The person answers r1; r2 comes; it vanishes after our first Down.
    session.person_presses("Enter");
    session.touch("second");
    let second = session.wait_card("for r2", |other| other["state"] == "pending");
    failed_closed(&session, &second, "cancel", "prompt_gone");
    session.assert_keys(&["Down", "Enter", "Down"]);
    session.stop_and_check();
}

#[test]
fn the_terminal_answering_first_wins_with_enter_or_esc() {
    let session = Session::new(|markers| {
        json!({"requests": [
            request("r1", "Running: pwd"),
            {"id": "r2", "title": "Running: ls", "waitFor": markers.join("second")},
        ]})
    });
    session.start();
    let card = session.pending_card();
    session.person_presses("Enter");
    session.wait_card("answered in the terminal", |other| {
        other["id"] == card["id"] && other["state"] == "answered_in_terminal"
    });
    let late = session.answer(&card, "decline");
    late.assert_code(11);
    late.assert_stderr_contains("no longer pending");

    session.touch("second");
    let second = session.wait_card("for r2", |other| other["state"] == "pending");
    session.person_presses("Escape");
    session.wait_card("answered with Esc", |other| {
        other["id"] == second["id"] && other["state"] == "answered_in_terminal"
    });
    session.assert_keys(&["Enter", "Esc"]);
    session.stop_and_check();
}

#[test]
fn same_batch_answers_park_nothing_and_one_card_at_a_time() {
    let session = Session::new(|markers| {
        json!({"requests": [
            {"id": "s1", "title": "Running: echo s1", "sameBatch": true},
            request("r1", "Running: echo r1"),
            {"id": "r2", "title": "Running: echo r2", "recordOnly": true, "waitFor": markers.join("r2")},
            {"id": "r3", "title": "Running: echo r3", "waitFor": markers.join("r3")},
        ], "msgAsObject": true, "tsAsNumber": true})
    });
    session.start();
    let first = session.pending_card();
    assert_eq!(first["title"], "Running: echo r1");
    session.touch("r2");
    session.touch("r3");
    crate::support::wait::wait_until(
        "r2 is in the recorder",
        crate::session::supervisor::DEADLINE,
        || session.recorder().contains("echo r2"),
    );
    session.answer(&first, "accept").assert_success();
    let third = session.wait_card("for r3", |card| card["state"] == "pending");
    assert_eq!(third["title"], "Running: echo r3");
    let titles: Vec<Value> = session
        .cards()
        .iter()
        .map(|card| card["title"].clone())
        .collect();
    assert_eq!(
        titles,
        [json!("Running: echo r1"), json!("Running: echo r3")]
    );
    session.stop_and_check();
}

#[test]
fn hostile_titles_are_stripped_and_scrubbed_everywhere() {
    let secret = "ksk_title_secret_0123456789";
    let title = format!(
        "Running: curl -H {secret} \u{1b}]0;pwned\u{7}\u{1b}[2J {}",
        "x".repeat(3000)
    );
    let mut session = Session::new(|_| json!({"requests": [request("r1", &title)]}));
    session.env.set_env("KIRO_API_KEY", secret);
    session.start();
    let card = session.pending_card();
    let shown = card["title"].as_str().expect("title");
    // Card text: kept whole up to 16 KiB, its tail shown.
    assert!(shown.ends_with(&"x".repeat(3000)), "the tail was cut");
    assert_eq!(card["complete"], true);
    assert!(!shown.chars().any(char::is_control), "{shown:?}");
    assert!(!shown.contains(secret), "{shown}");
    let human = session.env.run(&["session", "approvals", "default"]);
    human.assert_success();
    assert!(!human.stdout.contains('\u{1b}') && !human.stdout.contains(secret));
    assert!(
        human.stdout.starts_with(card["id"].as_str().expect("id")),
        "{}",
        human.stdout
    );
    let history =
        std::fs::read_to_string(session.session_root().join("cards.jsonl")).expect("history");
    assert!(!history.contains(secret), "the secret reached cards.jsonl");
    assert!(
        !history.contains("\\u001b"),
        "a control character reached cards.jsonl"
    );
    session.stop_and_check();
}
