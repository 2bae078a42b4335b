//! No secret survives a chunk boundary, a cut or a transformation,
//! through the real binary and the fake
//! `kiro-cli`.

use serde_json::{json, Value};

use crate::run::acp_env::{events, AcpEnv};
use crate::session::supervisor::{request, Session};

const PROMPT: &[&str] = &["--prompt", "Say hello"];

/// 25 characters, PascalCase so that snake_casing would change it.
const SECRET: &str = "AkiaSecretValueXyz0123456";

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut all: Vec<&str> = PROMPT.to_vec();
    all.extend_from_slice(extra);
    all
}

/// The texts of the events of `kind`, concatenated.
fn texts(events: &[Value], kind: &str) -> String {
    events
        .iter()
        .filter(|event| event["type"] == kind)
        .map(|event| event["text"].as_str().unwrap_or_default())
        .collect()
}

/// The secret split at every third of its length, in both kinds of chunk
/// and both dialects: stdout never shows it, the `--json` texts never
/// rebuild it, and no other text is lost or reordered.
#[test]
fn a_secret_split_across_chunks_is_scrubbed() {
    for dialect in ["standard", "kiro"] {
        for at in [4, 12, 24] {
            let (head, tail) = SECRET.split_at(at);
            let mut acp = AcpEnv::new(json!({
                "dialect": dialect,
                "turn": [
                    {"text": "the key is "},
                    {"text": head},
                    {"text": format!("{tail} and more")},
                    {"thought": format!("thinking {head}")},
                    {"thought": format!("{tail} over")},
                    {"toolCall": {"id": "t1", "title": "Read a.rs", "kind": "read"}},
                    {"text": format!("again {head}")},
                    {"text": tail}
                ]
            }));
            acp.env.set_env("KIRO_API_KEY", SECRET);
            let outcome = acp.run(&args(&["--json"]));
            outcome.assert_success();
            outcome.assert_stdout_lacks(SECRET);
            let events = events(&outcome);
            let message = texts(&events, "agent_message_chunk");
            assert_eq!(
                message,
                "the key is [redacted] and moreagain [redacted]",
                "{dialect} {at}: {}",
                outcome.describe()
            );
            let thought = texts(&events, "agent_thought_chunk");
            assert_eq!(thought, "thinking [redacted] over", "{dialect} {at}");
            // Held text is released before the tool call, not after it.
            let kinds: Vec<&str> = events
                .iter()
                .filter_map(|event| event["type"].as_str())
                .collect();
            let tool = kinds.iter().position(|kind| *kind == "tool_call");
            let last_before = kinds[..tool.expect("a tool_call event")]
                .iter()
                .rposition(|kind| *kind == "agent_thought_chunk");
            assert!(last_before.is_some(), "{kinds:?}");
            assert!(
                !events[..tool.unwrap_or(0)]
                    .iter()
                    .any(|event| event["text"].as_str().is_some_and(|t| t.contains("again"))),
                "{kinds:?}"
            );

            let human = acp.run(&args(&[]));
            human.assert_success();
            human.assert_text_lacks(SECRET);
            assert_eq!(
                human.stdout,
                "the key is [redacted] and more\nagain [redacted]\n",
                "{}",
                human.describe()
            );
        }
    }
}

/// A secret at the 2000-character cut of a stderr line does not leave its
/// first 24 characters in the tail shown when the agent dies; the `--json`
/// error document has no `"hint":null`.
#[test]
fn the_stderr_tail_is_scrubbed_before_it_is_cut() {
    let line = format!("{}{SECRET} after\n", "x".repeat(2000 - 24));
    let mut acp = AcpEnv::new(json!({
        "turn": [
            {"text": "working"},
            {"crash": {"stderr": line, "code": 3}}
        ]
    }));
    acp.env.set_env("KIRO_API_KEY", SECRET);
    for extra in [&["--json"][..], &[][..]] {
        let outcome = acp.run(&args(extra));
        outcome.assert_failure();
        assert!(
            outcome.stderr.contains("xxxxxxxx"),
            "the tail is shown: {}",
            outcome.describe()
        );
        let text = outcome.all_text();
        assert!(!text.contains(&SECRET[..10]), "{}", outcome.describe());
        if extra.is_empty() {
            continue;
        }
        let documents: Vec<Value> = outcome
            .stdout
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|document| document.get("error").is_some())
            .collect();
        assert!(!documents.is_empty(), "{}", outcome.describe());
        for document in documents {
            let error = document["error"].as_object().expect("an object");
            assert!(
                error.get("hint").is_none_or(|hint| !hint.is_null()),
                "{document}"
            );
        }
    }
}

