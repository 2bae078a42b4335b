//! The configuration error type, shared by loading, the schema checks and
//! the credential checks (its own file so none of them imports another for
//! it).

use std::path::PathBuf;

use crate::error::{Classify, ErrorKind};
use crate::fs_safety::UnsafePath;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("failed to read config file `{path}`")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("config file `{path}` does not exist")]
    Missing { path: PathBuf },
    #[error("config file `{path}` is a symbolic link to nothing (its target does not exist)")]
    Dangling { path: PathBuf },
    #[error("config file `{path}` is a {found}, not a regular file")]
    NotRegular { path: PathBuf, found: &'static str },
    #[error("config file `{path}` is larger than {limit} bytes")]
    TooLarge { path: PathBuf, limit: u64 },
    #[error("invalid config `{}:{line}:{column}`: {message}", path.display())]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("invalid config `{}`: {message}", path.display())]
    ParseNoPosition { path: PathBuf, message: String },
    #[error("invalid config at `{key}`: {message}")]
    Invalid { key: String, message: String },
    /// An adapter the config names whose adapter file does not load.
    #[error("invalid config at `{key}`")]
    AdapterFile {
        key: String,
        #[source]
        source: Box<crate::adapter::registry::RegistryError>,
    },
    #[error("credential in config at `{key}`: {reason}")]
    Credential { key: String, reason: String },
    #[error("config file `{path}` changed while it was read (its real path no longer names the file that was read)")]
    Changed { path: PathBuf },
    #[error(transparent)]
    Unsafe(#[from] UnsafePath),
}

impl Classify for ConfigError {
    fn kind(&self) -> ErrorKind {
        match self {
            ConfigError::Unsafe(error) => error.kind(),
            _ => ErrorKind::Config,
        }
    }
    fn hint(&self) -> Option<String> {
        match self {
            ConfigError::Credential { .. } => Some(
                "credentials do not belong in config files: write a `${VAR}` reference and export VAR when oneworks starts the agent"
                    .to_owned(),
            ),
            ConfigError::Missing { .. } => {
                Some("check `--config` or `ONEWORKS_CONFIG`".to_owned())
            }
            ConfigError::Dangling { .. } | ConfigError::NotRegular { .. } => {
                Some("point the config path at a YAML file, or remove the entry".to_owned())
            }
            ConfigError::Unsafe(error) => error.hint(),
            _ => None,
        }
    }
}
