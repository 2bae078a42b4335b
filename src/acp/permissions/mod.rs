//! Permission requests (`session/request_permission`): what the agent asks,
//! the choices shown for it, and how an answer maps back to one of the
//! agent's own option ids. Its native option ids and scopes are kept; oneworks
//! adds only "remember" choices that are answered through the native
//! request-scoped `allow_once`/`reject_once`.
//!
//! - [`decide`]: what decides by itself, in order: remembered rules, the
//!   written policy, the `--mode` table.
//! - [`remembered`]: remembered rules (session memory, per-project file in oneworks' data folder).
//! - [`reply`]: matching a typed reply to a choice, refusing ambiguity.
//! - [`decision_log`]: the session's record of every answer (`decisions.jsonl`).

pub mod decide;
pub mod decision_log;
pub mod remembered;
pub mod reply;

use serde_json::Value;

use super::events::ShownOption;
use super::shown::ShownRequest;
use remembered::RuleScope;

/// The native options and their kinds: the shared permission parser's.
pub use crate::acp_wire::permission::{NativeOption, OptionKind, ToolDetail};

/// What a request is about, as far as rules and `acceptEdits` care.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ToolKey {
    pub kind: Option<String>,
    pub title: String,
}

/// What the agent asks, as a run shows and decides it: a
/// `session/request_permission` read by the one parser
/// ([`crate::acp_wire::permission::PermissionRequest`], after the vendor's
/// quirks) plus what the person is shown of it (card text) and
/// what the mode's rules look at (the tool key).
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionAsk {
    /// The title as shown (card text: scrubbed, invisible
    /// characters escaped, bounded); `tool.title` is the agent's own.
    pub title: String,
    /// Everything shown of the request, and whether it is whole.
    pub shown: ShownRequest,
    pub tool: ToolKey,
    /// What the agent sent about the tool, whole and as it sent it (the
    /// card shows `shown`): a policy's deny looks here too, so a command
    /// padded past the card's bound is still found.
    pub detail: ToolDetail,
    pub options: Vec<NativeOption>,
}

impl PermissionAsk {
    pub fn parse(params: &Value) -> Self {
        let parsed = crate::acp_wire::permission::PermissionRequest::parse(params);
        let shown = ShownRequest::of(&parsed.title, &parsed.detail);
        Self {
            title: shown.title.clone(),
            shown,
            tool: ToolKey {
                kind: parsed.detail.kind.clone(),
                title: parsed.title,
            },
            detail: parsed.detail,
            options: parsed.options,
        }
    }

    /// The first native option of `kind`.
    pub fn native(&self, kind: &OptionKind) -> Option<&NativeOption> {
        self.options.iter().find(|option| &option.kind == kind)
    }

    /// An edit is `toolCall.kind` in {edit, delete, move}, or,
    /// without a kind, "write"/"edit" as a whole word of the title (words
    /// split at anything not a letter or digit: `fs_write` has one,
    /// `credit` and `rewrite` do not).
    pub fn is_edit(&self) -> bool {
        match &self.tool.kind {
            Some(kind) => matches!(kind.as_str(), "edit" | "delete" | "move"),
            None => self
                .tool
                .title
                .split(|c: char| !c.is_alphanumeric())
                .any(|word| {
                    word.eq_ignore_ascii_case("write") || word.eq_ignore_ascii_case("edit")
                }),
        }
    }

    /// An option id offered twice: an answer could not say which is meant.
    pub fn duplicate_option_id(&self) -> Option<&str> {
        self.options.iter().enumerate().find_map(|(index, option)| {
            self.options[..index]
                .iter()
                .any(|earlier| earlier.option_id == option.option_id)
                .then_some(option.option_id.as_str())
        })
    }
}

/// What picking a choice does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChoiceAction {
    /// Answer with this native option id.
    Native(String),
    /// Answer with the native once-option and remember a rule.
    Remember {
        allow: bool,
        scope: RuleScope,
        native: String,
    },
}

/// One choice as shown: a native option, or a "remember" choice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub shown: ShownOption,
    pub action: ChoiceAction,
    /// The agent's display name (its native labels are shown under it).
    pub agent: std::sync::Arc<str>,
}

