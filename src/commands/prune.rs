//! `oneworks adapter prune ADAPTER --keep N`: remove older managed versions
//! under the install lock, never the one `.oneworks/<adapter>.lock` names.

use crate::error::Error;
use crate::install::pin::Pin;
use crate::install::InstallError;
use crate::output;
use crate::settings::{Adapter, Settings};

pub fn run(settings: &Settings, adapter: &Adapter, keep: usize) -> Result<(), Error> {
    let data = &adapter.data;
    let store = settings.store(data);
    store.prepare_dirs()?;
    let protected = match settings.pin_path(data) {
        Some(path) => Pin::read(&path)?.and_then(|pin| semver::Version::parse(&pin.version).ok()),
        None => None,
    };
    let quiet = settings.quiet;
    let _lock = crate::install::lock::acquire_announced(
        &store.lock_path(),
        settings.lock_timeout()?,
        quiet,
    )?;
    let installed = store.list()?;
    let mut removed = 0;
    for found in installed.iter().skip(keep) {
        if Some(&found.version) == protected.as_ref() {
            output::say(
                quiet,
                format!("keeping {} (named by {}.lock)", found.version, data.id),
            );
            continue;
        }
        store
            .remove(&found.version)
            .map_err(|source| InstallError::Io {
                action: "remove",
                path: found.dir.clone(),
                source,
            })?;
        removed += 1;
        output::say(
            quiet,
            format!("removed {} {}", data.binary.name, found.version),
        );
    }
    output::say(
        quiet,
        format!(
            "pruned {removed} version(s), {} kept",
            installed.len() - removed
        ),
    );
    Ok(())
}
