//! The JSON-RPC 2.0 framing of ACP: one JSON object per line. Lenient where
//! we receive (string or integer ids, missing `jsonrpc`, unknown fields and
//! methods kept as data, a garbage line skipped rather than fatal), strict
//! where we send (typed frames with `"jsonrpc":"2.0"` around the schema
//! crate's typed params, results and errors).
//!
//! The envelope is ours, not the schema's `Request`/`Response`: its
//! `RequestId` holds integers only, and every id the agent
//! may send (`1.5`, `7.0`) echoed exactly.
//!
//! The two directions have separate id spaces: the ids of requests *we*
//! send are integers we count; the ids of requests the *agent* sends (strings
//! or numbers, even `0`) are echoed back verbatim and never compared with ours.
//! An id is its exact JSON value in both directions: `7`, `"7"` and `7.0`
//! are three ids, `1.5` is an id, and an answer to our request `3` must
//! carry the number `3`.

use agent_client_protocol_schema::v1::Error as WireError;
use serde::Serialize;
use serde_json::{Map, Value};

/// A request id as the agent wrote it: a string or a number (integer or
/// not), echoed back exactly (`"7"` and `7` are different ids).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RequestId {
    Number(serde_json::Number),
    Text(String),
}

impl RequestId {
    pub fn from_value(value: Value) -> Option<Self> {
        match value {
            Value::String(text) => Some(RequestId::Text(text)),
            Value::Number(number) => Some(RequestId::Number(number)),
            _ => None,
        }
    }

    /// The id of one of our own requests.
    pub fn ours(id: u64) -> Self {
        RequestId::Number(id.into())
    }

    pub fn to_value(&self) -> Value {
        match self {
            RequestId::Number(number) => Value::Number(number.clone()),
            RequestId::Text(text) => Value::String(text.clone()),
        }
    }

    /// A short text form for events (`"p-1"` → `p-1`, `7` → `7`).
    pub fn display(&self) -> String {
        match self {
            RequestId::Number(number) => number.to_string(),
            RequestId::Text(text) => text.clone(),
        }
    }
}

/// One message received from the agent.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// The agent asks us something; answer with its `id`.
    Request {
        id: RequestId,
        method: String,
        params: Value,
    },
    /// The agent tells us something.
    Notification { method: String, params: Value },
    /// The answer to one of our requests (our ids are integers; an id of
    /// another shape answers nothing of ours).
    Response {
        id: Option<RequestId>,
        outcome: Result<Value, RpcError>,
    },
}

/// A JSON-RPC error object the agent sent, read leniently (a missing code
/// is "internal error"). The errors we send are the schema's.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

/// The most of an error's `data` shown in a message.
const MAX_DATA_CHARS: usize = 1024;

impl RpcError {
    /// The agent's message and, when it sent any, its `data` details, as
    /// one text for a person: scrubbed and with control characters
    /// replaced, the details bounded (`Internal error: ACME_API_KEY is not
    /// set`). A string `data` or the `details`/`detail`/`message`/`reason`
    /// strings of an object `data` are the details; any other `data` is
    /// shown as compact JSON.
    pub fn describe(&self) -> String {
        let message = crate::output::clean(&self.message);
        let message = crate::output::sanitize::sanitize_line(message.trim()).into_owned();
        let Some(details) = self.details() else {
            return message;
        };
        let details = crate::output::clean(&details);
        let mut details = crate::output::sanitize::sanitize_line(details.trim()).into_owned();
        if details.chars().count() > MAX_DATA_CHARS {
            details = details.chars().take(MAX_DATA_CHARS).collect::<String>() + "…";
        }
        if details.is_empty() || details == message {
            message
        } else {
            format!("{message}: {details}")
        }
    }

    fn details(&self) -> Option<String> {
        match self.data.as_ref()? {
            Value::Null => None,
            Value::String(text) => Some(text.clone()),
            Value::Object(object) => {
                let named: Vec<&str> = ["details", "detail", "message", "reason"]
                    .iter()
                    .filter_map(|key| object.get(*key).and_then(Value::as_str))
                    .filter(|text| !text.trim().is_empty())
                    .collect();
                if named.is_empty() {
                    Some(Value::Object(object.clone()).to_string())
                } else {
                    Some(named.join("; "))
                }
            }
            other => Some(other.to_string()),
        }
    }
}

/// Why a line was not a message. The line is skipped, never fatal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("not JSON")]
    NotJson,
    #[error("not a JSON object")]
    NotObject,
    #[error("neither a request, a notification nor a response")]
    Unrecognized,
    /// A request whose id is neither a string nor a number: it cannot be
    /// echoed, so it is answered with [`invalid_id_response`].
    #[error("a request whose id is neither a string nor a number")]
    InvalidId,
}

