//! The ACP client: `oneworks run <adapter>` drives the agent's
//! ACP mode as a structured stream. The messages are the schema crate's
//! types (`agent-client-protocol-schema`, protocol v1); the loop around
//! them is owned here because receiving must be lenient (a vendor's
//! dialect, unknown update kinds and methods kept as data) and sending
//! strict.
//!
//! - [`quirks`]: one small module per vendor that rewrites its dialect
//!   into the standard shape before typed decoding.
//! - [`rpc`]: JSON-RPC line framing, separate id spaces per direction.
//! - [`capabilities`]: the `initialize` answer as an explicit matrix.
//! - [`updates`]: session updates in both dialects → [`events`].
//! - [`events`]: the run events and their two renderings.
//! - [`fast`]: the hot path of a streamed turn (message chunks).
//! - [`permissions`]: mode policy, remembered rules, reply matching.
//! - [`shown`]: what a person is shown of a permission request (card text).
//! - [`answer_input`]: where a person answers (JSON lines on stdin, a terminal).
//! - [`session_cache`]: the agent's native session id per oneworks session.
//! - [`turn`]: the message loop — one turn, finalized exactly once, the
//!   cancel sequence.
//! - [`client`]: the run from `initialize` to the end of the turn.
//! - [`kept`]: sessions that last — the owner that keeps the agent, its
//!   socket, and the caller's side.

pub mod answer_input;
pub mod capabilities;
pub mod client;
pub mod events;
pub mod fast;
pub mod kept;
pub mod permissions;
pub mod quirks;
pub mod rpc;
pub mod session_cache;
pub mod setup;
pub mod shown;
pub mod turn;
pub mod updates;

use crate::error::{Classify, ErrorKind};

/// `--timeout`: how long the run may take, and the value as the user
/// wrote it (messages echo it so: `90s` stays `90s`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunTimeout {
    pub limit: std::time::Duration,
    pub written: String,
}

/// How a run failed.
#[derive(Debug, thiserror::Error)]
pub enum AcpError {
    #[error("could not start `{program}`")]
    Spawn {
        program: String,
        /// The adapter's id, for the hint.
        adapter: String,
        #[source]
        source: std::io::Error,
    },
    #[error("lost the connection to the agent")]
    Io(#[source] std::io::Error),
    #[error(transparent)]
    Capability(#[from] capabilities::CapabilityError),
    #[error("the agent ended {when}{tail}")]
    AgentGone { when: String, tail: String },
    /// The agent exited while loading a session instead of answering.
    #[error("the agent ended {when} while loading the cached session")]
    GoneOnLoad { when: String },
    #[error("the agent answered `{method}` with an error: {message}")]
    Rejected { method: String, message: String },
    #[error("the agent needs a login: {message}")]
    AuthRequired { message: String },
    /// `session/new` failed for lack of authentication: the methods the
    /// agent advertised and the adapter's own login hint.
    #[error("the agent needs a login: {message}; it advertises {methods}")]
    LoginNeeded {
        message: String,
        methods: String,
        hint: String,
    },
    /// The configured `auth.method` needs a person at a terminal (the
    /// adapter's data says so): never sent over ACP.
    #[error("`{key}` is `{method}`, which needs an interactive login and cannot be used over ACP")]
    InteractiveAuth {
        key: String,
        method: String,
        hint: String,
    },
    /// The adapter names a protocol quirk set oneworks does not ship.
    #[error(transparent)]
    UnknownQuirks(#[from] quirks::UnknownQuirks),
    /// The configured `auth.method` is not one the agent advertised.
    #[error("`{key}` is `{method}`, which the agent does not advertise; it advertises {offered}")]
    UnknownAuthMethod {
        key: String,
        method: String,
        offered: String,
    },
    /// A handshake step (`initialize`, `authenticate`, `session/new`,
    /// `session/load`) did not end within its deadline.
    #[error("the agent did not answer `{step}` within {limit}{tail}")]
    HandshakeTimeout {
        step: String,
        limit: String,
        tail: String,
    },
    #[error("the agent answered `{method}` without {what}")]
    Malformed { method: String, what: String },
    #[error("{message}")]
    NotOffered { message: String, hint: String },
    #[error("permission refused: {reason}")]
    PermissionRefused { reason: String, hint: String },
    #[error("the turn did not end within `--timeout {0}`; it was cancelled")]
    Timeout(String),
    #[error("interrupted; the turn was cancelled")]
    Interrupted,
    /// Printing an event failed (stdout closed, disk full).
    #[error(transparent)]
    Output(crate::output::OutputError),
    #[error(transparent)]
    Kept(#[from] kept::caller::KeptError),
}

impl Classify for AcpError {
    fn kind(&self) -> ErrorKind {
        match self {
            AcpError::NotOffered { .. } => ErrorKind::Usage,
            AcpError::UnknownAuthMethod { .. } | AcpError::UnknownQuirks(_) => ErrorKind::Config,
            AcpError::PermissionRefused { .. } => ErrorKind::PermissionRefused,
            AcpError::Interrupted => ErrorKind::Interrupted,
            AcpError::Output(error) => error.kind(),
            AcpError::Kept(error) => error.kind(),
            _ => ErrorKind::AgentFailed,
        }
    }

    fn hint(&self) -> Option<String> {
        match self {
            AcpError::NotOffered { hint, .. }
            | AcpError::PermissionRefused { hint, .. }
            | AcpError::LoginNeeded { hint, .. }
            | AcpError::InteractiveAuth { hint, .. } => Some(hint.clone()),
            AcpError::UnknownAuthMethod { key, .. } => Some(format!(
                "set `{key}` to one of the advertised methods, or remove it"
            )),
            AcpError::HandshakeTimeout { .. } => Some(
                "raise ONEWORKS_HANDSHAKE_TIMEOUT (seconds or a duration like `90s`) \
                 for a slow agent, or check that it starts"
                    .to_owned(),
            ),
            AcpError::Spawn {
                adapter, source, ..
            } => {
                let general = format!("check `oneworks adapter status {adapter}`");
                Some(
                    match source
                        .raw_os_error()
                        .and_then(crate::install::probe::cause::from_start_errno)
                    {
                        Some(cause) => format!("{}\nhint: {general}", cause.hint()),
                        None => general,
                    },
                )
            }
            // What its stderr said, when it names a cause a person can
            // act on (the same table as a failed probe's).
            AcpError::Kept(error) => error.hint(),
            AcpError::AgentGone { tail, .. } => {
                crate::install::probe::cause::recognise(tail).map(|cause| cause.hint().to_owned())
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spawn_hint(source: std::io::Error) -> String {
        AcpError::Spawn {
            program: "agent".to_owned(),
            adapter: "some-agent".to_owned(),
            source,
        }
        .hint()
        .unwrap_or_default()
    }

    #[test]
    fn a_spawn_refused_as_no_program_for_this_host_names_the_platform_package() {
        let hint = spawn_hint(std::io::Error::from_raw_os_error(libc::ENOEXEC));
        assert!(hint.contains("binary for this platform"), "{hint}");
        assert!(
            hint.contains("oneworks adapter status some-agent"),
            "{hint}"
        );
    }

    #[test]
    fn the_hint_comes_from_the_errno_not_from_the_errors_text() {
        // Words that read like the cause, with no errno behind them.
        let hint = spawn_hint(std::io::Error::other("exec format error"));
        assert_eq!(hint, "check `oneworks adapter status some-agent`");
        let hint = spawn_hint(std::io::Error::from_raw_os_error(libc::ENOENT));
        assert_eq!(hint, "check `oneworks adapter status some-agent`");
    }
}
