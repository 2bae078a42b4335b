//! The `--mode` table (SPEC §7). `default`/`plan` ask the user;
//! `acceptEdits` allows edits by itself; `dontAsk`/`bypassPermissions`
//! allow everything by themselves. An automatic allow only ever uses the
//! request-scoped native `allow_once`: when only a persistent allow is
//! offered, the answer is `cancelled` and the run fails closed. Remembered
//! rules come first and obey the same limit. `--mode` is oneworks' policy;
//! it never calls the agent's `session/set_mode`.

use super::rules::Remembered;
use super::{OptionKind, PermissionAsk};
use crate::acp::events::ResolvedBy;

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

pub fn decide(mode: Mode, request: &PermissionAsk, remembered: Option<Remembered>) -> Decision {
    if request.options.is_empty() {
        // Nothing a person or a policy could pick.
        return Decision::Refuse {
            reason: format!("`{}` offered no options to choose from", request.title),
        };
    }
    if let Some(option_id) = request.duplicate_option_id() {
        // Any answer could reach the wrong option: refuse, never guess.
        return Decision::Refuse {
            reason: format!(
                "`{}` offered the option id `{option_id}` twice",
                request.title
            ),
        };
    }
    if let Some(rule) = remembered {
        return once(request, rule.allow, ResolvedBy::Rule, "a remembered rule");
    }
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

    use super::super::rules::RuleScope;
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
