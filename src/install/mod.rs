//! The managed installer: a source (a vendor manifest →
//! platform selection, or an npm package document → one version) → one
//! streaming pass (network → hash → decompress → extract into staging) →
//! verify → probe → atomic publish, all under the install lock, with the
//! version policy and `<adapter>.lock` pin of §4.4. Reuse of an installed
//! version checks it against its install record first.
//!
//! A folder per job:
//! - [`source`]: where a version comes from — a vendor manifest
//!   (`vendor`, `manifest`), archives checked against reviewed pins
//!   (`pinned`), an npm package and its tree (`npm/`), and which artifact
//!   fits this host (`platform`);
//! - [`transport`]: getting bytes — the one HTTP client builder (proxies,
//!   CAs), the fetcher (`http(s)` and `file://`, redirects, credentials by
//!   origin in `scoped_credentials`, retries in `retry`), and the download
//!   of one artifact into staging (`download`: the streaming pass, the zip
//!   spool);
//! - [`extract`]: unpacking into staging safely, and how each `fileType`
//!   is unpacked (`format`);
//! - [`store`]: the managed store — versions, staging and install records,
//!   the install lock (`install_lock`, the flock), publish, reuse checks and
//!   fingerprints;
//! - [`pin`]: the `<adapter>.lock` file a project commits;
//! - [`probe`]: running a candidate's `--version` and ACP probes, and the
//!   table of causes read from what it printed (`cause`);
//! - [`node_runtime`]: Node.js as the managed runtime of npm packages.
//!
//! Beside them: [`version_policy`], the version policy as pure functions, and
//! [`error`], what can go wrong, with the adapter's names in its hints.

pub mod error;
pub mod extract;
pub mod node_runtime;
pub mod pin;
pub mod probe;
pub mod source;
pub mod store;
pub mod transport;
pub mod version_policy;

use std::path::PathBuf;
use std::time::Duration;

use self::error::{InstallError, Names};
use self::pin::Pin;
use self::source::manifest::ArtifactEntry;
use self::source::platform::Host;
use self::source::ManagedSource;
use self::store::reuse::ReuseVerdict;
use self::store::{Installed, Store};
use self::transport::fetcher::Fetcher;
use self::version_policy::{Route, Selection, VersionChoice};
use crate::adapter::data::AdapterData;
use crate::config::VersionRequest;
use crate::install::probe::ProbeSettings;

/// Everything the installer needs, resolved from settings.
pub struct Installer<'a> {
    pub data: &'a AdapterData,
    pub store: Store,
    pub cache_dir: PathBuf,
    pub source: ManagedSource,
    pub lock_timeout: Duration,
    pub host: Host,
    pub probe: ProbeSettings,
    pub fetcher: Fetcher,
    pub progress: bool,
    pub quiet: bool,
    /// The command's one scrubber: the install record and the lock file
    /// pass through it (a mirror URL may carry a credential).
    pub scrubber: std::sync::Arc<crate::redact::Scrubber>,
    /// The Node.js an npm package runs on.
    pub node: node_runtime::NodeSettings,
}

/// What `prepare` was asked for.
#[derive(Debug, Clone)]
pub struct InstallRequest {
    pub version: VersionRequest,
    /// `.oneworks/<adapter>.lock` when inside a project.
    pub pin_path: Option<PathBuf>,
    pub offline: bool,
    pub force: bool,
    pub locked: bool,
}

/// A ready managed CLI.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub version: String,
    pub executable: PathBuf,
    pub sha256: String,
    pub reused: bool,
    /// The managed Node.js's `bin/`, first on the agent's PATH.
    pub runtime_path: Option<PathBuf>,
}

impl From<Installed> for Prepared {
    fn from(installed: Installed) -> Self {
        Self {
            version: installed.version.to_string(),
            executable: installed.executable,
            sha256: installed.record.sha256,
            reused: true,
            runtime_path: None,
        }
    }
}

/// Which artifact to install and what its digest must be.
pub(crate) struct Artifact {
    version: semver::Version,
    entry: ArtifactEntry,
    /// Whether `entry.size` is the artifact's size (a manifest's) or only
    /// the most accepted (a pin records no size: the sha256 decides).
    exact_size: bool,
}

