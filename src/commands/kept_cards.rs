//! A kept session's questions as its cards: the owner's
//! [`QuestionMirror`] over the session's card book and approvals channel (the
//! same `session approvals`/`answer`, page and webhook as a TUI session's).
//! A card's verdict is the agent's native once-option (never persistent
//! trust), or `cancelled`, sent by the owner while the question waits.

use std::sync::Arc;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::acp::kept::question_cards::{CardAnswer, QuestionMirror};
use crate::acp_wire::permission::OptionKind;
use crate::session::cards::Verdict;
use crate::session::refusal::DeliveryRefusal;
use crate::session::signals::recorder::{approval, ApprovalRequest};
use crate::session::supervisor::state::{ReplyTo, SessionState};

pub struct KeptCards {
    pub state: Arc<SessionState>,
    pub answers: mpsc::Sender<CardAnswer>,
}

impl QuestionMirror for KeptCards {
    fn asked(&self, key: &str, params: &Value) {
        // A question without both once-options has no verdict to send.
        let Some(request) = approval(key, params) else {
            tracing::info!(
                "question `{key}` is not a card: it lacks a title, a tool call or a once-option"
            );
            return;
        };
        let answers = self.answers.clone();
        let key = key.to_owned();
        let reply = move |verdict: Verdict, request: &ApprovalRequest, by: Option<&str>| {
            let option_id = native_option(verdict, request)?;
            let (done, sent) = oneshot::channel();
            let answer = CardAnswer {
                key: key.clone(),
                option_id: option_id.clone(),
                by: by.map(str::to_owned),
                done,
            };
            answers
                .blocking_send(answer)
                .map_err(|_| DeliveryRefusal::PromptGone)?;
            match sent.blocking_recv() {
                Ok(true) => Ok(option_id),
                // The caller answered first, or the turn ended.
                _ => Err(DeliveryRefusal::AnsweredInTerminal),
            }
        };
        self.state.reply_prompt(request, ReplyTo(Arc::new(reply)));
    }

    fn answered(&self, key: &str, option_id: Option<String>) {
        match option_id {
            Some(option_id) => self.state.answered_where_asked(key, Some(option_id)),
            // The caller's `cancelled`: its turn is being cancelled.
            None => self.state.withdrawn(key),
        }
    }

    fn withdrawn(&self, key: &str) {
        self.state.withdrawn(key);
    }
}

/// The agent's option for a verdict: its once-option (a card never grants
/// persistent trust), or `None` for the `cancelled` outcome.
fn native_option(
    verdict: Verdict,
    request: &ApprovalRequest,
) -> Result<Option<String>, DeliveryRefusal> {
    let kind = match verdict {
        Verdict::Accept => OptionKind::AllowOnce,
        Verdict::Decline => OptionKind::RejectOnce,
        Verdict::Cancel => return Ok(None),
    };
    request
        .options
        .iter()
        .find(|(_, option)| *option == kind)
        .map(|(id, _)| Some(id.clone()))
        .ok_or(DeliveryRefusal::NoKey)
}
