//! Reading a `session/update`'s `update` into an event: decoded as the
//! schema crate's `SessionUpdate` (after the vendor's quirk set rewrote its
//! dialect into the standard shape). What the typed decoding does not
//! accept — an unknown kind, a known kind of another shape — becomes an
//! `unknown_update` event carrying the raw update, never an error.

use agent_client_protocol_schema::v1::{ContentBlock, SessionUpdate};
use serde::Deserialize;
use serde_json::Value;

use super::events::Event;

/// The event for one update, `None` for the kinds that are state the agent
/// reports about itself (or a replayed user message on `session/load`).
pub fn event_for(update: &Value) -> Option<Event> {
    let unknown = || Event::UnknownUpdate {
        session_update: update
            .get("sessionUpdate")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        raw: update.clone(),
    };
    let Ok(typed) = SessionUpdate::deserialize(update) else {
        return Some(unknown());
    };
    // A tool's `kind` and `status` as the agent sent them: the standard
    // names are already snake_case, and any other passes through as sent
    // (scrubbed as received) rather than becoming `other`.
    let sent = |key: &str| update.get(key).and_then(Value::as_str).map(str::to_owned);
    let text = |content: ContentBlock| match content {
        ContentBlock::Text(text) => Some(text.text),
        _ => None,
    };
    let event = match typed {
        SessionUpdate::AgentMessageChunk(chunk) => match text(chunk.content) {
            Some(text) => Event::AgentMessageChunk { text },
            None => unknown(),
        },
        SessionUpdate::AgentThoughtChunk(chunk) => match text(chunk.content) {
            Some(text) => Event::AgentThoughtChunk { text },
            None => unknown(),
        },
        SessionUpdate::ToolCall(call) => Event::ToolCall {
            tool_call_id: call.tool_call_id.0.to_string(),
            title: call.title,
            kind: sent("kind"),
            status: sent("status"),
        },
        SessionUpdate::ToolCallUpdate(update) => Event::ToolCallUpdate {
            tool_call_id: update.tool_call_id.0.to_string(),
            status: sent("status"),
        },
        // The entries as sent: the event is the agent's plan, not our
        // re-serialisation of it.
        SessionUpdate::Plan(_) => Event::Plan {
            entries: update
                .get("entries")
                .cloned()
                .unwrap_or(Value::Array(Vec::new())),
        },
        SessionUpdate::UserMessageChunk(_)
        | SessionUpdate::AvailableCommandsUpdate(_)
        | SessionUpdate::CurrentModeUpdate(_)
        | SessionUpdate::ConfigOptionUpdate(_)
        | SessionUpdate::SessionInfoUpdate(_)
        | SessionUpdate::UsageUpdate(_) => return None,
        _ => unknown(),
    };
    Some(event)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn standard_updates_become_events() {
        assert_eq!(
            event_for(
                &json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}})
            ),
            Some(Event::AgentMessageChunk { text: "hi".into() })
        );
        assert_eq!(
            event_for(
                &json!({"sessionUpdate":"tool_call","toolCallId":"t1","title":"Edit a.rs","kind":"edit","status":"pending"})
            ),
            Some(Event::ToolCall {
                tool_call_id: "t1".into(),
                title: "Edit a.rs".into(),
                kind: Some("edit".into()),
                status: Some("pending".into()),
            })
        );
        let plan = json!({"sessionUpdate":"plan","entries":[{"content":"x","status":"pending","priority":"high"}]});
        assert_eq!(
            event_for(&plan),
            Some(Event::Plan {
                entries: plan["entries"].clone()
            })
        );
    }

    #[test]
    fn unknown_kinds_and_shapes_are_kept_and_quiet_kinds_dropped() {
        for raw in [
            json!({"sessionUpdate":"FancyNewThing","x":1}),
            // A vendor dialect no quirk set rewrote.
            json!({"AgentMessageChunk":{"content":{"Text":{"text":"hi"}}}}),
            json!({"sessionUpdate":"agent_message_chunk","content":"bare"}),
            json!({"sessionUpdate":"agent_message_chunk","content":{"type":"image","data":"","mimeType":"image/png"}}),
            json!("odd"),
        ] {
            assert_eq!(
                event_for(&raw),
                Some(Event::UnknownUpdate {
                    session_update: raw
                        .get("sessionUpdate")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .into(),
                    raw: raw.clone()
                }),
                "{raw}"
            );
        }
        // Unknown tool kinds and statuses pass through as sent.
        let tool = json!({"sessionUpdate":"tool_call","toolCallId":"t","title":"x","kind":"SomeKind","status":"InProgress"});
        assert_eq!(
            event_for(&tool),
            Some(Event::ToolCall {
                tool_call_id: "t".into(),
                title: "x".into(),
                kind: Some("SomeKind".into()),
                status: Some("InProgress".into()),
            })
        );
        assert_eq!(
            event_for(&json!({"sessionUpdate":"available_commands_update","availableCommands":[]})),
            None
        );
    }
}
