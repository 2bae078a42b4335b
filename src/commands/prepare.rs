//! `oneworks adapter prepare kiro`: resolve a verified kiro-cli from the
//! configured source, installing the managed one when needed.

use std::path::PathBuf;

use serde::Serialize;

use crate::adapter::source;
use crate::cli::PrepareArgs;
use crate::config::SourceKind;
use crate::error::{Error, ErrorKind};
use crate::install::Request;
use crate::output;
use crate::settings::Settings;

/// The `prepare --json` document (SPEC §1.3).
#[derive(Debug, Serialize)]
pub struct PrepareReport {
    pub adapter: String,
    pub source: SourceKind,
    pub version: String,
    pub path: PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    pub reused: bool,
}

/// Resolves the configured source; shared by `prepare` and later by `run`
/// and `session start`.
pub fn resolve(settings: &Settings, args: &PrepareArgs) -> Result<PrepareReport, Error> {
    let cli = &settings.config.config.adapters.kiro.cli;
    let adapter = settings.data.id.clone();
    match cli.source {
        SourceKind::Managed => {
            let installer = settings.installer()?;
            let prepared = installer.prepare(&Request {
                version: cli.version.clone(),
                pin_path: settings.pin_path(),
                offline: args.offline,
                force: args.force,
                locked: args.locked,
            })?;
            Ok(PrepareReport {
                adapter,
                source: SourceKind::Managed,
                version: prepared.version,
                path: prepared.executable,
                sha256: Some(prepared.sha256),
                reused: prepared.reused,
            })
        }
        SourceKind::System | SourceKind::Path => {
            if args.locked || args.force {
                return Err(Error::msg(
                    ErrorKind::Config,
                    format!(
                        "--locked and --force apply to `source: managed`, not `source: {}`",
                        cli.source
                    ),
                ));
            }
            let probe = settings.probe_settings();
            let candidate = match (cli.source, &cli.path) {
                (SourceKind::Path, Some(path)) => {
                    source::resolve_path(path, &settings.data, &probe)?
                }
                _ => source::resolve_system(&settings.data, &probe)?,
            };
            Ok(PrepareReport {
                adapter,
                source: cli.source,
                version: candidate.version.unwrap_or_default(),
                path: candidate.path,
                sha256: None,
                reused: true,
            })
        }
    }
}

pub fn run(settings: &Settings, args: &PrepareArgs) -> Result<(), Error> {
    let report = resolve(settings, args)?;
    if args.json {
        return output::print_json(&report);
    }
    let verb = if report.reused { "using" } else { "installed" };
    output::say(
        settings.quiet,
        format!(
            "{verb} kiro-cli {} ({}) at {}",
            report.version,
            report.source,
            report.path.display()
        ),
    );
    Ok(())
}
