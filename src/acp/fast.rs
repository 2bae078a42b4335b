//! The hot path of a streamed turn: a message chunk notification read into
//! borrowed fields instead of a `serde_json::Value` tree, and its event
//! written without one. It covers only the plain standard shape
//! (`{"method":…,"params":{"sessionId":…,"update":{"sessionUpdate":
//! "agent_message_chunk","content":{"type":"text","text":…}}}}`, extra
//! fields allowed); anything else — a vendor's dialect, a duplicate key, a
//! type that is not what the shape says, an `id` — returns `None` and takes
//! the general path (the schema's typed `SessionUpdate`), which gives the
//! same result for the shapes covered here (the test below).

use std::borrow::Cow;

use serde::de::IgnoredAny;
use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChunkKind {
    Message,
    Thought,
}

/// One message or thought chunk notification.
#[derive(Debug, PartialEq, Eq)]
pub struct Chunk<'a> {
    pub method: Cow<'a, str>,
    pub session_id: Option<Cow<'a, str>>,
    pub kind: ChunkKind,
    pub text: Cow<'a, str>,
}

#[derive(Deserialize)]
struct Frame<'a> {
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(default)]
    id: Option<IgnoredAny>,
    #[serde(borrow)]
    params: Params<'a>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Params<'a> {
    #[serde(borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    update: Update<'a>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Update<'a> {
    #[serde(borrow)]
    session_update: Cow<'a, str>,
    #[serde(borrow)]
    content: Content<'a>,
}

#[derive(Deserialize)]
struct Content<'a> {
    #[serde(borrow, rename = "type")]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    text: Cow<'a, str>,
}

/// The chunk in `line`, or `None` when the general path must decide.
pub fn chunk(line: &[u8]) -> Option<Chunk<'_>> {
    let frame: Frame<'_> = serde_json::from_slice(line).ok()?;
    if frame.id.is_some() || frame.params.update.content.kind != "text" {
        return None;
    }
    let kind = match frame.params.update.session_update.as_ref() {
        "agent_message_chunk" => ChunkKind::Message,
        "agent_thought_chunk" => ChunkKind::Thought,
        _ => return None,
    };
    Some(Chunk {
        method: frame.method,
        session_id: frame.params.session_id,
        kind,
        text: frame.params.update.content.text,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::acp::events::Event;
    use crate::acp::rpc::{parse_line, Incoming};

    /// What the general path makes of `line`: method, session id, event.
    fn general(line: &str) -> Option<(String, Option<String>, Event)> {
        let Ok(Some(Incoming::Notification { method, params })) = parse_line(line.as_bytes())
        else {
            return None;
        };
        let session = params
            .get("sessionId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let update = params.get("update").unwrap_or(&params);
        let event = crate::acp::updates::event_for(update)?;
        Some((method, session, event))
    }

    fn fast(line: &str) -> Option<(String, Option<String>, Event)> {
        let chunk = chunk(line.as_bytes())?;
        let text = chunk.text.into_owned();
        let event = match chunk.kind {
            ChunkKind::Message => Event::AgentMessageChunk { text },
            ChunkKind::Thought => Event::AgentThoughtChunk { text },
        };
        Some((
            chunk.method.into_owned(),
            chunk.session_id.map(Cow::into_owned),
            event,
        ))
    }

    #[test]
    fn the_fast_path_agrees_with_the_general_path_or_declines() {
        let taken = [
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}"#,
            r#"{"method":"session/update","params":{"update":{"sessionUpdate":"agent_thought_chunk","content":{"text":"a\nb \"q\" \u00e9","type":"text"}},"sessionId":"s"},"extra":1}"#,
            r#"{"method":"x/y","id":null,"params":{"sessionId":"s","update":{"content":{"type":"text","text":"","annotations":7},"sessionUpdate":"agent_message_chunk","messageId":"m"}}}"#,
        ];
        for line in taken {
            let fast = fast(line);
            assert!(fast.is_some(), "{line}");
            assert_eq!(fast, general(line), "{line}");
        }
        let declined = [
            // A vendor's dialect (rewritten by its quirk set first), other
            // kinds, other content blocks, a block without its type.
            r#"{"method":"session/notification","params":{"sessionId":"s","update":{"AgentMessageChunk":{"content":{"Text":{"text":"hi"}}}}}}"#,
            r#"{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"AgentMessageChunk","content":{"text":"hi"}}}}"#,
            r#"{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":"hi"}}}"#,
            r#"{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","content":{"text":"hi"}}}}"#,
            r#"{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"text":"hi"}}}}"#,
            r#"{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"image","text":"hi","data":"","mimeType":"image/png"}}}}"#,
            // A request, odd types, duplicate keys, garbage.
            r#"{"id":3,"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}"#,
            r#"{"method":"session/update","params":{"sessionId":7,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}"#,
            r#"{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":5}}}}"#,
            r#"{"method":"session/update","params":{"sessionId":"s","sessionId":"t","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}"#,
            r#"{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a","text":"b"}}}}"#,
            r#"Loading model..."#,
            r#"[1,2]"#,
        ];
        for line in declined {
            assert_eq!(fast(line), None, "{line}");
        }
    }

    proptest::proptest! {
        /// Any text, either chunk kind, optional fields the schema allows
        /// (a message id, annotations, `_meta`, an id of `null`), keys in
        /// either order: the fast path takes the line and agrees with the
        /// typed decoding.
        #[test]
        fn the_fast_path_equals_the_typed_decoding(
            text in "\\PC*",
            thought in proptest::bool::ANY,
            session_first in proptest::bool::ANY,
            extras in proptest::bool::ANY,
        ) {
            let kind = if thought { "agent_thought_chunk" } else { "agent_message_chunk" };
            let mut content = serde_json::Map::new();
            content.insert("type".into(), "text".into());
            content.insert("text".into(), text.clone().into());
            let mut update = serde_json::Map::new();
            update.insert("sessionUpdate".into(), kind.into());
            update.insert("content".into(), content.clone().into());
            if extras {
                update.insert("messageId".into(), "m-1".into());
                update.insert("_meta".into(), serde_json::json!({"x": 1}));
                content.insert("annotations".into(), serde_json::json!({"priority": 0.5}));
                update.insert("content".into(), content.into());
            }
            let mut params = serde_json::Map::new();
            if session_first {
                params.insert("sessionId".into(), "s".into());
                params.insert("update".into(), update.into());
            } else {
                params.insert("update".into(), update.into());
                params.insert("sessionId".into(), "s".into());
            }
            let mut frame = serde_json::Map::new();
            frame.insert("jsonrpc".into(), "2.0".into());
            frame.insert("method".into(), "session/update".into());
            if extras {
                frame.insert("id".into(), Value::Null);
            }
            frame.insert("params".into(), params.into());
            let line = Value::Object(frame).to_string();
            let taken = fast(&line);
            proptest::prop_assert!(taken.is_some(), "{}", line);
            proptest::prop_assert_eq!(taken, general(&line));
        }
    }
}
