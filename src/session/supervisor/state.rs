//! The shared state of a running supervisor: the card book, the recorder
//! mirror, and the deliveries in flight. The recorder tail, the approvals
//! channel and the webhook all go through here, so the race rules live in
//! one place: the first verdict wins, a delivery ends by releasing the
//! slot, a terminal answer cancels the delivery.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::{broadcast, Notify};

use crate::adapter::tui_data::TuiData;
use crate::session::cards::{Card, CardBook, Verdict};
use crate::session::delivery::keystroke_bridge::{Bridge, DeliveryRefusal, Pane, PaneError};
use crate::session::refusal::Refusal;
use crate::session::signals::recorder::{ApprovalRequest, ApprovalResponse};
use crate::session::signals::recorder_tail::{SlotMirror, TailEvent};

/// Opens the pane a delivery types into (tmux in production, a scripted
/// pane in tests).
pub type PaneFactory = Arc<dyn Fn() -> Box<dyn Pane + Send> + Send + Sync>;

/// Called with each new pending card.
type ParkCallback = Box<dyn Fn(Card) + Send>;

pub struct Inner {
    pub book: CardBook,
    pub mirror: SlotMirror,
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
    /// A question asked over ACP (a kept session's): the verdict is sent
    /// as the agent's answer by whoever holds the question.
    Reply(ReplyTo),
}

/// Answers a question with a verdict (who gave it, when known): the
/// native option sent (`None`: the `cancelled` outcome), or why nothing
/// was sent. A sent reply is the agent's answer, so it confirms the card.
pub type ReplyFn = dyn Fn(Verdict, &ApprovalRequest, Option<&str>) -> Result<Option<String>, DeliveryRefusal>
    + Send
    + Sync;

/// The one who answers a [`Delivery::Reply`] card.
#[derive(Clone)]
pub struct ReplyTo(pub Arc<ReplyFn>);

impl std::fmt::Debug for ReplyTo {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("ReplyTo")
    }
}

impl PartialEq for ReplyTo {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for ReplyTo {}

pub struct SessionState {
    inner: Mutex<Inner>,
    updates: broadcast::Sender<Card>,
    /// Asked to stop (the `stop` op).
    pub stop: Notify,
    /// A hook signal made a card, or the chat store was looked at (the
    /// pane watcher may be waiting for either).
    pub signals: Notify,
    /// How many looks at the chat store have ended.
    store_looks: std::sync::atomic::AtomicU64,
    tui: TuiData,
    pane: PaneFactory,
    /// Called with every new pending card (the webhook).
    on_park: Mutex<Option<ParkCallback>>,
    /// The answer links minted for the webhook's cards.
    pub links: crate::session::delivery::links::LinkBook,
}

/// The pane of a session that has none.
struct NoPane;

impl Pane for NoPane {
    fn capture(&mut self) -> Result<String, PaneError> {
        Err(NoPane::refused("capture-pane"))
    }
    fn send_key(&mut self, _: &str) -> Result<(), PaneError> {
        Err(NoPane::refused("send-keys"))
    }
}

impl NoPane {
    fn refused(action: &str) -> PaneError {
        PaneError {
            action: action.to_owned(),
            detail: "this session has no terminal pane".to_owned(),
        }
    }
}

impl SessionState {
    pub fn new(book: CardBook, tui: TuiData, pane: PaneFactory) -> Arc<Self> {
        let (updates, _) = broadcast::channel(256);
        Arc::new(Self {
            inner: Mutex::new(Inner {
                book,
                mirror: SlotMirror::default(),
                deliveries: std::collections::HashMap::new(),
            }),
            updates,
            stop: Notify::new(),
            signals: Notify::new(),
            store_looks: std::sync::atomic::AtomicU64::new(0),
            tui,
            pane,
            on_park: Mutex::new(None),
            links: crate::session::delivery::links::LinkBook::default(),
        })
    }

    /// The state of a session with no pane (a kept session's: its cards
    /// are all [`Delivery::Reply`]); a key sent anyway is refused.
    pub fn without_pane(book: CardBook, tui: TuiData) -> Arc<Self> {
        Self::new(book, tui, Arc::new(|| Box::new(NoPane)))
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

    pub(super) fn publish(&self, card: Card) {
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

    /// A look at the chat store ended (its waiting calls already turned
    /// into cards).
    pub fn store_looked(&self) {
        self.store_looks
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.signals.notify_waiters();
    }

    /// How many looks at the chat store have ended.
    pub fn store_looks(&self) -> u64 {
        self.store_looks.load(std::sync::atomic::Ordering::SeqCst)
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

    /// A question asked over ACP becomes a card answered by `reply`.
    pub fn reply_prompt(&self, request: ApprovalRequest, reply: ReplyTo) -> Card {
        let card = {
            let mut inner = self.lock();
            let card = inner.book.open(request);
            inner
                .deliveries
                .insert(card.id.clone(), Delivery::Reply(reply));
            self.publish(card.clone());
            card
        };
        let on_park = self.on_park.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(callback) = on_park.as_ref() {
            callback(card.clone());
        }
        card
    }

    /// The question of `request_id` was answered where it was asked (the
    /// caller's terminal or stdin) with `option_id`.
    pub fn answered_where_asked(&self, request_id: &str, option_id: Option<String>) {
        let mut inner = self.lock();
        let response = ApprovalResponse {
            id: request_id.to_owned(),
            option_id,
        };
        if let Some(card) = inner.book.resolved(response) {
            self.publish(card);
        }
    }

    /// The question of `request_id` no longer waits (its turn ended or was
    /// cancelled) and nobody answered its card.
    pub fn withdrawn(&self, request_id: &str) {
        let mut inner = self.lock();
        if let Some(card) = inner.book.withdrawn(request_id) {
            self.publish(card);
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
            let result = state.deliver(&card_id, &delivery, &title, verdict, &cancel);
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

    /// Delivers a claimed card's verdict the way its prompt takes it.
    fn deliver(
        &self,
        card_id: &str,
        delivery: &Delivery,
        title: &str,
        verdict: Verdict,
        cancel: &crate::session::cards::CancelFlag,
    ) -> Result<(), DeliveryRefusal> {
        if let Delivery::Reply(reply) = delivery {
            return self.reply(card_id, reply, verdict);
        }
        let mut pane = (self.pane)();
        let bridge = Bridge::new(&self.tui);
        match delivery {
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
                    Some(key) => bridge.deliver_key(pane.as_mut(), hash, key, cancel),
                    None => Err(DeliveryRefusal::NoKey),
                }
            }
            _ => bridge.deliver(pane.as_mut(), title, verdict, cancel),
        }
    }

    /// Sends a reply card's verdict; the reply sent is the agent's answer.
    fn reply(
        &self,
        card_id: &str,
        reply: &ReplyTo,
        verdict: Verdict,
    ) -> Result<(), DeliveryRefusal> {
        let (request, by) = {
            let inner = self.lock();
            let request = inner.book.request(card_id).cloned();
            let by = inner.book.card(card_id).and_then(|card| card.by);
            (request, by)
        };
        let request = request.ok_or(DeliveryRefusal::PromptGone)?;
        let option_id = (reply.0)(verdict, &request, by.as_deref())?;
        let response = ApprovalResponse {
            id: request.id.clone(),
            option_id,
        };
        // Mid-delivery the response is kept; the delivery's end confirms.
        self.lock().book.resolved(response);
        Ok(())
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
#[path = "state_tests.rs"]
mod tests;
