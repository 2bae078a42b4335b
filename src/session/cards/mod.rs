//! Approval cards: their model, states and ids, the
//! rules that move a card from `pending` to its end, and the history in the
//! session's `cards.jsonl` (scrubbed). What a card says is untrusted: it
//! is scrubbed whole, then made card text by [`crate::output::visible`]
//!, and a card any part of which was cut is not `complete`: it
//! can be declined or cancelled from anywhere, but accepted only in the
//! terminal ([`Refusal::Incomplete`]).

mod adopted;
mod ended;
pub mod history;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::acp_wire::permission::OptionKind;
use crate::output::visible::{visible, visible_paths, Shown};
use crate::redact::Scrubber;
use crate::session::refusal::{DeliveryRefusal, Refusal, Refused};
use crate::session::signals::recorder::{ApprovalRequest, ApprovalResponse};

/// `by` of a card answered at the prompt itself.
const TERMINAL: &str = "terminal";

/// The most cards one supervisor keeps in memory: beyond it the oldest
/// resolved card is forgotten (it stays in `cards.jsonl`). An agent that
/// raises approvals without end must not grow the supervisor.
pub const MAX_CARDS: usize = 1000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CardState {
    Pending,
    Delivering,
    Delivered,
    Accepted,
    Declined,
    Cancelled,
    AnsweredInTerminal,
    DeliveryFailed,
}

impl CardState {
    pub fn as_str(self) -> &'static str {
        match self {
            CardState::Pending => "pending",
            CardState::Delivering => "delivering",
            CardState::Delivered => "delivered",
            CardState::Accepted => "accepted",
            CardState::Declined => "declined",
            CardState::Cancelled => "cancelled",
            CardState::AnsweredInTerminal => "answered_in_terminal",
            CardState::DeliveryFailed => "delivery_failed",
        }
    }

    /// Whether an `answer` has nothing more to wait for.
    pub fn delivery_ended(self) -> bool {
        !matches!(self, CardState::Pending | CardState::Delivering)
    }
}

/// A verdict from the channel or the webhook. Persistent trust is never
/// one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Accept,
    Decline,
    Cancel,
}

impl Verdict {
    pub fn parse(text: &str) -> Option<Verdict> {
        match text {
            "accept" => Some(Verdict::Accept),
            "decline" => Some(Verdict::Decline),
            "cancel" => Some(Verdict::Cancel),
            _ => None,
        }
    }
}

/// A card as printed and stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Card {
    pub id: String,
    pub title: String,
    pub state: CardState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Why a delivery failed, as a machine code beside the sentence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<Refused>,
    pub created_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_at: Option<String>,
    /// The tool's ACP kind, command, working folder and paths, when the
    /// request carries them (untrusted: scrubbed, stripped, cut).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// Who answered: `terminal`, `page`, `cli`, `webhook`,
    /// `link`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// Every field is shown whole; `false` when any was cut,
    /// and then only the terminal may accept. Always written; a record
    /// without it (an older `cards.jsonl`, an older supervisor) reads as
    /// `false`: nothing proves it was shown whole.
    #[serde(default)]
    pub complete: bool,
}

impl Card {
    /// The reason as a line shows it: `<code>: <sentence>` when refused.
    pub fn reason_line(&self) -> Option<String> {
        let code = self.refused.as_ref().map(|refused| refused.code.as_str());
        let reason = self.reason.clone()?;
        Some(code.map_or(reason.clone(), |code| format!("{code}: {reason}")))
    }
}

/// `<prefix>_<16 hex digits>`, the prefix being `<adapter>_<session>`
/// and the rest drawn at random for this card instance: an
/// agent that reuses a request id in a later run, or a pane prompt counted
/// afresh by a new supervisor, gets a new card, so a stale id (a webhook
/// retry, a script) answers nothing. Which request a card mirrors stays in
/// the supervisor's memory.
pub fn card_id(prefix: &str) -> String {
    let mut random = [0u8; 8];
    if getrandom::getrandom(&mut random).is_err() {
        // No entropy source: time-ordered instead, still never repeated
        // within this process and not across restarts in practice.
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_nanos() as u64);
        let count = COUNTER.fetch_add(1, Ordering::Relaxed);
        random = (nanos ^ count.rotate_left(48) ^ u64::from(std::process::id())).to_be_bytes();
    }
    format!("{prefix}_{}", hex::encode(random))
}

/// The card id prefix of `adapter`'s session `session`.
pub fn card_prefix(adapter: &str, session: &str) -> String {
    format!("{adapter}_{session}")
}

/// Card text of one field: scrubbed whole first (a cut must
/// not keep part of a secret the scrubber would no longer recognise), then
/// made visible and bounded (§8.6).
pub fn card_text(text: &str, scrubber: Option<&Scrubber>) -> Shown {
    match scrubber {
        Some(scrubber) => visible(&scrubber.scrub_str(text)),
        None => visible(text),
    }
}

