//! A kept session's turn: the lines between the caller and
//! the session's owner ([`crate::acp::kept`]). The owner's lines carry the
//! grant's token, which the agent cannot know: one without it is dropped.

use serde_json::{json, Value};

use super::Turn;
use crate::acp::events::ResolvedBy;
use crate::acp::kept::protocol::CANCEL_METHOD;
use crate::acp::kept::question_cards::{ANSWERED_METHOD, ASKING_METHOD};
use crate::acp::rpc::RequestId;
use crate::acp::AcpError;

impl Turn<'_> {
    /// A line from the owner: a cancel (`session cancel`), or a question
    /// answered by its card.
    pub(super) async fn on_owner_line(
        &mut self,
        method: &str,
        params: &Value,
    ) -> Result<(), AcpError> {
        let token = params.get("token").and_then(Value::as_str);
        let ours = match (&self.relayed, token) {
            (Some(ours), Some(theirs)) => bool::from(subtle::ConstantTimeEq::ct_eq(
                ours.as_bytes(),
                theirs.as_bytes(),
            )),
            _ => false,
        };
        if !ours {
            tracing::warn!(
                "ignored a `{}` that is not the owner's",
                crate::output::clean(method)
            );
            return Ok(());
        }
        if method == CANCEL_METHOD {
            self.owner_cancel = true;
        } else if method == ANSWERED_METHOD {
            self.answered_by_card(params)?;
        }
        Ok(())
    }

    /// The owner sent a card's answer to the agent: the question no longer
    /// waits here. A terminal prompt already open for it stays on screen
    /// (its reply then answers nothing); the next question is asked.
    fn answered_by_card(&mut self, params: &Value) -> Result<(), AcpError> {
        let Some(id) = params.get("id").cloned().and_then(RequestId::from_value) else {
            return Ok(());
        };
        let Some(index) = self.pending.iter().position(|pending| pending.id == id) else {
            return Ok(());
        };
        let pending = self.pending.remove(index);
        let option_id = params
            .get("optionId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let by = params.get("by").and_then(Value::as_str).unwrap_or("a card");
        self.diagnostic(format!(
            "permission `{}` was answered by its card (`{}`): {}",
            pending.key,
            crate::output::clean(by),
            crate::output::clean(option_id.as_deref().unwrap_or("cancelled"))
        ))?;
        self.resolved(&pending.key, option_id, ResolvedBy::User)?;
        self.prompt_next()
    }

    /// A person is asked question `id`: in a kept session the owner makes
    /// it the session's card.
    pub(super) async fn tell_owner_asking(&mut self, id: &RequestId) -> Result<(), AcpError> {
        if self.relayed.is_none() {
            return Ok(());
        }
        self.notify(ASKING_METHOD, &json!({"id": id.to_value()}))
            .await
    }
}
