//! The capability matrix: the `initialize` answer, decoded as
//! the schema crate's `InitializeResponse`, reduced to the explicit flags
//! every later call consults. Anything not advertised is off; an agent
//! speaking another protocol version than ours is refused. The agent's
//! `authMethods` are kept beside the matrix.

use agent_client_protocol_schema::v1::{AuthMethod as TypedAuthMethod, InitializeResponse};
use serde::{Deserialize, Serialize};
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

/// The protocol version we speak, the only one we accept: the schema's v1.
pub const PROTOCOL_VERSION: u64 = agent_client_protocol_schema::ProtocolVersion::V1.as_u16() as u64;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CapabilityError {
    #[error("the agent speaks ACP protocol version {0}; oneworks needs version {PROTOCOL_VERSION} or later")]
    TooOld(u64),
    #[error("the agent speaks ACP protocol version {0}; oneworks speaks only version {PROTOCOL_VERSION}")]
    Unsupported(u64),
    #[error("the agent's `initialize` answer has no usable `protocolVersion`")]
    NoVersion,
}

/// The schema spells a session capability as an object
/// (`sessionCapabilities.list: {}`); earlier drafts, still sent by some
/// agents, as `true`. Read leniently: `true` is `{}`, `false` is absent.
fn session_flags_as_objects(result: &Value) -> Value {
    let mut result = result.clone();
    if let Some(Value::Object(flags)) = result.pointer_mut("/agentCapabilities/sessionCapabilities")
    {
        flags.retain(|_, value| *value != Value::Bool(false));
        for value in flags.values_mut() {
            if *value == Value::Bool(true) {
                *value = Value::Object(serde_json::Map::new());
            }
        }
    }
    result
}

impl Capabilities {
    pub fn from_initialize(result: &Value) -> Result<Self, CapabilityError> {
        let answer = InitializeResponse::deserialize(&session_flags_as_objects(result))
            .map_err(|_| CapabilityError::NoVersion)?;
        let version = u64::from(answer.protocol_version.as_u16());
        if version < PROTOCOL_VERSION {
            return Err(CapabilityError::TooOld(version));
        }
        if version != PROTOCOL_VERSION {
            return Err(CapabilityError::Unsupported(version));
        }
        let agent = answer.agent_capabilities;
        let prompt = agent.prompt_capabilities;
        let session = agent.session_capabilities;
        Ok(Self {
            protocol_version: version,
            load_session: agent.load_session,
            prompt_image: prompt.image,
            prompt_audio: prompt.audio,
            prompt_embedded_context: prompt.embedded_context,
            mcp_http: agent.mcp_capabilities.http,
            mcp_sse: agent.mcp_capabilities.sse,
            additional_directories: session.additional_directories.is_some(),
            session_resume: session.resume.is_some(),
            session_close: session.close.is_some(),
            session_list: session.list.is_some(),
        })
    }
}

/// One of the agent's `authMethods`: its id and, when given, its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthMethod {
    pub id: String,
    pub name: Option<String>,
}

/// The `authMethods` of an `initialize` answer, each decoded as the
/// schema's `AuthMethod`; one the schema refuses is still kept by its id
/// (so it can be named and chosen), one without an id is skipped.
pub fn auth_methods(result: &Value) -> Vec<AuthMethod> {
    #[derive(Deserialize)]
    struct IdOnly {
        id: String,
    }
    result
        .get("authMethods")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|method| match TypedAuthMethod::deserialize(method) {
            Ok(typed) => Some(AuthMethod {
                id: typed.id().0.to_string(),
                name: Some(typed.name().to_owned()),
            }),
            Err(_) => IdOnly::deserialize(method).ok().map(|only| AuthMethod {
                id: only.id,
                name: None,
            }),
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
