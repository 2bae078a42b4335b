//! What resolving an adapter's CLI needs, as plain values: the commands
//! build a [`Resolver`] from their settings; [`super::decision`] decides
//! with it, and [`super::resolve`] prepares or launches with it.

use std::path::PathBuf;

use super::error::LaunchError;
use crate::adapter::data::AdapterData;
use crate::config::CliConfig;
use crate::install::probe::ProbeSettings;
use crate::install::store::Store;
use crate::install::Installer;

/// What resolving an adapter's CLI needs, as plain values (the commands
/// build it from their settings).
pub struct Resolver<'a> {
    pub data: &'a AdapterData,
    /// `adapters.<name>.cli`.
    pub cli: &'a CliConfig,
    pub probe: ProbeSettings,
    /// The adapter's managed store (read, never written, by [`decide`](crate::launch::decision::decide)).
    pub store: Store,
    /// `$ONEWORKS_HOME` (the managed Node.js store is under it).
    pub data_home: PathBuf,
    /// `.oneworks/<adapter>.lock` (inside a project only); checked before
    /// anything is written through it.
    pub lock_file: Option<PathBuf>,
    /// The installer, for preparing or launching `source: managed` only.
    pub installer: Option<Installer<'a>>,
}

impl Resolver<'_> {
    pub(crate) fn installer(&self) -> Result<&Installer<'_>, LaunchError> {
        self.installer.as_ref().ok_or(LaunchError::NoInstaller)
    }
}
