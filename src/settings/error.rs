//! What can stop the settings from resolving: the working folder, the
//! locations, the environment, the adapter files, the config, the npm
//! settings or the project folder. Each cause is kept as it is, with its
//! own kind; only an unknown adapter name is a usage error.

use crate::adapter::registry::RegistryError;
use crate::config::ConfigError;
use crate::env_options::error::EnvError;
use crate::error::{Classify, ErrorKind};
use crate::fs_safety::UnsafePath;
use crate::install::error::InstallError;
use crate::locations::LocationError;

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// The working folder is gone or unreadable.
    #[error(transparent)]
    CurrentDir(std::io::Error),
    #[error(transparent)]
    Locations(#[from] LocationError),
    #[error(transparent)]
    Environment(#[from] EnvError),
    #[error(transparent)]
    Registry(#[from] RegistryError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// Boxed: the installer's error is large, and settings mostly resolve.
    #[error(transparent)]
    Install(Box<InstallError>),
    #[error(transparent)]
    Unsafe(#[from] UnsafePath),
    /// A command asked for its adapter, but names none.
    #[error("the command's adapter was not resolved")]
    NoAdapter,
}

impl From<InstallError> for SettingsError {
    fn from(error: InstallError) -> Self {
        SettingsError::Install(Box::new(error))
    }
}

impl Classify for SettingsError {
    fn kind(&self) -> ErrorKind {
        match self {
            SettingsError::CurrentDir(_) | SettingsError::NoAdapter => ErrorKind::Internal,
            SettingsError::Locations(_) => ErrorKind::Config,
            SettingsError::Environment(error) => error.kind(),
            SettingsError::Registry(RegistryError::Unknown { .. }) => ErrorKind::Usage,
            SettingsError::Registry(_) => ErrorKind::Config,
            SettingsError::Config(error) => error.kind(),
            SettingsError::Install(error) => error.kind(),
            SettingsError::Unsafe(error) => error.kind(),
        }
    }
    fn hint(&self) -> Option<String> {
        match self {
            SettingsError::Environment(error) => error.hint(),
            SettingsError::Config(error) => error.hint(),
            SettingsError::Install(error) => error.hint(),
            SettingsError::Unsafe(error) => error.hint(),
            _ => None,
        }
    }
}
