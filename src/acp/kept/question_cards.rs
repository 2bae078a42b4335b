//! A kept session's questions as cards: the question goes to
//! the caller that sent the prompt and, once that caller asks a person
//! (not when its mode, a rule or the policy answers at once), to the
//! session's approval channels as one card. The first answer wins:
//!
//! - the caller's: relayed to the agent; the card says it was answered
//!   where it was asked ([`QuestionMirror::answered`]);
//! - the card's (`session answer`, the page, the webhook): the owner sends
//!   it to the agent itself, tells the caller (`_oneworks/answered`, with
//!   the grant's token) and drops the caller's own answer should one
//!   cross it;
//! - neither, when the turn ends or is cancelled: the card is withdrawn.
//!
//! The owner knows nothing of cards: a [`QuestionMirror`] (made by the command
//! that starts it) does, and answers come back through a channel the
//! owner's loop reads.

use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};

use super::protocol;
use super::traffic::Traffic;

/// The caller's notification that it asks a person question `id`.
pub const ASKING_METHOD: &str = "_oneworks/asking";
/// The owner's notification that question `id` was answered by a card.
pub const ANSWERED_METHOD: &str = "_oneworks/answered";

/// Where a kept session's questions become cards. `key` names one
/// question of one turn.
pub trait QuestionMirror: Send {
    /// A person is asked the question (`params` as the agent sent them).
    fn asked(&self, key: &str, params: &Value);
    /// The caller answered it (`None`: `cancelled`).
    fn answered(&self, key: &str, option_id: Option<String>);
    /// It no longer waits, and nobody answered it.
    fn withdrawn(&self, key: &str);
}

/// A card's verdict for the owner to send: `done` says whether it was
/// (the question still waited).
pub struct CardAnswer {
    pub key: String,
    /// The native option (`None`: the `cancelled` outcome).
    pub option_id: Option<String>,
    /// Who answered (`cli`, `page`, `webhook`, `link`).
    pub by: Option<String>,
    pub done: oneshot::Sender<bool>,
}

/// The mirror and the answers that come back from it.
pub struct CardSide {
    pub mirror: Box<dyn QuestionMirror>,
    pub answers: mpsc::Receiver<CardAnswer>,
}

/// The owner's record of the questions of the turn it serves.
#[derive(Default)]
pub struct Cards {
    side: Option<CardSide>,
    turn: u64,
    /// This turn's questions, as the agent asked them.
    asked: Vec<(Value, Value)>,
    /// The questions with a card.
    carded: Vec<Value>,
    /// Questions a card answered: the caller's answer to them is dropped.
    answered_here: Vec<Value>,
}

/// A card's answer the owner sends the agent, and the line that tells the
/// caller.
pub struct Sent {
    pub to_agent: Vec<u8>,
    pub to_caller: Vec<u8>,
}

impl Cards {
    pub fn new(side: Option<CardSide>) -> Self {
        Self {
            side,
            ..Self::default()
        }
    }

    fn key(&self, id: &Value) -> String {
        format!("{}:{id}", self.turn)
    }

    /// A new caller's turn: what was asked before is forgotten.
    pub fn new_turn(&mut self, turn: u64) {
        self.turn = turn;
        self.asked.clear();
        self.carded.clear();
        self.answered_here.clear();
    }

    /// The agent asked question `id` of the served caller.
    pub fn asked_by_agent(&mut self, id: Value, params: Value) {
        if self.side.is_some() {
            self.asked.retain(|(asked, _)| *asked != id);
            self.asked.push((id, params));
        }
    }

    /// The caller asks a person question `id`: it becomes a card.
    pub fn caller_asks(&mut self, id: &Value, traffic: &Traffic) {
        let Some(side) = &self.side else {
            return;
        };
        if !traffic.has_question(id) || self.carded.contains(id) {
            return;
        }
        let Some((_, params)) = self.asked.iter().find(|(asked, _)| asked == id) else {
            return;
        };
        side.mirror.asked(&self.key(id), params);
        self.carded.push(id.clone());
    }

    /// The caller answered question `id`.
    pub fn caller_answered(&mut self, id: &Value, option_id: Option<String>) {
        if let Some(index) = self.carded.iter().position(|carded| carded == id) {
            self.carded.remove(index);
            if let Some(side) = &self.side {
                side.mirror.answered(&self.key(id), option_id);
            }
        }
    }

    /// Whether the caller's answer to `id` comes after a card's: dropped.
    pub fn answered_by_card(&mut self, id: &Value) -> bool {
        match self
            .answered_here
            .iter()
            .position(|answered| answered == id)
        {
            Some(index) => {
                self.answered_here.remove(index);
                true
            }
            None => false,
        }
    }

    /// Withdraws the cards of questions that no longer wait.
    pub fn sync(&mut self, traffic: &Traffic) {
        let Some(side) = &self.side else {
            return;
        };
        let turn = self.turn;
        self.carded.retain(|id| {
            let waits = traffic.has_question(id);
            if !waits {
                side.mirror.withdrawn(&format!("{turn}:{id}"));
            }
            waits
        });
    }

    /// The next card answer, when there is a mirror.
    pub async fn next_answer(&mut self) -> Option<CardAnswer> {
        match &mut self.side {
            Some(side) => side.answers.recv().await,
            None => std::future::pending().await,
        }
    }

    /// A card answered `answer.key`: the lines to send, when its question
    /// still waits (it is then the card's; `traffic` forgets it).
    pub fn card_answered(
        &mut self,
        answer: &CardAnswer,
        traffic: &mut Traffic,
        token: &str,
    ) -> Option<Sent> {
        let index = self
            .carded
            .iter()
            .position(|id| self.key(id) == answer.key)?;
        let id = self.carded[index].clone();
        if !traffic.take_question(&id) {
            return None;
        }
        self.carded.remove(index);
        self.answered_here.push(id.clone());
        let outcome = match &answer.option_id {
            Some(option) => json!({"outcome": "selected", "optionId": option}),
            None => json!({"outcome": "cancelled"}),
        };
        let to_agent =
            protocol::line(&json!({"jsonrpc": "2.0", "id": id, "result": {"outcome": outcome}}));
        let to_caller = protocol::line(&json!({"jsonrpc": "2.0", "method": ANSWERED_METHOD,
            "params": {"token": token, "id": id, "optionId": answer.option_id, "by": answer.by}}));
        Some(Sent {
            to_agent,
            to_caller,
        })
    }
}
