//! Everything before the prompt: `initialize` → capability matrix →
//! `authenticate` (when the config names a method) → `session/new` or
//! `session/load` (`setup/open_session.rs`) → model and effort. Every
//! optional call is gated on what the agent advertised; a requested model
//! or effort the agent does not offer fails the run before any prompt is
//! sent. Each handshake step ends within the handshake deadline, and
//! `--timeout` covers them too.

use std::path::PathBuf;
use std::time::Duration;

use agent_client_protocol_schema::v1::{
    AuthenticateRequest, ClientCapabilities, FileSystemCapabilities, Implementation,
    InitializeRequest, SetSessionConfigOptionRequest, AGENT_METHOD_NAMES,
};
use agent_client_protocol_schema::ProtocolVersion;
use serde::Serialize;
use serde_json::Value;

use super::capabilities::{self, AuthMethod, Capabilities};
use super::events::Event;
use super::session_cache::SessionCache;
use super::turn::Turn;
use super::AcpError;
use crate::adapter::acp_data::AcpData;
use crate::config::AdapterConfig;
use crate::env_options::environment::Environment;
use crate::redact::Scrubber;

mod open_session;
pub use open_session::open_session;

/// What the session needs from the command line, the config and the world.
pub struct SessionPlan<'a> {
    pub data: &'a AcpData,
    pub cwd: PathBuf,
    pub resume: bool,
    pub cache: SessionCache,
    pub scrubber: &'a Scrubber,
    /// The config whose MCP servers go into `session/new`.
    pub config: &'a AdapterConfig,
    pub additional_dirs: Vec<PathBuf>,
    /// The agent child's environment, for `${VAR}` in MCP server entries.
    pub environment: Environment,
    pub model: Option<String>,
    pub effort: Option<String>,
    /// The deadline of each handshake step.
    pub handshake_timeout: Duration,
    /// The configured `authenticate` method, and the config key naming it.
    pub auth_method: Option<String>,
    pub auth_key: String,
    /// The adapter's own way to log in (from its data), for "auth required".
    pub login_hint: String,
}

/// What `initialize` told us.
pub struct Handshake {
    pub capabilities: Capabilities,
    pub auth_methods: Vec<AuthMethod>,
}

/// One handshake call, within the handshake deadline; `--timeout` expiring
/// meanwhile names the step too (no turn had begun).
async fn handshake_call(
    turn: &mut Turn<'_>,
    plan: &SessionPlan<'_>,
    method: &str,
    params: &impl Serialize,
) -> Result<Value, AcpError> {
    let timed_out = |limit: String| AcpError::HandshakeTimeout {
        step: method.to_owned(),
        limit,
        tail: String::new(),
    };
    match tokio::time::timeout(plan.handshake_timeout, turn.call(method, params)).await {
        Ok(Err(AcpError::Timeout(limit))) => Err(timed_out(format!("`--timeout {limit}`"))),
        Ok(result) => result,
        Err(_) => Err(timed_out(format!(
            "the handshake deadline of {} (ONEWORKS_HANDSHAKE_TIMEOUT)",
            humantime::format_duration(plan.handshake_timeout)
        ))),
    }
}

/// The advertised methods as text for messages: `` `a` (Name), `b` ``.
fn listed(methods: &[AuthMethod]) -> String {
    if methods.is_empty() {
        return "no authentication methods".to_owned();
    }
    let names: Vec<String> = methods
        .iter()
        .map(|method| match &method.name {
            Some(name) => format!("`{}` ({})", method.id, crate::output::clean(name)),
            None => format!("`{}`", method.id),
        })
        .collect();
    format!("the authentication methods {}", names.join(", "))
}

/// "Authentication required" from opening a session: the error names the
/// advertised methods and carries the adapter's login hint.
fn login_needed(error: AcpError, handshake: &Handshake, plan: &SessionPlan<'_>) -> AcpError {
    match error {
        AcpError::AuthRequired { message } => AcpError::LoginNeeded {
            message,
            methods: listed(&handshake.auth_methods),
            hint: plan.login_hint.clone(),
        },
        other => other,
    }
}

