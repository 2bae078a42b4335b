//! The shared state's races: fallback cards and their keys.

use std::sync::Mutex as StdMutex;
use std::time::{Duration, Instant};

use super::*;
use crate::session::cards::CardState;
use crate::session::delivery::keystroke_bridge::PaneError;
use crate::session::signals::pane_fallback::detect;
use crate::session::signals::pane_watch::card_for;

const GENERIC: &str =
    " $ echo probe\n Run this command?\n  → Run (once) (y)\n    Skip (esc or n)\n";

struct Screen {
    keys: Arc<StdMutex<Vec<String>>>,
}

impl Pane for Screen {
    fn capture(&mut self) -> Result<String, PaneError> {
        Ok(GENERIC.to_owned())
    }
    fn send_key(&mut self, key: &str) -> Result<(), PaneError> {
        self.keys.lock().expect("keys").push(key.to_owned());
        Ok(())
    }
}

fn state() -> (Arc<SessionState>, Arc<StdMutex<Vec<String>>>, TuiData) {
    let keys = Arc::new(StdMutex::new(Vec::new()));
    let shared = Arc::clone(&keys);
    let mut tui = crate::adapter::data::AdapterData::builtin()
        .expect("data")
        .tui;
    tui.settle_ms = 1;
    let factory: PaneFactory = Arc::new(move || {
        Box::new(Screen {
            keys: Arc::clone(&shared),
        })
    });
    let state = SessionState::new(CardBook::new("default", None, None), tui.clone(), factory);
    (state, keys, tui)
}

fn wait_state(state: &SessionState, id: &str, wanted: CardState) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while state.lock().book.card(id).map(|card| card.state) != Some(wanted) {
        assert!(Instant::now() < deadline, "card never became {wanted:?}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_fallback_card_is_answered_with_its_advertised_key() {
    let (state, keys, tui) = state();
    let prompt = detect(GENERIC, &tui).expect("prompt");
    let (request, delivery) = card_for(1, &prompt, GENERIC, &tui);
    state.pane_prompt(request, delivery);
    let card = state.cards().pop().expect("card");
    state.answer(&card.id, Verdict::Decline).expect("claimed");
    wait_state(&state, &card.id, CardState::Delivered);
    assert_eq!(*keys.lock().expect("keys"), ["n"]);
    // Its vanish after our key changes nothing.
    state.pane_vanished("pane-1");
    assert_eq!(state.cards()[0].state, CardState::Delivered);
}

#[test]
fn a_vanished_fallback_prompt_was_answered_in_the_terminal() {
    let (state, keys, tui) = state();
    let prompt = detect(GENERIC, &tui).expect("prompt");
    let (request, _) = card_for(1, &prompt, GENERIC, &tui);
    // A prompt that advertises no keys at all.
    let delivery = Delivery::Key {
        hash: prompt.hash.clone(),
        accept: None,
        decline: None,
        cancel: None,
    };
    state.pane_prompt(request, delivery);
    let card = state.cards().pop().expect("card");
    state.answer(&card.id, Verdict::Accept).expect("claimed");
    wait_state(&state, &card.id, CardState::DeliveryFailed);
    assert!(keys.lock().expect("keys").is_empty());

    let (request, delivery) = card_for(2, &prompt, GENERIC, &tui);
    state.pane_prompt(request, delivery);
    let second = state.cards().pop().expect("card");
    state.pane_vanished("pane-2");
    assert_eq!(
        state.lock().book.card(&second.id).map(|card| card.state),
        Some(CardState::AnsweredInTerminal)
    );
    assert!(state.answer(&second.id, Verdict::Accept).is_err());
}