/// A delivery's cancel flag (the terminal answered first).
#[derive(Debug, Clone, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

struct CardEntry {
    card: Card,
    request: ApprovalRequest,
    verdict: Option<Verdict>,
    /// The agent's answer, once the recorder shows it.
    response: Option<ApprovalResponse>,
    cancel: CancelFlag,
    /// When a verdict claimed the card (it went `delivering`).
    answered_at: Option<std::time::Instant>,
}

/// Every card of one supervised session.
pub struct CardBook {
    session: String,
    entries: Vec<CardEntry>,
    history: Option<PathBuf>,
    scrubber: Option<Scrubber>,
    now: fn() -> String,
    /// Cards a dead supervisor left pending: a request shown
    /// alike (title and command) opens under the old card's id again.
    adopted: Vec<Card>,
}

impl CardBook {
    /// `prefix`: the card id prefix ([`card_prefix`]).
    pub fn new(prefix: &str, history: Option<PathBuf>, scrubber: Option<Scrubber>) -> Self {
        Self {
            session: prefix.to_owned(),
            entries: Vec::new(),
            history,
            scrubber,
            now: crate::output::now_rfc3339,
            adopted: Vec::new(),
        }
    }

    /// A card as it may leave the supervisor: scrubbed.
    fn public(&self, card: &Card) -> Card {
        let mut card = card.clone();
        if let Some(scrubber) = &self.scrubber {
            card.title = scrubber.scrub_str(&card.title).into_owned();
            let scrub = |text: String| scrubber.scrub_str(&text).into_owned();
            card.reason = card.reason.map(scrub);
            card.refused = card.refused.map(|refused| refused.map_message(scrub));
            card.kind = card.kind.map(scrub);
            card.command = card.command.map(scrub);
            card.cwd = card.cwd.map(scrub);
            card.paths = card.paths.into_iter().map(scrub).collect();
        }
        card
    }

    pub fn cards(&self) -> Vec<Card> {
        self.entries
            .iter()
            .map(|entry| self.public(&entry.card))
            .collect()
    }

    pub fn card(&self, id: &str) -> Option<Card> {
        self.entry(id).map(|entry| self.public(&entry.card))
    }

    pub fn request(&self, id: &str) -> Option<&ApprovalRequest> {
        self.entry(id).map(|entry| &entry.request)
    }

    pub fn request_id_of(&self, id: &str) -> Option<String> {
        self.entry(id).map(|entry| entry.request.id.clone())
    }

    fn entry(&self, id: &str) -> Option<&CardEntry> {
        self.entries.iter().find(|entry| entry.card.id == id)
    }

    fn index_by_request(&self, request_id: &str) -> Option<usize> {
        self.entries
            .iter()
            .position(|entry| entry.request.id == request_id)
    }

    /// [`open`](Self::open) with the card's id given.
    pub(super) fn open_as(&mut self, mut request: ApprovalRequest, id: String) -> Card {
        let scrubber = self.scrubber.as_ref();
        let mut complete = true;
        let mut shown = |text: &str| {
            let shown = card_text(text, scrubber);
            complete &= shown.complete;
            shown.text
        };
        let title = shown(&request.title);
        // Scrubbed whole, then made visible and bounded,
        // like the title.
        let kind = request.detail.kind.as_deref().map(&mut shown);
        let command = request.detail.command.as_deref().map(&mut shown);
        let cwd = request.detail.cwd.as_deref().map(&mut shown);
        let scrubbed: Vec<String> = request
            .detail
            .paths
            .iter()
            .map(|path| match scrubber {
                Some(scrubber) => scrubber.scrub_str(path).into_owned(),
                None => path.clone(),
            })
            .collect();
        let (paths, paths_complete) = visible_paths(&scrubbed);
        let card = Card {
            id,
            title,
            state: CardState::Pending,
            reason: None,
            refused: None,
            created_at: (self.now)(),
            resolved_at: None,
            kind,
            command,
            cwd,
            paths,
            by: None,
            complete: complete && paths_complete,
        };
        // The card holds what is shown; the request keeps only what a
        // delivery needs (its id, title and options).
        request.detail = Default::default();
        if self.entries.len() >= MAX_CARDS {
            // Pending and delivering cards stay: only one is open at a time.
            if let Some(oldest) = self
                .entries
                .iter()
                .position(|entry| entry.card.state.delivery_ended())
            {
                self.entries.remove(oldest);
            }
        }
        self.entries.push(CardEntry {
            card: card.clone(),
            request,
            verdict: None,
            response: None,
            cancel: CancelFlag::default(),
            answered_at: None,
        });
        self.record(&card)
    }

    /// The first verdict wins: `pending` → `delivering`. Returns the cancel
    /// flag the delivery must watch.
    pub fn claim(&mut self, id: &str, verdict: Verdict) -> Result<(Card, CancelFlag), Refusal> {
        self.claim_by(id, verdict, None)
    }