/// Parses one line. Blank lines are `Ok(None)`.
pub fn parse_line(line: &[u8]) -> Result<Option<Incoming>, FrameError> {
    let trimmed = line.trim_ascii();
    if trimmed.is_empty() {
        return Ok(None);
    }
    let value: Value = serde_json::from_slice(trimmed).map_err(|_| FrameError::NotJson)?;
    let Value::Object(mut object) = value else {
        return Err(FrameError::NotObject);
    };
    let method = match object.remove("method") {
        Some(Value::String(method)) => Some(method),
        Some(_) => return Err(FrameError::Unrecognized),
        None => None,
    };
    let params = object.remove("params").unwrap_or(Value::Null);
    let id = object.remove("id").filter(|id| !id.is_null());
    match (method, id) {
        (Some(method), Some(id)) => {
            let id = RequestId::from_value(id).ok_or(FrameError::InvalidId)?;
            Ok(Some(Incoming::Request { id, method, params }))
        }
        (Some(method), None) => Ok(Some(Incoming::Notification { method, params })),
        (None, id) => {
            let outcome = if let Some(error) = object.remove("error").filter(|e| !e.is_null()) {
                Err(rpc_error(error))
            } else if let Some(result) = object.remove("result") {
                Ok(result)
            } else {
                return Err(FrameError::Unrecognized);
            };
            // Kept exact: `"3"` is not our request `3`.
            let id = id.and_then(RequestId::from_value);
            Ok(Some(Incoming::Response { id, outcome }))
        }
    }
}

fn rpc_error(value: Value) -> RpcError {
    let code = value.get("code").and_then(Value::as_i64).unwrap_or(-32603);
    let message = value
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("unknown error")
        .to_owned();
    let data = value.get("data").cloned();
    RpcError {
        code,
        message,
        data,
    }
}

/// A request we send.
pub fn request(
    id: u64,
    method: &str,
    params: &impl Serialize,
) -> Result<String, serde_json::Error> {
    frame(
        Some(Value::from(id)),
        Some(method),
        Some(serde_json::to_value(params)?),
        None,
        None,
    )
}

/// A notification we send.
pub fn notification(method: &str, params: &impl Serialize) -> Result<String, serde_json::Error> {
    frame(
        None,
        Some(method),
        Some(serde_json::to_value(params)?),
        None,
        None,
    )
}

/// Our answer to one of the agent's requests (a schema result type).
pub fn response(id: &RequestId, result: &impl Serialize) -> String {
    let result = serde_json::to_value(result).unwrap_or(Value::Null);
    frame(Some(id.to_value()), None, None, Some(result), None).unwrap_or_default()
}

/// Our error answer to one of the agent's requests.
pub fn error_response(id: &RequestId, error: WireError) -> String {
    let error = serde_json::to_value(error).unwrap_or(Value::Null);
    frame(Some(id.to_value()), None, None, None, Some(error)).unwrap_or_default()
}

/// JSON-RPC's answer to a request whose id cannot be echoed: "invalid
/// request" with id `null`, so the agent does not wait forever.
pub fn invalid_id_response() -> String {
    let error = WireError::new(-32600, "invalid request: an id is a string or a number");
    let error = serde_json::to_value(error).unwrap_or(Value::Null);
    frame(Some(Value::Null), None, None, None, Some(error)).unwrap_or_default()
}

/// ACP's "authentication required" error code.
pub const AUTH_REQUIRED: i64 = -32000;

/// "Invalid request": the agent reused the id of a request still pending.
pub fn id_in_use() -> WireError {
    WireError::new(
        -32600,
        "invalid request: this id belongs to a request still pending",
    )
}

/// "Internal error": too many of the agent's questions wait for a person.
pub fn too_many_pending(bound: usize) -> WireError {
    WireError::new(
        -32603,
        format!("too many permission requests pending (at most {bound})"),
    )
}

/// "Method not found", for requests we do not serve.
pub fn method_not_found(method: &str) -> WireError {
    WireError::new(-32601, format!("method not found: {method}"))
}

