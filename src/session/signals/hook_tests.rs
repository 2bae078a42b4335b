use std::sync::{Arc, Mutex};

use serde_json::json;

use super::*;
use crate::session::cards::{CardBook, CardState};
use crate::session::delivery::keystroke_bridge::{Pane, PaneError};
use crate::session::supervisor::state::PaneFactory;

/// Claude Code 2.1.318's `PermissionRequest` data, as `manifests/claude.yaml`
/// says it.
fn claude() -> TuiData {
    let file: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(include_str!("../../../manifests/claude.yaml")).expect("yaml");
    serde_yaml_ng::from_value(file["tui"].clone()).expect("claude tui data")
}

/// A payload as Claude Code sends it on its hook's stdin.
fn payload(command: &str) -> Value {
    json!({
        "session_id": "5f1c",
        "transcript_path": "/h/.claude/projects/p/5f1c.jsonl",
        "cwd": "/work/p",
        "permission_mode": "default",
        "hook_event_name": "PermissionRequest",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "Create a file"},
        "permission_suggestions": [],
    })
}

fn data() -> HookSignalData {
    claude().signals.hook.expect("claude has a signal hook")
}

#[test]
fn a_claude_payload_reads_as_its_command_tool_and_cwd() {
    let signal = read(&payload("touch probe-created.txt"), &data()).expect("signal");
    assert_eq!(signal.text, "touch probe-created.txt");
    assert_eq!(signal.tool.as_deref(), Some("Bash"));
    assert_eq!(signal.cwd.as_deref(), Some("/work/p"));
    assert_eq!(signal.agent_id.len(), 64);
    let other = read(&payload("touch other.txt"), &data()).expect("signal");
    assert_ne!(
        signal.agent_id, other.agent_id,
        "the tool input is part of the id"
    );
}

#[test]
fn a_tool_without_a_command_shows_its_whole_input() {
    let mut edit = payload("x");
    edit["tool_input"] = json!({"file_path": "/work/p/a.txt", "content": "hi"});
    let signal = read(&edit, &data()).expect("signal");
    // Claude's data takes shell asks only.
    edit["tool_name"] = json!("Write");
    assert_eq!(read(&edit, &data()), None);
    assert_eq!(
        signal.text,
        r#"{"file_path":"/work/p/a.txt","content":"hi"}"#
    );
}

#[test]
fn hostile_or_foreign_payloads_are_not_signals() {
    let data = data();
    let mut other_event = payload("touch a");
    other_event["hook_event_name"] = json!("PreToolUse");
    let mut no_input = payload("touch a");
    no_input
        .as_object_mut()
        .expect("object")
        .remove("tool_input");
    let mut blank = payload("   ");
    blank["tool_input"]["command"] = json!("   ");
    for hostile in [
        json!("touch a"),
        json!([payload("touch a")]),
        other_event,
        no_input,
        blank,
        json!({"hook_event_name": ["PermissionRequest"]}),
    ] {
        assert_eq!(read(&hostile, &data), None, "{hostile}");
    }
}

struct Screen(Arc<Mutex<String>>);

impl Pane for Screen {
    fn capture(&mut self) -> Result<String, PaneError> {
        Ok(self.0.lock().expect("screen").clone())
    }
    fn send_key(&mut self, _key: &str) -> Result<(), PaneError> {
        Ok(())
    }
}

fn state() -> Arc<SessionState> {
    let factory: PaneFactory = Arc::new(|| Box::new(Screen(Arc::default())));
    SessionState::new(CardBook::new("claude_s", None, None), claude(), factory)
}

fn line(value: &Value) -> Vec<u8> {
    format!("{value}\n").into_bytes()
}

#[test]
fn a_signal_line_makes_one_card_with_the_agent_id_and_text() {
    let state = state();
    let data = data();
    let signal = json!({"op": "signal", "kind": "hook", "payload": payload("touch a")});
    receive(&state, &data, &line(&signal));
    receive(&state, &data, &line(&signal));
    let cards = state.cards();
    assert_eq!(cards.len(), 1, "the same ask twice is one card");
    let card = &cards[0];
    let agent_id = read(&payload("touch a"), &data).expect("signal").agent_id;
    let digest = hex::encode(&Sha256::digest(agent_id.as_bytes())[..8]);
    assert_eq!(card.id, format!("claude_s_{digest}"));
    assert_eq!(card.title, "touch a");
    assert_eq!(card.kind.as_deref(), Some("Bash"));
    assert_eq!(card.cwd.as_deref(), Some("/work/p"));
    assert_eq!(card.state, CardState::Pending);
    assert!(card.complete);

    // Other ops, other kinds, garbage: nothing.
    for bad in [
        json!({"op": "answer", "card": card.id, "action": "accept"}),
        json!({"op": "signal", "kind": "recorder", "payload": payload("touch b")}),
        json!({"op": "signal", "kind": "hook", "payload": payload("touch b"), "extra": 1}),
    ] {
        receive(&state, &data, &line(&bad));
    }
    receive(&state, &data, b"{not json\n");
    assert_eq!(state.cards().len(), 1);
}

