//! The capability matrix (SPEC §7): the `initialize` answer reduced to the
//! explicit flags every later call consults. Anything not advertised is
//! off; an agent speaking another protocol version than ours is refused.
//! The agent's `authMethods` are kept beside the matrix.

use serde::Serialize;
use serde_json::Value;

/// What the agent said it can do. Absent or malformed means "no".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Capabilities {
    pub protocol_version: u64,
    pub load_session: bool,
    pub prompt_image: bool,
    pub prompt_audio: bool,
    pub prompt_embedded_context: bool,
    pub mcp_http: bool,
    pub mcp_sse: bool,
    pub additional_directories: bool,
    pub session_resume: bool,
    pub session_close: bool,
    pub session_list: bool,
}

/// The protocol version we speak, the only one we accept.
pub const PROTOCOL_VERSION: u64 = 1;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CapabilityError {
    #[error("the agent speaks ACP protocol version {0}; oneworks needs version {PROTOCOL_VERSION} or later")]
    TooOld(u64),
    #[error("the agent speaks ACP protocol version {0}; oneworks speaks only version {PROTOCOL_VERSION}")]
    Unsupported(u64),
    #[error("the agent's `initialize` answer has no usable `protocolVersion`")]
    NoVersion,
}

/// A flag is on when it is `true` or a (possibly empty) object: newer ACP
/// versions advertise `sessionCapabilities.list: {}` rather than `true`.
fn flag(value: Option<&Value>) -> bool {
    matches!(value, Some(Value::Bool(true)) | Some(Value::Object(_)))
}

impl Capabilities {
    pub fn from_initialize(result: &Value) -> Result<Self, CapabilityError> {
        let version = result
            .get("protocolVersion")
            .and_then(Value::as_u64)
            .ok_or(CapabilityError::NoVersion)?;
        if version < PROTOCOL_VERSION {
            return Err(CapabilityError::TooOld(version));
        }
        if version != PROTOCOL_VERSION {
            return Err(CapabilityError::Unsupported(version));
        }
        let agent = result.get("agentCapabilities");
        let at = |path: &[&str]| {
            let mut value = agent;
            for key in path {
                value = value.and_then(|v| v.get(key));
            }
            flag(value)
        };
        Ok(Self {
            protocol_version: version,
            load_session: at(&["loadSession"]),
            prompt_image: at(&["promptCapabilities", "image"]),
            prompt_audio: at(&["promptCapabilities", "audio"]),
            prompt_embedded_context: at(&["promptCapabilities", "embeddedContext"]),
            mcp_http: at(&["mcpCapabilities", "http"]),
            mcp_sse: at(&["mcpCapabilities", "sse"]),
            additional_directories: at(&["sessionCapabilities", "additionalDirectories"]),
            session_resume: at(&["sessionCapabilities", "resume"]),
            session_close: at(&["sessionCapabilities", "close"]),
            session_list: at(&["sessionCapabilities", "list"]),
        })
    }
}

/// One of the agent's `authMethods`: its id and, when given, its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthMethod {
    pub id: String,
    pub name: Option<String>,
}

/// The `authMethods` of an `initialize` answer (entries without an id
/// skipped).
pub fn auth_methods(result: &Value) -> Vec<AuthMethod> {
    result
        .get("authMethods")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|method| {
            let id = method.get("id").and_then(Value::as_str)?.to_owned();
            let name = method
                .get("name")
                .and_then(Value::as_str)
                .map(str::to_owned);
            Some(AuthMethod { id, name })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn nothing_advertised_means_nothing_on() {
        let caps = Capabilities::from_initialize(&json!({"protocolVersion":1})).expect("v1");
        assert_eq!(
            caps,
            Capabilities {
                protocol_version: 1,
                ..Capabilities::default()
            }
        );
    }

    #[test]
    fn flags_are_read_as_booleans_or_objects() {
        let caps = Capabilities::from_initialize(&json!({
            "protocolVersion": 1,
            "agentCapabilities": {
                "loadSession": true,
                "promptCapabilities": {"image": true, "audio": false, "embeddedContext": "yes"},
                "mcpCapabilities": {"http": true},
                "sessionCapabilities": {"list": {}, "additionalDirectories": true, "resume": null}
            }
        }))
        .expect("v1");
        assert!(caps.load_session && caps.prompt_image && caps.mcp_http && caps.session_list);
        assert!(caps.additional_directories);
        assert!(!caps.prompt_audio && !caps.prompt_embedded_context && !caps.mcp_sse);
        assert!(!caps.session_resume && !caps.session_close);
    }

    #[test]
    fn old_or_missing_versions_are_refused() {
        assert_eq!(
            Capabilities::from_initialize(&json!({"protocolVersion":0})),
            Err(CapabilityError::TooOld(0))
        );
        assert_eq!(
            Capabilities::from_initialize(&json!({"protocolVersion":"1"})),
            Err(CapabilityError::NoVersion)
        );
    }

    #[test]
    fn versions_we_do_not_speak_are_refused() {
        assert_eq!(
            Capabilities::from_initialize(&json!({"protocolVersion":99})),
            Err(CapabilityError::Unsupported(99))
        );
        assert_eq!(
            Capabilities::from_initialize(&json!({"protocolVersion":2})),
            Err(CapabilityError::Unsupported(2))
        );
    }

    #[test]
    fn auth_methods_are_kept() {
        let methods = auth_methods(&json!({"authMethods": [
            {"id":"browser","name":"Log in with a browser"},
            {"name":"no id"},
            {"id":"key"}
        ]}));
        assert_eq!(
            methods,
            [
                AuthMethod {
                    id: "browser".into(),
                    name: Some("Log in with a browser".into())
                },
                AuthMethod {
                    id: "key".into(),
                    name: None
                },
            ]
        );
        assert!(auth_methods(&json!({})).is_empty());
    }
}
