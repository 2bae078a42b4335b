//! One line of the agent's ACP recorder, parsed leniently: the
//! wrapper `{"ts":…,"dir":…,"msg":…}` with `msg` as a JSON string or an
//! object. A message is classified by its JSON-RPC shape only (`dir` is
//! ignored): a request has `method` and `id`, a response has `id` and
//! `result` or `error`. Anything else — malformed JSON, non-UTF-8 bytes, a
//! request that is not a one-time approval — is `None` or `Other`.

use serde_json::Value;

/// The tool detail of a request: the shared permission parser's.
pub use crate::acp_wire::permission::ToolDetail;
use crate::acp_wire::permission::{OptionKind, PermissionRequest};

/// What a recorder line means to the supervisor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecorderMessage {
    /// A one-time approval the agent is showing.
    Approval(ApprovalRequest),
    /// A response to some request.
    Response(ApprovalResponse),
    /// Any other well-formed message.
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalRequest {
    /// The JSON-RPC id (a non-empty string).
    pub id: String,
    pub tool_call_id: String,
    /// Untrusted text from the agent.
    pub title: String,
    /// `optionId` → kind, in the agent's order.
    pub options: Vec<(String, OptionKind)>,
    /// What the request says about the tool, when it says it (untrusted).
    pub detail: ToolDetail,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalResponse {
    pub id: String,
    /// The chosen option; `None` for a cancelled prompt (Esc) or an error.
    pub option_id: Option<String>,
}

impl ApprovalRequest {
    /// The kind of option `option_id`, as the request listed it.
    pub fn kind_of(&self, option_id: &str) -> Option<&OptionKind> {
        self.options
            .iter()
            .find(|(id, _)| id == option_id)
            .map(|(_, kind)| kind)
    }
}

/// Parses one whole recorder line (without its newline).
pub fn parse_line(line: &[u8]) -> Option<RecorderMessage> {
    let text = std::str::from_utf8(line).ok()?;
    let wrapper: Value = serde_json::from_str(text.trim()).ok()?;
    let wrapper = wrapper.as_object()?;
    // `ts` is an RFC 3339 string or Unix milliseconds; either is fine and
    // nothing depends on it, but a wrapper without a usable one is garbage.
    match wrapper.get("ts") {
        Some(Value::String(_)) | Some(Value::Number(_)) | None => {}
        Some(_) => return None,
    }
    let message = match wrapper.get("msg")? {
        Value::String(inner) => serde_json::from_str::<Value>(inner).ok()?,
        object @ Value::Object(_) => object.clone(),
        _ => return None,
    };
    classify(&message)
}

fn classify(message: &Value) -> Option<RecorderMessage> {
    let message = message.as_object()?;
    let id = message.get("id");
    if message.contains_key("method") {
        if message.get("method").and_then(Value::as_str)
            != Some(crate::acp_wire::permission::METHOD)
        {
            return Some(RecorderMessage::Other);
        }
        let id = id.and_then(Value::as_str).filter(|id| !id.is_empty());
        let request = id.and_then(|id| approval(id, message.get("params")?));
        return Some(request.map_or(RecorderMessage::Other, RecorderMessage::Approval));
    }
    if message.contains_key("result") || message.contains_key("error") {
        let Some(id) = id.and_then(Value::as_str).filter(|id| !id.is_empty()) else {
            return Some(RecorderMessage::Other);
        };
        let option_id = message
            .get("result")
            .and_then(|result| result.get("outcome"))
            .and_then(|outcome| outcome.get("optionId"))
            .and_then(Value::as_str)
            .filter(|option| !option.is_empty())
            .map(str::to_owned);
        return Some(RecorderMessage::Response(ApprovalResponse {
            id: id.to_owned(),
            option_id,
        }));
    }
    Some(RecorderMessage::Other)
}

/// A one-time approval: the shared parser's request with a title, a tool
/// call id and both native once-options (what the card's keys answer).
pub fn approval(id: &str, params: &Value) -> Option<ApprovalRequest> {
    params.get("toolCall")?;
    let request = PermissionRequest::parse(params);
    if request.title.trim().is_empty() || request.tool_call_id.is_empty() {
        return None;
    }
    let options: Vec<(String, OptionKind)> = request
        .options
        .iter()
        .map(|option| (option.option_id.clone(), option.kind.clone()))
        .collect();
    let has = |kind: OptionKind| options.iter().any(|(_, k)| *k == kind);
    if !has(OptionKind::AllowOnce) || !has(OptionKind::RejectOnce) {
        return None;
    }
    Some(ApprovalRequest {
        id: id.to_owned(),
        tool_call_id: request.tool_call_id,
        title: request.title,
        options,
        detail: request.detail,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    pub fn request_message(id: &str, title: &str) -> Value {
        json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": crate::acp_wire::permission::METHOD,
            "params": {
                "sessionId": "s1",
                "toolCall": {"toolCallId": format!("call-{id}"), "title": title},
                "options": [
                    {"optionId": "allow_once", "kind": "allow_once", "name": "Yes"},
                    {"optionId": "allow_always", "kind": "allow_always", "name": "Trust"},
                    {"optionId": "reject_once", "kind": "reject_once", "name": "No"},
                ]
            }
        })
    }

    pub fn response_message(id: &str, option: Option<&str>) -> Value {
        let outcome = match option {
            Some(option) => json!({"outcome": "selected", "optionId": option}),
            None => json!({"outcome": "cancelled"}),
        };
        json!({"jsonrpc": "2.0", "id": id, "result": {"outcome": outcome}})
    }

    /// A recorder line; `as_string` picks the `msg` form.
    pub fn line(message: &Value, as_string: bool, dir: &str) -> String {
        let msg = if as_string {
            Value::String(message.to_string())
        } else {
            message.clone()
        };
        json!({"ts": "2026-01-01T00:00:00Z", "dir": dir, "msg": msg}).to_string()
    }

    #[test]
    fn requests_parse_in_both_msg_forms_and_either_ts() {
        for as_string in [true, false] {
            let text = line(&request_message("r1", "Running: pwd"), as_string, "in");
            let Some(RecorderMessage::Approval(request)) = parse_line(text.as_bytes()) else {
                panic!("not an approval: {text}");
            };
            assert_eq!(request.id, "r1");
            assert_eq!(request.title, "Running: pwd");
            assert_eq!(
                request.kind_of("reject_once"),
                Some(&OptionKind::RejectOnce)
            );
        }
        let numeric =
            json!({"ts": 1767225600000_u64, "dir": "out", "msg": request_message("r2", "x")});
        assert!(matches!(
            parse_line(numeric.to_string().as_bytes()),
            Some(RecorderMessage::Approval(_))
        ));
    }

    #[test]
    fn the_shape_decides_not_the_direction() {
        // A response recorded as "out" and a request as "in" are still
        // a response and a request.
        let response = line(&response_message("r1", Some("allow_once")), true, "out");
        assert_eq!(
            parse_line(response.as_bytes()),
            Some(RecorderMessage::Response(ApprovalResponse {
                id: "r1".into(),
                option_id: Some("allow_once".into())
            }))
        );
        let cancelled = line(&response_message("r1", None), false, "bogus");
        assert!(matches!(
            parse_line(cancelled.as_bytes()),
            Some(RecorderMessage::Response(ApprovalResponse {
                option_id: None,
                ..
            }))
        ));
    }

    #[test]
    fn garbage_and_unsupported_requests_are_skipped() {
        assert_eq!(parse_line(b"not json"), None);
        assert_eq!(parse_line(b"{\"msg\":\"{broken\"}"), None);
        assert_eq!(parse_line(b"\xff\xfe{}"), None);
        assert_eq!(parse_line(b"[1,2]"), None);
        assert_eq!(parse_line(b"{\"ts\":[],\"msg\":{}}"), None);
        // Blank title, numeric id, missing reject_once, options matched by kind.
        let mut blank = request_message("r1", "   ");
        assert_eq!(
            parse_line(line(&blank, true, "in").as_bytes()),
            Some(RecorderMessage::Other)
        );
        blank["id"] = json!(7);
        blank["params"]["toolCall"]["title"] = json!("t");
        assert_eq!(
            parse_line(line(&blank, true, "in").as_bytes()),
            Some(RecorderMessage::Other)
        );
        let mut no_reject = request_message("r1", "t");
        no_reject["params"]["options"] = json!([{"optionId": "reject_once", "kind": "allow_once"}]);
        assert_eq!(
            parse_line(line(&no_reject, true, "in").as_bytes()),
            Some(RecorderMessage::Other)
        );
        let mut renamed = request_message("r1", "t");
        renamed["params"]["options"] = json!([
            {"optionId": "ok", "kind": "allow_once"},
            {"optionId": "nope", "kind": "reject_once"}
        ]);
        assert!(matches!(
            parse_line(line(&renamed, false, "in").as_bytes()),
            Some(RecorderMessage::Approval(_))
        ));
    }
}
