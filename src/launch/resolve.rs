//! The one resolver from plain values to a runnable adapter CLI, with
//! two entry points: [`resolve_for_prepare`] (`adapter prepare`) and
//! [`resolve_for_launch`] (`adapter login`, `run`, `session start`). The
//! launch path makes no request when a usable version is installed. For
//! `system` and `path` both act on [`decision::decide`], the decision
//! `adapter status` prints.

use std::path::PathBuf;

use super::decision::{self, Scope};
use super::error::LaunchError;
use super::inputs::Resolver;
use crate::config::SourceKind;
use crate::install::{InstallRequest, Prepared};

/// What `prepare` was asked to do (the flags, without clap).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PrepareOptions {
    pub offline: bool,
    pub force: bool,
    pub locked: bool,
}

/// A verified adapter CLI, ready to run.
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
    /// A folder to put first on the agent's PATH: the `bin/` of the
    /// managed Node.js an npm package runs on.
    pub runtime_path: Option<PathBuf>,
}

impl From<Prepared> for ResolvedCli {
    fn from(prepared: Prepared) -> Self {
        Self {
            source: SourceKind::Managed,
            version: prepared.version,
            path: prepared.executable,
            sha256: Some(prepared.sha256),
            reused: prepared.reused,
            runtime_path: prepared.runtime_path,
        }
    }
}

/// `adapter prepare`: for `managed`, installs or reuses per the version
/// policy (the manifest is asked unless `--offline` or `--locked`); for
/// `system` and `path`, runs the probes.
pub fn resolve_for_prepare(
    resolver: &Resolver<'_>,
    options: PrepareOptions,
) -> Result<ResolvedCli, LaunchError> {
    let cli = resolver.cli;
    match cli.source {
        SourceKind::Managed => {
            let installer = resolver.installer()?;
            let prepared = installer.prepare(&InstallRequest {
                version: cli.version.clone(),
                pin_path: resolver.lock_file.clone(),
                offline: options.offline,
                force: options.force,
                locked: options.locked,
            })?;
            Ok(prepared.into())
        }
        SourceKind::System | SourceKind::Path => {
            if options.locked || options.force {
                return Err(LaunchError::ManagedOnlyFlags {
                    configured: cli.source,
                    adapter: resolver.data.id.clone(),
                });
            }
            probe_unmanaged(resolver)
        }
    }
}

/// `login`, `run`, `session start`: for `managed`, the configured version,
/// else the `<adapter>.lock` version, else the newest installed one — with no
/// request at all — and only when none is installed, a `prepare` (with
/// its progress bar). For `system` and `path`, the same probes as prepare.
pub fn resolve_for_launch(resolver: &Resolver<'_>) -> Result<ResolvedCli, LaunchError> {
    let cli = resolver.cli;
    match cli.source {
        SourceKind::Managed => {
            let installer = resolver.installer()?;
            match installer.installed_for_launch(&cli.version, resolver.lock_file.as_ref())? {
                Some(prepared) => Ok(prepared.into()),
                None => resolve_for_prepare(resolver, PrepareOptions::default()),
            }
        }
        SourceKind::System | SourceKind::Path => probe_unmanaged(resolver),
    }
}

/// `system` and `path`: the decision's candidate, or the refusal naming
/// every candidate and why it was skipped.
fn probe_unmanaged(resolver: &Resolver<'_>) -> Result<ResolvedCli, LaunchError> {
    let decision = decision::decide(resolver, Scope::Configured)?;
    let Some(candidate) = decision.selected.clone() else {
        return Err(decision.refusal(resolver).into());
    };
    Ok(ResolvedCli {
        source: candidate.source,
        version: candidate.version.unwrap_or_default(),
        path: candidate.path,
        sha256: None,
        reused: true,
        runtime_path: None,
    })
}