/// A staging folder filled and verified by a source, ready to publish.
pub(crate) struct Staged {
    /// The executable, relative to the version folder.
    binary: String,
    /// The install record, without the binary's fingerprint.
    record: store::InstallRecord,
    /// Whether the artifact already said its version (an npm tarball's
    /// own `package.json`); else the version probe runs before publish
    /// even where the adapter's data skips probes at install.
    version_checked: bool,
}

/// An `<adapter>.lock` that was read, with its path and version.
pub(crate) struct ReadPin {
    pin: Pin,
    path: PathBuf,
    version: semver::Version,
}

impl Installer<'_> {
    fn scrubber(&self) -> &crate::redact::Scrubber {
        &self.scrubber
    }

    /// The adapter's names, for messages and hints.
    pub fn names(&self) -> Names {
        Names::of(self.data)
    }

    fn read_pin(&self, pin_path: Option<&PathBuf>) -> Result<Option<ReadPin>, InstallError> {
        let Some(path) = pin_path else {
            return Ok(None);
        };
        let Some(pin) = Pin::read(path)? else {
            return Ok(None);
        };
        let version = pin.semver(path)?;
        Ok(Some(ReadPin {
            pin,
            path: path.clone(),
            version,
        }))
    }

    /// Installs or reuses per the version policy.
    pub fn prepare(&self, request: &InstallRequest) -> Result<Prepared, InstallError> {
        self.prepare_by_route(request)
            .map(|prepared| self.written(prepared))
            .map_err(|error| error.named(&self.names()))
    }

    /// [`Self::prepare`] before its errors are given the adapter's names:
    /// the request and the lock file's pin decide the route (refuse, reuse
    /// offline, install the pinned version, install from the source).
    fn prepare_by_route(&self, request: &InstallRequest) -> Result<Prepared, InstallError> {
        self.store.prepare_dirs()?;
        let pin = self.read_pin(request.pin_path.as_ref())?;
        let pinned = pin.as_ref().map(|read| &read.version);
        match version_policy::route(&request.version, pinned, request.offline, request.locked) {
            Route::MissingPin => Err(match &request.pin_path {
                Some(path) => InstallError::LockedWithoutPin { path: path.clone() },
                None => InstallError::LockedWithoutProject,
            }),
            Route::PinConflict { requested, locked } => Err(InstallError::PinConflict {
                name: self.data.binary.name.clone(),
                requested: requested.to_string(),
                locked: locked.to_string(),
                pin: pin.map(|read| read.path).unwrap_or_default(),
            }),
            Route::Offline => self.reuse_offline(request, pin.as_ref()),
            Route::FromPin(version) => match &pin {
                Some(read) => self.install_pinned(read, version, request.force),
                None => Err(InstallError::LockedWithoutProject),
            },
            Route::FromManifest => self.install_latest(request),
        }
    }

    /// Offline: an installed version that fits, checked for reuse, or why
    /// there is none.
    fn reuse_offline(
        &self,
        request: &InstallRequest,
        pin: Option<&ReadPin>,
    ) -> Result<Prepared, InstallError> {
        let _lock = self.lock()?;
        let pinned = pin.map(|read| &read.version);
        match self.choose(&request.version, pinned, Selection::Offline)? {
            Ok(installed) => {
                let pinned_tree = pin.and_then(|read| read.pin.npm.as_ref());
                if let Some(npm) = pinned_tree {
                    self.check_verified(&installed, npm)?;
                }
                self.check_npm_tree(&installed, pinned_tree)?;
                self.reuse(installed)
            }
            Err(wanted) => Err(InstallError::Offline {
                name: self.data.binary.name.clone(),
                wanted: wanted
                    .map_or_else(|| "(any version)".to_owned(), |version| version.to_string()),
                root: self.store.versions_dir(),
            }),
        }
    }

    /// The version the lock file pins, from what it recorded; a pin of the
    /// other kind of source is refused.
    fn install_pinned(
        &self,
        read: &ReadPin,
        version: semver::Version,
        force: bool,
    ) -> Result<Prepared, InstallError> {
        match (&self.source, &read.pin.npm) {
            (ManagedSource::Npm { .. }, Some(npm)) => {
                self.install_npm_pin(npm, &read.path, version, force)
            }
            (ManagedSource::VendorManifest { .. }, None) => {
                self.install_from(&read.pin.packages, version, force, Some(&read.path))
            }
            (ManagedSource::Pinned { .. }, None) => self.install_pinned_lock(read, version, force),
            (source, found) => Err(InstallError::PinSource {
                pin: read.path.clone(),
                found: if found.is_some() {
                    "npm package"
                } else {
                    "vendor manifest"
                },
                wanted: source.kind(),
            }),
        }
    }

    /// The source's latest version, if the request allows it; the lock
    /// file then pins what was installed.
    fn install_latest(&self, request: &InstallRequest) -> Result<Prepared, InstallError> {
        let manifest_url = match &self.source {
            ManagedSource::Npm { .. } => return self.install_npm_latest(request),
            ManagedSource::Pinned { .. } => return self.install_pinned_latest(request),
            ManagedSource::VendorManifest { manifest_url, .. } => manifest_url,
        };
        let manifest = self.fetch_manifest(manifest_url)?;
        version_policy::manifest_serves(&request.version, &manifest.version).map_err(
            |requested| InstallError::VersionPolicy {
                name: self.data.binary.name.clone(),
                id: self.data.id.clone(),
                requested: requested.to_string(),
                latest: manifest.version.to_string(),
            },
        )?;
        let prepared = self.install_from(
            &manifest.packages,
            manifest.version.clone(),
            request.force,
            None,
        )?;
        if let Some(path) = &request.pin_path {
            Pin::from_manifest(&manifest).write(path, self.scrubber())?;
        }
        Ok(prepared)
    }

    /// For launches: an installed version chosen without any
    /// request, checked for reuse (and, for an npm package, its Node.js
    /// runtime checked: this runs before every launch); `None` when none is
    /// installed that fits.
    pub fn installed_for_launch(
        &self,
        version: &VersionRequest,
        pin_path: Option<&PathBuf>,
    ) -> Result<Option<Prepared>, InstallError> {
        self.installed_for_launch_unnamed(version, pin_path)
            .map(|prepared| prepared.map(|prepared| self.written(prepared)))
            .map_err(|error| error.named(&self.names()))
    }

    fn installed_for_launch_unnamed(
        &self,
        version: &VersionRequest,
        pin_path: Option<&PathBuf>,
    ) -> Result<Option<Prepared>, InstallError> {
        let pin = self.read_pin(pin_path)?;
        let pinned = pin.as_ref().map(|read| &read.version);
        // Nothing installed yet: no lock, no folders; the caller prepares.
        if self.store.list()?.is_empty() {
            return Ok(None);
        }
        let _lock = self.lock()?;
        match self.choose(version, pinned, Selection::Launch)? {
            Ok(installed) => self.reuse(installed).map(Some),
            Err(_) => Ok(None),
        }
    }

    /// The installed version `selection` picks, or the version it wanted.
    fn choose(
        &self,
        version: &VersionRequest,
        pinned: Option<&semver::Version>,
        selection: Selection,
    ) -> Result<Result<Installed, Option<semver::Version>>, InstallError> {
        let mut installed = self.store.list()?;
        let versions: Vec<semver::Version> = installed
            .iter()
            .map(|found| found.version.clone())
            .collect();
        Ok(
            match version_policy::choose_installed(&versions, version, pinned, selection) {
                VersionChoice::Use(chosen) => {
                    let index = versions
                        .iter()
                        .position(|found| *found == chosen)
                        .unwrap_or_default();
                    Ok(installed.swap_remove(index))
                }
                VersionChoice::Missing { wanted } => Err(wanted),
            },
        )
    }

    /// Reuses `installed` after checking it against its install record
    /// and, for an npm package, that its Node.js runtime is there.
    fn reuse(&self, installed: Installed) -> Result<Prepared, InstallError> {
        let runtime_path = self.check_runtime(&installed)?;
        self.check_npm_tree(&installed, None)?;
        store::reuse::verify(
            &installed,
            &self.probe_for(&installed.record),
            &self.data.binary.name,
        )?;
        Ok(Prepared {
            runtime_path,
            ..installed.into()
        })
    }

    /// What an installed version needs at run time besides itself: for an
    /// npm package, a Node.js that satisfies its `engines.node`, the
    /// system's or the managed one its record names; returns
    /// the managed Node's `bin/`. Launch code calls it before every launch
    /// (through [`Installer::installed_for_launch`]).
    pub fn check_runtime(&self, installed: &Installed) -> Result<Option<PathBuf>, InstallError> {
        if matches!(self.source, ManagedSource::Npm { .. }) || installed.record.integrity.is_some()
        {
            return self.node_for_launch(installed);
        }
        Ok(None)
    }

    fn lock(&self) -> Result<store::install_lock::InstallLock, InstallError> {
        Ok(store::install_lock::acquire_announced(
            &self.store.lock_path(),
            self.lock_timeout,
            self.quiet,
        )?)
    }

    fn missing_section(&self, missing: &'static str) -> InstallError {
        InstallError::NoManagedSource {
            display: self.data.display_name.clone(),
            missing,
        }
    }

    /// The one install path of every source: under the install lock,
    /// sweep what a killed install left, reuse `version` when it is the
    /// `same` artifact and still works (unless `force`), else let `fill`
    /// download, verify and extract into a fresh staging folder, then
    /// probe and publish it atomically.
    fn install_with(
        &self,
        version: &semver::Version,
        force: bool,
        same: &dyn Fn(&store::InstallRecord) -> bool,
        fill: &mut dyn FnMut(&std::path::Path) -> Result<Staged, InstallError>,
    ) -> Result<Prepared, InstallError> {
        let _lock = self.lock()?;
        // Under the lock: anything in staging or the spool was left by a
        // killed install.
        self.store.sweep_staging();
        transport::spool::sweep_spools(&self.cache_dir, &self.data.id);
        crate::fs_safety::check_dir_chain(&self.store.home, &self.store.version_dir(version))?;
        if !force {
            if let Some(installed) = self.reusable(version, same)? {
                return Ok(installed.into());
            }
        }
        let staging = tempfile::Builder::new()
            .prefix(&format!("{version}-"))
            .tempdir_in(self.store.staging_dir())
            .map_err(error::io(
                "create a staging folder in",
                &self.store.staging_dir(),
            ))?;
        let staged = fill(staging.path())?;
        let installed = self.publish(version, staged, staging)?;
        Ok(Prepared {
            reused: false,
            ..installed.into()
        })
    }

    /// The installed `version`, when it is the `same` artifact and still
    /// works; a broken one is announced and reinstalled.
    fn reusable(
        &self,
        version: &semver::Version,
        same: &dyn Fn(&store::InstallRecord) -> bool,
    ) -> Result<Option<Installed>, InstallError> {
        let Some(installed) = self.store.installed(version)? else {
            return Ok(None);
        };
        if !same(&installed.record) {
            tracing::info!(
                "installed {version} (sha256 {}) is not the artifact the source names: reinstalling",
                installed.record.sha256,
            );
            return Ok(None);
        }
        match store::reuse::check(&installed, &self.probe_for(&installed.record)) {
            ReuseVerdict::Intact => Ok(Some(installed)),
            ReuseVerdict::Reprobed { change, .. } => {
                tracing::warn!(
                    "`{}`: {change}, but it passes its probes: reusing it",
                    installed.executable.display()
                );
                Ok(Some(installed))
            }
            ReuseVerdict::Broken { change, report } => {
                crate::output::say(
                    self.quiet,
                    format!(
                        "the installed {} {version} is broken ({change}; {}): reinstalling it",
                        self.data.binary.name,
                        crate::output::sanitize::sanitize_line(
                            report.problem.as_deref().unwrap_or("probe failed")
                        )
                    ),
                );
                Ok(None)
            }
        }
    }
}