#[test]
fn card_text_is_scrubbed_and_made_visible() {
    let rules = crate::adapter::data::AdapterData::builtin()
        .expect("data")
        .credentials;
    let scrubber = crate::redact::Scrubber::new(
        vec![(
            "ANTHROPIC_API_KEY".to_owned(),
            "sk-secret-value-123".to_owned(),
        )],
        &crate::redact::rules::CredentialRules::union([&rules]),
    );
    let factory: PaneFactory = Arc::new(|| Box::new(Screen(Arc::default())));
    let state = SessionState::new(
        CardBook::new("claude_s", None, Some(scrubber)),
        claude(),
        factory,
    );
    let sneaky = "echo sk-secret-value-123; r\u{200b}m -rf x";
    let signal = read(&payload(sneaky), &data()).expect("signal");
    state.hook_signal(signal.request(), &signal.agent_id);
    let title = &state.cards()[0].title;
    assert!(!title.contains("sk-secret-value-123"), "{title}");
    assert!(title.contains("⟨U+200B⟩"), "{title}");
}

#[test]
fn forward_sends_one_line_and_gives_up_silently() {
    let temp = tempfile::tempdir().expect("tempdir");
    let socket = temp.path().join("signals.sock");
    let listener = std::os::unix::net::UnixListener::bind(&socket).expect("bind");
    let body = payload("touch a").to_string();
    forward(body.as_bytes(), Some(&socket));
    let (mut stream, _) = listener.accept().expect("a connection");
    let mut received = String::new();
    stream.read_to_string(&mut received).expect("read");
    let sent: Value = serde_json::from_str(received.trim_end()).expect("one JSON line");
    assert!(received.ends_with('\n') && received.matches('\n').count() == 1);
    assert_eq!(
        sent,
        json!({"op": "signal", "kind": "hook", "payload": payload("touch a")})
    );

    // Too big, not JSON, no socket, a relative path, nobody listening:
    // nothing is sent and nothing fails.
    listener.set_nonblocking(true).expect("nonblocking");
    let huge = format!("{{\"x\":\"{}\"}}", "a".repeat(MAX_PAYLOAD));
    forward(huge.as_bytes(), Some(&socket));
    forward(&b"not json"[..], Some(&socket));
    forward(body.as_bytes(), None);
    forward(body.as_bytes(), Some(Path::new("signals.sock")));
    assert!(listener.accept().is_err(), "nothing was sent");
    forward(body.as_bytes(), Some(&temp.path().join("gone.sock")));
}

#[tokio::test]
async fn the_pane_attaches_the_hook_card_whose_command_it_shows() {
    let mut tui = claude();
    // A box the grammar reads (the claude helper owns the real one):
    // Kiro's, with the command as its tool line.
    let kiro = crate::adapter::data::AdapterData::builtin()
        .expect("data")
        .tui;
    tui.prompt = kiro.prompt;
    tui.prompt.tool.title_prefixes.clear();
    let mut hook = data();
    hook.pane_wait_ms = 100;
    tui.signals.hook = Some(hook.clone());
    let factory: PaneFactory = Arc::new(|| Box::new(Screen(Arc::default())));
    let state = SessionState::new(CardBook::new("claude_s", None, None), tui.clone(), factory);
    let screen = crate::session::signals::pane::tests::spec_prompt("touch a", false, 0);

    // No hook card: the pane makes its own, after the wait.
    assert!(!attach(&state, &tui, &screen, "pane-1").await);
    // A hook card for another command is not this box's.
    signal(&state, &hook, "touch b");
    assert!(!attach(&state, &tui, &screen, "pane-1").await);
    // The hook arriving while the pane waits: attached.
    let waiting = {
        let state = Arc::clone(&state);
        let tui = tui.clone();
        let screen = screen.clone();
        tokio::spawn(async move { attach(&state, &tui, &screen, "pane-2").await })
    };
    tokio::task::yield_now().await;
    signal(&state, &hook, "touch a");
    assert!(waiting.await.expect("task"));
    let card = state
        .cards()
        .into_iter()
        .find(|card| card.title == "touch a")
        .expect("the hook card");
    // Its box vanishing without our key: answered in the terminal.
    state.pane_vanished("pane-2");
    assert_eq!(
        state.lock().book.card(&card.id).map(|card| card.state),
        Some(CardState::AnsweredInTerminal)
    );
}

/// What the signals socket does with `command`'s payload.
fn signal(state: &SessionState, data: &HookSignalData, command: &str) {
    let signal = read(&payload(command), data).expect("signal");
    state.hook_signal(signal.request(), &signal.agent_id);
}
