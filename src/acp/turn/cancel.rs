//! The cancel of a turn: what starts it (a signal, the channel, the
//! deadline, a refusal), what it reads first, and the sequence itself —
//! every pending question answered `cancelled`, then `session/cancel`.
//!
//! Three ways two things arrive together, each kept to that order without
//! widening any wait:
//! - A question and a Ctrl-C: `select!` may take the interrupt before the
//!   question is read, so a cancel first handles what the agent had
//!   already sent ([`Turn::on_trigger`]).
//! - One Ctrl-C in the terminal prompt is both the prompt's key and the
//!   SIGINT the prompt library raises: the prompt leaves Ctrl-C to the
//!   signal (`answer_input::spawn_terminal_prompt`), so it is one interrupt.
//! - A Ctrl-C and the end of stdin (a pipeline's writer dies with the same
//!   key): the end of stdin refuses the pending questions, which begins a
//!   cancel; the interrupt then joins that cancel instead of counting as a
//!   "second" one that stops the agent before it reads what was written.
//!
//! A stdout that is gone does not cut the sequence short: its events are
//! printed after the wire has it.

use std::time::{Duration, Instant};

use agent_client_protocol_schema::v1::{CancelNotification, AGENT_METHOD_NAMES};
use futures_util::FutureExt;
use serde_json::Value;

use super::{Cause, Turn};
use crate::acp::events::ResolvedBy;
use crate::acp::rpc;
use crate::acp::AcpError;
use crate::process::lines::Line;

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
    /// order a cancel promises. Reading what is already there first makes
    /// every question that reached oneworks before the cancel pending, so
    /// it is answered before `session/cancel`, whatever `select!` picked.
    pub(super) async fn on_trigger(
        &mut self,
        trigger: Trigger,
        waiting: u64,
    ) -> Result<Option<Result<Value, rpc::RpcError>>, AcpError> {
        let cause = match trigger {
            // The second interrupt stops the agent at once, reading nothing
            // more.
            Trigger::Interrupt if self.interrupts.received() >= 2 => return self.kill_now(),
            // The first one meets a cancel that a refusal began — most
            // often the end of stdin, which a Ctrl-C in a pipeline brings
            // with it (the writer dies too). The two are one cancel: its
            // answers and `session/cancel` are already on the wire, the
            // agent is left to confirm it, and the turn ends as the
            // person's interrupt. Stopping the agent here would kill it
            // before it reads what was written to it.
            Trigger::Interrupt if matches!(self.cancel, Some((Cause::Refused, _))) => {
                self.join_cancel();
                return Ok(None);
            }
            // One during a cancel the person or the deadline began (after
            // `{"cancel":true}` or a timeout) means "now", as a second
            // Ctrl-C does.
            Trigger::Interrupt if self.cancel.is_some() => return self.kill_now(),
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

    fn kill_now(&mut self) -> Result<Option<Result<Value, rpc::RpcError>>, AcpError> {
        self.kill_now = true;
        Err(AcpError::Interrupted)
    }

    /// Whether an interrupt has already arrived, though the loop has not
    /// taken it yet (it is taken here). A signal reaches the loop only
    /// through the runtime's driver, while the end of stdin comes straight
    /// from the reader thread: arriving together, the end of stdin wins
    /// unless the driver gets a turn first, which the yield gives it.
    pub(super) async fn interrupted_meanwhile(&mut self) -> bool {
        tokio::task::yield_now().await;
        self.interrupts.recv().now_or_never().is_some()
    }

    /// A cancel a refusal began, met by an interrupt that had already
    /// arrived when the turn ended: one cancel, the person's.
    pub(super) async fn join_an_interrupt_that_arrived(&mut self) {
        if matches!(self.cancel, Some((Cause::Refused, _))) && self.interrupted_meanwhile().await {
            self.join_cancel();
        }
    }

    /// An interrupt joins the cancel under way: the turn ends as the
    /// person's cancel (exit 130) rather than as the refusal that began it.
    fn join_cancel(&mut self) {
        if let Some((cause, _)) = self.cancel.as_mut() {
            *cause = Cause::User;
        }
        self.failure = None;
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
        self.begin_cancel_as(cause, ResolvedBy::Cancel).await
    }

    /// [`Self::begin_cancel`], the pending questions shown as resolved `by`.
    pub(super) async fn begin_cancel_as(
        &mut self,
        cause: Cause,
        by: ResolvedBy,
    ) -> Result<(), AcpError> {
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
        // of `--json` ended with the same Ctrl-C) must not end the sequence
        // before `session/cancel` is written, or the agent's turn runs on.
        let mut shown = Ok(());
        for pending in cancelled {
            if shown.is_ok() {
                shown = self.resolved(&pending.key, None, by);
            }
        }
        notified.and(shown)
    }
}
