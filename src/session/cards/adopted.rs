//! Cards a dead supervisor left pending: the supervisor that
//! re-adopts the session opens a re-derived request under the old card's
//! id when it is shown alike (title, command and kind).

use super::{card_id, card_text, ApprovalRequest, Card, CardBook, CardState};

impl CardBook {
    /// Takes over the cards a dead supervisor of this session left
    /// pending (the last state of each card in the history): a request
    /// the new supervisor re-derives opens under the old id when it is
    /// shown alike.
    pub fn adopt_pending(&mut self, history: Vec<Card>) {
        let mut last: Vec<Card> = Vec::new();
        for card in history {
            match last.iter_mut().find(|seen| seen.id == card.id) {
                Some(seen) => *seen = card,
                None => last.push(card),
            }
        }
        self.adopted = last
            .into_iter()
            .filter(|card| card.state == CardState::Pending)
            .collect();
    }

    /// A new pending card for a parked request (under an adopted card's
    /// id when it is that card's request again: shown alike).
    pub fn open(&mut self, request: ApprovalRequest) -> Card {
        let scrubber = self.scrubber.as_ref();
        let shown = |text: Option<&str>| text.map(|text| card_text(text, scrubber).text);
        let title = shown(Some(&request.title));
        let command = shown(request.detail.command.as_deref());
        let kind = shown(request.detail.kind.as_deref());
        let same = self.adopted.iter().position(|old| {
            Some(&old.title) == title.as_ref() && old.command == command && old.kind == kind
        });
        let id = match same {
            Some(index) => self.adopted.remove(index).id,
            None => card_id(&self.session),
        };
        self.open_as(request, id)
    }

    /// The adopted cards no request re-derived from the whole recorder:
    /// their requests were answered while no supervisor watched (in the
    /// terminal). Each is recorded so, and none stays `pending` in the
    /// history.
    pub fn expire_adopted(&mut self) -> Vec<Card> {
        let now = (self.now)();
        let mut ended = Vec::new();
        for mut card in std::mem::take(&mut self.adopted) {
            card.state = CardState::AnsweredInTerminal;
            card.by = Some(super::TERMINAL.to_owned());
            card.reason = Some("answered while no supervisor watched the session".to_owned());
            card.resolved_at = Some(now.clone());
            ended.push(self.record(&card));
        }
        ended
    }
}