fn frame(
    id: Option<Value>,
    method: Option<&str>,
    params: Option<Value>,
    result: Option<Value>,
    error: Option<Value>,
) -> Result<String, serde_json::Error> {
    let mut object = Map::new();
    object.insert("jsonrpc".into(), Value::from("2.0"));
    if let Some(id) = id {
        object.insert("id".into(), id);
    }
    if let Some(method) = method {
        object.insert("method".into(), Value::from(method));
    }
    if let Some(params) = params {
        object.insert("params".into(), params);
    }
    if let Some(result) = result {
        object.insert("result".into(), result);
    }
    if let Some(error) = error {
        object.insert("error".into(), error);
    }
    let mut line = serde_json::to_string(&Value::Object(object))?;
    line.push('\n');
    Ok(line)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn error_with(message: &str, data: Option<Value>) -> RpcError {
        RpcError {
            code: -32603,
            message: message.to_owned(),
            data,
        }
    }

    #[test]
    fn an_error_shows_its_data_details() {
        let error = error_with(
            "Internal error",
            Some(serde_json::json!({"details": "ACME_API_KEY is not set"})),
        );
        assert_eq!(error.describe(), "Internal error: ACME_API_KEY is not set");
        let error = error_with("Internal error", Some(Value::String("no token".into())));
        assert_eq!(error.describe(), "Internal error: no token");
        let error = error_with("Bad", Some(serde_json::json!({"code": 7})));
        assert_eq!(error.describe(), r#"Bad: {"code":7}"#);
        assert_eq!(error_with("Bad", None).describe(), "Bad");
        assert_eq!(error_with("Bad", Some(Value::Null)).describe(), "Bad");
        assert_eq!(
            error_with("Same", Some(Value::String("Same".into()))).describe(),
            "Same"
        );
    }

    #[test]
    fn error_details_are_one_bounded_safe_line() {
        let error = error_with(
            "Internal\nerror",
            Some(Value::String(format!("a\u{1b}[2Jb\n{}", "x".repeat(5000)))),
        );
        let text = error.describe();
        assert!(!text.contains('\u{1b}') && !text.contains('\n'), "{text:?}");
        assert!(text.chars().count() < 1100, "{}", text.len());
        assert!(text.ends_with('…'), "{text}");
    }

    fn parse(text: &str) -> Incoming {
        parse_line(text.as_bytes())
            .expect("parses")
            .expect("a message")
    }

    #[test]
    fn requests_keep_string_and_integer_ids_apart() {
        let text = parse(
            r#"{"jsonrpc":"2.0","id":"7","method":"session/request_permission","params":{}}"#,
        );
        let number =
            parse(r#"{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{}}"#);
        let Incoming::Request { id: text_id, .. } = text else {
            panic!("{text:?}")
        };
        let Incoming::Request { id: number_id, .. } = number else {
            panic!("{number:?}")
        };
        assert_eq!(text_id, RequestId::Text("7".into()));
        assert_eq!(number_id, RequestId::ours(7));
        assert_ne!(text_id, number_id);
        assert_eq!(
            response(&text_id, &json!({})),
            "{\"jsonrpc\":\"2.0\",\"id\":\"7\",\"result\":{}}\n"
        );
        assert_eq!(
            response(&number_id, &json!(null)),
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":null}\n"
        );
    }

    #[test]
    fn notifications_responses_and_errors_are_told_apart() {
        assert_eq!(
            parse(r#"{"method":"session/update","params":{"a":1}}"#),
            Incoming::Notification {
                method: "session/update".into(),
                params: json!({"a":1})
            }
        );
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":3,"result":{"ok":true}}"#),
            Incoming::Response {
                id: Some(RequestId::ours(3)),
                outcome: Ok(json!({"ok":true}))
            }
        );
        // A stringified id is not ours: the answer is exact or nothing.
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":"4","result":null}"#),
            Incoming::Response {
                id: Some(RequestId::Text("4".into())),
                outcome: Ok(Value::Null)
            }
        );
        assert_ne!(
            parse(r#"{"id":4.0,"result":null}"#),
            parse(r#"{"id":4,"result":null}"#)
        );
        let Incoming::Response {
            id,
            outcome: Err(error),
        } = parse(r#"{"id":5,"error":{"code":-32602,"message":"missing field `prompt`"}}"#)
        else {
            panic!("an error response");
        };
        assert_eq!(
            (id, error.code, error.message.as_str()),
            (Some(RequestId::ours(5)), -32602, "missing field `prompt`")
        );
    }

    #[test]
    fn a_fractional_id_is_an_id_and_is_echoed_exactly() {
        let Incoming::Request { id, .. } =
            parse(r#"{"id":1.5,"method":"session/request_permission"}"#)
        else {
            panic!("a request");
        };
        assert_eq!(id.display(), "1.5");
        assert_eq!(
            response(&id, &json!({})),
            "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"result\":{}}\n"
        );
    }

    #[test]
    fn garbage_is_an_error_and_blank_lines_are_nothing() {
        assert_eq!(parse_line(b"   \r"), Ok(None));
        assert_eq!(parse_line(b"Loading model..."), Err(FrameError::NotJson));
        assert_eq!(parse_line(b"[1,2]"), Err(FrameError::NotObject));
        assert_eq!(
            parse_line(b"{\"jsonrpc\":\"2.0\"}"),
            Err(FrameError::Unrecognized)
        );
        assert_eq!(
            parse_line(b"{\"id\":{},\"method\":\"x\"}"),
            Err(FrameError::InvalidId)
        );
        assert!(invalid_id_response()
            .starts_with("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600"));
    }

    #[test]
    fn frames_we_send_are_complete_lines() {
        let line = request(1, "initialize", &json!({"protocolVersion":1})).expect("frame");
        assert_eq!(line, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":1}}\n");
        let line = notification("session/cancel", &json!({"sessionId":"s"})).expect("frame");
        assert!(!line.contains("\"id\""));
        let line = error_response(
            &RequestId::Text("x".into()),
            method_not_found("fs/read_text_file"),
        );
        assert!(line.contains("-32601"), "{line}");
    }
}
