//! Reading `session/update` (and Kiro's `session/notification`) payloads in
//! both dialects: the standard `{"sessionUpdate":"agent_message_chunk",…}`
//! and Kiro's PascalCase names, either as the `sessionUpdate` value
//! (`"AgentMessageChunk"`) or as a single wrapping key
//! (`{"AgentMessageChunk":{…}}`). Unknown kinds become `unknown_update`
//! events, never errors.

use serde_json::Value;

use super::events::Event;

/// Kinds we understand but do not stream as events (state Kiro reports
/// about itself; a replayed user message on `session/load`).
const QUIET_KINDS: &[&str] = &[
    "user_message_chunk",
    "available_commands_update",
    "current_mode_update",
    "config_option_update",
    "session_info_update",
    "usage_update",
];

/// The tool kinds and statuses of ACP v1: the only values of `kind` and
/// `status` translated to snake_case; any other passes through as the agent
/// sent it (SPEC §6.2: an agent's string is scrubbed as received, before any
/// transformation, and the printer scrubs what passes through).
const TOOL_KINDS: &[&str] = &[
    "read",
    "edit",
    "delete",
    "move",
    "search",
    "execute",
    "think",
    "fetch",
    "switch_mode",
    "other",
];
const TOOL_STATUSES: &[&str] = &["pending", "in_progress", "completed", "failed"];

/// The kinds of update this module knows, in snake_case.
const KNOWN_KINDS: &[&str] = &[
    "agent_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
    "plan",
];

/// `value` in snake_case if that is one of `known`, else `value` as it is.
fn known_or_as_is(value: &str, known: &[&str]) -> String {
    let snake = snake_case(value);
    if known.contains(&snake.as_str()) {
        snake
    } else {
        value.to_owned()
    }
}

/// `AgentMessageChunk` → `agent_message_chunk`; snake_case stays as it is.
pub fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (index, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if index > 0 && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The kind and body of an update, in either dialect.
fn kind_and_body(update: &Value) -> Option<(String, &Value)> {
    let kind = |name: &str| {
        let known: Vec<&str> = KNOWN_KINDS.iter().chain(QUIET_KINDS).copied().collect();
        known_or_as_is(name, &known)
    };
    if let Some(name) = update.get("sessionUpdate").and_then(Value::as_str) {
        return Some((kind(name), update));
    }
    let object = update.as_object()?;
    if object.len() == 1 {
        let (key, body) = object.iter().next()?;
        if body.is_object() {
            return Some((kind(key), body));
        }
    }
    None
}

/// Text of a content block: `{"type":"text","text":…}`, Kiro's
/// `{"Text":{"text":…}}` / `{"Text":"…"}`, or a bare string.
fn text_of(content: &Value) -> Option<String> {
    match content {
        Value::String(text) => Some(text.clone()),
        Value::Object(object) => {
            if let Some(text) = object.get("text").and_then(Value::as_str) {
                return Some(text.to_owned());
            }
            match object.get("Text") {
                Some(Value::String(text)) => Some(text.clone()),
                Some(inner) => inner.get("text").and_then(Value::as_str).map(str::to_owned),
                None => None,
            }
        }
        _ => None,
    }
}

fn string(body: &Value, names: &[&str]) -> Option<String> {
    names
        .iter()
        .find_map(|name| body.get(*name).and_then(Value::as_str))
        .map(str::to_owned)
}

/// The event for one update, `None` for the quiet kinds.
pub fn event_for(update: &Value) -> Option<Event> {
    let Some((kind, body)) = kind_and_body(update) else {
        return Some(Event::UnknownUpdate {
            session_update: String::new(),
            raw: update.clone(),
        });
    };
    let unknown = || Event::UnknownUpdate {
        session_update: kind.clone(),
        raw: update.clone(),
    };
    let event = match kind.as_str() {
        "agent_message_chunk" | "agent_thought_chunk" => {
            let Some(text) = body.get("content").and_then(text_of) else {
                return Some(unknown());
            };
            if kind == "agent_message_chunk" {
                Event::AgentMessageChunk { text }
            } else {
                Event::AgentThoughtChunk { text }
            }
        }
        "tool_call" => Event::ToolCall {
            tool_call_id: string(body, &["toolCallId", "tool_call_id", "id"]).unwrap_or_default(),
            title: string(body, &["title", "name"]).unwrap_or_default(),
            kind: string(body, &["kind"]).map(|kind| known_or_as_is(&kind, TOOL_KINDS)),
            status: string(body, &["status"]).map(|status| known_or_as_is(&status, TOOL_STATUSES)),
        },
        "tool_call_update" => Event::ToolCallUpdate {
            tool_call_id: string(body, &["toolCallId", "tool_call_id", "id"]).unwrap_or_default(),
            status: string(body, &["status"]).map(|status| known_or_as_is(&status, TOOL_STATUSES)),
        },
        "plan" => Event::Plan {
            entries: body
                .get("entries")
                .cloned()
                .unwrap_or(Value::Array(Vec::new())),
        },
        quiet if QUIET_KINDS.contains(&quiet) => return None,
        _ => unknown(),
    };
    Some(event)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn both_dialects_give_the_same_events() {
        let pairs = [
            (
                json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}),
                json!({"sessionUpdate":"AgentMessageChunk","content":{"Text":{"text":"hi"}}}),
            ),
            (
                json!({"sessionUpdate":"tool_call","toolCallId":"t1","title":"Edit a.rs","kind":"edit","status":"pending"}),
                json!({"ToolCall":{"toolCallId":"t1","title":"Edit a.rs","kind":"Edit","status":"Pending"}}),
            ),
            (
                json!({"sessionUpdate":"plan","entries":[{"content":"x","status":"pending"}]}),
                json!({"Plan":{"entries":[{"content":"x","status":"pending"}]}}),
            ),
        ];
        for (standard, kiro) in pairs {
            assert_eq!(event_for(&standard), event_for(&kiro), "{kiro}");
            assert!(!matches!(
                event_for(&standard),
                Some(Event::UnknownUpdate { .. })
            ));
        }
    }

    #[test]
    fn unknown_kinds_are_kept_and_quiet_kinds_dropped() {
        let raw = json!({"sessionUpdate":"FancyNewThing","x":1});
        assert_eq!(
            event_for(&raw),
            Some(Event::UnknownUpdate {
                session_update: "FancyNewThing".into(),
                raw: raw.clone()
            })
        );
        // Unknown tool kinds and statuses pass through as sent; known ones
        // are translated.
        let tool = json!({"ToolCall":{"toolCallId":"t","title":"x","kind":"SomeKind","status":"InProgress"}});
        assert_eq!(
            event_for(&tool),
            Some(Event::ToolCall {
                tool_call_id: "t".into(),
                title: "x".into(),
                kind: Some("SomeKind".into()),
                status: Some("in_progress".into()),
            })
        );
        assert_eq!(
            event_for(&json!({"sessionUpdate":"available_commands_update"})),
            None
        );
        assert!(matches!(
            event_for(&json!("odd")),
            Some(Event::UnknownUpdate { .. })
        ));
    }
}
