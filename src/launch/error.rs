//! What can stop the launch layer from choosing a runnable CLI: a refused
//! candidate, the installer's or the pin's failure, an unsafe store folder,
//! or flags that only a managed source takes. Each keeps its cause as a
//! source; the exit code comes from the cause's own kind.

use crate::config::SourceKind;
use crate::error::{Classify, ErrorKind};
use crate::fs_safety::UnsafePath;
use crate::install::error::InstallError;
use crate::install::pin::PinError;

use super::candidate::SourceError;

#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error(transparent)]
    Source(#[from] SourceError),
    /// Boxed: the installer's error is large, and a launch mostly succeeds.
    #[error(transparent)]
    Install(Box<InstallError>),
    #[error(transparent)]
    Pin(#[from] PinError),
    #[error(transparent)]
    Unsafe(#[from] UnsafePath),
    /// A caller chose `source: managed` without handing over an installer.
    #[error("the managed source was chosen without an installer")]
    NoInstaller,
    #[error("--locked and --force apply to `source: managed`, not `source: {configured}`")]
    ManagedOnlyFlags {
        configured: SourceKind,
        adapter: String,
    },
}

impl From<InstallError> for LaunchError {
    fn from(error: InstallError) -> Self {
        LaunchError::Install(Box::new(error))
    }
}

impl Classify for LaunchError {
    fn kind(&self) -> ErrorKind {
        match self {
            LaunchError::Source(error) => error.kind(),
            LaunchError::Install(error) => error.kind(),
            LaunchError::Pin(error) => error.kind(),
            LaunchError::Unsafe(error) => error.kind(),
            LaunchError::NoInstaller => ErrorKind::Internal,
            LaunchError::ManagedOnlyFlags { .. } => ErrorKind::Config,
        }
    }
    fn hint(&self) -> Option<String> {
        match self {
            LaunchError::Source(error) => error.hint(),
            LaunchError::Install(error) => error.hint(),
            LaunchError::Pin(error) => error.hint(),
            LaunchError::Unsafe(error) => error.hint(),
            LaunchError::NoInstaller => None,
            LaunchError::ManagedOnlyFlags { adapter, .. } => Some(format!(
                "drop the flag, or set `adapters.{adapter}.cli.source` to `managed`"
            )),
        }
    }
}
