//! `oneworks adapter status ADAPTER` and `oneworks adapter list`: what would be
//! used, what else was found, and why it was skipped. Never downloads.

use serde::Serialize;
use serde_json::json;

use crate::config::SourceKind;
use crate::error::Error;
use crate::install::probe::ProbeSettings;
use crate::install::store::{Installed, Store};
use crate::launch::candidate::Candidate;
use crate::launch::decision::{self, Scope, SourceVerdict};
use crate::output;
use crate::output::sanitize::sanitize_line;
use crate::settings::{Adapter, Settings};

#[derive(Debug, Serialize)]
struct StatusReport {
    adapter: String,
    configured: Configured,
    selected: Option<Candidate>,
    candidates: Vec<Candidate>,
    /// Each source, and why it won or did not: the resolver's own words.
    sources: Vec<SourceVerdict>,
    /// The Node.js that runs the selected npm package.
    #[serde(skip_serializing_if = "Option::is_none")]
    node: Option<NodeStatus>,
}

/// Which Node.js runs the agent: the managed one its install record names,
/// or the system's.
#[derive(Debug, Serialize)]
struct NodeStatus {
    source: SourceKind,
    version: Option<String>,
    path: Option<std::path::PathBuf>,
    /// `engines.node` of the selected version.
    range: Option<String>,
    /// Why it cannot run the agent, when it cannot.
    #[serde(skip_serializing_if = "Option::is_none")]
    problem: Option<String>,
}

/// The Node.js that runs `installed` (an npm package).
fn node_status(
    home: &std::path::Path,
    name: &str,
    installed: &Installed,
    probe: &ProbeSettings,
) -> NodeStatus {
    use crate::install::node_runtime;
    use crate::install::source::npm::node;
    let range = installed.record.engines_node.clone();
    if let Some(used) = &installed.record.node {
        let store = node_runtime::store(home);
        return match node_runtime::installed_node(&store, used) {
            Ok(managed) => NodeStatus {
                source: SourceKind::Managed,
                version: Some(format!("v{}", used.version)),
                path: Some(managed.bin_dir.join("node")),
                range,
                problem: None,
            },
            Err(error) => NodeStatus {
                source: SourceKind::Managed,
                version: Some(format!("v{}", used.version)),
                path: None,
                range,
                problem: Some(error.to_string()),
            },
        };
    }
    let path = node::find_node(probe.path_var.as_deref());
    let checked = node::check(
        name,
        range.as_deref(),
        probe.path_var.as_deref(),
        probe.timeout,
    );
    NodeStatus {
        source: SourceKind::System,
        version: checked.as_ref().ok().map(|version| format!("v{version}")),
        path,
        range,
        problem: checked.err().map(|error| error.to_string()),
    }
}

#[derive(Debug, Serialize)]
struct Configured {
    source: SourceKind,
    version: String,
}

/// Prints the resolver's decision over every source: what a launch would
/// use, what else was found, and why each was skipped.
pub fn status(adapter: &Adapter, json: bool) -> Result<(), Error> {
    let data = &adapter.data;
    let cli = &adapter.config.cli;
    let decision = decision::decide(&super::resolver(adapter), Scope::Every)?;
    let node = match (cli.source, &decision.chosen_install) {
        (SourceKind::Managed, Some(found)) if found.record.integrity.is_some() => {
            Some(node_status(
                &adapter.cli.data_home,
                &data.binary.name,
                found,
                &adapter.cli.probe,
            ))
        }
        _ => None,
    };
    let broken_managed = decision.broken_managed;
    let report = StatusReport {
        adapter: data.id.clone(),
        configured: Configured {
            source: cli.source,
            version: cli.version.to_string(),
        },
        selected: decision.selected,
        candidates: decision.candidates,
        sources: decision.sources,
        node,
    };
    if json {
        return Ok(output::print_json(&report)?);
    }
    print_status(&report, adapter, broken_managed);
    Ok(())
}

/// The report as human text. It goes to stderr; stdout is for
/// JSON only. Probe output and reasons come from outside: shown without
/// controls.
fn print_status(report: &StatusReport, adapter: &Adapter, broken_managed: bool) {
    let (data, cli) = (&adapter.data, &adapter.config.cli);
    output::human(format_args!(
        "adapter: {} (source: {}, version: {})",
        report.adapter, cli.source, cli.version
    ));
    match &report.selected {
        Some(selected) => output::human(format_args!(
            "selected: {} {} ({})",
            selected.path.display(),
            sanitize_line(selected.version.as_deref().unwrap_or("?")),
            selected.source
        )),
        None if broken_managed => output::human(format_args!(
            "selected: none (the installed version is broken: run `oneworks adapter prepare {} --force` to reinstall it)",
            data.id
        )),
        None => output::human(format_args!(
            "selected: none ({})",
            nothing_selected_advice(data, cli.source)
        )),
    }
    if let Some(node) = &report.node {
        print_node(node);
    }
    for candidate in &report.candidates {
        print_candidate(candidate);
    }
    for verdict in &report.sources {
        output::human(format_args!(
            "source {}: {} — {}",
            verdict.source,
            if verdict.chosen {
                "chosen"
            } else {
                "not chosen"
            },
            sanitize_line(&verdict.reason)
        ));
    }
}

