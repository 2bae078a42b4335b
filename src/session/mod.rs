//! Supervised agent TUI sessions (SPEC §8): the agent's own terminal UI in a
//! private tmux server, with every one-time approval mirrored as a card
//! that can be answered from elsewhere.
//!
//! - [`recorder`], [`recorder_tail`]: the agent's ACP recorder, parsed and
//!   tailed with the race rules of the original design.
//! - [`cards`]: the card model, states, ids and `cards.jsonl` history;
//!   [`history`] reads it back.
//! - [`pane`], [`keystroke_bridge`]: reading the prompt on screen and
//!   typing a verdict into it, verify-then-key, failing closed.
//! - [`pane_fallback`]: the generic approval detector for agent versions
//!   without the recorder and other TUIs.
//! - [`hook_signal`]: the agent's own hook that fires when it is about to
//!   ask, handed over by `oneworks session hook`.

pub mod answerer;
pub mod approvals_channel;
pub mod cards;
pub mod history;
pub mod hook_signal;
pub mod keystroke_bridge;
pub mod launch;
pub mod pane;
pub mod pane_fallback;
pub mod pane_watch;
pub mod ready;
pub mod recorder;
pub mod recorder_tail;
pub mod refusal;
pub mod serve;
pub mod state;
pub mod supervisor;
pub mod tmux;
pub mod webhook;

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
}

impl Classify for SessionError {
    fn kind(&self) -> ErrorKind {
        match self {
            SessionError::Unsafe(error) => error.kind(),
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
                "start it with `oneworks session start ADAPTER --name {name}`; `oneworks session list` shows the sessions"
            )),
            SessionError::AlreadyRunning(name) => Some(format!(
                "attach with `oneworks session attach {name}` or stop it with `oneworks session stop {name}`"
            )),
            SessionError::Unresponsive { .. } => Some(
                "it may be stopped (SIGSTOP) or wedged: `oneworks session list` shows its pid; `kill -CONT PID` resumes a stopped one, and after `kill PID` `oneworks session stop` cleans up"
                    .to_owned(),
            ),
            SessionError::Unsafe(error) => error.hint(),
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
