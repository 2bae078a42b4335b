//! The turn's side of deciding and recording: each question is
//! decided in the order `permissions::decide` gives (remembered rule,
//! written policy, `--mode`, else a person); a request the written policy
//! decided is shown as one `permission_decision` event instead of a
//! `permission_request`, then resolved like every automatic answer
//! (`permission_resolved`, `by: "policy"`), so each request still ends in
//! exactly one `permission_resolved`. Every answer — whoever gave it —
//! becomes one line of the session's `decisions.jsonl` when it is sent
//! (`Turn::resolved` is the one place every answer passes), and so does a
//! request answered `cancelled` because it came during a cancel or after
//! the turn. A request refused with a JSON-RPC error (a reused id, too
//! many pending) was never answered with an option and is not recorded.

use std::collections::HashMap;

use serde_json::Value;

use super::Turn;
use crate::acp::events::{Event, ResolvedBy};
use crate::acp::permissions::decide::{decide_with, Decision, Ruling};
use crate::acp::permissions::decision_log::{Decided, DecidedBy, DecisionPlan};
use crate::acp::permissions::PermissionAsk;
use crate::acp::rpc::RequestId;
use crate::acp::AcpError;
use crate::config::policy::PolicyVerdict;

/// The run's plan, and the questions decided or asked whose answer is not
/// recorded yet.
#[derive(Debug, Default)]
pub(super) struct Book {
    plan: DecisionPlan,
    open: HashMap<String, Open>,
    /// A record that could not be written was reported once.
    warned: bool,
    /// The title of the last question answered with a reject option, while
    /// no later one was allowed: an agent that then ends its turn
    /// `cancelled` (Codex does for its "no") ended it on that refusal.
    pub(super) rejected: Option<String>,
}

#[derive(Debug)]
struct Open {
    title: String,
    /// Each native option id and its kind.
    options: Vec<(String, String)>,
    /// Who decided by itself; `None`: a person was asked.
    decided: Option<DecidedBy>,
}

impl Turn<'_> {
    /// The run's written policy and decision record.
    pub fn follow(&mut self, plan: DecisionPlan) {
        self.decisions.plan = plan;
    }

    /// Decides `request` (asked under `key`) by itself where it can; a
    /// decision of the written policy is shown as its event.
    pub(super) fn decide(
        &mut self,
        key: &str,
        request: &PermissionAsk,
    ) -> Result<Decision, AcpError> {
        let remembered = self.rules.lookup(&request.tool);
        let written = self.decisions.plan.policy.clone();
        let (decision, ruling) = decide_with(self.mode, written.as_deref(), request, remembered);
        let ruling = ruling.filter(|ruling| ruling.verdict != PolicyVerdict::Ask);
        let decided = match (&decision, remembered) {
            (Decision::Ask, _) => None,
            (Decision::Refuse { reason }, _) => Some(DecidedBy::Refused {
                reason: Some(reason.clone()),
                ruling: ruling.clone(),
            }),
            (Decision::Answer { .. }, Some(rule)) => Some(DecidedBy::Remembered(rule.scope)),
            (Decision::Answer { .. }, None) => Some(match &ruling {
                Some(ruling) => DecidedBy::Policy(ruling.clone()),
                None => DecidedBy::Mode(self.mode),
            }),
        };
        self.decisions.open.insert(
            key.to_owned(),
            Open {
                title: request.title.clone(),
                options: request
                    .options
                    .iter()
                    .map(|option| (option.option_id.clone(), option.kind.name().to_owned()))
                    .collect(),
                decided,
            },
        );
        if let Some(ruling) = ruling {
            self.show_ruling(key, &request.title, ruling)?;
        }
        Ok(decision)
    }

    fn show_ruling(&mut self, key: &str, title: &str, ruling: Ruling) -> Result<(), AcpError> {
        self.emit(&Event::PermissionDecision {
            id: key.to_owned(),
            title: title.to_owned(),
            decision: ruling.verdict.as_str().to_owned(),
            rule: ruling.rule,
        })
    }

    /// Records the answer to the question `key`: `option_id`, or
    /// `cancelled` (`None`), settled `by`.
    pub(super) fn record_answer(
        &mut self,
        key: &str,
        option_id: Option<&str>,
        by: ResolvedBy,
    ) -> Result<(), AcpError> {
        let Some(open) = self.decisions.open.remove(key) else {
            return Ok(());
        };
        let by = match (by, open.decided, option_id) {
            (ResolvedBy::User, _, _) => DecidedBy::Person,
            (ResolvedBy::Cancel, _, _) => DecidedBy::Cancel,
            (_, Some(decided), _) => decided,
            // A question for a person that nobody could answer.
            (_, None, _) => DecidedBy::Refused {
                reason: self.refusal_reason(),
                ruling: None,
            },
        };
        let option = option_id.map(|id| {
            let kind = open
                .options
                .iter()
                .find(|(option, _)| option == id)
                .map_or("unknown", |(_, kind)| kind.as_str());
            (id, kind)
        });
        match option.map(|(_, kind)| kind) {
            Some(kind) if kind.starts_with("reject") => {
                self.decisions.rejected = Some(open.title.clone());
            }
            Some(kind) if kind.starts_with("allow") => self.decisions.rejected = None,
            _ => {}
        }
        let decided = Decided {
            id: key,
            title: &open.title,
            by,
            option,
        };
        self.write_record(&decided)
    }

    /// Records a request answered `cancelled` at once because it came
    /// during a cancel or after the turn.
    pub(super) fn record_late(&mut self, id: &RequestId, params: &Value) {
        let request = PermissionAsk::parse(params);
        let key = id.display();
        let decided = Decided {
            id: &key,
            title: &request.title,
            by: DecidedBy::Cancel,
            option: None,
        };
        // After the turn there is no stream left to report a failure on.
        if let Err(error) = self.write_record(&decided) {
            tracing::warn!("{error}");
        }
    }

    fn refusal_reason(&self) -> Option<String> {
        match &self.failure {
            Some(AcpError::PermissionRefused { reason, .. }) => Some(reason.clone()),
            _ => None,
        }
    }

    /// Appends `decided` to the record; the first failure is reported (the
    /// run goes on: the answer is already on its way to the agent).
    fn write_record(&mut self, decided: &Decided<'_>) -> Result<(), AcpError> {
        let Some(log) = &self.decisions.plan.log else {
            return Ok(());
        };
        let Err(error) = log.append(decided, self.scrubber) else {
            return Ok(());
        };
        if std::mem::replace(&mut self.decisions.warned, true) || self.finished {
            return Ok(());
        }
        let message = format!(
            "cannot record permission decisions in `{}` ({error}); the run goes on, and what cannot be written is not recorded",
            log.path().display()
        );
        self.diagnostic(message)
    }
}
