//! The one resolver from settings to a runnable `kiro-cli` (SPEC §3), with
//! two entry points: [`resolve_for_prepare`] (`adapter prepare`) and
//! [`resolve_for_launch`] (`adapter login`, `run`, `session start`). The
//! launch path makes no request when a usable version is installed.

use std::path::PathBuf;

use super::source;
use crate::config::SourceKind;
use crate::error::{Error, ErrorKind};
use crate::install::{Prepared, Request};
use crate::settings::Settings;

/// What `prepare` was asked to do (the flags, without clap).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PrepareOptions {
    pub offline: bool,
    pub force: bool,
    pub locked: bool,
}

/// A verified `kiro-cli`, ready to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedCli {
    pub source: SourceKind,
    pub version: String,
    /// Absolute path of the executable.
    pub path: PathBuf,
    /// The verified archive digest (managed installs only).
    pub sha256: Option<String>,
    /// Whether an existing install was used (always for system and path).
    pub reused: bool,
}

impl From<Prepared> for ResolvedCli {
    fn from(prepared: Prepared) -> Self {
        Self {
            source: SourceKind::Managed,
            version: prepared.version,
            path: prepared.executable,
            sha256: Some(prepared.sha256),
            reused: prepared.reused,
        }
    }
}

/// `adapter prepare`: for `managed`, installs or reuses per the version
/// policy (the manifest is asked unless `--offline` or `--locked`); for
/// `system` and `path`, runs the probes.
pub fn resolve_for_prepare(
    settings: &Settings,
    options: PrepareOptions,
) -> Result<ResolvedCli, Error> {
    let cli = &settings.config.config.adapters.kiro.cli;
    match cli.source {
        SourceKind::Managed => {
            let installer = settings.installer()?;
            let prepared = installer.prepare(&Request {
                version: cli.version.clone(),
                pin_path: settings.checked_pin_path()?,
                offline: options.offline,
                force: options.force,
                locked: options.locked,
            })?;
            Ok(prepared.into())
        }
        SourceKind::System | SourceKind::Path => {
            if options.locked || options.force {
                return Err(Error::msg(
                    ErrorKind::Config,
                    format!(
                        "--locked and --force apply to `source: managed`, not `source: {}`",
                        cli.source
                    ),
                )
                .with_hint("drop the flag, or set `adapters.kiro.cli.source` to `managed`"));
            }
            probe_unmanaged(settings)
        }
    }
}

/// `login`, `run`, `session start`: for `managed`, the configured version,
/// else the `kiro.lock` version, else the newest installed one — with no
/// request at all — and only when none is installed, a `prepare` (with
/// its progress bar). For `system` and `path`, the same probes as prepare.
pub fn resolve_for_launch(settings: &Settings) -> Result<ResolvedCli, Error> {
    let cli = &settings.config.config.adapters.kiro.cli;
    match cli.source {
        SourceKind::Managed => {
            let installer = settings.installer()?;
            let pin_path = settings.checked_pin_path()?;
            match installer.installed_for_launch(&cli.version, pin_path.as_ref())? {
                Some(prepared) => Ok(prepared.into()),
                None => resolve_for_prepare(settings, PrepareOptions::default()),
            }
        }
        SourceKind::System | SourceKind::Path => probe_unmanaged(settings),
    }
}

fn probe_unmanaged(settings: &Settings) -> Result<ResolvedCli, Error> {
    let cli = &settings.config.config.adapters.kiro.cli;
    let probe = settings.probe_settings();
    let candidate = match (cli.source, &cli.path) {
        (SourceKind::Path, Some(path)) => source::resolve_path(path, &settings.data, &probe)?,
        _ => source::resolve_system(&settings.data, &probe)?,
    };
    Ok(ResolvedCli {
        source: cli.source,
        version: candidate.version.unwrap_or_default(),
        path: candidate.path,
        sha256: None,
        reused: true,
    })
}
