//! The shared state of a running supervisor: the card book, the recorder
//! mirror, and the deliveries in flight. The recorder tail, the approvals
//! channel and the webhook all go through here, so the race rules live in
//! one place: the first verdict wins, a delivery ends by releasing the
//! slot, a terminal answer cancels the delivery.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::{broadcast, Notify};

use crate::adapter::tui_data::TuiData;
use crate::session::cards::{Card, CardBook, Verdict};
use crate::session::delivery::keystroke_bridge::{Bridge, DeliveryRefusal, Pane};
use crate::session::refusal::Refusal;
use crate::session::signals::recorder::ApprovalRequest;
use crate::session::signals::recorder_tail::{Mirror, TailEvent};

/// Opens the pane a delivery types into (tmux in production, a scripted
/// pane in tests).
pub type PaneFactory = Arc<dyn Fn() -> Box<dyn Pane + Send> + Send + Sync>;

/// Called with each new pending card.
type ParkCallback = Box<dyn Fn(Card) + Send>;

pub struct Inner {
    pub book: CardBook,
    pub mirror: Mirror,
    /// How pane-fallback cards are delivered (recorder cards: the bridge).
    deliveries: std::collections::HashMap<String, Delivery>,
}

/// How a verdict reaches the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    /// The agent's prompt: row by row through the keystroke bridge.
    Bridge,
    /// Another TUI's prompt: the one key its rows advertise (tmux names),
    /// sent only while the prompt with `hash` is on screen.
    Key {
        hash: String,
        accept: Option<String>,
        decline: Option<String>,
        cancel: Option<String>,
    },
}

pub struct SessionState {
    inner: Mutex<Inner>,
    updates: broadcast::Sender<Card>,
    /// Asked to stop (the `stop` op).
    pub stop: Notify,
    /// A hook signal made a card (the pane watcher may be waiting for it).
    pub signals: Notify,
    tui: TuiData,
    pane: PaneFactory,
    /// Called with every new pending card (the webhook).
    on_park: Mutex<Option<ParkCallback>>,
    /// The answer links minted for the webhook's cards (SPEC §8.5).
    pub links: crate::session::delivery::links::LinkBook,
}

impl SessionState {
    pub fn new(book: CardBook, tui: TuiData, pane: PaneFactory) -> Arc<Self> {
        let (updates, _) = broadcast::channel(256);
        Arc::new(Self {
            inner: Mutex::new(Inner {
                book,
                mirror: Mirror::default(),
                deliveries: std::collections::HashMap::new(),
            }),
            updates,
            stop: Notify::new(),
            signals: Notify::new(),
            tui,
            pane,
            on_park: Mutex::new(None),
            links: crate::session::delivery::links::LinkBook::default(),
        })
    }

