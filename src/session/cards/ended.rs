//! Cards whose question stopped waiting without a verdict from a
//! channel: the prompt vanished from the pane, or the turn that asked
//! ended.

use super::{Card, CardBook, CardState, TERMINAL};

impl CardBook {
    /// The pane-scrape fallback saw the prompt of `request_id` vanish: a
    /// pending card was answered in the terminal; a delivery in flight
    /// stops before its next key.
    pub fn vanished(&mut self, request_id: &str) -> Option<Card> {
        let now = (self.now)();
        let index = self.index_by_request(request_id)?;
        let entry = &mut self.entries[index];
        entry.cancel.cancel();
        if entry.card.state != CardState::Pending {
            return None;
        }
        entry.card.state = CardState::AnsweredInTerminal;
        entry.card.by = Some(TERMINAL.to_owned());
        entry.card.resolved_at = Some(now);
        let card = entry.card.clone();
        Some(self.record(&card))
    }

    /// The question of `request_id` no longer waits, unanswered (its turn
    /// ended or was cancelled): a pending card is cancelled; one being
    /// delivered stops, and its delivery's end says how it went.
    pub fn withdrawn(&mut self, request_id: &str) -> Option<Card> {
        let now = (self.now)();
        let index = self.index_by_request(request_id)?;
        let entry = &mut self.entries[index];
        entry.cancel.cancel();
        if entry.card.state != CardState::Pending {
            return None;
        }
        entry.card.state = CardState::Cancelled;
        entry.card.reason = Some("the question no longer waits: its turn ended".to_owned());
        entry.card.resolved_at = Some(now);
        let card = entry.card.clone();
        Some(self.record(&card))
    }
}
