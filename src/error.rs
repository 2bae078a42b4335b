//! The error type at the command edge: every failure carries an
//! [`ErrorKind`] that fixes its documented exit code and its
//! `kind` string in `--json` error documents, plus an optional hint.

use std::fmt;

/// What went wrong, as far as the exit code is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    Internal,
    Usage,
    Config,
    Network,
    ChecksumMismatch,
    UnsafeArchive,
    NoUsableCli,
    LockTimeout,
    AgentFailed,
    PermissionRefused,
    Session,
    Interrupted,
    /// Stdout was closed by its reader (`… | head -1`): end quietly.
    StdoutClosed,
}

impl ErrorKind {
    /// Every kind (help text and tests list them all).
    pub const ALL: [ErrorKind; 13] = [
        ErrorKind::Internal,
        ErrorKind::Usage,
        ErrorKind::Config,
        ErrorKind::Network,
        ErrorKind::ChecksumMismatch,
        ErrorKind::UnsafeArchive,
        ErrorKind::NoUsableCli,
        ErrorKind::LockTimeout,
        ErrorKind::AgentFailed,
        ErrorKind::PermissionRefused,
        ErrorKind::Session,
        ErrorKind::Interrupted,
        ErrorKind::StdoutClosed,
    ];

    /// The kind a `kind` string names ([`ErrorKind::as_str`]'s inverse).
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == text)
    }

    pub fn exit_code(self) -> u8 {
        match self {
            ErrorKind::Internal => 1,
            ErrorKind::Usage => 2,
            ErrorKind::Config => 3,
            ErrorKind::Network => 4,
            ErrorKind::ChecksumMismatch => 5,
            ErrorKind::UnsafeArchive => 6,
            ErrorKind::NoUsableCli => 7,
            ErrorKind::LockTimeout => 8,
            ErrorKind::AgentFailed => 9,
            ErrorKind::PermissionRefused => 10,
            ErrorKind::Session => 11,
            ErrorKind::Interrupted => 130,
            ErrorKind::StdoutClosed => 0,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Internal => "internal",
            ErrorKind::Usage => "usage",
            ErrorKind::Config => "config",
            ErrorKind::Network => "network",
            ErrorKind::ChecksumMismatch => "checksum_mismatch",
            ErrorKind::UnsafeArchive => "unsafe_archive",
            ErrorKind::NoUsableCli => "no_usable_cli",
            ErrorKind::LockTimeout => "lock_timeout",
            ErrorKind::AgentFailed => "agent_failed",
            ErrorKind::PermissionRefused => "permission_refused",
            ErrorKind::Session => "session",
            ErrorKind::Interrupted => "interrupted",
            ErrorKind::StdoutClosed => "stdout_closed",
        }
    }
}

/// A failure on its way to `main`: the kind, the error chain and a hint.
pub struct Error {
    kind: ErrorKind,
    inner: anyhow::Error,
    hint: Option<String>,
}

impl Error {
    pub fn new(kind: ErrorKind, error: impl Into<anyhow::Error>) -> Self {
        Self {
            kind,
            inner: error.into(),
            hint: None,
        }
    }

    pub fn msg(kind: ErrorKind, message: impl fmt::Display) -> Self {
        Self::new(kind, anyhow::anyhow!("{message}"))
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    pub fn hint(&self) -> Option<&str> {
        self.hint.as_deref()
    }

    /// The message with its causes, `: `-joined.
    pub fn message(&self) -> String {
        message(self.inner.as_ref())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {:?}", self.kind, self.inner)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

/// An error's message with its causes, `: `-joined: the one way a chain
/// is printed (the final error, an `error` event, a warning). Every cause
/// is printed: a message names its cause as a source, never in its text.
pub fn message(error: &(dyn std::error::Error + 'static)) -> String {
    let mut message = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        message.push_str(": ");
        message.push_str(&inner.to_string());
        cause = inner.source();
    }
    message
}

/// A subsystem error that knows its kind and, where a user can act, a hint.
pub trait Classify: std::error::Error + Send + Sync + 'static {
    fn kind(&self) -> ErrorKind;
    fn hint(&self) -> Option<String> {
        None
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Lifts a subsystem error into the edge error, keeping kind and hint.
impl<E: Classify> From<E> for Error {
    fn from(error: E) -> Self {
        Self {
            kind: error.kind(),
            hint: error.hint(),
            inner: anyhow::Error::new(error),
        }
    }
}

#[cfg(test)]
mod kind_tests {
    use super::ErrorKind;

    /// A cause whose text the message already holds is still printed:
    /// messages name causes as sources, so nothing is filtered by text.
    #[test]
    fn the_chain_prints_every_cause() {
        #[derive(Debug, thiserror::Error)]
        #[error("failed to read `config.yaml`")]
        struct Outer {
            #[source]
            source: std::io::Error,
        }
        let error = Outer {
            source: std::io::Error::other("config.yaml"),
        };
        assert_eq!(
            super::message(&error),
            "failed to read `config.yaml`: config.yaml"
        );
    }

    #[test]
    fn every_kind_parses_back_from_its_string() {
        for kind in ErrorKind::ALL {
            assert_eq!(ErrorKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(ErrorKind::parse("nope"), None);
    }
}
