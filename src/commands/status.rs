//! `oneworks adapter status kiro` and `oneworks adapter list`: what would be
//! used, what else was found, and why it was skipped. Never downloads.

use serde::Serialize;
use serde_json::json;

use crate::adapter::source::{self, Candidate, Probes};
use crate::config::{SourceKind, VersionRequest};
use crate::error::Error;
use crate::install::pin::Pin;
use crate::install::store::Installed;
use crate::output;
use crate::settings::Settings;

#[derive(Debug, Serialize)]
struct StatusReport {
    adapter: String,
    configured: Configured,
    selected: Option<Candidate>,
    candidates: Vec<Candidate>,
}

#[derive(Debug, Serialize)]
struct Configured {
    source: SourceKind,
    version: String,
}

fn managed_candidate(installed: &Installed) -> Candidate {
    Candidate {
        source: SourceKind::Managed,
        path: installed.executable.clone(),
        version: Some(installed.version.to_string()),
        version_output: None,
        sha256: Some(installed.record.sha256.clone()),
        // Both probes passed before the version was published (SPEC §4.3);
        // status does not run them again.
        probes: Probes {
            version: true,
            acp: true,
        },
        usable: true,
        reason: None,
    }
}

pub fn status(settings: &Settings, json: bool) -> Result<(), Error> {
    let cli = &settings.config.config.adapters.kiro.cli;
    let probe = settings.probe_settings();
    let mut candidates = source::system_candidates(&settings.data, &probe);
    if let (SourceKind::Path, Some(path)) = (cli.source, &cli.path) {
        candidates.push(source::path_candidate(path, &settings.data, &probe));
    }
    let installed = settings.store().list()?;
    let pinned = match settings.pin_path() {
        Some(path) => Pin::read(&path)?.and_then(|pin| semver::Version::parse(&pin.version).ok()),
        None => None,
    };
    let wanted = match (&cli.version, pinned) {
        (VersionRequest::Exact(version), _) => Some(version.clone()),
        (VersionRequest::Latest, pinned) => pinned,
    };
    let mut managed: Vec<Candidate> = installed.iter().map(managed_candidate).collect();
    let selected = match cli.source {
        SourceKind::Managed => {
            let index = match &wanted {
                Some(version) => installed.iter().position(|found| found.version == *version),
                None => (!installed.is_empty()).then_some(0),
            };
            for (position, candidate) in managed.iter_mut().enumerate() {
                if Some(position) != index {
                    candidate.reason = Some(match &wanted {
                        Some(version) => format!("not the configured or locked version {version}"),
                        None => "an older installed version".to_owned(),
                    });
                }
            }
            index.map(|index| managed[index].clone())
        }
        SourceKind::System => candidates
            .iter()
            .find(|candidate| candidate.source == SourceKind::System && candidate.usable)
            .cloned(),
        SourceKind::Path => candidates
            .iter()
            .find(|candidate| candidate.source == SourceKind::Path && candidate.usable)
            .cloned(),
    };
    candidates.extend(managed);
    let report = StatusReport {
        adapter: settings.data.id.clone(),
        configured: Configured {
            source: cli.source,
            version: cli.version.to_string(),
        },
        selected,
        candidates,
    };
    if json {
        return output::print_json(&report);
    }
    // Human text goes to stderr (SPEC §1.3); stdout is for JSON only.
    eprintln!(
        "adapter: {} (source: {}, version: {})",
        report.adapter, cli.source, cli.version
    );
    match &report.selected {
        Some(selected) => eprintln!(
            "selected: {} {} ({})",
            selected.path.display(),
            selected.version.as_deref().unwrap_or("?"),
            selected.source
        ),
        None => eprintln!("selected: none ({})", nothing_selected_advice(cli.source)),
    }
    for candidate in &report.candidates {
        let state = if candidate.usable {
            "usable"
        } else {
            "skipped"
        };
        eprintln!(
            "  {:<8} {:<8} {} {}{}",
            candidate.source.as_str(),
            state,
            candidate.path.display(),
            candidate
                .version_output
                .as_deref()
                .or(candidate.version.as_deref())
                .unwrap_or(""),
            candidate
                .reason
                .as_deref()
                .map(|reason| format!(" — {reason}"))
                .unwrap_or_default()
        );
    }
    Ok(())
}

/// What to do when no kiro-cli is selected. `prepare` installs only for
/// `source: managed`; for `system` and `path` it would only check again.
fn nothing_selected_advice(source: SourceKind) -> &'static str {
    match source {
        SourceKind::Managed => "run `oneworks adapter prepare kiro` to install it",
        SourceKind::System => {
            "install Kiro CLI so that `kiro-cli` is on PATH, or set `adapters.kiro.cli.source` to `managed` or `path`; the candidates below say why each was skipped"
        }
        SourceKind::Path => {
            "fix `adapters.kiro.cli.path`: it must be the absolute path of a working kiro-cli; the candidate below says why it was skipped"
        }
    }
}

pub fn list(settings: &Settings, json: bool) -> Result<(), Error> {
    let installed = settings.store().list()?;
    let versions: Vec<_> = installed
        .iter()
        .map(|found| {
            json!({
                "version": found.version.to_string(),
                "path": found.executable,
                "sha256": found.record.sha256,
                "installedAt": found.record.installed_at,
            })
        })
        .collect();
    let document = json!({
        "adapters": [{
            "adapter": settings.data.id,
            "name": settings.data.display_name,
            "source": settings.config.config.adapters.kiro.cli.source,
            "installed": versions,
        }]
    });
    if json {
        return output::print_json(&document);
    }
    eprintln!(
        "{} ({}), source: {}",
        settings.data.id,
        settings.data.display_name,
        settings.config.config.adapters.kiro.cli.source
    );
    if installed.is_empty() {
        eprintln!("  no managed versions installed");
    }
    for found in &installed {
        eprintln!("  {} {}", found.version, found.executable.display());
    }
    Ok(())
}
