//! `oneworks adapter prune ADAPTER --keep N`: remove older managed versions
//! under the install lock, never the one `.oneworks/<adapter>.lock` names.

use crate::error::Error;
use crate::install::error::InstallError;
use crate::install::pin::Pin;
use crate::output;
use crate::settings::{Adapter, Settings};

pub fn run(settings: &Settings, adapter: &Adapter, keep: usize) -> Result<(), Error> {
    let data = &adapter.data;
    let store = &adapter.cli.store;
    store.prepare_dirs()?;
    let protected = match &adapter.cli.lock_file {
        Some(path) => Pin::read(path)?.and_then(|pin| semver::Version::parse(&pin.version).ok()),
        None => None,
    };
    let quiet = settings.quiet;
    let _lock = crate::install::store::install_lock::acquire_announced(
        &store.lock_path(),
        settings.options.lock_timeout,
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
    drop(_lock);
    prune_node(settings)
}

/// Removes the managed Node.js versions no installed agent runs on
/// (prune keeps the Node versions in use), under the Node store's
/// lock.
fn prune_node(settings: &Settings) -> Result<(), Error> {
    let home = &settings.locations.data_home;
    let store = crate::install::node_runtime::store(home);
    if fs_err::symlink_metadata(store.versions_dir()).is_err() {
        return Ok(());
    }
    let _lock = crate::install::store::install_lock::acquire_announced(
        &store.lock_path(),
        settings.options.lock_timeout,
        settings.quiet,
    )?;
    let in_use = crate::install::node_runtime::versions_in_use(home);
    for version in store.versions()? {
        if in_use.contains(&version.to_string()) {
            continue;
        }
        store.remove(&version).map_err(|source| InstallError::Io {
            action: "remove",
            path: store.version_dir(&version),
            source,
        })?;
        output::say(
            settings.quiet,
            format!("removed Node.js v{version} (no installed agent runs on it)"),
        );
    }
    Ok(())
}
