//! How a run decides a permission request by itself, in this order:
//!
//! 1. A request nobody could answer safely (no options, an option id
//!    offered twice) is refused.
//! 2. A remembered rule decides: it is the person's own answer to
//!    this very request (same tool kind and title), the narrowest word
//!    there is, kept in oneworks' own data folder — never in the project —
//!    so it is as trusted as the config, and a person who answered a
//!    question need not fight their config to keep that answer.
//! 3. The written policy (`policy:`, `written`) decides
//!    `allow`/`deny` for whole classes of requests; its `ask` (the default
//!    `otherwise`) hands the request on, as if there were no policy.
//! 4. The `--mode` table: `default`/`plan` ask the person; `acceptEdits`
//!    allows edits by itself; `dontAsk`/`bypassPermissions` allow
//!    everything by themselves. `--mode` never calls the agent's
//!    `session/set_mode`.
//!
//! Every automatic answer is request-scoped: an allow only ever uses the
//! native `allow_once`, a deny the native `reject_once`; when that option
//! is missing, the answer is `cancelled` and the run fails closed (exit 10).

mod written;

pub use written::{Ruling, WrittenPolicy};

use super::remembered::Remembered;
use super::{OptionKind, PermissionAsk};
use crate::acp::events::ResolvedBy;
use crate::config::policy::PolicyVerdict;

/// The permission policy of a run (`--mode`; its clap face is
/// `cli::ModeArg`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Ask for every permission
    #[default]
    Default,
    /// Ask for every permission (planning turns)
    Plan,
    /// Allow edits (write/edit/delete/move) by `allow_once`; ask for the rest
    AcceptEdits,
    /// Allow everything by `allow_once`, never ask
    DontAsk,
    /// Allow everything by `allow_once`, never ask
    BypassPermissions,
}

impl Mode {
    /// Its `--mode` spelling.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::Plan => "plan",
            Mode::AcceptEdits => "acceptEdits",
            Mode::DontAsk => "dontAsk",
            Mode::BypassPermissions => "bypassPermissions",
        }
    }
}

/// What to do with a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// A person must choose.
    Ask,
    /// Answer with this native option id.
    Answer { option_id: String, by: ResolvedBy },
    /// Answer `cancelled` and fail the run (exit 10).
    Refuse { reason: String },
}

fn once(request: &PermissionAsk, allow: bool, by: ResolvedBy, why: &str) -> Decision {
    let kind = if allow {
        OptionKind::AllowOnce
    } else {
        OptionKind::RejectOnce
    };
    match request.native(&kind) {
        Some(option) => Decision::Answer {
            option_id: option.option_id.clone(),
            by,
        },
        None => Decision::Refuse {
            reason: format!(
                "{why} needs the agent's request-scoped `{}` option, and `{}` offered none",
                if allow { "allow_once" } else { "reject_once" },
                request.title
            ),
        },
    }
}

/// The `--mode` table and the remembered rules, without a written policy.
pub fn decide(mode: Mode, request: &PermissionAsk, remembered: Option<Remembered>) -> Decision {
    decide_with(mode, None, request, remembered).0
}

/// The decision on `request` in the order of this module's doc, and the
/// written policy's ruling when it was consulted.
pub fn decide_with(
    mode: Mode,
    written: Option<&WrittenPolicy>,
    request: &PermissionAsk,
    remembered: Option<Remembered>,
) -> (Decision, Option<Ruling>) {
    if let Some(refused) = unanswerable(request) {
        return (refused, None);
    }
    if let Some(rule) = remembered {
        let decision = once(request, rule.allow, ResolvedBy::Rule, "a remembered rule");
        return (decision, None);
    }
    let Some(ruling) = written.map(|written| written.judge(request)) else {
        return (by_mode(mode, request), None);
    };
    let why = format!("the policy's `{}`", ruling.key());
    let decision = match ruling.verdict {
        PolicyVerdict::Allow => once(request, true, ResolvedBy::Policy, &why),
        PolicyVerdict::Deny => once(request, false, ResolvedBy::Policy, &why),
        PolicyVerdict::Ask => by_mode(mode, request),
    };
    (decision, Some(ruling))
}