/// `authenticate {methodId}` when the config names a method; the method
/// must be one the agent advertised.
pub async fn authenticate(
    turn: &mut Turn<'_>,
    plan: &SessionPlan<'_>,
    handshake: &Handshake,
) -> Result<(), AcpError> {
    let Some(method) = &plan.auth_method else {
        return Ok(());
    };
    if plan.data.is_interactive_auth(method) {
        // It would take over the agent's stdout: the channel would break.
        return Err(AcpError::InteractiveAuth {
            key: plan.auth_key.clone(),
            method: crate::output::clean(method),
            hint: plan.login_hint.clone(),
        });
    }
    if !handshake
        .auth_methods
        .iter()
        .any(|known| &known.id == method)
    {
        return Err(AcpError::UnknownAuthMethod {
            key: plan.auth_key.clone(),
            method: crate::output::clean(method),
            offered: listed(&handshake.auth_methods),
        });
    }
    let params = AuthenticateRequest::new(method.clone());
    handshake_call(turn, plan, AGENT_METHOD_NAMES.authenticate, &params).await?;
    Ok(())
}

fn initialize_params() -> InitializeRequest {
    InitializeRequest::new(ProtocolVersion::V1)
        .client_capabilities(
            ClientCapabilities::new()
                .fs(FileSystemCapabilities::new())
                .terminal(false),
        )
        .client_info(Implementation::new("oneworks", env!("CARGO_PKG_VERSION")))
}

/// `initialize`: protocol version 1, our name and version, no client
/// capabilities (no file system or terminal served).
pub async fn initialize(
    turn: &mut Turn<'_>,
    plan: &SessionPlan<'_>,
) -> Result<Handshake, AcpError> {
    let result = handshake_call(
        turn,
        plan,
        AGENT_METHOD_NAMES.initialize,
        &initialize_params(),
    )
    .await?;
    let capabilities = Capabilities::from_initialize(&result)?;
    tracing::debug!(
        "agent capabilities: {}",
        serde_json::to_string(&capabilities).unwrap_or_default()
    );
    Ok(Handshake {
        capabilities,
        auth_methods: capabilities::auth_methods(&result),
    })
}

// The session answer's `models` is outside ACP v1's schema (the unstable
// model list agents still send): vendor data, kept as data and
// read by field. `configOptions` is read by field too: agents send entries
// the schema's strict select type refuses (options without a `name`), and
// an effort setting must not vanish for that.