impl Choice {
    /// The native option id this choice answers with.
    pub fn native_id(&self) -> &str {
        match &self.action {
            ChoiceAction::Native(id) | ChoiceAction::Remember { native: id, .. } => id,
        }
    }

    /// The line shown on a terminal.
    pub fn display(&self) -> String {
        let shown = &self.shown;
        let native = shown
            .native_label
            .as_deref()
            .filter(|native| *native != shown.label)
            .map(|native| format!(" — {}: {native}", self.agent))
            .unwrap_or_default();
        if shown.scope == "unknown" {
            format!("[scope unknown] {}", shown.label)
        } else {
            format!("{} · {}{native}", shown.label, shown.label_zh)
        }
    }
}

fn labels(kind: &OptionKind) -> Option<(&'static str, &'static str, &'static str)> {
    Some(match kind {
        OptionKind::AllowOnce => ("Allow once", "允许一次", "once"),
        OptionKind::AllowAlways => ("Always allow", "始终允许", "always"),
        OptionKind::RejectOnce => ("Reject once", "拒绝一次", "once"),
        OptionKind::RejectAlways => ("Always reject", "始终拒绝", "always"),
        OptionKind::Unknown(_) => return None,
    })
}

/// Gives the native options named in `labels` (the adapter's
/// `acp.optionLabels`) their own shown labels, so that two options of one
/// kind no longer render alike and a reply can name either.
pub fn relabel(
    choices: &mut [Choice],
    labels: &std::collections::BTreeMap<String, crate::adapter::acp_data::OptionLabel>,
) {
    for choice in choices.iter_mut() {
        if !matches!(choice.action, ChoiceAction::Native(_)) {
            continue;
        }
        if let Some(own) = labels.get(&choice.shown.option_id) {
            choice.shown.label.clone_from(&own.label);
            choice.shown.label_zh.clone_from(&own.label_zh);
        }
    }
}

