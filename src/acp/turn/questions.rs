//! The questions of a turn: a permission request decided by itself (a
//! remembered rule, the written policy, the mode: `decisions.rs`), or
//! asked on the channel; replies matched to a choice (ambiguity refused
//! and asked again); refusals that fail closed.

use agent_client_protocol_schema::v1::{
    RequestPermissionOutcome, RequestPermissionResponse, SelectedPermissionOutcome,
};
use serde_json::Value;

use super::{Cause, Pending, Turn, NO_CHANNEL_HINT, POLICY_HINT};
use crate::acp::answer_input::{self, ChannelKind, Input};
use crate::acp::events::{Event, ResolvedBy};
use crate::acp::permissions::decide::Decision;
use crate::acp::permissions::reply::{match_reply, Matched};
use crate::acp::permissions::{choices, relabel, ChoiceAction, PermissionAsk};
use crate::acp::rpc::{self, RequestId};
use crate::acp::AcpError;

/// The most questions waiting for a person at once: an agent that keeps
/// asking without waiting cannot grow them (or the work per question)
/// without bound.
const MAX_PENDING: usize = 256;

impl Turn<'_> {
    fn fail(&mut self, reason: String, hint: &str) {
        if self.failure.is_none() {
            self.failure = Some(AcpError::PermissionRefused {
                reason,
                hint: hint.to_owned(),
            });
        }
    }

    pub(super) fn resolved(
        &mut self,
        key: &str,
        option_id: Option<String>,
        by: ResolvedBy,
    ) -> Result<(), AcpError> {
        self.record_answer(key, option_id.as_deref(), by)?;
        self.emit(&Event::PermissionResolved {
            id: key.to_owned(),
            option_id,
            by,
        })
    }

    /// Our answer to a permission request: an option, or `cancelled`.
    pub(super) async fn answer(
        &mut self,
        id: &RequestId,
        option_id: Option<&str>,
    ) -> Result<(), AcpError> {
        let outcome = match option_id {
            Some(option_id) => RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(
                option_id.to_owned(),
            )),
            None => RequestPermissionOutcome::Cancelled,
        };
        let answer = RequestPermissionResponse::new(outcome);
        self.send(&rpc::response(id, &answer)).await
    }

    /// Refuses closed: answers `cancelled`, records the failure and cancels
    /// the turn (the run then exits 10).
    async fn refuse(
        &mut self,
        id: &RequestId,
        key: &str,
        reason: String,
        hint: &str,
    ) -> Result<(), AcpError> {
        self.answer(id, None).await?;
        // The events after the cancel is on the wire, for the reason
        // `begin_cancel` gives.
        self.fail(reason.clone(), hint);
        let cancelled = self.begin_cancel(Cause::Refused).await;
        let shown = self
            .resolved(key, None, ResolvedBy::Policy)
            .and_then(|()| self.diagnostic(format!("permission `{key}` refused: {reason}")));
        cancelled.and(shown)
    }

    pub(super) async fn on_permission(
        &mut self,
        id: RequestId,
        mut params: Value,
    ) -> Result<(), AcpError> {
        if self.finished || self.cancel.is_some() {
            // No new interaction after the end or during a cancel.
            self.record_late(&id, &params);
            return self.answer(&id, None).await;
        }
        if self.pending.iter().any(|pending| pending.id == id) {
            // Never shown: the person could answer the wrong question.
            tracing::warn!("refused a permission request that reuses a pending id");
            return self.send(&rpc::error_response(&id, rpc::id_in_use())).await;
        }
        let key = self.key_for(&id);
        self.quirks.permission_request(&mut params);
        let mut request = PermissionAsk::parse(&params);
        // A question under a session oneworks never opened comes from a
        // subagent the agent started. It is answered like
        // any other — by the same mode and rules, never dropped: the agent
        // waits for the answer — and the person is told who asks.
        if let (Some(theirs), Some(ours)) = (
            params.get("sessionId").and_then(Value::as_str),
            self.session_id.as_deref(),
        ) {
            if theirs != ours {
                request.shown.asked_by_subagent(theirs);
            }
        }
        match self.decide(&key, &request)? {
            Decision::Answer { option_id, by } => {
                self.answer(&id, Some(&option_id)).await?;
                self.resolved(&key, Some(option_id), by)
            }
            Decision::Refuse { reason } => self.refuse(&id, &key, reason, POLICY_HINT).await,
            Decision::Ask => {
                let mut choices = choices(&request, &self.agent);
                relabel(&mut choices, &self.data.option_labels);
                match self.channel {
                    ChannelKind::None => {
                        let reason = format!(
                            "`{}` needs a person to answer, and there is no channel to ask",
                            request.title
                        );
                        self.refuse(&id, &key, reason, NO_CHANNEL_HINT).await
                    }
                    ChannelKind::Json if self.input_closed => {
                        let reason =
                            format!("`{}` needs an answer, and stdin is closed", request.title);
                        self.refuse(&id, &key, reason, NO_CHANNEL_HINT).await
                    }
                    _ if self.pending.len() >= MAX_PENDING => {
                        tracing::warn!("refused a permission request: {MAX_PENDING} are pending");
                        self.send(&rpc::error_response(
                            &id,
                            rpc::too_many_pending(MAX_PENDING),
                        ))
                        .await
                    }
                    _ => {
                        self.tell_owner_asking(&id).await?;
                        self.pending.push(Pending {
                            id,
                            key: key.clone(),
                            request,
                            choices,
                        });
                        self.ask(&key)
                    }
                }
            }
        }
    }

    /// The key a question is shown and answered under: the id's short
    /// text, made unique among pending questions (`7` and `"7"` are two
    /// questions; the later one becomes `7#2`).
    fn key_for(&self, id: &RequestId) -> String {
        let base = id.display();
        let taken = |key: &str| self.pending.iter().any(|pending| pending.key == key);
        if !taken(&base) {
            return base;
        }
        (2..)
            .map(|n| format!("{base}#{n}"))
            .find(|key| !taken(key))
            .unwrap_or(base)
    }

    /// A question has just become pending: with `--json` its one
    /// `permission_request` event; on a terminal its prompt, once no other
    /// prompt is open.
    ///
    /// The event is printed here and nowhere else: not again
    /// when an earlier question resolves, nor after a reply that matched no
    /// option (the diagnostic says so). A client that answers every event
    /// therefore answers each request once, and one that always sends the
    /// same unusable reply does not loop.
    fn ask(&mut self, key: &str) -> Result<(), AcpError> {
        match self.channel {
            ChannelKind::Json => {
                let Some(pending) = self.pending.iter().find(|pending| pending.key == key) else {
                    return Ok(());
                };
                let event = pending.request.shown.event(
                    pending.key.clone(),
                    pending
                        .choices
                        .iter()
                        .map(|choice| choice.shown.clone())
                        .collect(),
                );
                self.emit(&event)
            }
            ChannelKind::Terminal => self.prompt_next(),
            ChannelKind::None => Ok(()),
        }
    }

    /// On a terminal, the prompt of the oldest pending question when no
    /// prompt is open (one at a time: the next one once it resolves). The
    /// JSON channel prints nothing here: its event went out on arrival.
    pub(super) fn prompt_next(&mut self) -> Result<(), AcpError> {
        if self.channel != ChannelKind::Terminal || self.prompting.is_some() || self.finished {
            return Ok(());
        }
        let Some(pending) = self.pending.first() else {
            return Ok(());
        };
        // Agent text held back by the scrubber comes before the prompt.
        self.sink.release_held().map_err(AcpError::Output)?;
        self.prompting = Some(pending.key.clone());
        answer_input::spawn_terminal_prompt(
            pending.key.clone(),
            &self.agent,
            pending.request.shown.one_line(),
            &pending.choices,
            self.input_sender.clone(),
        );
        Ok(())
    }

    pub(super) async fn on_input(&mut self, input: Input) -> Result<(), AcpError> {
        match input {
            Input::Cancel => self.begin_cancel(Cause::User).await,
            Input::Invalid(message) => self.diagnostic(message),
            Input::Closed => self.on_input_closed().await,
            Input::Reply { id, reply } => self.on_reply(&id, &reply).await,
        }
    }

    /// Stdin ended: no answer will come, so every pending question is
    /// refused — all of them answered `cancelled` first, then one
    /// `session/cancel` (one refusal at a time would put `session/cancel`
    /// before the second answer).
    async fn on_input_closed(&mut self) -> Result<(), AcpError> {
        self.input_closed = true;
        if self.pending.is_empty() || self.cancel.is_some() {
            return Ok(());
        }
        // The Ctrl-C that ended the writer of stdin: its cancel, not a
        // refusal.
        if self.interrupted_meanwhile().await {
            return self.begin_cancel(Cause::User).await;
        }
        let unanswered: Vec<(String, String)> = self
            .pending
            .iter()
            .map(|pending| (pending.key.clone(), pending.request.title.clone()))
            .collect();
        let titles: Vec<String> = unanswered
            .iter()
            .map(|(_, title)| format!("`{title}`"))
            .collect();
        self.fail(
            format!("{} was not answered before stdin closed", titles.join(", ")),
            NO_CHANNEL_HINT,
        );
        let cancelled = self
            .begin_cancel_as(Cause::Refused, ResolvedBy::Policy)
            .await;
        let mut shown = Ok(());
        for (key, title) in unanswered {
            if shown.is_ok() {
                shown = self.diagnostic(format!(
                    "permission `{key}` refused: `{title}` was not answered before stdin closed"
                ));
            }
        }
        cancelled.and(shown)
    }

    async fn on_reply(&mut self, key: &str, reply: &str) -> Result<(), AcpError> {
        if self.prompting.as_deref() == Some(key) {
            self.prompting = None;
        }
        let Some(index) = self.pending.iter().position(|pending| pending.key == key) else {
            if self.channel == ChannelKind::Json && !self.finished {
                self.diagnostic(format!(
                    "no permission request `{key}` is waiting for a reply"
                ))?;
            }
            return self.prompt_next();
        };
        let listed = |pending: &Pending| {
            pending
                .choices
                .iter()
                .map(|choice| format!("{}. {}", choice.shown.ordinal, choice.display()))
                .collect::<Vec<_>>()
                .join("; ")
        };
        match match_reply(&self.pending[index].choices, reply) {
            Matched::One(choice) => {
                let pending = self.pending.remove(index);
                let choice = pending.choices[choice].clone();
                let native = choice.native_id().to_owned();
                self.answer(&pending.id, Some(&native)).await?;
                if let ChoiceAction::Remember { allow, scope, .. } = choice.action {
                    if let Some(note) = self.rules.remember(
                        pending.request.tool.clone(),
                        allow,
                        scope,
                        self.scrubber,
                    ) {
                        self.diagnostic(note)?;
                    }
                }
                self.resolved(&pending.key, Some(native), ResolvedBy::User)?;
                self.prompt_next()
            }
            Matched::Ambiguous(candidates) => {
                self.diagnostic(format!(
                    "reply `{reply}` to `{key}` is ambiguous; it fits: {}. Answer again",
                    candidates.join("; ")
                ))?;
                self.prompt_next()
            }
            Matched::NoMatch => {
                let options = listed(&self.pending[index]);
                self.diagnostic(format!("reply `{reply}` to `{key}` matches no option; the options are: {options}. Answer again"))?;
                self.prompt_next()
            }
        }
    }
}
