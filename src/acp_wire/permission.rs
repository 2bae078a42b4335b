//! The one parser of `session/request_permission` params, shared by the
//! ACP client (`run`) and the recorder tail (`session start`). Read through
//! the schema's types — `ToolCallUpdate` for the tool call,
//! `PermissionOption` for each option — and leniently: an option the
//! schema refuses (a kind it does not know, no `name`) is still kept by its
//! `optionId`, with its kind as the agent wrote it, so it can be shown
//! under a neutral "scope unknown" frame; one without an id is skipped; a
//! missing or malformed tool call leaves its fields empty. What the parsed
//! request is good for (a run's question, a recorder card) is the caller's
//! decision. A vendor dialect is rewritten before this parser sees it
//! (`acp::quirks`).

use agent_client_protocol_schema::v1::{
    PermissionOption, PermissionOptionKind, ToolCallUpdate, ToolCallUpdateFields,
    CLIENT_METHOD_NAMES,
};
use serde::Deserialize;
use serde_json::Value;

/// The method of a permission request.
pub const METHOD: &str = CLIENT_METHOD_NAMES.session_request_permission;

/// A native option's kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionKind {
    AllowOnce,
    AllowAlways,
    RejectOnce,
    RejectAlways,
    /// A kind the schema does not know, as the agent wrote it: shown with
    /// its native label, never chosen automatically.
    Unknown(String),
}

impl OptionKind {
    fn of(kind: PermissionOptionKind) -> Self {
        match kind {
            PermissionOptionKind::AllowOnce => OptionKind::AllowOnce,
            PermissionOptionKind::AllowAlways => OptionKind::AllowAlways,
            PermissionOptionKind::RejectOnce => OptionKind::RejectOnce,
            PermissionOptionKind::RejectAlways => OptionKind::RejectAlways,
            // The schema's enum may grow: a new kind is unknown to us.
            _ => OptionKind::Unknown(
                serde_json::to_value(kind)
                    .ok()
                    .and_then(|kind| kind.as_str().map(str::to_owned))
                    .unwrap_or_default(),
            ),
        }
    }

    /// A kind as the agent wrote it.
    fn parse(text: &str) -> Self {
        PermissionOptionKind::deserialize(Value::from(text))
            .map(OptionKind::of)
            .unwrap_or_else(|_| OptionKind::Unknown(text.to_owned()))
    }

    /// The wire name (`allow_once`, …; an unknown kind as written).
    pub fn name(&self) -> &str {
        match self {
            OptionKind::AllowOnce => "allow_once",
            OptionKind::AllowAlways => "allow_always",
            OptionKind::RejectOnce => "reject_once",
            OptionKind::RejectAlways => "reject_always",
            OptionKind::Unknown(name) => name,
        }
    }
}

/// One of the agent's options, with its own id and label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NativeOption {
    pub option_id: String,
    pub name: String,
    pub kind: OptionKind,
}

/// What the request says about the tool, when it says it (untrusted): the
/// tool kind, `rawInput.command` (a string or words), `rawInput.cwd`, and
/// the paths of its `locations` and `rawInput.path` — all of them: what is
/// shown of them is card text's decision (`output::visible`), and the
/// message they came in is already bounded (the ACP line bound, the
/// recorder's line bound).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolDetail {
    pub kind: Option<String>,
    pub command: Option<String>,
    pub cwd: Option<String>,
    pub paths: Vec<String>,
}

/// A parsed `session/request_permission`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionRequest {
    pub session_id: Option<String>,
    /// Empty when the tool call has none.
    pub tool_call_id: String,
    /// Untrusted text from the agent; empty when absent.
    pub title: String,
    pub options: Vec<NativeOption>,
    pub detail: ToolDetail,
}

impl PermissionRequest {
    pub fn parse(params: &Value) -> Self {
        let call = params.get("toolCall");
        let (tool_call_id, fields) = match call.map(ToolCallUpdate::deserialize) {
            Some(Ok(update)) => (update.tool_call_id.0.to_string(), update.fields),
            _ => (
                String::new(),
                call.and_then(|call| ToolCallUpdateFields::deserialize(call).ok())
                    .unwrap_or_default(),
            ),
        };
        let options = params
            .get("options")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(native_option)
            .collect();
        Self {
            session_id: params
                .get("sessionId")
                .and_then(Value::as_str)
                .map(str::to_owned),
            tool_call_id,
            title: fields.title.clone().unwrap_or_default(),
            options,
            detail: detail(&fields),
        }
    }

    /// The first native option of `kind`.
    pub fn native(&self, kind: &OptionKind) -> Option<&NativeOption> {
        self.options.iter().find(|option| &option.kind == kind)
    }
}

