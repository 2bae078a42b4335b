//! Opening the session: `session/load` for `--resume` when the agent can
//! load the cached session, else `session/new` (its id cached), each with
//! the config's MCP servers and additional directories as the agent's
//! capabilities allow.

use std::path::PathBuf;

use agent_client_protocol_schema::v1::{
    LoadSessionRequest, McpServer, NewSessionRequest, NewSessionResponse, AGENT_METHOD_NAMES,
};
use serde::Deserialize;
use serde_json::Value;

use super::{handshake_call, login_needed, Handshake, SessionPlan};
use crate::acp::capabilities::Capabilities;
use crate::acp::turn::Turn;
use crate::acp::AcpError;
use crate::launch::profile::materialize::acp_mcp::{acp_mcp_servers, RemoteSupport};

/// Creates or loads the session; returns its id and whether it resumed.
pub async fn open_session(
    turn: &mut Turn<'_>,
    handshake: &Handshake,
    plan: &SessionPlan<'_>,
) -> Result<(String, bool, Value), AcpError> {
    let servers = mcp_servers(turn, &handshake.capabilities, plan)?;
    let additional_dirs = additional_dirs(turn, &handshake.capabilities, plan)?;
    if plan.resume {
        let loaded = load_session(turn, handshake, plan, &servers, &additional_dirs).await?;
        if let Some((session_id, result)) = loaded {
            return Ok((session_id, true, result));
        }
    }
    let (session_id, result) = new_session(turn, handshake, plan, servers, additional_dirs).await?;
    Ok((session_id, false, result))
}

/// The config's MCP servers as the session request takes them, each
/// dropped one noted.
fn mcp_servers(
    turn: &mut Turn<'_>,
    capabilities: &Capabilities,
    plan: &SessionPlan<'_>,
) -> Result<Vec<McpServer>, AcpError> {
    // Built now that the agent's MCP transports are known; `${VAR}`
    // resolved from the agent child's environment at this moment, on the
    // wire only.
    let (servers, notes) = acp_mcp_servers(
        plan.config,
        RemoteSupport {
            http: capabilities.mcp_http,
            sse: capabilities.mcp_sse,
        },
        &plan.environment,
    );
    for note in notes {
        turn.sink.diagnostic(note).map_err(AcpError::Output)?;
    }
    // Sent strictly: an entry the schema's `McpServer` does not take is a
    // bug of ours, not something to put on the wire.
    serde_json::to_value(&servers)
        .and_then(serde_json::from_value)
        .map_err(|error| AcpError::Io(std::io::Error::other(error)))
}

/// The configured additional directories, or none (with a note) when the
/// agent does not advertise them.
fn additional_dirs(
    turn: &mut Turn<'_>,
    capabilities: &Capabilities,
    plan: &SessionPlan<'_>,
) -> Result<Vec<PathBuf>, AcpError> {
    if plan.additional_dirs.is_empty() {
        return Ok(Vec::new());
    }
    if capabilities.additional_directories {
        return Ok(plan.additional_dirs.clone());
    }
    turn.sink
        .diagnostic("`additionalDirs` skipped: the agent does not advertise additional directories")
        .map_err(AcpError::Output)?;
    Ok(Vec::new())
}

/// `--resume`: loads the cached session when the agent can; `None` (with a
/// note) when a new session must start instead.
async fn load_session(
    turn: &mut Turn<'_>,
    handshake: &Handshake,
    plan: &SessionPlan<'_>,
    servers: &[McpServer],
    additional_dirs: &[PathBuf],
) -> Result<Option<(String, Value)>, AcpError> {
    let session_id = match (handshake.capabilities.load_session, plan.cache.load()) {
        (true, Some(session_id)) => session_id,
        (false, _) => {
            turn.sink
                .diagnostic(
                    "--resume: the agent does not advertise `loadSession`; starting a new session",
                )
                .map_err(AcpError::Output)?;
            return Ok(None);
        }
        (true, None) => {
            turn.sink
                .diagnostic("--resume: no earlier session is cached for this session name; starting a new session")
                .map_err(AcpError::Output)?;
            return Ok(None);
        }
    };
    let load = LoadSessionRequest::new(session_id.clone(), plan.cwd.clone())
        .mcp_servers(servers.to_vec())
        .additional_directories(additional_dirs.to_vec());
    turn.session_id = Some(session_id.clone());
    turn.replaying = true;
    let result = handshake_call(turn, plan, AGENT_METHOD_NAMES.session_load, &load)
        .await
        .map_err(|error| login_needed(error, handshake, plan));
    turn.replaying = false;
    match result {
        Ok(result) => Ok(Some((session_id, result))),
        // A session the agent no longer has: start afresh, and say so.
        Err(AcpError::Rejected { message, .. }) => {
            turn.session_id = None;
            turn.sink
                .diagnostic(format!(
                    "--resume: the agent could not load the cached session ({message}); starting a new session"
                ))
                .map_err(AcpError::Output)?;
            Ok(None)
        }
        Err(AcpError::AgentGone { when, .. }) => Err(AcpError::GoneOnLoad { when }),
        Err(error) => Err(error),
    }
}

/// `session/new`: the new session's id, cached for a later `--resume`.
async fn new_session(
    turn: &mut Turn<'_>,
    handshake: &Handshake,
    plan: &SessionPlan<'_>,
    servers: Vec<McpServer>,
    additional_dirs: Vec<PathBuf>,
) -> Result<(String, Value), AcpError> {
    let params = NewSessionRequest::new(plan.cwd.clone())
        .mcp_servers(servers)
        .additional_directories(additional_dirs);
    let result = handshake_call(turn, plan, AGENT_METHOD_NAMES.session_new, &params)
        .await
        .map_err(|error| login_needed(error, handshake, plan))?;
    let session_id = NewSessionResponse::deserialize(&result)
        .ok()
        .map(|answer| answer.session_id.0.to_string())
        .filter(|id| !id.is_empty())
        .ok_or_else(|| AcpError::Malformed {
            method: AGENT_METHOD_NAMES.session_new.to_owned(),
            what: "a `sessionId`".to_owned(),
        })?;
    turn.session_id = Some(session_id.clone());
    if let Err(error) = plan.cache.save(&session_id, plan.scrubber) {
        turn.sink
            .diagnostic(format!("could not cache the session id: {error}"))
            .map_err(AcpError::Output)?;
    }
    Ok((session_id, result))
}