/// The choices for `request`: its native options in their order, then the
/// remember choices that a native once-option can carry. `agent` is the
/// adapter's display name.
pub fn choices(request: &PermissionAsk, agent: &str) -> Vec<Choice> {
    let agent: std::sync::Arc<str> = agent.into();
    let mut choices: Vec<Choice> = Vec::new();
    for option in &request.options {
        let (label, label_zh, scope) = match labels(&option.kind) {
            Some((label, label_zh, scope)) => (label.to_owned(), label_zh.to_owned(), scope),
            None => (option.name.clone(), option.name.clone(), "unknown"),
        };
        choices.push(Choice {
            shown: ShownOption {
                ordinal: choices.len() + 1,
                option_id: option.option_id.clone(),
                label,
                label_zh,
                native_label: Some(option.name.clone()),
                kind: option.kind.name().to_owned(),
                scope: scope.to_owned(),
            },
            action: ChoiceAction::Native(option.option_id.clone()),
            agent: agent.clone(),
        });
    }
    let remember = [
        (
            true,
            RuleScope::Session,
            "Allow this tool for this session",
            "本会话内允许此工具",
        ),
        (
            false,
            RuleScope::Session,
            "Deny this tool for this session",
            "本会话内拒绝此工具",
        ),
        (
            true,
            RuleScope::Project,
            "Allow this tool for this project",
            "本项目内允许此工具",
        ),
        (
            false,
            RuleScope::Project,
            "Deny this tool for this project",
            "本项目内拒绝此工具",
        ),
    ];
    for (allow, scope, label, label_zh) in remember {
        let kind = if allow {
            OptionKind::AllowOnce
        } else {
            OptionKind::RejectOnce
        };
        let Some(native) = request.native(&kind) else {
            continue;
        };
        let verb = if allow { "allow" } else { "deny" };
        choices.push(Choice {
            shown: ShownOption {
                ordinal: choices.len() + 1,
                option_id: format!("oneworks:{verb}-{}", scope.name()),
                label: label.to_owned(),
                label_zh: label_zh.to_owned(),
                native_label: None,
                kind: kind.name().to_owned(),
                scope: scope.name().to_owned(),
            },
            action: ChoiceAction::Remember {
                allow,
                scope,
                native: native.option_id.clone(),
            },
            agent: agent.clone(),
        });
    }
    choices
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn native_options_come_first_then_remember_choices_on_once_options() {
        let request = PermissionAsk::parse(&json!({
            "toolCall": {"toolCallId":"t","title":"Write a.txt","kind":"edit"},
            "options": [
                {"optionId":"ok","name":"Yes","kind":"allow_once"},
                {"optionId":"always","name":"Trust","kind":"allow_always"},
                {"optionId":"odd","name":"Maybe later","kind":"ask_tomorrow"}
            ]
        }));
        assert!(request.is_edit());
        let choices = choices(&request, "Acme Agent");
        let ids: Vec<&str> = choices.iter().map(|c| c.shown.option_id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "ok",
                "always",
                "odd",
                "oneworks:allow-session",
                "oneworks:allow-project"
            ]
        );
        assert_eq!(choices[2].shown.scope, "unknown");
        assert_eq!(choices[2].display(), "[scope unknown] Maybe later");
        assert_eq!(
            choices[0].display(),
            "Allow once · 允许一次 — Acme Agent: Yes"
        );
        assert_eq!(choices[3].native_id(), "ok");
        assert_eq!(choices[4].shown.ordinal, 5);
    }

    #[test]
    fn edits_are_recognised_by_kind_or_else_by_title() {
        let request = |call: Value| PermissionAsk::parse(&json!({"toolCall": call, "options": []}));
        assert!(request(json!({"title":"x","kind":"delete"})).is_edit());
        assert!(!request(json!({"title":"edit it","kind":"execute"})).is_edit());
        assert!(request(json!({"title":"fs_write a.txt"})).is_edit());
        assert!(!request(json!({"title":"ls -la"})).is_edit());
        assert!(request(json!({"title":"Edit src/main.rs"})).is_edit());
        assert!(request(json!({"title":"write-file a.txt"})).is_edit());
        assert!(!request(json!({"title":"Check credit balance"})).is_edit());
        assert!(!request(json!({"title":"rewrite history"})).is_edit());
        assert!(!request(json!({"title":"editor --version"})).is_edit());
    }

    #[test]
    fn alike_options_get_the_adapters_labels_and_a_reply_names_either() {
        use super::reply::{match_reply, Matched};
        use crate::adapter::acp_data::OptionLabel;
        // Qwen 0.24.4's auto-mode fallback: two allow_once options.
        let request = PermissionAsk::parse(&json!({
            "toolCall": {"title":"touch a","kind":"execute"},
            "options": [
                {"optionId":"proceed_once_and_switch_to_default",
                 "name":"Switch to Default Mode and allow once (recommended)","kind":"allow_once"},
                {"optionId":"proceed_once","name":"Allow","kind":"allow_once"},
                {"optionId":"cancel","name":"Reject","kind":"reject_once"}
            ]
        }));
        let mut shown = choices(&request, "Qwen Code");
        assert!(matches!(
            match_reply(&shown, "Allow once"),
            Matched::Ambiguous(_)
        ));
        let labels = std::collections::BTreeMap::from([(
            "proceed_once_and_switch_to_default".to_owned(),
            OptionLabel {
                label: "Allow once and switch to default mode".to_owned(),
                label_zh: "允许一次并切换到默认模式".to_owned(),
            },
        )]);
        relabel(&mut shown, &labels);
        assert_eq!(match_reply(&shown, "Allow once"), Matched::One(1));
        assert_eq!(
            match_reply(&shown, "allow once and switch"),
            Matched::One(0)
        );
        assert_eq!(
            match_reply(&shown, "允许一次并切换到默认模式"),
            Matched::One(0)
        );
        assert_eq!(shown[0].native_id(), "proceed_once_and_switch_to_default");
        // The remember choices keep oneworks' own labels.
        assert!(shown
            .iter()
            .any(|c| c.shown.label == "Allow this tool for this session"));
    }

    #[test]
    fn a_duplicate_option_id_is_found() {
        let request = |options: Value| {
            PermissionAsk::parse(&json!({"toolCall": {"title":"x"}, "options": options}))
        };
        let twice = request(json!([
            {"optionId":"a","name":"Yes","kind":"allow_once"},
            {"optionId":"b","name":"No","kind":"reject_once"},
            {"optionId":"a","name":"Never","kind":"reject_always"}
        ]));
        assert_eq!(twice.duplicate_option_id(), Some("a"));
        assert_eq!(
            request(json!([{"optionId":"a"},{"optionId":"b"}])).duplicate_option_id(),
            None
        );
    }
}