/// The models the session answer advertises.
fn advertised_models(session: &Value) -> Vec<String> {
    session
        .pointer("/models/availableModels")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|model| {
            model
                .get("modelId")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .collect()
}

/// The effort config option: `(id, allowed values)`.
fn effort_option(session: &Value, data: &AcpData) -> Option<(String, Vec<String>)> {
    let options = session.get("configOptions")?.as_array()?;
    let option = options.iter().find(|option| {
        option.get("category").and_then(Value::as_str) == Some(data.effort_category.as_str())
            || option
                .get("id")
                .and_then(Value::as_str)
                .is_some_and(|id| data.effort_config_ids.iter().any(|known| known == id))
    })?;
    let id = option.get("id")?.as_str()?.to_owned();
    let values = option
        .get("options")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|value| {
            value
                .get("value")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .collect();
    Some((id, values))
}

fn current_value(answer: &Value, id: &str) -> Option<String> {
    answer
        .get("configOptions")?
        .as_array()?
        .iter()
        .find(|option| option.get("id").and_then(Value::as_str) == Some(id))?
        .get("currentValue")?
        .as_str()
        .map(str::to_owned)
}

/// Checks model and effort against what the session offers (before any
/// call), then applies them with the agent's native setters. Returns the
/// model and the effort the agent confirmed.
pub async fn apply_model_and_effort(
    turn: &mut Turn<'_>,
    plan: &SessionPlan<'_>,
    session_id: &str,
    session: &Value,
) -> Result<(Option<String>, Option<String>), AcpError> {
    let models = advertised_models(session);
    let effort = effort_option(session, plan.data);
    if let Some(model) = &plan.model {
        let offered = if models.is_empty() {
            model == &plan.data.default_model
        } else {
            models.contains(model)
        };
        if !offered {
            let list = if models.is_empty() {
                plan.data.default_model.clone()
            } else {
                models.join(", ")
            };
            return Err(AcpError::NotOffered {
                message: format!("model `{model}` is not offered by the agent's session"),
                hint: format!("offered: {list}"),
            });
        }
    }
    if let Some(wanted) = &plan.effort {
        match &effort {
            Some((_, values)) if values.contains(wanted) => {}
            Some((_, values)) => {
                return Err(AcpError::NotOffered {
                    message: format!("effort `{wanted}` is not offered by the agent's session"),
                    hint: format!("offered: {}", values.join(", ")),
                })
            }
            None => {
                return Err(AcpError::NotOffered {
                    message: format!(
                    "effort `{wanted}` cannot be set: the agent's session offers no effort setting"
                ),
                    hint: "run without `--effort`".to_owned(),
                })
            }
        }
    }
    let mut model_used = None;
    if let Some(model) = &plan.model {
        if !models.is_empty() {
            let params = SetSessionModelRequest {
                session_id: session_id.to_owned(),
                model_id: model.clone(),
            };
            handshake_call(turn, plan, &plan.data.set_model_method, &params).await?;
        }
        model_used = Some(model.clone());
    }
    let mut effort_confirmed = None;
    if let (Some(wanted), Some((id, _))) = (&plan.effort, &effort) {
        let params =
            SetSessionConfigOptionRequest::new(session_id.to_owned(), id.clone(), wanted.as_str());
        let answer =
            handshake_call(turn, plan, &plan.data.set_config_option_method, &params).await?;
        if current_value(&answer, id).as_deref() == Some(wanted) {
            effort_confirmed = Some(wanted.clone());
        } else {
            turn.sink
                .diagnostic(format!("the agent did not confirm effort `{wanted}`"))
                .map_err(AcpError::Output)?;
        }
    }
    Ok((model_used, effort_confirmed))
}

/// The model setter's params. Not in ACP v1's schema (it was the unstable
/// `session/set_model`, which agents still answer; its method name
/// is the adapter's data): typed here the way the schema types its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetSessionModelRequest {
    pub session_id: String,
    pub model_id: String,
}

/// The `session_started` event.
pub fn started(
    session_id: String,
    resumed: bool,
    model: Option<String>,
    effort: Option<String>,
) -> Event {
    Event::SessionStarted {
        session_id,
        resumed,
        model,
        effort,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The `initialize` request, built from the schema's types.
    #[test]
    fn initialize_is_the_specs_message() {
        let sent = serde_json::to_value(initialize_params()).expect("json");
        assert_eq!(sent["protocolVersion"], 1);
        assert_eq!(
            sent["clientCapabilities"]["fs"],
            json!({"readTextFile": false, "writeTextFile": false})
        );
        assert_eq!(sent["clientCapabilities"]["terminal"], false);
        assert_eq!(
            sent["clientInfo"],
            json!({"name": "oneworks", "version": env!("CARGO_PKG_VERSION")})
        );
        let set_model = SetSessionModelRequest {
            session_id: "s".into(),
            model_id: "m".into(),
        };
        assert_eq!(
            serde_json::to_value(set_model).expect("json"),
            json!({"sessionId": "s", "modelId": "m"})
        );
        let effort = SetSessionConfigOptionRequest::new("s".to_owned(), "e".to_owned(), "high");
        assert_eq!(
            serde_json::to_value(effort).expect("json"),
            json!({"sessionId": "s", "configId": "e", "value": "high"})
        );
    }

    #[test]
    fn models_and_effort_are_read_from_the_session_answer() {
        let data = crate::adapter::data::AdapterData::builtin()
            .expect("data")
            .acp;
        let session = json!({
            "models": {"availableModels": [{"modelId":"claude-a"},{"modelId":"claude-b"}], "currentModelId":"claude-a"},
            "configOptions": [{"id":"reasoning","category":"thought_level","options":[{"value":"low"},{"value":"high"}]}]
        });
        assert_eq!(advertised_models(&session), ["claude-a", "claude-b"]);
        assert_eq!(
            effort_option(&session, &data),
            Some((
                "reasoning".to_owned(),
                vec!["low".to_owned(), "high".to_owned()]
            ))
        );
        assert_eq!(advertised_models(&json!({})), Vec::<String>::new());
    }
}