fn native_option(option: &Value) -> Option<NativeOption> {
    if let Ok(typed) = PermissionOption::deserialize(option) {
        return Some(NativeOption {
            option_id: typed.option_id.0.to_string(),
            name: typed.name,
            kind: OptionKind::of(typed.kind),
        });
    }
    let option_id = option.get("optionId")?.as_str()?.to_owned();
    let name = option
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or(&option_id)
        .to_owned();
    let kind = OptionKind::parse(option.get("kind").and_then(Value::as_str).unwrap_or(""));
    Some(NativeOption {
        option_id,
        name,
        kind,
    })
}

fn detail(fields: &ToolCallUpdateFields) -> ToolDetail {
    let text = |value: Option<&Value>| {
        value
            .and_then(Value::as_str)
            .filter(|text| !text.trim().is_empty())
            .map(str::to_owned)
    };
    let input = fields.raw_input.as_ref();
    let command = match input.and_then(|input| input.get("command")) {
        Some(Value::Array(words)) => {
            let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
            (!words.is_empty()).then(|| words.join(" "))
        }
        other => text(other),
    };
    let mut paths: Vec<String> = fields
        .locations
        .iter()
        .flatten()
        .map(|location| location.path.to_string_lossy().into_owned())
        .filter(|path| !path.trim().is_empty())
        .collect();
    if let Some(path) = text(input.and_then(|input| input.get("path"))) {
        if !paths.contains(&path) {
            paths.push(path);
        }
    }
    ToolDetail {
        kind: fields.kind.and_then(|kind| {
            serde_json::to_value(kind)
                .ok()
                .and_then(|kind| kind.as_str().map(str::to_owned))
        }),
        command,
        cwd: text(input.and_then(|input| input.get("cwd"))),
        paths,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_standard_request_is_read_through_the_schema() {
        let request = PermissionRequest::parse(&json!({
            "sessionId": "s1",
            "toolCall": {
                "toolCallId": "c1", "title": "Run ls", "kind": "execute",
                "rawInput": {"command": ["ls", "-la"], "cwd": "/w", "path": "/w/a"},
                "locations": [{"path": "/w/b"}, {"path": "/w/a"}]
            },
            "options": [
                {"optionId": "proceed_once", "name": "Allow", "kind": "allow_once"},
                {"optionId": "proceed_always", "name": "Always", "kind": "allow_always"},
                {"optionId": "cancel", "name": "Reject", "kind": "reject_once"}
            ]
        }));
        assert_eq!(request.session_id.as_deref(), Some("s1"));
        assert_eq!(request.tool_call_id, "c1");
        assert_eq!(request.title, "Run ls");
        assert_eq!(
            request.detail,
            ToolDetail {
                kind: Some("execute".into()),
                command: Some("ls -la".into()),
                cwd: Some("/w".into()),
                paths: vec!["/w/b".into(), "/w/a".into()],
            }
        );
        let kinds: Vec<&str> = request.options.iter().map(|o| o.kind.name()).collect();
        assert_eq!(kinds, ["allow_once", "allow_always", "reject_once"]);
        assert_eq!(
            request
                .native(&OptionKind::RejectOnce)
                .map(|o| o.option_id.as_str()),
            Some("cancel")
        );
    }

    #[test]
    fn every_path_the_request_carries_is_kept() {
        let locations: Vec<Value> = (0..5000)
            .map(|n| json!({"path": format!("/w/{n}")}))
            .collect();
        let request = PermissionRequest::parse(&json!({
            "toolCall": {"toolCallId": "c1", "title": "Edit", "locations": locations},
            "options": []
        }));
        assert_eq!(request.detail.paths.len(), 5000);
        assert_eq!(request.detail.paths[4999], "/w/4999");
    }

    #[test]
    fn what_the_schema_refuses_is_kept_by_its_id_or_left_empty() {
        let request = PermissionRequest::parse(&json!({
            "toolCall": {"title": "no id", "kind": "SomethingNew"},
            "options": [
                {"optionId": "odd", "name": "Maybe later", "kind": "ask_tomorrow"},
                {"optionId": "bare"},
                {"optionId": "named-once", "kind": "allow_once"},
                {"name": "no id", "kind": "allow_once"},
                "junk"
            ]
        }));
        assert_eq!(request.tool_call_id, "");
        assert_eq!(request.title, "no id");
        // An unknown tool kind is the schema's `other`.
        assert_eq!(request.detail.kind.as_deref(), Some("other"));
        assert_eq!(
            request.options,
            [
                NativeOption {
                    option_id: "odd".into(),
                    name: "Maybe later".into(),
                    kind: OptionKind::Unknown("ask_tomorrow".into())
                },
                NativeOption {
                    option_id: "bare".into(),
                    name: "bare".into(),
                    kind: OptionKind::Unknown(String::new())
                },
                NativeOption {
                    option_id: "named-once".into(),
                    name: "named-once".into(),
                    kind: OptionKind::AllowOnce
                },
            ]
        );
        let empty = PermissionRequest::parse(&json!("not an object"));
        assert_eq!(empty.title, "");
        assert!(empty.options.is_empty());
        assert_eq!(METHOD, "session/request_permission");
    }
}