/// The Node.js line: where, which version, whose, and its problem.
fn print_node(node: &NodeStatus) {
    output::human(format_args!(
        "node: {} {} ({}, engines.node {}){}",
        node.path
            .as_deref()
            .map_or_else(|| "(none)".to_owned(), |path| path.display().to_string()),
        node.version.as_deref().unwrap_or("?"),
        node.source,
        sanitize_line(node.range.as_deref().unwrap_or("any")),
        node.problem
            .as_deref()
            .map(|problem| format!(" — {}", sanitize_line(problem)))
            .unwrap_or_default()
    ));
}

/// One candidate's line: its source, whether usable, its probes and why
/// it was skipped.
fn print_candidate(candidate: &Candidate) {
    let state = if candidate.usable {
        "usable"
    } else {
        "skipped"
    };
    let probes = format!(
        "probes: version {}, acp {}",
        pass(candidate.probes.version),
        pass(candidate.probes.acp)
    );
    output::human(format_args!(
        "  {:<8} {:<8} {} {} ({probes}){}",
        candidate.source.as_str(),
        state,
        candidate.path.display(),
        sanitize_line(
            candidate
                .version_output
                .as_deref()
                .or(candidate.version.as_deref())
                .unwrap_or("")
        ),
        candidate
            .reason
            .as_deref()
            .map(|reason| format!(" — {}", sanitize_line(reason)))
            .unwrap_or_default()
    ));
}

fn pass(passed: Option<bool>) -> &'static str {
    match passed {
        Some(true) => "passed",
        Some(false) => "failed",
        None => "not run",
    }
}

/// What to do when no CLI is selected. `prepare` installs only for
/// `source: managed`; for `system` and `path` it would only check again.
fn nothing_selected_advice(data: &crate::adapter::data::AdapterData, source: SourceKind) -> String {
    let (id, binary, name) = (&data.id, &data.binary.name, &data.display_name);
    match source {
        SourceKind::Managed => format!("run `oneworks adapter prepare {id}` to install it"),
        SourceKind::System => format!(
            "install {name} so that `{binary}` is on PATH, or set `adapters.{id}.cli.source` to `managed` or `path`; the candidates below say why each was skipped"
        ),
        SourceKind::Path => format!(
            "fix `adapters.{id}.cli.path`: it must be the absolute path of a working {binary}; the candidate below says why it was skipped"
        ),
    }
}

/// `adapter list`: every known adapter, its configured source and its
/// managed versions. A broken adapter data file is skipped with a warning
/// naming the file, where in it and why (`skipped` with `--json`); the
/// others are listed, and a command naming the broken one fails.
pub fn list(settings: &Settings, json: bool) -> Result<(), Error> {
    let mut adapters = Vec::new();
    let mut skipped = Vec::new();
    for name in settings.registry.names() {
        match settings.registry.load(&name) {
            Ok(data) => adapters.push(data),
            Err(error) => {
                let problem = format!("{:#}", anyhow::Error::from(error));
                output::human(format_args!(
                    "warning: skipped the adapter `{name}`: {problem}"
                ));
                skipped.push(json!({ "adapter": name, "problem": output::clean(&problem) }));
            }
        }
    }
    let mut documents = Vec::new();
    for data in &adapters {
        let source = settings.config.config.adapter(&data.id).cli.source;
        let installed = Store::new(settings.locations.data_home.clone(), &data.id).list()?;
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
        documents.push(json!({
            "adapter": data.id,
            "name": data.display_name,
            "source": source,
            "installed": versions,
        }));
        if json {
            continue;
        }
        output::human(format_args!(
            "{} ({}), source: {}",
            data.id, data.display_name, source
        ));
        if installed.is_empty() {
            output::human(format_args!("  no managed versions installed"));
        }
        for found in &installed {
            output::human(format_args!(
                "  {} {}",
                found.version,
                found.executable.display()
            ));
        }
    }
    if json {
        let mut document = json!({ "adapters": documents });
        if !skipped.is_empty() {
            document["skipped"] = serde_json::Value::Array(skipped);
        }
        return Ok(output::print_json(&document)?);
    }
    Ok(())
}