/// `sessionUpdate`, `kind` and `status` as the agent sent them are
/// scrubbed before they are snake_cased: neither the secret nor its
/// snake_cased form comes out; known values are still translated.
#[test]
fn agent_strings_are_scrubbed_before_they_are_transformed() {
    let snake = "akia_secret_value_xyz0123456";
    let mut acp = AcpEnv::new(json!({
        "dialect": "kiro",
        "turn": [
            {"update": {"sessionUpdate": format!("Fancy{SECRET}"), "x": 1}},
            {"update": {"sessionUpdate": "ToolCall", "toolCallId": "t1", "title": "Edit a.rs",
                        "kind": SECRET, "status": format!("{SECRET}Pending")}},
            {"update": {"sessionUpdate": "ToolCall", "toolCallId": "t2", "title": "Edit b.rs",
                        "kind": "Edit", "status": "InProgress"}},
            {"text": "done"}
        ]
    }));
    acp.env.set_env("KIRO_API_KEY", SECRET);
    let outcome = acp.run(&args(&["--json", "-vv"]));
    outcome.assert_success();
    let text = outcome.all_text();
    assert!(!text.contains(SECRET), "{}", outcome.describe());
    assert!(!text.contains(snake), "{}", outcome.describe());
    assert!(!text.contains("secret_value"), "{}", outcome.describe());
    let events = events(&outcome);
    let tools: Vec<&Value> = events
        .iter()
        .filter(|event| event["type"] == "tool_call")
        .collect();
    assert_eq!(tools.len(), 2, "{}", outcome.describe());
    assert_eq!(tools[0]["kind"], "[redacted]");
    assert_eq!(tools[0]["status"], "[redacted]Pending");
    assert_eq!(tools[1]["kind"], "edit");
    assert_eq!(tools[1]["status"], "in_progress");
    let unknown = events
        .iter()
        .find(|event| event["type"] == "unknown_update")
        .expect("the unknown update");
    assert_eq!(unknown["sessionUpdate"], "Fancy[redacted]");

    let human = acp.run(&args(&["-vv"]));
    human.assert_success();
    human.assert_text_lacks(snake);
    human.assert_text_lacks(SECRET);
}

/// A card title with a secret across the 16 KiB bound of card text
/// keeps none of it, in `session approvals` and in
/// `cards.jsonl`: scrubbed whole, the rest fits and is shown.
#[test]
fn a_card_title_is_scrubbed_before_it_is_cut() {
    let title = format!("Running: {}{SECRET} tail", "x".repeat(16 * 1024 - 9 - 24));
    let mut session = Session::new(|_| json!({"requests": [request("r1", &title)]}));
    session.env.set_env("KIRO_API_KEY", SECRET);
    session.start();
    let card = session.pending_card();
    let shown = card["title"].as_str().expect("title");
    assert!(!shown.contains(&SECRET[..10]), "{shown}");
    assert!(shown.ends_with("[redacted] tail"), "{shown}");
    let human = session.env.run(&["session", "approvals", "default"]);
    human.assert_success();
    assert!(!human.stdout.contains(&SECRET[..10]), "{}", human.stdout);
    let history =
        std::fs::read_to_string(session.session_root().join("cards.jsonl")).expect("history");
    assert!(!history.contains(&SECRET[..10]), "{history}");
    session.stop_and_check();
}

/// Agent stderr is scrubbed as a stream: a secret that spans two lines
/// (a value with a newline, like a PEM key) is found in the tail shown
/// when the agent dies.
#[test]
fn a_secret_spanning_stderr_lines_is_scrubbed() {
    let secret = "first-half-of-the-key\nsecond-half-of-the-key";
    let mut acp = AcpEnv::new(json!({
        "turn": [
            {"text": "working"},
            {"crash": {"stderr": format!("before\n{secret}\nafter\n"), "code": 3}}
        ]
    }));
    acp.env.set_env("KIRO_API_KEY", secret);
    let outcome = acp.run(&args(&["-vv"]));
    outcome.assert_failure();
    outcome.assert_stderr_contains("after");
    outcome.assert_stderr_lacks("first-half");
    outcome.assert_stderr_lacks("second-half");
}

/// An `{"error":…}` document without a hint has no `hint` field, never
/// `"hint":null`.
#[test]
fn an_error_document_without_a_hint_omits_it() {
    let acp = AcpEnv::new(json!({
        "turn": [{"crash": {"stderr": "boom\n", "code": 3}}]
    }));
    let outcome = acp.run(&args(&["--json"]));
    outcome.assert_failure();
    let document = outcome
        .stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|document| document.get("error").is_some())
        .unwrap_or_else(|| panic!("no error document\n{}", outcome.describe()));
    let error = document["error"].as_object().expect("an object");
    assert!(error.contains_key("message"), "{document}");
    assert!(!error.contains_key("hint"), "{document}");
    outcome.assert_stdout_lacks("\"hint\":null");
}
