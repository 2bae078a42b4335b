//! The terminal channel of `oneworks run kiro`: on a TTY a permission
//! question is a selection prompt (English and Chinese labels); the keys
//! typed answer it. The terminal is a pty from util-linux `script`.

use std::io::Write;
use std::sync::{Arc, Mutex};

use serde_json::json;

use crate::run::acp_env::{options_full, AcpEnv, EVENT_DEADLINE};

/// Waits until the terminal output holds `text`.
/// Waits until every one of `texts` has appeared (the prompt is drawn in
/// more than one write, so one label says nothing of the others).
fn wait_for(output: &Arc<Mutex<Vec<u8>>>, texts: &[&str]) -> String {
    let what = format!("{texts:?} all appeared on the terminal");
    crate::support::wait::wait_for(&what, EVENT_DEADLINE, || {
        let seen = String::from_utf8_lossy(&output.lock().expect("lock")).into_owned();
        if texts.iter().all(|text| seen.contains(text)) {
            Ok(seen)
        } else {
            Err(seen)
        }
    })
}

fn answer_on_terminal(keys: &str) -> (AcpEnv, Option<i32>, String) {
    let acp = AcpEnv::new(json!({
        "turn": [
            {"permission": {"id": "p1", "title": "Run ls", "kind": "execute", "options": options_full()}},
            {"text": "listed"}
        ]
    }));
    let mut child = acp
        .oneworks(&["--prompt", "Say hello"])
        .terminal()
        .stderr_null()
        .spawn();
    let output = crate::support::capture_stdout(&mut child);
    let shown = wait_for(
        &output,
        &[
            "允许一次",
            "Kiro CLI asks permission",
            "Run ls",
            "Allow once",
            "Always allow",
        ],
    );
    assert!(
        shown.contains("Kiro CLI asks permission") && shown.contains("Run ls"),
        "{shown}"
    );
    assert!(
        shown.contains("Allow once") && shown.contains("Always allow"),
        "{shown}"
    );
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(keys.as_bytes()).expect("type");
    stdin.flush().expect("flush");
    let status =
        crate::support::wait::wait_for("oneworks finished", crate::support::RUN_DEADLINE, || {
            child.try_wait().expect("try_wait").ok_or_else(String::new)
        });
    drop(stdin);
    let text = String::from_utf8_lossy(&output.lock().expect("lock")).into_owned();
    (acp, status.code(), text)
}

fn wire_outcome(acp: &AcpEnv) -> serde_json::Value {
    acp.received()
        .into_iter()
        .find(|message| message.get("method").is_none() && message["id"] == "p1")
        .map(|message| message["result"]["outcome"].clone())
        .expect("an answer")
}

#[test]
fn enter_on_the_terminal_prompt_allows_once() {
    let (acp, code, text) = answer_on_terminal("\r");
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("listed"), "{text}");
    assert_eq!(
        wire_outcome(&acp),
        json!({"outcome": "selected", "optionId": "proceed_once"})
    );
}

#[test]
fn an_explicit_choice_of_a_persistent_option_on_the_terminal() {
    // Down, then Enter: the person chose Kiro's own "always" option.
    let (acp, code, text) = answer_on_terminal("\u{1b}[B\r");
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(
        wire_outcome(&acp),
        json!({"outcome": "selected", "optionId": "proceed_always"})
    );
}

#[test]
fn escape_on_the_terminal_prompt_cancels_the_run() {
    let acp_and_more = answer_on_terminal("\u{1b}");
    let (acp, code, text) = acp_and_more;
    assert_eq!(code, Some(130), "{text}");
    assert_eq!(wire_outcome(&acp), json!({"outcome": "cancelled"}));
}
