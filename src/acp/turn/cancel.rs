//! The cancel of a turn: what starts it (a signal, the channel, the
//! deadline), what it reads first, and the sequence itself — every pending
//! question answered `cancelled`, then `session/cancel`.
//!
//! Two races once broke that order (issue 19). A question and a Ctrl-C
//! ready together let `select!` take the interrupt before the question was
//! read, so `session/cancel` went out before its `cancelled` answer: a
//! cancel now first handles what the agent had already sent
//! ([`Turn::on_trigger`]). And one Ctrl-C in the terminal prompt arrived
//! twice — as the prompt's cancel and as the SIGINT the prompt library
//! raises — so the second counted as "kill now" and the agent died before
//! it read what was written to it: the prompt now leaves Ctrl-C to the
//! signal (`channel::spawn_terminal_prompt`). Neither is a timing matter:
//! no wait was widened. Nor does a stdout that is gone cut the sequence
//! short any more: its events are printed after the wire has it.

use std::time::{Duration, Instant};

use agent_client_protocol_schema::v1::{CancelNotification, AGENT_METHOD_NAMES};
use futures_util::FutureExt;
use serde_json::Value;

use super::{Cause, Turn};
use crate::acp::events::ResolvedBy;
use crate::acp::lines::Line;
use crate::acp::rpc;
use crate::acp::AcpError;

/// The most of the agent's bytes read, when a cancel begins, before it:
/// a full pipe (at most 1 MiB, Linux's default `pipe-max-size`) and the
/// block the reader holds. An agent that keeps writing cannot hold the
/// cancel back longer than that.
const ARRIVED: usize = (1 << 20) + crate::process::lines::BLOCK;

/// What starts a cancel from outside the agent.
#[derive(Debug, Clone, Copy)]
pub(super) enum Trigger {
    /// SIGINT or SIGTERM.
    Interrupt,
    Cancel(Cause),
}

impl Turn<'_> {
    /// A cancel from outside the agent: the person (a signal, the channel)
    /// or the deadline. `Some` is the answer to our request `waiting`,
    /// found among the messages that had already arrived.
    ///
    /// Why those messages are read first: the agent's question and the
    /// Ctrl-C can be ready at the same moment (the agent asked, the person
    /// pressed the key before oneworks read the question), and `select!`
    /// picks among ready branches at random. When the interrupt won, the
    /// question was not pending yet: `session/cancel` went out first and
    /// the question was answered `cancelled` only afterwards, breaking the
    /// order SPEC §7 promises. Reading what is already there first makes
    /// every question that reached oneworks before the cancel pending, so
    /// it is answered before `session/cancel`, whatever `select!` picked.
    pub(super) async fn on_trigger(
        &mut self,
        trigger: Trigger,
        waiting: u64,
    ) -> Result<Option<Result<Value, rpc::RpcError>>, AcpError> {
        let cause = match trigger {
            // The first interrupt cancels; one during a cancel already under
            // way (the second Ctrl-C, or one after `{"cancel":true}` or a
            // timeout) stops the agent at once, reading nothing more.
            Trigger::Interrupt if self.interrupts.received() >= 2 || self.cancel.is_some() => {
                self.kill_now = true;
                return Err(AcpError::Interrupted);
            }
            Trigger::Interrupt => Cause::User,
            // A cancel under way has already answered what was pending.
            Trigger::Cancel(_) if self.cancel.is_some() => return Ok(None),
            Trigger::Cancel(cause) => cause,
        };
        let in_hand = self.take_arrived(waiting).await?;
        // Nothing more if what arrived began a cancel of its own (a refusal).
        self.begin_cancel(cause).await?;
        Ok(in_hand)
    }

    /// Handles the agent's messages that can be read without waiting, up
    /// to [`ARRIVED`] bytes; stops early at the answer to `waiting`, which
    /// it returns (the cancel still runs first: the turn ends cancelled, as
    /// if that answer had come a moment later).
    async fn take_arrived(
        &mut self,
        waiting: u64,
    ) -> Result<Option<Result<Value, rpc::RpcError>>, AcpError> {
        // A fresh cooperative budget: the loop may have spent this poll's
        // on earlier lines, and a read refused for lack of budget would
        // look like "nothing more has arrived".
        tokio::task::yield_now().await;
        let mut left = ARRIVED;
        while left > 0 {
            // Cancel-safe: a read that would wait keeps its partial line in
            // the reader for the loop.
            let Some(line) = self.reader.next_line().now_or_never() else {
                break;
            };
            match line {
                Ok(Some(Line::TooLong(length))) => {
                    tracing::warn!(
                        "skipped a line of {length} bytes from the agent (over the bound of {})",
                        self.data.max_message_bytes
                    );
                    left = left.saturating_sub(length.saturating_add(1));
                }
                Ok(Some(Line::Text(bytes))) => {
                    left = left.saturating_sub(bytes.len() + 1);
                    if let Some(outcome) = self.on_line(&bytes, waiting).await? {
                        return Ok(Some(outcome));
                    }
                }
                // The end of the stream stays for the loop to report.
                Ok(None) => break,
                Err(error) => return Err(AcpError::Io(error)),
            }
        }
        Ok(None)
    }

    pub(super) fn cancel_error(&mut self) -> AcpError {
        match self.cancel.map(|(cause, _)| cause) {
            Some(Cause::Timeout) => AcpError::Timeout(self.timeout_text.clone()),
            Some(Cause::Refused) => self.failure.take().unwrap_or(AcpError::Interrupted),
            _ => AcpError::Interrupted,
        }
    }

    /// Answers every pending question `cancelled`, then `session/cancel`.
    pub(super) async fn begin_cancel(&mut self, cause: Cause) -> Result<(), AcpError> {
        if self.cancel.is_some() {
            return Ok(());
        }
        let cancelled = std::mem::take(&mut self.pending);
        for pending in &cancelled {
            self.answer(&pending.id, None).await?;
        }
        self.prompting = None;
        crate::process::terminal::restore();
        let grace = Duration::from_secs(self.data.cancel_grace_seconds);
        self.cancel = Some((cause, Instant::now() + grace));
        let notified = match (&self.session_id, self.in_prompt) {
            (Some(session_id), true) => {
                let params = CancelNotification::new(session_id.clone());
                self.notify(AGENT_METHOD_NAMES.session_cancel, &params)
                    .await
            }
            // No turn to cancel yet: stop here.
            _ => Err(self.cancel_error()),
        };
        // The events only after the wire: a stdout that is gone (the reader
        // of `--json` ended with the same Ctrl-C) used to return here before
        // `session/cancel` was written, leaving the agent's turn running.
        let mut shown = Ok(());
        for pending in cancelled {
            if shown.is_ok() {
                shown = self.resolved(&pending.key, None, ResolvedBy::Cancel);
            }
        }
        notified.and(shown)
    }
}
