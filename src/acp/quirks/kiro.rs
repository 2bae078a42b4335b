//! Kiro CLI's ACP dialect (`kiro-cli acp`), rewritten into the standard
//! shape before typed decoding:
//!
//! - some versions send session updates as `session/notification`;
//! - update kinds in PascalCase, either as the `sessionUpdate` value
//!   (`"AgentMessageChunk"`) or as a single wrapping key
//!   (`{"AgentMessageChunk":{…}}`);
//! - content blocks as `{"Text":{"text":…}}`, `{"Text":"…"}` or a bare
//!   string; tool kinds, statuses and permission option kinds in
//!   PascalCase; `tool_call`/`id`/`name` for `toolCall`/`toolCallId`/
//!   `title`, and `id` for a permission option's `optionId`;
//! - `_kiro.dev/…` extension notifications (metadata, subagent lists),
//!   read and dropped.
//!
//! Only names the standard knows are translated; anything else is kept as
//! Kiro sent it.

use serde_json::{Map, Value};

use super::{known_or_as_is, standard, Quirks};

#[derive(Debug)]
pub struct Kiro;

pub const QUIRKS: Kiro = Kiro;

/// Kiro's name for `session/update` in some versions.
const NOTIFICATION: &str = "session/notification";
/// The prefix of Kiro's extension methods.
const EXTENSION_PREFIX: &str = "_kiro.dev/";

impl Quirks for Kiro {
    fn name(&self) -> &'static str {
        "kiro"
    }

    fn standard_notification(&self, method: &str) -> Option<&'static str> {
        (method == NOTIFICATION).then_some(standard::SESSION_UPDATE)
    }

    fn is_extension(&self, method: &str) -> bool {
        method.starts_with(EXTENSION_PREFIX)
    }

    fn update(&self, update: &mut Value) {
        unwrap_single_key(update);
        let Value::Object(body) = update else {
            return;
        };
        if let Some(Value::String(kind)) = body.get_mut("sessionUpdate") {
            *kind = known_or_as_is(kind, standard::UPDATE_KINDS);
        }
        if let Some(content) = body.get_mut("content") {
            text_block(content);
        }
        rename(body, &["tool_call_id", "id"], "toolCallId");
        rename(body, &["name"], "title");
        translate(body, "kind", standard::TOOL_KINDS);
        translate(body, "status", standard::TOOL_STATUSES);
    }

    fn permission_request(&self, params: &mut Value) {
        let Value::Object(params) = params else {
            return;
        };
        rename(params, &["tool_call"], "toolCall");
        if let Some(Value::Object(call)) = params.get_mut("toolCall") {
            rename(call, &["tool_call_id", "id"], "toolCallId");
            translate(call, "kind", standard::TOOL_KINDS);
            translate(call, "status", standard::TOOL_STATUSES);
        }
        if let Some(Value::Array(options)) = params.get_mut("options") {
            for option in options {
                if let Value::Object(option) = option {
                    rename(option, &["id"], "optionId");
                    translate(option, "kind", standard::OPTION_KINDS);
                }
            }
        }
    }
}

/// `{"AgentMessageChunk":{…}}` → `{"sessionUpdate":"AgentMessageChunk",…}`.
fn unwrap_single_key(update: &mut Value) {
    let Value::Object(object) = update else {
        return;
    };
    if object.len() != 1 || object.contains_key("sessionUpdate") {
        return;
    }
    let Some((key, Value::Object(_))) = object.iter().next() else {
        return;
    };
    let key = key.clone();
    if let Some(Value::Object(mut body)) = object.remove(&key) {
        body.insert("sessionUpdate".into(), Value::String(key));
        *update = Value::Object(body);
    }
}