    pub fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn on_park(&self, callback: impl Fn(Card) + Send + 'static) {
        *self.on_park.lock().unwrap_or_else(PoisonError::into_inner) = Some(Box::new(callback));
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Card> {
        self.updates.subscribe()
    }

    pub fn cards(&self) -> Vec<Card> {
        self.lock().book.cards()
    }

    fn publish(&self, card: Card) {
        // No watcher is fine.
        let _ = self.updates.send(card);
    }

    /// Feeds one batch of recorder messages through the mirror.
    pub fn recorder_batch(
        &self,
        messages: Vec<crate::session::signals::recorder::RecorderMessage>,
    ) {
        if messages.is_empty() {
            return;
        }
        let mut parked = Vec::new();
        {
            let mut inner = self.lock();
            for event in inner.mirror.batch(messages) {
                match event {
                    TailEvent::Park(request) => {
                        let card = inner.book.open(request);
                        parked.push(card.clone());
                        self.publish(card);
                    }
                    TailEvent::Resolved { response, .. } => {
                        if let Some(card) = inner.book.resolved(response) {
                            self.publish(card);
                        }
                    }
                }
            }
        }
        let on_park = self.on_park.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(callback) = on_park.as_ref() {
            for card in parked {
                callback(card);
            }
        }
    }

    /// The cards now and every change after, with nothing lost or doubled
    /// in between (changes are published under the same lock).
    pub fn watch(&self) -> (Vec<Card>, broadcast::Receiver<Card>) {
        let inner = self.lock();
        (inner.book.cards(), self.updates.subscribe())
    }

    /// The pane fallback found a new prompt.
    pub fn pane_prompt(&self, request: ApprovalRequest, delivery: Delivery) {
        let card = {
            let mut inner = self.lock();
            let card = inner.book.open(request);
            inner.deliveries.insert(card.id.clone(), delivery);
            self.publish(card.clone());
            card
        };
        let on_park = self.on_park.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(callback) = on_park.as_ref() {
            callback(card);
        }
    }

    /// The agent's hook says it is about to ask (`request`, the agent's
    /// own `agent_id`): the card, at once (none when that ask has one).
    pub fn hook_signal(&self, request: ApprovalRequest, agent_id: &str) {
        let card = {
            let mut inner = self.lock();
            let Some(card) = inner.book.open_signal(request, agent_id) else {
                return;
            };
            self.publish(card.clone());
            card
        };
        self.signals.notify_waiters();
        let on_park = self.on_park.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(callback) = on_park.as_ref() {
            callback(card);
        }
    }

    /// The agent's box showed and no signal card matched it: the one
    /// signal card still waiting, if exactly one, fails (its text is not
    /// what the agent shows; the pane's card is the one to answer).
    pub fn signal_not_shown(&self) {
        let mut inner = self.lock();
        if let [(id, _)] = inner.book.unattached_signals().as_slice() {
            if let Some(card) = inner.book.signal_not_shown(id) {
                self.publish(card);
            }
        }
    }

    /// The pane fallback saw a prompt vanish.
    pub fn pane_vanished(&self, request_id: &str) {
        let mut inner = self.lock();
        if let Some(card) = inner.book.vanished(request_id) {
            self.publish(card);
        }
    }

    /// Claims the card for `verdict` (the first verdict wins) and starts its
    /// delivery on a blocking thread. Returns the card as `delivering`.
    pub fn answer(self: &Arc<Self>, id: &str, verdict: Verdict) -> Result<Card, Refusal> {
        self.answer_by(id, verdict, None)
    }

    /// [`answer`](Self::answer), recording who answered (`by` on the card).
    pub fn answer_by(
        self: &Arc<Self>,
        id: &str,
        verdict: Verdict,
        by: Option<&str>,
    ) -> Result<Card, Refusal> {
        let (card, cancel, title, request_id, delivery) = {
            let mut inner = self.lock();
            let (card, cancel) = inner.book.claim_by(id, verdict, by)?;
            let request = inner
                .book
                .request(id)
                .ok_or_else(|| Refusal::Unknown(id.to_owned()))?;
            let title = request.title.clone();
            let request_id = request.id.clone();
            let delivery = inner
                .deliveries
                .get(id)
                .cloned()
                .unwrap_or(Delivery::Bridge);
            self.publish(card.clone());
            (card, cancel, title, request_id, delivery)
        };
        let state = Arc::clone(self);
        let card_id = id.to_owned();
        let deliver = move || {
            let mut pane = (state.pane)();
            let bridge = Bridge::new(&state.tui);
            let result = match &delivery {
                Delivery::Bridge => bridge.deliver(pane.as_mut(), &title, verdict, &cancel),
                Delivery::Key {
                    hash,
                    accept,
                    decline,
                    cancel: cancel_key,
                } => {
                    let key = match verdict {
                        Verdict::Accept => accept,
                        Verdict::Decline => decline,
                        Verdict::Cancel => cancel_key,
                    };
                    match key {
                        Some(key) => bridge.deliver_key(pane.as_mut(), hash, key, &cancel),
                        None => Err(DeliveryRefusal::NoKey),
                    }
                }
            };
            if let Err(reason) = &result {
                tracing::warn!(
                    "card `{card_id}` not delivered: {}",
                    crate::output::clean(&reason.to_string())
                );
            }
            let mut inner = state.lock();
            inner.mirror.release(&request_id);
            if let Some(card) = inner.book.delivery_ended(&card_id, result) {
                state.publish(card);
            }
        };
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => drop(handle.spawn_blocking(deliver)),
            Err(_) => drop(std::thread::spawn(deliver)),
        }
        Ok(card)
    }

    /// Waits until card `id`'s delivery has ended (or it resolved).
    pub async fn delivery_end(
        &self,
        id: &str,
        mut updates: broadcast::Receiver<Card>,
    ) -> Option<Card> {
        loop {
            if let Some(card) = self.lock().book.card(id) {
                if card.state.delivery_ended() {
                    return Some(card);
                }
            } else {
                return None;
            }
            match updates.recv().await {
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
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
}
