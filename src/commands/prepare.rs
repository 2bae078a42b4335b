//! `oneworks adapter prepare ADAPTER`: resolve a verified adapter CLI from the
//! configured source, installing the managed one when needed. The work is
//! [`crate::launch::resolve::resolve_for_prepare`]; this prints it.

use std::path::PathBuf;

use serde::Serialize;

use crate::cli::PrepareArgs;
use crate::config::SourceKind;
use crate::error::Error;
use crate::launch::resolve::{resolve_for_prepare, PrepareOptions};
use crate::output;
use crate::settings::{Adapter, Settings};

/// The `prepare --json` document.
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

fn options(args: &PrepareArgs) -> PrepareOptions {
    PrepareOptions {
        offline: args.offline,
        force: args.force,
        locked: args.locked,
    }
}

pub fn run(settings: &Settings, adapter: &Adapter, args: &PrepareArgs) -> Result<(), Error> {
    let resolved = resolve_for_prepare(&super::resolver(adapter), options(args))?;
    let report = PrepareReport {
        adapter: adapter.data.id.clone(),
        source: resolved.source,
        version: resolved.version,
        path: resolved.path,
        sha256: resolved.sha256,
        reused: resolved.reused,
    };
    if args.json {
        return Ok(output::print_json(&report)?);
    }
    let verb = if report.reused { "using" } else { "installed" };
    output::say(
        settings.quiet,
        format!(
            "{verb} {} {} ({}) at {}",
            adapter.data.binary.name,
            crate::output::sanitize::sanitize_line(&report.version),
            report.source,
            report.path.display()
        ),
    );
    Ok(())
}
