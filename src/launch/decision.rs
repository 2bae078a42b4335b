//! The resolver's choice as a value: which source won, which of
//! its candidates, and why every other candidate and source did not. Made
//! without a request, an install or the install lock. `prepare` and
//! launches of `system`/`path` act on it ([`super::resolve`]); `adapter
//! status` prints it — one decision, so the two cannot drift.

use serde::Serialize;

use super::candidate::{self, AdapterNames, Candidate, Probes, SourceError};
use super::error::LaunchError;
use super::inputs::Resolver;
use crate::config::SourceKind;
use crate::install::pin::Pin;
use crate::install::probe::ProbeSettings;
use crate::install::store::fingerprint::Integrity;
use crate::install::store::Installed;
use crate::install::version_policy::{self, Selection, VersionChoice};

/// How much the resolver looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The configured source only (what a launch needs).
    Configured,
    /// Every source (what `adapter status` shows).
    Every,
}

/// What the resolver chose, and why.
#[derive(Debug, Clone, Serialize)]
pub struct SourceDecision {
    /// `adapters.<name>.cli.source`.
    pub source: SourceKind,
    /// The candidate a launch uses; `None`: nothing usable.
    pub selected: Option<Candidate>,
    /// Every candidate looked at, each with why it was skipped.
    pub candidates: Vec<Candidate>,
    /// Each source, and why it won or did not.
    pub sources: Vec<SourceVerdict>,
    /// The chosen managed version's install (its Node.js is reported from it).
    #[serde(skip)]
    pub chosen_install: Option<Installed>,
    /// A managed version was chosen, and it fails its checks.
    #[serde(skip)]
    pub broken_managed: bool,
}

/// Why one source won or did not.
#[derive(Debug, Clone, Serialize)]
pub struct SourceVerdict {
    pub source: SourceKind,
    pub chosen: bool,
    pub reason: String,
}

/// The managed installs, looked at without the lock.
struct Managed {
    candidates: Vec<Candidate>,
    /// Version folders refused as unsafe (reported, never used).
    refused: Vec<Candidate>,
    /// The index in `candidates` of the version a launch uses.
    chosen: Option<usize>,
    choice: VersionChoice,
    chosen_install: Option<Installed>,
}

/// The resolver's decision over `scope`.
pub fn decide(resolver: &Resolver<'_>, scope: Scope) -> Result<SourceDecision, LaunchError> {
    let data = resolver.data;
    let cli = resolver.cli;
    let looks_at = |source: SourceKind| scope == Scope::Every || cli.source == source;
    let system = if looks_at(SourceKind::System) {
        candidate::system_candidates(data, &resolver.probe)
    } else {
        Vec::new()
    };
    let path = match (&cli.path, looks_at(SourceKind::Path)) {
        (Some(path), true) => Some(candidate::path_candidate(path, data, &resolver.probe)),
        _ => None,
    };
    let managed = if looks_at(SourceKind::Managed) {
        Some(survey_managed(resolver)?)
    } else {
        None
    };
    let selected = match cli.source {
        SourceKind::System => system.iter().find(|found| found.usable).cloned(),
        SourceKind::Path => path.clone().filter(|found| found.usable),
        SourceKind::Managed => managed.as_ref().and_then(|managed| {
            let chosen = managed.candidates.get(managed.chosen?)?;
            chosen.usable.then(|| chosen.clone())
        }),
    };
    let broken_managed = cli.source == SourceKind::Managed
        && selected.is_none()
        && managed
            .as_ref()
            .is_some_and(|managed| matches!(managed.choice, VersionChoice::Use(_)));
    let sources = [
        (SourceKind::Managed, managed_reason(managed.as_ref())),
        (
            SourceKind::System,
            candidates_reason(&system, &data.binary.name),
        ),
        (SourceKind::Path, path_reason(path.as_ref(), &data.id)),
    ]
    .into_iter()
    .map(|(source, reason)| verdict(source, cli.source, selected.as_ref(), reason))
    .collect();
    let mut candidates = system;
    candidates.extend(path);
    let mut chosen_install = None;
    if let Some(managed) = managed {
        chosen_install = managed.chosen_install;
        candidates.extend(managed.candidates);
        candidates.extend(managed.refused);
    }
    Ok(SourceDecision {
        source: cli.source,
        selected,
        candidates,
        sources,
        chosen_install,
        broken_managed,
    })
}

impl SourceDecision {
    /// Why nothing of `system`/`path` can be used, as the error a launch
    /// or `prepare` fails with.
    pub fn refusal(&self, resolver: &Resolver<'_>) -> SourceError {
        let cli = AdapterNames::of(resolver.data);
        let of = |source: SourceKind| {
            self.candidates
                .iter()
                .filter(move |found| found.source == source)
                .cloned()
        };
        match of(SourceKind::Path).next() {
            Some(path) if self.source == SourceKind::Path => {
                SourceError::BadPath(cli, Box::new(path))
            }
            _ => SourceError::NoSystemCli(cli, of(SourceKind::System).collect()),
        }
    }
}

fn verdict(
    source: SourceKind,
    configured: SourceKind,
    selected: Option<&Candidate>,
    found: String,
) -> SourceVerdict {
    let chosen = source == configured && selected.is_some();
    let reason = match selected {
        Some(selected) if chosen => format!(
            "`{}` {} passes its probes",
            selected.path.display(),
            selected.version.as_deref().unwrap_or("?")
        ),
        _ if source == configured => found,
        _ => format!("not the configured source (`source: {configured}`); {found}"),
    };
    SourceVerdict {
        source,
        chosen,
        reason,
    }
}

