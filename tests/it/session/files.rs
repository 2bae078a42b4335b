//! What a clone brings under `.oneworks/sessions/`: every read
//! there follows no link and never blocks. A FIFO as `cards.jsonl` or
//! `supervisor.json` is refused, not waited on (`/api/sessions`, `session
//! list` and `session approvals` answer at once); a `cards.jsonl` that is a
//! link to a card planted elsewhere is not read; a session folder that is
//! a link is no session.

use std::path::Path;

use serde_json::{json, Value};

use crate::serve::Serve;
use crate::support::wait::DEADLINE;
use crate::support::{Outcome, TestEnv};

/// The title of the card planted outside the project.
const PLANTED: &str = "Running: planted";

fn card_line(id: &str, title: &str) -> String {
    json!({"id": id, "title": title, "state": "pending", "created_at": "2026-01-01T00:00:00Z"})
        .to_string()
        + "\n"
}

/// A record that a supervisor which is gone would have left (its pids
/// beyond any pid the kernel hands out).
fn record_text(name: &str) -> String {
    let gone = i32::MAX;
    json!({
        "name": name, "pid": gone, "approvals": "/nonexistent", "tmux": "/nonexistent",
        "tmuxProgram": "/nonexistent", "tmuxPid": gone, "panePid": gone,
        "startedAt": "2026-01-01T00:00:00Z",
    })
    .to_string()
}

fn session_folder(env: &TestEnv, name: &str) -> std::path::PathBuf {
    let folder = env.project.join(".oneworks/sessions").join(name);
    std::fs::create_dir_all(&folder).expect("session folder");
    crate::support::set_mode(&folder, 0o700);
    folder
}

fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo");
    assert!(made.success());
}

/// Runs oneworks; it must end within the deadline (a read waiting on a
/// FIFO never would).
fn run_bounded(env: &TestEnv, args: &[&str]) -> Outcome {
    env.oneworks().args(args).deadline(DEADLINE).run()
}

/// `GET /api/sessions`, which must answer within the deadline.
fn sessions_of(serve: &Serve) -> Value {
    let response = serve
        .raw(reqwest::Method::GET, "/api/sessions")
        .bearer_auth(&serve.token)
        .timeout(DEADLINE)
        .send()
        .expect("/api/sessions answers within the deadline");
    assert_eq!(response.status(), 200);
    let text = response.text().expect("body");
    serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"))
}

fn names_of(sessions: &Value) -> Vec<&str> {
    sessions
        .as_array()
        .expect("an array")
        .iter()
        .map(|session| session["name"].as_str().expect("a name"))
        .collect()
}

#[test]
fn a_fifo_in_a_session_folder_is_refused_not_waited_on() {
    let env = TestEnv::new();
    let piped = session_folder(&env, "piped");
    mkfifo(&piped.join("cards.jsonl"));
    mkfifo(&piped.join("supervisor.json"));
    let good = session_folder(&env, "good");
    std::fs::write(good.join("cards.jsonl"), card_line("c1", "Running: pwd")).expect("write");

    let serve = Serve::start(&env, &[]);
    let sessions = sessions_of(&serve);
    assert_eq!(names_of(&sessions), ["good", "piped"], "{sessions}");
    for session in sessions.as_array().expect("array") {
        let titles: Vec<&Value> = session["cards"]
            .as_array()
            .expect("cards")
            .iter()
            .map(|card| &card["title"])
            .collect();
        match session["name"].as_str() {
            Some("good") => assert_eq!(titles, [&json!("Running: pwd")], "{session}"),
            _ => assert!(titles.is_empty(), "{session}"),
        }
    }
    drop(serve);

    let listed = run_bounded(&env, &["session", "list", "--json"]);
    listed.assert_success();
    assert_eq!(listed.json(), json!([]), "{}", listed.describe());
    let piped_cards = run_bounded(&env, &["session", "approvals", "piped", "--json"]);
    piped_cards.assert_code(11);
    piped_cards.assert_stderr_contains("no session `piped` is running");
    let good_cards = run_bounded(&env, &["session", "approvals", "good", "--json"]);
    good_cards.assert_success();
    assert_eq!(good_cards.json()[0]["title"], "Running: pwd");
}

#[test]
fn links_in_the_sessions_folder_are_not_followed() {
    let env = TestEnv::new();
    // Elsewhere: a session's worth of files with a planted card.
    let elsewhere = env.outside.join("planted-session");
    std::fs::create_dir_all(&elsewhere).expect("mkdir");
    crate::support::set_mode(&elsewhere, 0o700);
    std::fs::write(elsewhere.join("cards.jsonl"), card_line("p1", PLANTED)).expect("write");
    std::fs::write(elsewhere.join("supervisor.json"), record_text("linked")).expect("write");
    // A session folder whose files are links there, and one that is a link.
    let linking = session_folder(&env, "linking");
    for file in ["cards.jsonl", "supervisor.json"] {
        std::os::unix::fs::symlink(elsewhere.join(file), linking.join(file)).expect("link");
    }
    std::os::unix::fs::symlink(&elsewhere, env.project.join(".oneworks/sessions/linked"))
        .expect("link");

    let serve = Serve::start(&env, &[]);
    let sessions = sessions_of(&serve);
    assert_eq!(names_of(&sessions), ["linking"], "{sessions}");
    assert_eq!(sessions[0]["cards"], json!([]), "{sessions}");
    assert_eq!(sessions[0]["state"], "stopped", "{sessions}");
    let view = serve.get("/view").text().expect("view");
    assert!(!view.contains("planted"), "{view}");
    drop(serve);

    let listed = run_bounded(&env, &["session", "list", "--json"]);
    listed.assert_success();
    assert_eq!(listed.json(), json!([]), "{}", listed.describe());
    for name in ["linking", "linked"] {
        let outcome = run_bounded(&env, &["session", "approvals", name, "--json"]);
        outcome.assert_code(11);
        assert!(
            !outcome.stdout.contains("planted") && !outcome.stderr.contains("planted"),
            "{name}: {}",
            outcome.describe()
        );
    }
    // Nothing was written through the links.
    let planted = std::fs::read_to_string(elsewhere.join("cards.jsonl")).expect("read");
    assert_eq!(planted, card_line("p1", PLANTED));
    assert_eq!(
        std::fs::read_dir(&elsewhere).expect("list").count(),
        2,
        "nothing added elsewhere"
    );
}
