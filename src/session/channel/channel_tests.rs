#![allow(clippy::disallowed_methods)] // test fixtures use std::fs directly
//! The channel end to end on a real socket, with a scripted pane.

use std::sync::Mutex;

use super::*;
use crate::session::cards::{CardBook, CardState};
use crate::session::delivery::keystroke_bridge::{Pane, PaneError};
use crate::session::signals::pane::tests::spec_prompt;
use crate::session::signals::recorder::parse_line;
use crate::session::signals::recorder::tests::{line, request_message};
use crate::session::supervisor::state::PaneFactory;

struct FixedPane {
    keys: Arc<Mutex<Vec<String>>>,
}

impl Pane for FixedPane {
    fn capture(&mut self) -> Result<String, PaneError> {
        Ok(spec_prompt("Shell pwd", true, 0))
    }
    fn send_key(&mut self, key: &str) -> Result<(), PaneError> {
        self.keys.lock().expect("keys").push(key.to_owned());
        Ok(())
    }
}

struct Running {
    socket: std::path::PathBuf,
    state: Arc<SessionState>,
    keys: Arc<Mutex<Vec<String>>>,
    _temp: tempfile::TempDir,
}

fn start() -> Running {
    let temp = tempfile::tempdir().expect("tempdir");
    let socket = temp.path().join("approvals.sock");
    let keys = Arc::new(Mutex::new(Vec::new()));
    let factory_keys = Arc::clone(&keys);
    let factory: PaneFactory = Arc::new(move || {
        Box::new(FixedPane {
            keys: Arc::clone(&factory_keys),
        })
    });
    let mut tui = crate::adapter::data::AdapterData::builtin()
        .expect("data")
        .tui;
    tui.render_gap_ms = 1;
    tui.settle_ms = 1;
    let state = SessionState::new(CardBook::new("default", None, None), tui, factory);
    let (ready_send, ready) = std::sync::mpsc::channel();
    let server_state = Arc::clone(&state);
    let path = socket.clone();
    std::thread::spawn(move || {
        let runtime = crate::process::runtime().expect("runtime");
        runtime.block_on(async move {
            let listener = bind(&path).expect("bind");
            ready_send.send(()).expect("ready");
            serve(listener, server_state).await;
        });
    });
    ready.recv().expect("server ready");
    Running {
        socket,
        state,
        keys,
        _temp: temp,
    }
}

fn park(state: &SessionState, id: &str) -> Card {
    let text = line(&request_message(id, "Running: pwd"), true, "in");
    state.recorder_batch(vec![parse_line(text.as_bytes()).expect("line")]);
    state.cards().into_iter().last().expect("a card was opened")
}

#[test]
fn the_socket_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let running = start();
    let mode = fs_err::metadata(&running.socket)
        .expect("socket")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn list_watch_and_answer_with_the_first_verdict_winning() {
    let running = start();
    let mut watcher = Client::connect(&running.socket, "default").expect("connect");
    watcher.send(&json!({"op": "watch"})).expect("watch");
    let card = park(&running.state, "r1");
    let seen = watcher
        .next(Some(Duration::from_secs(10)))
        .expect("read")
        .expect("a card line");
    assert_eq!(card_of(&seen).expect("card").id, card.id);

    let listed = Client::connect(&running.socket, "default")
        .expect("connect")
        .request(&json!({"op": "list"}))
        .expect("list");
    assert_eq!(listed["cards"][0]["state"], "pending");

    let reply = Client::connect(&running.socket, "default")
        .expect("connect")
        .request(&json!({"op": "answer", "card": card.id, "action": "accept"}))
        .expect("answer");
    assert_eq!(reply["card"]["state"], "delivered", "{reply}");
    assert_eq!(*running.keys.lock().expect("keys"), ["Enter"]);

    let again = Client::connect(&running.socket, "default")
        .expect("connect")
        .request(&json!({"op": "answer", "card": card.id, "action": "decline"}))
        .expect("answer");
    assert!(
        again["error"]
            .as_str()
            .is_some_and(|error| error.contains("no longer pending")),
        "{again}"
    );
    assert_eq!(
        running.keys.lock().expect("keys").len(),
        1,
        "no second delivery"
    );
    // The watcher saw delivering and delivered.
    let states: Vec<CardState> = (0..2)
        .map(|_| {
            let value = watcher
                .next(Some(Duration::from_secs(10)))
                .expect("read")
                .expect("line");
            card_of(&value).expect("card").state
        })
        .collect();
    assert_eq!(states, [CardState::Delivering, CardState::Delivered]);
}

#[test]
fn bad_requests_get_an_error_and_nothing_happens() {
    let running = start();
    let card = park(&running.state, "r1");
    for request in [
        json!({"op": "answer", "card": card.id, "action": "allow_always"}),
        json!({"op": "answer", "card": "kiro_default_0000", "action": "accept"}),
        json!({"op": "launch"}),
        json!({"op": "list", "extra": 1}),
    ] {
        let reply = Client::connect(&running.socket, "default")
            .expect("connect")
            .request(&request)
            .expect("reply");
        assert!(reply["error"].is_string(), "{request} → {reply}");
    }
    assert!(running.keys.lock().expect("keys").is_empty());
    assert_eq!(running.state.cards()[0].state, CardState::Pending);
}
