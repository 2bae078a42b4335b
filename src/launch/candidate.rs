//! The candidate binaries outside the managed store: `system`
//! looks on PATH for the adapter's binary, then for its migration aliases
//! that prove to be it (`identifies` in the data file); `path` checks one
//! explicit executable. Every candidate keeps the reason it was skipped;
//! [`super::decision`] chooses among them.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::adapter::data::AdapterData;
use crate::config::SourceKind;
use crate::error::{Classify, ErrorKind};
use crate::install::probe::{probe, ProbeSettings};

/// One CLI that was looked at.
#[derive(Debug, Clone, Serialize)]
pub struct Candidate {
    pub source: SourceKind,
    pub path: PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    pub version_output: Option<String>,
    /// Managed installs: the verified archive digest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    pub probes: Probes,
    pub usable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What to do about a failed probe whose output names its cause.
    #[serde(skip)]
    pub cause_hint: Option<String>,
}

/// Which probes passed: `true`/`false` for a probe that ran, `None` (JSON
/// `null`) for one that did not (`acp --help` after a failed `--version`,
/// or a candidate refused before anything ran).
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Probes {
    pub version: Option<bool>,
    pub acp: Option<bool>,
}

impl Probes {
    pub fn from_report(report: &crate::install::probe::ProbeReport) -> Self {
        Self {
            version: report.version_ran.then_some(report.version_ok),
            acp: report.acp_ran.then_some(report.acp_ok),
        }
    }
}

/// Which adapter a source error is about (names for messages and hints).
#[derive(Debug, Clone)]
pub struct AdapterNames {
    pub adapter: String,
    pub binary: String,
    pub display_name: String,
}

impl AdapterNames {
    pub fn of(data: &AdapterData) -> Self {
        Self {
            adapter: data.id.clone(),
            binary: data.binary.name.clone(),
            display_name: data.display_name.clone(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("no usable {} on PATH{}", .0.binary, list(.1))]
    NoSystemCli(AdapterNames, Vec<Candidate>),
    #[error("`{}` is not a usable {}: {}", .1.path.display(), .0.binary, .1.reason.as_deref().unwrap_or("probe failed"))]
    BadPath(AdapterNames, Box<Candidate>),
}

fn list(candidates: &[Candidate]) -> String {
    if candidates.is_empty() {
        return String::new();
    }
    let reasons: Vec<String> = candidates
        .iter()
        .map(|candidate| {
            format!(
                "`{}` skipped: {}",
                candidate.path.display(),
                candidate.reason.as_deref().unwrap_or("unusable")
            )
        })
        .collect();
    format!(" ({})", reasons.join("; "))
}

impl Classify for SourceError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::NoUsableCli
    }
    fn hint(&self) -> Option<String> {
        let (general, candidates) = match self {
            SourceError::NoSystemCli(cli, candidates) => (
                format!(
                    "install {}, or use `source: managed` to let oneworks install it",
                    cli.display_name
                ),
                candidates.as_slice(),
            ),
            SourceError::BadPath(cli, candidate) => (
                format!(
                    "fix `adapters.{}.cli.path` or use `source: managed`",
                    cli.adapter
                ),
                std::slice::from_ref(candidate.as_ref()),
            ),
        };
        // A cause read from a probe's output comes first: it says what to
        // do about that CLI, the general hint what to do instead.
        let mut causes: Vec<&str> = Vec::new();
        for hint in candidates.iter().filter_map(|c| c.cause_hint.as_deref()) {
            if !causes.contains(&hint) {
                causes.push(hint);
            }
        }
        causes.push(&general);
        Some(causes.join("\nhint: "))
    }
}

/// The first executable called `name` on `path_var`.
pub fn which(name: &str, path_var: Option<&str>) -> Option<PathBuf> {
    std::env::split_paths(path_var?)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|candidate| {
            fs_err::metadata(candidate).is_ok_and(|metadata| {
                metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
            })
        })
}

fn probed(
    source: SourceKind,
    path: &Path,
    alias: bool,
    data: &AdapterData,
    settings: &ProbeSettings,
) -> Candidate {
    let report = probe(path, settings);
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let reason = if alias && report.version_ok && !report.identifies_as_adapter {
        Some(format!(
            "`{name} --version` says `{}`, which is not {} (an alias counts only when it proves to be it)",
            report.version_output, data.display_name
        ))
    } else {
        report.explained()
    };
    let usable = report.version_ok && report.acp_ok && (!alias || report.identifies_as_adapter);
    let probes = Probes::from_report(&report);
    let cause_hint = (!usable).then(|| report.cause_hint()).flatten();
    Candidate {
        source,
        path: path.to_owned(),
        version: report.version,
        version_output: Some(report.version_output).filter(|output| !output.is_empty()),
        sha256: None,
        probes,
        usable,
        reason: if usable {
            None
        } else {
            reason.or_else(|| Some("probe failed".to_owned()))
        },
        cause_hint,
    }
}

/// Every system candidate on PATH: the binary first, then the aliases.
pub fn system_candidates(data: &AdapterData, settings: &ProbeSettings) -> Vec<Candidate> {
    let path_var = settings.path_var.as_deref();
    std::iter::once((&data.binary.name, false))
        .chain(data.binary.aliases.iter().map(|alias| (alias, true)))
        .filter_map(|(name, alias)| which(name, path_var).map(|path| (path, alias)))
        .map(|(path, alias)| probed(SourceKind::System, &path, alias, data, settings))
        .collect()
}

/// Checks `source: path` without running anything that is not a regular
/// executable file.
pub fn path_candidate(path: &Path, data: &AdapterData, settings: &ProbeSettings) -> Candidate {
    let refuse = |reason: String| Candidate {
        source: SourceKind::Path,
        path: path.to_owned(),
        version: None,
        version_output: None,
        sha256: None,
        probes: Probes::default(),
        usable: false,
        reason: Some(reason),
        cause_hint: None,
    };
    if !path.is_absolute() {
        return refuse("the path is not absolute".to_owned());
    }
    let metadata = match fs_err::metadata(path).map_err(crate::fs_error::os_cause) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return refuse("it does not exist".to_owned())
        }
        Err(error) => return refuse(format!("cannot inspect it: {error}")),
    };
    if !metadata.is_file() {
        return refuse(format!(
            "it is a {}, not a regular file",
            crate::fs_safety::describe(metadata.file_type())
        ));
    }
    if metadata.permissions().mode() & 0o111 == 0 {
        return refuse("it is not executable".to_owned());
    }
    let alias = path
        .file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| data.binary.aliases.iter().any(|alias| alias == name));
    probed(SourceKind::Path, path, alias, data, settings)
}
