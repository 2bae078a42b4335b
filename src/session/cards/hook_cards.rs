//! Cards made from the agent's own hook: their id is derived
//! from the agent's own id for the ask, `<adapter>_<session>_<sha256(agent
//! id)[..16]>`, so the same ask signalled twice is one card; a later ask
//! with the same agent id (an agent without request ids asking the same
//! thing again) gets the next id of a chain, never an id of a card that
//! still lives. Until the pane watcher sees its box and attaches it
//! ([`CardBook::attach_pane`]), such a card's request id is
//! `signal:<digest>`; after, it is the pane's occurrence id, so the box
//! vanishing without our key resolves it `answered_in_terminal`.

use sha2::{Digest, Sha256};

use super::{Card, CardBook, CardEntry, CardState};
use crate::session::refusal::{DeliveryRefusal, Refused};
use crate::session::signals::recorder::ApprovalRequest;

/// The request id prefix of a signal card not yet seen on the pane.
const UNATTACHED: &str = "signal:";

/// How long after its answer a signal card not yet matched with a box
/// still takes the box that shows its text ([`CardBook::answered_unattached_signals`]):
/// the agent reads the key and draws its next frame within it.
pub const ANSWERED_BOX: std::time::Duration = std::time::Duration::from_secs(3);

/// How many asks with one agent id a session tells apart.
const CHAIN: usize = 64;

fn digest(agent_id: &str, link: usize) -> String {
    let mut hasher = Sha256::new();
    hasher.update(agent_id.as_bytes());
    if link > 0 {
        hasher.update(format!("\0{link}").as_bytes());
    }
    hex::encode(&hasher.finalize()[..8])
}

impl CardBook {
    /// A pending card for a hook signal with `agent_id`; `None` when a
    /// card of that agent id is still pending or being delivered (the
    /// same ask signalled again), or a pending card already shows this
    /// title (the pane watcher made it before the hook arrived).
    pub fn open_signal(&mut self, mut request: ApprovalRequest, agent_id: &str) -> Option<Card> {
        let title = crate::session::signals::pane::collapse(&request.title);
        let shown = self.entries.iter().any(|entry| {
            entry.card.state == CardState::Pending
                && crate::session::signals::pane::collapse(&entry.request.title) == title
        });
        if shown {
            return None;
        }
        for link in 0..CHAIN {
            let digest = digest(agent_id, link);
            let id = format!("{}_{digest}", self.session);
            match self.entry(&id) {
                Some(entry) if !entry.card.state.delivery_ended() => return None,
                Some(_) => continue,
                None => {
                    request.id = format!("{UNATTACHED}{digest}");
                    return Some(self.open_as(request, id));
                }
            }
        }
        None
    }

    /// The pending signal cards no box on screen has been matched with:
    /// `(card id, the title the bridge verifies)`, oldest first.
    pub fn unattached_signals(&self) -> Vec<(String, String)> {
        self.unattached_where(|entry| entry.card.state == CardState::Pending)
    }

    /// The signal cards answered through their card (`delivering` or
    /// `delivered`) within `ANSWERED_BOX` before any box was matched with
    /// them: `(card id, title)`, oldest first. A verdict that comes fast
    /// (a webhook, a person watching) is typed into the box — the bridge
    /// checks it on screen itself — before the pane watcher has looked;
    /// the box still up then is that card's, not a new ask.
    pub fn answered_unattached_signals(&self) -> Vec<(String, String)> {
        self.unattached_where(|entry| {
            matches!(
                entry.card.state,
                CardState::Delivering | CardState::Delivered
            ) && entry
                .answered_at
                .is_some_and(|at| at.elapsed() < ANSWERED_BOX)
        })
    }

    /// The signal cards no box has been matched with that pass `keep`:
    /// `(card id, title)`, oldest first.
    fn unattached_where(&self, keep: impl Fn(&CardEntry) -> bool) -> Vec<(String, String)> {
        self.entries
            .iter()
            .filter(|entry| entry.request.id.starts_with(UNATTACHED) && keep(entry))
            .map(|entry| (entry.card.id.clone(), entry.request.title.clone()))
            .collect()
    }

    /// A box of this agent showed and no signal card matched it while
    /// `id` was the only one waiting: the hook said one thing, the screen
    /// shows another (a command the box draws differently, a forged
    /// signal). Nothing can be delivered to it: it fails, with the reason.
    pub fn signal_not_shown(&mut self, id: &str) -> Option<Card> {
        let now = (self.now)();
        let entry = self.entries.iter_mut().find(|entry| {
            entry.card.id == id
                && entry.request.id.starts_with(UNATTACHED)
                && entry.card.state == CardState::Pending
        })?;
        entry.cancel.cancel();
        entry.card.state = CardState::DeliveryFailed;
        let refusal = DeliveryRefusal::NotAnnounced;
        entry.card.reason = Some(refusal.to_string());
        entry.card.refused = Some(Refused {
            code: refusal.code(),
            message: refusal.to_string(),
        });
        entry.card.resolved_at = Some(now);
        let card = entry.card.clone();
        Some(self.record(&card))
    }

