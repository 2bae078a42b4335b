//! Supervised agent TUI sessions: the agent's own terminal UI in a
//! private tmux server, with every one-time approval mirrored as a card
//! that can be answered from elsewhere.
//!
//! A folder per job:
//! - [`supervisor`]: the one background process per session (its start
//!   from plain values, its ready line, the shared state the others go
//!   through);
//! - [`signals`]: where approvals come from, strongest first — the agent's
//!   ACP recorder and its tail, the agent's own hook, the pane read through
//!   the adapter's grammar or the generic detector;
//! - [`cards`]: the card model, states, ids and the `cards.jsonl` history;
//! - [`delivery`]: a verdict typed into the box by the keystroke bridge
//!   (verify-then-key, failing closed), the webhook, the answer links;
//! - [`channel`]: the approvals socket's JSON-lines protocol and who may
//!   answer over it;
//! - [`tmux`]: the private tmux server; [`tmux_control`]: when the pane
//!   is looked at (control mode's change notices); [`refusal`]: why a
//!   delivery or an answer was refused, typed; [`secret`]: random tokens
//!   compared in constant time.
//!
//! `session serve`'s page is above this, in [`crate::serve`]: a client of
//! the sockets.

pub mod cards;
pub mod channel;
pub mod delivery;
pub mod refusal;
pub mod secret;
pub mod signals;
pub mod supervisor;
pub mod tmux;
pub mod tmux_control;

use std::path::PathBuf;

use crate::error::{Classify, ErrorKind};

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("`tmux` was not found on PATH")]
    TmuxMissing,
    #[error("tmux `{action}` failed: {message}")]
    Tmux { action: String, message: String },
    #[error("no session `{0}` is running")]
    NotRunning(String),
    #[error("session `{0}` is already running")]
    AlreadyRunning(String),
    #[error("the supervisor of session `{0}` is gone")]
    SupervisorGone(String),
    /// The supervisor died and its tmux server with it: nothing to re-adopt.
    #[error("the supervisor of session `{0}` is gone and so is its tmux server: the agent cannot be re-adopted")]
    Unadoptable(String),
    #[error("the supervisor of session `{name}` did not answer within {seconds} s")]
    Unresponsive { name: String, seconds: u64 },
    #[error("failed to {action} `{path}`")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Unsafe(#[from] crate::fs_safety::UnsafePath),
    #[error(transparent)]
    Profile(#[from] crate::launch::profile::ProfileError),
    /// The `ready` line (or the error document in its place) could not be
    /// printed.
    #[error(transparent)]
    Output(#[from] crate::output::OutputError),
    /// The supervisor's async runtime could not start.
    #[error(transparent)]
    Runtime(std::io::Error),
    #[error("invalid config at `adapters.{adapter}.approvals.webhook`: not an http or https URL")]
    InvalidWebhook { adapter: String },
    /// The supervisor process reported an error on its `ready` line: its
    /// kind crosses the process boundary as text, so the exit code holds.
    #[error("session `{session}` did not start: {message}")]
    NotStarted {
        session: String,
        kind: ErrorKind,
        message: String,
        hint: String,
    },
}

impl Classify for SessionError {
    fn kind(&self) -> ErrorKind {
        match self {
            SessionError::Unsafe(error) => error.kind(),
            SessionError::Profile(error) => error.kind(),
            SessionError::Output(error) => error.kind(),
            SessionError::Runtime(_) => ErrorKind::Internal,
            SessionError::InvalidWebhook { .. } => ErrorKind::Config,
            SessionError::NotStarted { kind, .. } => *kind,
            _ => ErrorKind::Session,
        }
    }

    fn hint(&self) -> Option<String> {
        match self {
            SessionError::TmuxMissing => Some(
                "supervised sessions run the agent inside tmux: install it (e.g. `apt-get install tmux` or `brew install tmux`)"
                    .to_owned(),
            ),
            SessionError::NotRunning(name) | SessionError::SupervisorGone(name) => Some(format!(
                "start it with `oneworks session start ADAPTER --name {name}` (a TUI) or `oneworks run ADAPTER --session {name} --keep` (kept); `oneworks session list` shows the sessions"
            )),
            SessionError::Unadoptable(name) => Some(format!(
                "`oneworks session stop {name}` clears what is left; then start it again"
            )),
            SessionError::AlreadyRunning(name) => Some(format!(
                "attach with `oneworks session attach {name}` or stop it with `oneworks session stop {name}`"
            )),
            SessionError::Unresponsive { .. } => Some(
                "it may be stopped (SIGSTOP) or wedged: `oneworks session list` shows its pid; `kill -CONT PID` resumes a stopped one, and after `kill PID` `oneworks session stop` cleans up"
                    .to_owned(),
            ),
            SessionError::Unsafe(error) => error.hint(),
            SessionError::Profile(error) => error.hint(),
            SessionError::NotStarted { hint, .. } => Some(hint.clone()),
            _ => None,
        }
    }
}

pub(crate) fn io_error<'a>(
    action: &'static str,
    path: &'a std::path::Path,
) -> impl FnOnce(std::io::Error) -> SessionError + 'a {
    move |source| SessionError::Io {
        action,
        path: path.to_owned(),
        source,
    }
}