fn managed_reason(managed: Option<&Managed>) -> String {
    let Some(managed) = managed else {
        return "not looked at".to_owned();
    };
    if managed.candidates.is_empty() && managed.refused.is_empty() {
        return "not installed".to_owned();
    }
    match (&managed.choice, managed.chosen) {
        (VersionChoice::Use(version), Some(index)) => match &managed.candidates[index].reason {
            Some(reason) => format!("the installed {version} is broken: {reason}"),
            None => format!("{version} is installed"),
        },
        (
            VersionChoice::Missing {
                wanted: Some(version),
            },
            _,
        ) => {
            format!("{version} (configured or locked) is not installed")
        }
        _ => "no installed version is usable".to_owned(),
    }
}

fn candidates_reason(candidates: &[Candidate], binary: &str) -> String {
    if candidates.is_empty() {
        return format!("no `{binary}` on PATH");
    }
    let reasons: Vec<String> = candidates
        .iter()
        .map(|found| match &found.reason {
            Some(reason) => format!("`{}`: {reason}", found.path.display()),
            None => format!("`{}` is usable", found.path.display()),
        })
        .collect();
    reasons.join("; ")
}

fn path_reason(path: Option<&Candidate>, id: &str) -> String {
    match path {
        Some(found) => candidates_reason(std::slice::from_ref(found), "the path"),
        None => format!("`adapters.{id}.cli.path` is not set"),
    }
}

/// Every managed install, probed like every other candidate and compared
/// with its install record, and the version a launch uses: the same
/// `<adapter>.lock` read and the same policy
/// ([`version_policy::choose_installed`] with [`Selection::Launch`]) as
/// `Installer::installed_for_launch`.
fn survey_managed(resolver: &Resolver<'_>) -> Result<Managed, LaunchError> {
    let store = &resolver.store;
    let mut installed = Vec::new();
    let mut refused = Vec::new();
    // One unsafe version folder (a linked binary, say) is a candidate
    // reported as skipped, not a failure of the whole decision.
    for version in store.versions()? {
        match store.installed(&version) {
            Ok(Some(found)) => installed.push(found),
            Ok(None) => {}
            Err(error) => refused.push(Candidate {
                source: SourceKind::Managed,
                path: store.version_dir(&version),
                version: Some(version.to_string()),
                version_output: None,
                sha256: None,
                probes: Probes::default(),
                usable: false,
                reason: Some(format!(
                    "{error}; `oneworks adapter prepare {} --force` reinstalls it",
                    resolver.data.id
                )),
                cause_hint: None,
            }),
        }
    }
    let pinned = match &resolver.lock_file {
        Some(path) => Pin::read(path)?.and_then(|pin| semver::Version::parse(&pin.version).ok()),
        None => None,
    };
    let versions: Vec<semver::Version> = installed
        .iter()
        .map(|found| found.version.clone())
        .collect();
    let choice = version_policy::choose_installed(
        &versions,
        &resolver.cli.version,
        pinned.as_ref(),
        Selection::Launch,
    );
    let chosen = match &choice {
        VersionChoice::Use(version) => versions.iter().position(|found| found == version),
        VersionChoice::Missing { .. } => None,
    };
    let mut candidates: Vec<Candidate> = installed
        .iter()
        .map(|found| managed_candidate(found, &resolver.probe, &resolver.data_home))
        .collect();
    for (position, candidate) in candidates.iter_mut().enumerate() {
        if Some(position) != chosen && candidate.reason.is_none() {
            candidate.reason = Some(match &choice {
                VersionChoice::Use(version) => format!("{version} is the one in use"),
                VersionChoice::Missing {
                    wanted: Some(version),
                } => format!("not the configured or locked version {version}"),
                VersionChoice::Missing { wanted: None } => "not selected".to_owned(),
            });
        }
    }
    let chosen_install = chosen.and_then(|index| installed.get(index).cloned());
    Ok(Managed {
        candidates,
        refused,
        chosen,
        choice,
        chosen_install,
    })
}

/// A managed install as a candidate: probed now, and compared with its
/// install record.
fn managed_candidate(
    installed: &Installed,
    probe: &ProbeSettings,
    home: &std::path::Path,
) -> Candidate {
    // An npm package on a managed Node.js is probed with that Node first
    // on PATH, as it is launched.
    let store = crate::install::node_runtime::store(home);
    let probe = crate::install::node_runtime::probe_for(probe, &store, &installed.record);
    let report = crate::install::probe::probe(&installed.executable, &probe);
    let usable = report.version_ok && report.acp_ok;
    let probes = Probes::from_report(&report);
    let change = match installed.integrity() {
        Integrity::Intact => None,
        Integrity::Changed(change) => Some(change),
    };
    let failed = || {
        report
            .explained()
            .unwrap_or_else(|| "it fails its probes".to_owned())
    };
    let reason = match (usable, change) {
        (true, _) => None,
        (false, Some(change)) => Some(format!("{change}, and {}", failed())),
        (false, None) => Some(failed()),
    };
    Candidate {
        source: SourceKind::Managed,
        path: installed.executable.clone(),
        version: Some(installed.version.to_string()),
        version_output: Some(report.version_output.clone()).filter(|output| !output.is_empty()),
        sha256: Some(installed.record.sha256.clone()),
        probes,
        usable,
        reason,
        cause_hint: None,
    }
}