    /// The pane watcher saw card `id`'s box as occurrence `pane_request`:
    /// from now on that box vanishing resolves this card. `false` when
    /// the card is gone or was attached already.
    pub fn attach_pane(&mut self, id: &str, pane_request: &str) -> bool {
        match self.entries.iter_mut().find(|entry| entry.card.id == id) {
            Some(entry) if entry.request.id.starts_with(UNATTACHED) => {
                entry.request.id = pane_request.to_owned();
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::cards::Verdict;
    use crate::session::refusal::RefusalCode;

    fn request(title: &str) -> ApprovalRequest {
        ApprovalRequest {
            id: String::new(),
            tool_call_id: String::new(),
            title: title.to_owned(),
            options: Vec::new(),
            detail: Default::default(),
        }
    }

    #[test]
    fn a_signal_card_id_comes_from_the_agent_id_and_a_repeat_is_one_card() {
        let mut book = CardBook::new("claude_s", None, None);
        let card = book
            .open_signal(request("touch a"), "agent-1")
            .expect("card");
        assert_eq!(card.id, format!("claude_s_{}", digest("agent-1", 0)));
        assert_eq!(card.id.len(), "claude_s_".len() + 16);
        assert_eq!(book.open_signal(request("touch a"), "agent-1"), None);
        assert_eq!(
            book.unattached_signals(),
            [(card.id.clone(), "touch a".to_owned())]
        );
        // Seen on the pane: its vanish resolves it.
        assert!(book.attach_pane(&card.id, "pane-7"));
        assert!(!book.attach_pane(&card.id, "pane-8"), "attached once");
        assert!(book.unattached_signals().is_empty());
        let resolved = book.vanished("pane-7").expect("resolved");
        assert_eq!(resolved.state, CardState::AnsweredInTerminal);
        // The same agent id asking again: the next id of the chain.
        let again = book
            .open_signal(request("touch a"), "agent-1")
            .expect("a new ask");
        assert_eq!(again.id, format!("claude_s_{}", digest("agent-1", 1)));
        assert!(book.claim(&again.id, Verdict::Decline).is_ok());
        assert_eq!(
            book.open_signal(request("touch b"), "agent-1"),
            None,
            "its card is being delivered"
        );
    }

    #[test]
    fn a_title_the_pane_already_shows_gets_no_second_card() {
        let mut book = CardBook::new("claude_s", None, None);
        let mut pane = request("touch  a");
        pane.id = "pane-1".to_owned();
        book.open(pane);
        assert_eq!(book.open_signal(request("touch a"), "agent-1"), None);
        assert!(book.open_signal(request("touch b"), "agent-2").is_some());
    }

    #[test]
    fn a_signal_card_whose_box_shows_something_else_fails() {
        let mut book = CardBook::new("claude_s", None, None);
        let card = book
            .open_signal(request("touch a"), "agent-1")
            .expect("card");
        let failed = book.signal_not_shown(&card.id).expect("failed");
        assert_eq!(failed.state, CardState::DeliveryFailed);
        let refused = failed.refused.expect("refused");
        assert_eq!(refused.code, RefusalCode::NotAnnounced);
        assert_eq!(failed.reason, Some(refused.message));
        assert!(book.claim(&card.id, Verdict::Accept).is_err());
        assert_eq!(book.signal_not_shown(&card.id), None, "once");
        let attached = book
            .open_signal(request("touch b"), "agent-2")
            .expect("card");
        assert!(book.attach_pane(&attached.id, "pane-1"));
        assert_eq!(book.signal_not_shown(&attached.id), None, "its box showed");
    }

    #[test]
    fn a_card_answered_before_its_box_was_seen_takes_that_box_once() {
        let mut book = CardBook::new("claude_s", None, None);
        let answered = book
            .open_signal(request("touch a"), "agent-1")
            .expect("card");
        let waiting = book
            .open_signal(request("touch b"), "agent-2")
            .expect("card");
        assert!(
            book.answered_unattached_signals().is_empty(),
            "none answered"
        );
        assert!(book.claim(&answered.id, Verdict::Accept).is_ok());
        // Pending cards are the waiting ones; the answered one is apart.
        assert_eq!(
            book.unattached_signals(),
            [(waiting.id.clone(), "touch b".to_owned())]
        );
        assert_eq!(
            book.answered_unattached_signals(),
            [(answered.id.clone(), "touch a".to_owned())]
        );
        // Its box, seen after the answer, is its own: no second card, and
        // its vanish changes nothing of what was delivered.
        assert!(book.attach_pane(&answered.id, "pane-3"));
        assert!(book.answered_unattached_signals().is_empty(), "once");
        assert_eq!(book.vanished("pane-3"), None);
        assert_eq!(
            book.card(&answered.id).map(|card| card.state),
            Some(CardState::Delivering)
        );
    }

    #[test]
    fn a_card_answered_long_ago_takes_no_box() {
        let mut book = CardBook::new("claude_s", None, None);
        let card = book
            .open_signal(request("touch a"), "agent-1")
            .expect("card");
        assert!(book.claim(&card.id, Verdict::Accept).is_ok());
        let long_ago = std::time::Instant::now()
            .checked_sub(ANSWERED_BOX)
            .expect("a machine up for more than 3 s");
        book.entries[0].answered_at = Some(long_ago);
        assert!(book.answered_unattached_signals().is_empty());
    }
}