    /// [`claim`](Self::claim), recording who answered.
    pub fn claim_by(
        &mut self,
        id: &str,
        verdict: Verdict,
        by: Option<&str>,
    ) -> Result<(Card, CancelFlag), Refusal> {
        let Some(index) = self.entries.iter().position(|entry| entry.card.id == id) else {
            return Err(Refusal::Unknown(id.to_owned()));
        };
        let entry = &mut self.entries[index];
        if entry.card.state != CardState::Pending {
            return Err(Refusal::NotPending {
                id: id.to_owned(),
                state: entry.card.state.as_str(),
            });
        }
        if verdict == Verdict::Accept && !entry.card.complete {
            return Err(Refusal::Incomplete(id.to_owned()));
        }
        entry.verdict = Some(verdict);
        entry.answered_at = Some(std::time::Instant::now());
        entry.card.state = CardState::Delivering;
        entry.card.by = by.map(str::to_owned);
        let card = entry.card.clone();
        let cancel = entry.cancel.clone();
        Ok((self.record(&card), cancel))
    }

    /// The delivery task ended: `Ok(())` = Enter was sent.
    pub fn delivery_ended(
        &mut self,
        id: &str,
        result: Result<(), DeliveryRefusal>,
    ) -> Option<Card> {
        let now = (self.now)();
        let entry = self.entries.iter_mut().find(|entry| entry.card.id == id)?;
        if entry.card.state != CardState::Delivering {
            return None;
        }
        match (result, entry.response.clone()) {
            (Ok(()), Some(response)) => {
                entry.card.state = confirmed(entry, &response);
                entry.card.resolved_at = Some(now);
            }
            (Ok(()), None) => entry.card.state = CardState::Delivered,
            // The terminal answered while we were checking: nothing typed.
            (Err(_), _) if entry.cancel.is_cancelled() => {
                entry.card.state = CardState::AnsweredInTerminal;
                entry.card.by = Some(TERMINAL.to_owned());
                entry.card.resolved_at = Some(now);
            }
            (Err(refusal), _) => {
                let message = card_text(&refusal.to_string(), self.scrubber.as_ref()).text;
                entry.card.state = CardState::DeliveryFailed;
                entry.card.refused = Some(Refused {
                    code: refusal.code(),
                    message: message.clone(),
                });
                entry.card.reason = Some(message);
                entry.card.resolved_at = Some(now);
            }
        }
        let card = entry.card.clone();
        Some(self.record(&card))
    }

    /// The agent answered `request_id` (from the recorder). Cancels a pending
    /// delivery when the terminal won.
    pub fn resolved(&mut self, response: ApprovalResponse) -> Option<Card> {
        let now = (self.now)();
        let index = self.index_by_request(&response.id)?;
        let entry = &mut self.entries[index];
        entry.response = Some(response.clone());
        match entry.card.state {
            CardState::Pending => {
                entry.cancel.cancel();
                entry.card.state = CardState::AnsweredInTerminal;
                entry.card.by = Some(TERMINAL.to_owned());
                entry.card.resolved_at = Some(now);
            }
            // Mid-delivery: stop before the next key; the delivery's end
            // decides whether our Enter or the terminal came first.
            CardState::Delivering => {
                entry.cancel.cancel();
                return None;
            }
            CardState::Delivered => {
                entry.card.state = confirmed(entry, &response);
                entry.card.resolved_at = Some(now);
            }
            // A late response only updates the record of a card that
            // already ended; its state stays.
            _ => return None,
        }
        let card = entry.card.clone();
        Some(self.record(&card))
    }

    /// Appends the card's new state to `cards.jsonl` (scrubbed) and returns
    /// the public card. A failed write is logged: the terminal stays
    /// authoritative and the card still works.
    fn record(&self, card: &Card) -> Card {
        let public = self.public(card);
        if let Some(path) = &self.history {
            if let Err(error) = history::append(path, &public) {
                tracing::warn!("could not write `{}`: {error}", path.display());
            }
        }
        public
    }
}

/// The state the agent's response confirms after our keystrokes.
fn confirmed(entry: &CardEntry, response: &ApprovalResponse) -> CardState {
    let kind = response
        .option_id
        .as_deref()
        .and_then(|option| entry.request.kind_of(option));
    match kind {
        Some(OptionKind::AllowOnce | OptionKind::AllowAlways) => CardState::Accepted,
        Some(OptionKind::RejectOnce | OptionKind::RejectAlways) => {
            if entry.verdict == Some(Verdict::Cancel) {
                CardState::Cancelled
            } else {
                CardState::Declined
            }
        }
        _ => CardState::Cancelled,
    }
}

/// Cards from the agent's own hook (`signals.rs`): their ids and their
/// match with the box on screen.
mod hook_cards;

#[cfg(test)]
#[path = "cards_tests.rs"]
mod tests;
