//! The fake's own failures (its script, its log, its held child, the fake
//! Cursor's chat store): printed as `fake-kiro-cli: <message>`, exit 70.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum FakeError {
    #[error("--fake-script needs a path")]
    ScriptPathMissing,
    #[error("cannot read fake script `{}`: {source}", .path.display())]
    ReadScript {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("invalid fake script `{}`: {source}", .path.display())]
    InvalidScript {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("cannot open log `{}`: {source}", .path.display())]
    OpenLog {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write log `{}`: {source}", .path.display())]
    WriteLog {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no current exe: {0}")]
    CurrentExe(#[source] std::io::Error),
    #[error("cannot start the held child: {0}")]
    StartHeldChild(#[source] std::io::Error),
    #[error("the held child did not start")]
    HeldChildNotReady,
    #[error("cannot write `{}`: {source}", .path.display())]
    WritePid {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no HOME for the chat store")]
    NoHome,
    #[error("no current folder: {0}")]
    CurrentDir(#[source] std::io::Error),
    #[error("cannot create the chat store's folder: {0}")]
    StoreFolder(#[source] std::io::Error),
    #[error("the chat store: {0}")]
    Store(#[from] rusqlite::Error),
}
