//! Node.js as a managed runtime. An npm package's
//! `engines.node` is checked against the Node that will run it, before
//! install and before every launch. With `cli.runtime: system` that is the
//! system's `node` (missing or too old → exit 7 naming the range); with
//! `managed`, or by default when the system's Node does not fit, it is a
//! Node installed from Node's distribution layout (`index.json`,
//! `SHASUMS256.txt`, `node-vX-linux-<arch>.tar.xz`, on
//! `ONEWORKS_NODE_MIRROR`) through the installer's lock → fetch → verify
//! → extract → publish steps into `$ONEWORKS_HOME/runtimes/node/`.
//! The agent's install record and pin name the Node (version, sha256) it
//! runs on; that Node's `bin/` goes first on the agent's PATH.

mod node_install;
pub mod node_use;
pub mod release;

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use url::Url;

use self::node_use::NodeUse;
use crate::config::NodeRuntime;
use crate::install::error::InstallError;
use crate::install::probe::ProbeSettings;
use crate::install::source::npm::node::{self, NodeError};
use crate::install::store::{InstallRecord, Installed, Store};
use crate::install::Installer;

/// What the installer knows about Node, resolved from settings.
#[derive(Debug, Clone)]
pub struct NodeSettings {
    /// `adapters.<name>.cli.runtime`; `None`: the system's Node when it
    /// fits, else a managed one.
    pub mode: Option<NodeRuntime>,
    /// `ONEWORKS_NODE_MIRROR` (with a trailing `/`).
    pub mirror: Url,
    /// `$ONEWORKS_HOME/runtimes/node`.
    pub store: Store,
}

/// The store of managed Node versions under `home` (`$ONEWORKS_HOME`).
pub fn store(home: &Path) -> Store {
    Store {
        home: home.to_owned(),
        root: home.join("runtimes").join("node"),
    }
}

/// A managed Node, checked and ready.
#[derive(Debug, Clone)]
pub struct ManagedNode {
    pub used: NodeUse,
    /// Its `bin/`, first on the agent's PATH.
    pub bin_dir: PathBuf,
}

/// `dir` first on `path_var`.
pub fn prepend_path(dir: &Path, path_var: Option<&str>) -> String {
    let dir = dir.to_string_lossy();
    match path_var.filter(|path| !path.is_empty()) {
        Some(path) => format!("{dir}:{path}"),
        None => dir.into_owned(),
    }
}

/// The installed Node `used`, checked against its own install record and
/// the digest the agent's record names.
pub fn installed_node(store: &Store, used: &NodeUse) -> Result<ManagedNode, NodeError> {
    let missing = || NodeError::ManagedMissing {
        version: used.version.clone(),
        root: store.versions_dir(),
    };
    let version = semver::Version::parse(&used.version).map_err(|_| missing())?;
    let installed = store
        .installed(&version)
        .ok()
        .flatten()
        .ok_or_else(missing)?;
    if !installed.record.sha256.eq_ignore_ascii_case(&used.sha256) {
        return Err(NodeError::ManagedChanged {
            version: used.version.clone(),
            change: format!(
                "it was installed from sha256 {}, not {}",
                installed.record.sha256, used.sha256
            ),
        });
    }
    if let crate::install::store::fingerprint::Integrity::Changed(change) = installed.integrity() {
        return Err(NodeError::ManagedChanged {
            version: used.version.clone(),
            change,
        });
    }
    Ok(ManagedNode {
        used: used.clone(),
        bin_dir: bin_dir(&installed),
    })
}

fn bin_dir(installed: &Installed) -> PathBuf {
    installed
        .executable
        .parent()
        .map_or_else(|| installed.dir.clone(), Path::to_path_buf)
}

/// The probe settings for an agent `record` (its managed Node first on
/// PATH when it has one).
pub fn probe_for<'a>(
    probe: &'a ProbeSettings,
    store: &Store,
    record: &InstallRecord,
) -> Cow<'a, ProbeSettings> {
    match record
        .node
        .as_ref()
        .and_then(|used| installed_node(store, used).ok())
    {
        Some(managed) => Cow::Owned(ProbeSettings {
            path_var: Some(prepend_path(&managed.bin_dir, probe.path_var.as_deref())),
            ..probe.clone()
        }),
        None => Cow::Borrowed(probe),
    }
}