/// Kiro's text content spellings → `{"type":"text","text":…}`.
fn text_block(content: &mut Value) {
    let text = match content {
        Value::String(text) => Some(std::mem::take(text)),
        Value::Object(object) if !object.contains_key("type") => match object.get_mut("Text") {
            Some(Value::String(text)) => Some(std::mem::take(text)),
            Some(Value::Object(inner)) => match inner.get_mut("text") {
                Some(Value::String(text)) => Some(std::mem::take(text)),
                _ => None,
            },
            _ => match object.get_mut("text") {
                Some(Value::String(text)) => Some(std::mem::take(text)),
                _ => None,
            },
        },
        _ => None,
    };
    if let Some(text) = text {
        let mut block = Map::new();
        block.insert("type".into(), Value::from("text"));
        block.insert("text".into(), Value::String(text));
        *content = Value::Object(block);
    }
}

/// Moves the first of `aliases` present to `standard` when that is absent.
fn rename(object: &mut Map<String, Value>, aliases: &[&str], standard: &str) {
    if object.contains_key(standard) {
        return;
    }
    for alias in aliases {
        if let Some(value) = object.remove(*alias) {
            object.insert(standard.to_owned(), value);
            return;
        }
    }
}

fn translate(object: &mut Map<String, Value>, key: &str, known: &[&str]) {
    if let Some(Value::String(value)) = object.get_mut(key) {
        *value = known_or_as_is(value, known);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rewritten(mut update: Value) -> Value {
        QUIRKS.update(&mut update);
        update
    }

    #[test]
    fn both_dialect_forms_become_the_standard_shape() {
        let pairs = [
            (
                json!({"sessionUpdate":"AgentMessageChunk","content":{"Text":{"text":"hi"}}}),
                json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}),
            ),
            (
                json!({"AgentThoughtChunk":{"content":{"Text":"hm"}}}),
                json!({"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hm"}}),
            ),
            (
                json!({"sessionUpdate":"agent_message_chunk","content":"bare"}),
                json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"bare"}}),
            ),
            (
                json!({"ToolCall":{"id":"t1","name":"Edit a.rs","kind":"Edit","status":"InProgress"}}),
                json!({"sessionUpdate":"tool_call","toolCallId":"t1","title":"Edit a.rs","kind":"edit","status":"in_progress"}),
            ),
            (
                json!({"Plan":{"entries":[{"content":"x","status":"pending"}]}}),
                json!({"sessionUpdate":"plan","entries":[{"content":"x","status":"pending"}]}),
            ),
        ];
        for (kiro, standard) in pairs {
            assert_eq!(rewritten(kiro.clone()), standard, "{kiro}");
            // The standard shape is left as it is.
            assert_eq!(rewritten(standard.clone()), standard);
        }
    }

    #[test]
    fn unknown_names_are_kept_as_sent() {
        assert_eq!(
            rewritten(json!({"sessionUpdate":"FancyNewThing","x":1})),
            json!({"sessionUpdate":"FancyNewThing","x":1})
        );
        assert_eq!(
            rewritten(json!({"ToolCall":{"toolCallId":"t","title":"x","kind":"SomeKind"}}))["kind"],
            "SomeKind"
        );
        // Not an update at all: untouched.
        assert_eq!(rewritten(json!("odd")), json!("odd"));
    }

    #[test]
    fn methods_and_permission_requests() {
        assert_eq!(
            QUIRKS.standard_notification("session/notification"),
            Some("session/update")
        );
        assert_eq!(QUIRKS.standard_notification("session/update"), None);
        assert!(QUIRKS.is_extension("_kiro.dev/metadata"));
        assert!(!QUIRKS.is_extension("session/update"));
        let mut params = json!({
            "tool_call": {"id": "c1", "title": "Write a.txt", "kind": "Edit"},
            "options": [
                {"id": "ok", "name": "Yes", "kind": "AllowOnce"},
                {"optionId": "odd", "name": "Later", "kind": "AskTomorrow"}
            ]
        });
        QUIRKS.permission_request(&mut params);
        assert_eq!(
            params,
            json!({
                "toolCall": {"toolCallId": "c1", "title": "Write a.txt", "kind": "edit"},
                "options": [
                    {"optionId": "ok", "name": "Yes", "kind": "allow_once"},
                    {"optionId": "odd", "name": "Later", "kind": "AskTomorrow"}
                ]
            })
        );
    }
}