/// A refusal when no answer to `request` could be safe.
fn unanswerable(request: &PermissionAsk) -> Option<Decision> {
    if request.options.is_empty() {
        // Nothing a person or a policy could pick.
        return Some(Decision::Refuse {
            reason: format!("`{}` offered no options to choose from", request.title),
        });
    }
    // Any answer could reach the wrong option: refuse, never guess.
    request
        .duplicate_option_id()
        .map(|option_id| Decision::Refuse {
            reason: format!(
                "`{}` offered the option id `{option_id}` twice",
                request.title
            ),
        })
}

/// The `--mode` table.
fn by_mode(mode: Mode, request: &PermissionAsk) -> Decision {
    let automatic = match mode {
        Mode::Default | Mode::Plan => false,
        Mode::AcceptEdits => request.is_edit(),
        Mode::DontAsk | Mode::BypassPermissions => true,
    };
    if automatic {
        once(request, true, ResolvedBy::Policy, "an automatic allow")
    } else {
        Decision::Ask
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::super::remembered::RuleScope;
    use super::*;

    fn request(kind: &str, options: Value) -> PermissionAsk {
        PermissionAsk::parse(&json!({
            "toolCall": {"toolCallId":"t","title":"Do it","kind":kind},
            "options": options
        }))
    }

    fn full() -> Value {
        json!([
            {"optionId":"yes","name":"Yes","kind":"allow_once"},
            {"optionId":"always","name":"Always","kind":"allow_always"},
            {"optionId":"no","name":"No","kind":"reject_once"}
        ])
    }

    fn only_always() -> Value {
        json!([
            {"optionId":"always","name":"Always","kind":"allow_always"},
            {"optionId":"no","name":"No","kind":"reject_once"}
        ])
    }

    fn answer(id: &str, by: ResolvedBy) -> Decision {
        Decision::Answer {
            option_id: id.into(),
            by,
        }
    }

    #[test]
    fn each_mode_against_each_option_set() {
        let policy = ResolvedBy::Policy;
        for mode in [Mode::Default, Mode::Plan] {
            assert_eq!(decide(mode, &request("edit", full()), None), Decision::Ask);
            assert_eq!(
                decide(mode, &request("edit", only_always()), None),
                Decision::Ask
            );
        }
        assert_eq!(
            decide(Mode::AcceptEdits, &request("edit", full()), None),
            answer("yes", policy)
        );
        assert_eq!(
            decide(Mode::AcceptEdits, &request("move", full()), None),
            answer("yes", policy)
        );
        assert_eq!(
            decide(Mode::AcceptEdits, &request("execute", full()), None),
            Decision::Ask
        );
        assert!(matches!(
            decide(Mode::AcceptEdits, &request("edit", only_always()), None),
            Decision::Refuse { .. }
        ));
        for mode in [Mode::DontAsk, Mode::BypassPermissions] {
            assert_eq!(
                decide(mode, &request("execute", full()), None),
                answer("yes", policy)
            );
            assert!(matches!(
                decide(mode, &request("execute", only_always()), None),
                Decision::Refuse { .. }
            ));
            let unknown = json!([{"optionId":"x","name":"Sure","kind":"allow_forever"}]);
            assert!(matches!(
                decide(mode, &request("execute", unknown), None),
                Decision::Refuse { .. }
            ));
        }
    }

    #[test]
    fn duplicate_option_ids_are_refused_in_every_mode() {
        let twice = json!([
            {"optionId":"same","name":"Yes","kind":"allow_once"},
            {"optionId":"same","name":"No","kind":"reject_once"}
        ]);
        for mode in [Mode::Default, Mode::AcceptEdits, Mode::DontAsk] {
            assert!(matches!(
                decide(mode, &request("edit", twice.clone()), None),
                Decision::Refuse { .. }
            ));
        }
    }

    #[test]
    fn a_request_without_options_is_refused_in_every_mode() {
        for mode in [Mode::Default, Mode::AcceptEdits, Mode::DontAsk] {
            assert!(matches!(
                decide(mode, &request("edit", json!([])), None),
                Decision::Refuse { .. }
            ));
        }
    }

    fn written(yaml: &str) -> WrittenPolicy {
        let policy = serde_yaml_ng::from_str(yaml).expect("a policy");
        WrittenPolicy::new("policy".into(), policy, std::path::Path::new("/p"))
    }

    #[test]
    fn a_remembered_rule_then_the_written_policy_then_the_mode_decide() {
        let deny_execute = written("rules:\n  - decide: deny\n    kind: execute\n");
        let decided = |mode, remembered| {
            decide_with(
                mode,
                Some(&deny_execute),
                &request("execute", full()),
                remembered,
            )
        };
        let allow = Remembered {
            allow: true,
            scope: RuleScope::Session,
        };
        // The person's own answer to this request wins, and the policy is
        // not consulted.
        assert_eq!(
            decided(Mode::Default, Some(allow)),
            (answer("yes", ResolvedBy::Rule), None)
        );
        // The policy beats an automatic mode.
        let (decision, ruling) = decided(Mode::DontAsk, None);
        assert_eq!(decision, answer("no", ResolvedBy::Policy));
        assert_eq!(ruling.expect("a ruling").index, Some(0));
        // Its `ask` (here `otherwise`) leaves the request to the mode.
        let edit = request("edit", full());
        let (decision, ruling) = decide_with(Mode::AcceptEdits, Some(&deny_execute), &edit, None);
        assert_eq!(decision, answer("yes", ResolvedBy::Policy));
        assert_eq!(ruling.expect("a ruling").verdict, PolicyVerdict::Ask);
        assert_eq!(
            decide_with(Mode::Default, Some(&deny_execute), &edit, None).0,
            Decision::Ask
        );
    }

    #[test]
    fn the_written_policy_answers_only_with_once_options_and_refuses_without() {
        let allow_all = written("rules:\n  - decide: allow\n");
        let (decision, _) = decide_with(
            Mode::Default,
            Some(&allow_all),
            &request("edit", only_always()),
            None,
        );
        let Decision::Refuse { reason } = decision else {
            panic!("refused: {decision:?}");
        };
        assert!(reason.contains("`policy.rules[0]`"), "{reason}");
        assert!(reason.contains("`allow_once`"), "{reason}");
        let deny_all = written("otherwise: deny\n");
        let no_reject = json!([{"optionId":"yes","name":"Yes","kind":"allow_once"}]);
        assert!(matches!(
            decide_with(
                Mode::Default,
                Some(&deny_all),
                &request("edit", no_reject),
                None
            )
            .0,
            Decision::Refuse { .. }
        ));
        // Unanswerable requests are refused before any rule is read.
        assert_eq!(
            decide_with(
                Mode::Default,
                Some(&allow_all),
                &request("edit", json!([])),
                None
            )
            .1,
            None
        );
    }

    #[test]
    fn remembered_rules_come_first_and_use_only_once_options() {
        let allow = Remembered {
            allow: true,
            scope: RuleScope::Project,
        };
        let deny = Remembered {
            allow: false,
            scope: RuleScope::Session,
        };
        assert_eq!(
            decide(Mode::Default, &request("edit", full()), Some(allow)),
            answer("yes", ResolvedBy::Rule)
        );
        assert_eq!(
            decide(Mode::DontAsk, &request("edit", full()), Some(deny)),
            answer("no", ResolvedBy::Rule)
        );
        assert!(matches!(
            decide(Mode::Default, &request("edit", only_always()), Some(allow)),
            Decision::Refuse { .. }
        ));
    }
}