/// Every Node version an installed agent names, for `prune`
/// (prune keeps the Node versions in use). `adapters_dir` is
/// `$ONEWORKS_HOME/adapters`.
pub fn versions_in_use(home: &Path) -> Vec<String> {
    let mut used = Vec::new();
    let Ok(adapters) = fs_err::read_dir(home.join("adapters")) else {
        return used;
    };
    for adapter in adapters.flatten() {
        let Some(name) = adapter.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        let store = Store::new(home.to_owned(), &name);
        let Ok(versions) = store.versions() else {
            continue;
        };
        for version in versions {
            if let Ok(Some(installed)) = store.installed(&version) {
                used.extend(installed.record.node.map(|node| node.version));
            }
        }
    }
    used.sort();
    used.dedup();
    used
}

/// Whether the installer fetches, or only reuses what is installed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connectivity {
    Online,
    Offline,
}

impl Installer<'_> {
    /// Before an install: the Node that will run a package needing
    /// `range`. `None`: the system's Node fits (checked);
    /// `Some`: a managed Node, installed or reused. `pinned` is the Node a
    /// `<adapter>.lock` records (`--locked` installs exactly that one).
    pub(super) fn node_for_install(
        &self,
        range: Option<&str>,
        pinned: Option<&NodeUse>,
        fetch: Connectivity,
    ) -> Result<Option<ManagedNode>, InstallError> {
        let name = &self.data.binary.name;
        let system = || {
            node::check(
                name,
                range,
                self.probe.path_var.as_deref(),
                self.probe.timeout,
            )
        };
        match self.node.mode {
            Some(NodeRuntime::System) => {
                system()?;
                return Ok(None);
            }
            None => match system() {
                Ok(_) => return Ok(None),
                Err(error @ NodeError::Range { .. }) => return Err(error.into()),
                Err(error) => tracing::info!("{error}: using a managed Node.js"),
            },
            Some(NodeRuntime::Managed) => {}
        }
        let managed = self.managed_node(range, pinned, fetch)?;
        // The range is checked against the very binary that will run it.
        node::check(
            name,
            range,
            Some(&prepend_path(&managed.bin_dir, None)),
            self.probe.timeout,
        )?;
        Ok(Some(managed))
    }

    /// Before a launch (and a reuse): the Node the installed package runs
    /// on, its range checked again. `Some(bin)`: the managed Node's
    /// `bin/`, to put first on the agent's PATH.
    pub(super) fn node_for_launch(
        &self,
        installed: &Installed,
    ) -> Result<Option<PathBuf>, InstallError> {
        let name = &self.data.binary.name;
        let range = installed.record.engines_node.as_deref();
        let used = installed.record.node.as_ref();
        let system = || {
            node::check(
                name,
                range,
                self.probe.path_var.as_deref(),
                self.probe.timeout,
            )
        };
        let managed = match (self.node.mode, used) {
            (Some(NodeRuntime::System), _) => {
                system()?;
                return Ok(None);
            }
            (_, Some(used)) => installed_node(&self.node.store, used)?,
            // Installed to run on the system's Node: it still does when it
            // fits; otherwise (or when `managed` is asked for) an installed
            // managed Node that fits runs it. Nothing is downloaded here.
            (mode, None) => match (mode, system()) {
                (None, Ok(_)) => return Ok(None),
                (_, Err(error @ NodeError::Range { .. })) => return Err(error.into()),
                (mode, outcome) => {
                    let system_error = outcome.err().filter(|_| mode.is_none());
                    match (
                        self.managed_node(range, None, Connectivity::Offline),
                        system_error,
                    ) {
                        (Ok(managed), _) => managed,
                        // Nothing managed fits either: the system's Node is
                        // what this install was made for, so its problem
                        // is the one to show.
                        (Err(InstallError::Node(NodeError::Offline { .. })), Some(error)) => {
                            return Err(error.into())
                        }
                        (Err(error), _) => return Err(error),
                    }
                }
            },
        };
        node::check(
            name,
            range,
            Some(&prepend_path(&managed.bin_dir, None)),
            self.probe.timeout,
        )?;
        Ok(Some(managed.bin_dir))
    }

    /// The probe settings for `record`.
    pub(super) fn probe_for(&self, record: &InstallRecord) -> Cow<'_, ProbeSettings> {
        probe_for(&self.probe, &self.node.store, record)
    }
}
