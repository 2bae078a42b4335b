//! The managed installer (SPEC §4): manifest → platform selection → one
//! streaming pass (network → SHA-256 → decompress → extract into staging)
//! → verify → probe → atomic publish, all under the install lock, with the
//! version policy and `kiro.lock` pin of §4.4. Reuse of an installed
//! version checks it against its install record first.

pub mod download;
pub mod error;
pub mod extract;
mod fetch;
pub mod fingerprint;
pub mod format;
pub mod lock;
pub mod manifest;
pub mod network_error;
pub mod pin;
pub mod pipeline;
pub mod platform;
pub mod policy;
pub mod probe;
mod publish;
pub mod retry;
pub mod reuse;
mod spool;
pub mod store;

use std::path::PathBuf;
use std::time::Duration;

use url::Url;

use self::download::{shown, Fetcher, NetworkError};
pub use self::error::InstallError;
use self::format::{FileType, Installable};
use self::manifest::{ArtifactEntry, Manifest};
use self::pin::Pin;
use self::platform::Host;
use self::policy::{Choice, Route, Selection};
use self::reuse::Verdict;
use self::store::{Installed, Store};
use crate::adapter::data::AdapterData;
use crate::config::VersionRequest;
use crate::install::probe::ProbeSettings;

/// Everything the installer needs, resolved from settings.
pub struct Installer<'a> {
    pub data: &'a AdapterData,
    pub store: Store,
    pub cache_dir: PathBuf,
    pub manifest_url: Url,
    pub download_base: Url,
    pub lock_timeout: Duration,
    pub formats: Vec<FileType>,
    pub host: Host,
    pub probe: ProbeSettings,
    pub fetcher: Fetcher,
    pub progress: bool,
    pub quiet: bool,
    /// Credential variables present, for scrubbing the install record and
    /// `kiro.lock` (a mirror URL may carry a credential).
    pub credentials: Vec<(String, String)>,
    /// Built on first write only: the warm reuse path never pays for it.
    pub scrubber: std::sync::OnceLock<crate::redact::Scrubber>,
}

/// What `prepare` was asked for.
#[derive(Debug, Clone)]
pub struct Request {
    pub version: VersionRequest,
    /// `.oneworks/kiro.lock` when inside a project.
    pub pin_path: Option<PathBuf>,
    pub offline: bool,
    pub force: bool,
    pub locked: bool,
}

/// A ready managed `kiro-cli`.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub version: String,
    pub executable: PathBuf,
    pub sha256: String,
    pub reused: bool,
}

impl From<Installed> for Prepared {
    fn from(installed: Installed) -> Self {
        Self {
            version: installed.version.to_string(),
            executable: installed.executable,
            sha256: installed.record.sha256,
            reused: true,
        }
    }
}

/// Which artifact to install and what its digest must be.
struct Target {
    version: semver::Version,
    entry: ArtifactEntry,
}

/// A `kiro.lock` that was read, with its path and version.
struct ReadPin {
    pin: Pin,
    path: PathBuf,
    version: semver::Version,
}

impl Installer<'_> {
    fn scrubber(&self) -> &crate::redact::Scrubber {
        self.scrubber.get_or_init(|| {
            crate::redact::Scrubber::new(self.credentials.clone(), &self.data.credentials)
        })
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

    pub fn prepare(&self, request: &Request) -> Result<Prepared, InstallError> {
        self.store.prepare_dirs()?;
        let pin = self.read_pin(request.pin_path.as_ref())?;
        let pinned = pin.as_ref().map(|read| &read.version);
        match policy::route(&request.version, pinned, request.offline, request.locked) {
            Route::MissingPin => Err(match &request.pin_path {
                Some(path) => InstallError::LockedWithoutPin { path: path.clone() },
                None => InstallError::LockedWithoutProject,
            }),
            Route::PinConflict { requested, locked } => Err(InstallError::PinConflict {
                requested: requested.to_string(),
                locked: locked.to_string(),
                pin: pin.map(|read| read.path).unwrap_or_default(),
            }),
            Route::Offline => {
                let _lock = self.lock()?;
                match self.choose(&request.version, pinned, Selection::Offline)? {
                    Ok(installed) => self.reuse(installed),
                    Err(wanted) => Err(InstallError::Offline {
                        wanted: wanted.map_or_else(
                            || "(any version)".to_owned(),
                            |version| version.to_string(),
                        ),
                        root: self.store.versions_dir(),
                    }),
                }
            }
            Route::FromPin(version) => {
                let Some(read) = &pin else {
                    return Err(InstallError::LockedWithoutProject);
                };
                self.install_from(&read.pin.packages, version, request.force)
            }
            Route::FromManifest => {
                let manifest = self.fetch_manifest()?;
                policy::manifest_serves(&request.version, &manifest.version).map_err(
                    |requested| InstallError::VersionPolicy {
                        requested: requested.to_string(),
                        latest: manifest.version.to_string(),
                    },
                )?;
                let prepared =
                    self.install_from(&manifest.packages, manifest.version.clone(), request.force)?;
                if let Some(path) = &request.pin_path {
                    Pin::from_manifest(&manifest).write(path, self.scrubber())?;
                }
                Ok(prepared)
            }
        }
    }

    /// For launches (SPEC §3): an installed version chosen without any
    /// request, checked for reuse; `None` when none is installed that fits.
    pub fn installed_for_launch(
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
            match policy::choose_installed(&versions, version, pinned, selection) {
                Choice::Use(chosen) => {
                    let index = versions
                        .iter()
                        .position(|found| *found == chosen)
                        .unwrap_or_default();
                    Ok(installed.swap_remove(index))
                }
                Choice::Missing { wanted } => Err(wanted),
            },
        )
    }

    /// Reuses `installed` after checking it against its install record.
    fn reuse(&self, installed: Installed) -> Result<Prepared, InstallError> {
        reuse::verify(&installed, &self.probe)?;
        Ok(installed.into())
    }

    fn lock(&self) -> Result<lock::InstallLock, InstallError> {
        Ok(lock::acquire_announced(
            &self.store.lock_path(),
            self.lock_timeout,
            self.quiet,
        )?)
    }

    fn fetch_manifest(&self) -> Result<Manifest, InstallError> {
        let bytes = self.fetcher.get_small(&self.manifest_url)?;
        Manifest::parse(&bytes).map_err(|source| InstallError::Manifest {
            url: shown(&self.manifest_url),
            source,
        })
    }

    fn artifact_url(&self, entry: &ArtifactEntry) -> Result<Url, InstallError> {
        let url = self.download_base.join(&entry.download).map_err(|source| {
            InstallError::Network(NetworkError::Url {
                url: crate::redact::redact_url(&format!(
                    "{}{}",
                    self.download_base, entry.download
                )),
                source,
            })
        })?;
        // A mirror stays a mirror: nothing the manifest says leaves the base.
        if !url.as_str().starts_with(self.download_base.as_str()) {
            return Err(InstallError::OutsideBase {
                download: crate::output::sanitize::sanitize_line(&entry.download).into_owned(),
                base: shown(&self.download_base),
            });
        }
        Ok(url)
    }

    /// Installs (or reuses) this host's artifact among `entries` as
    /// `version`, verified against the entry's sha256.
    fn install_from(
        &self,
        entries: &[ArtifactEntry],
        version: semver::Version,
        force: bool,
    ) -> Result<Prepared, InstallError> {
        let entry = platform::select(entries, &self.host, &self.data.platforms, &self.formats)?;
        let target = Target {
            version,
            entry: entry.clone(),
        };
        self.install_or_reuse(&target, force)
    }

    fn install_or_reuse(&self, target: &Target, force: bool) -> Result<Prepared, InstallError> {
        let entry = &target.entry;
        let unpack = entry
            .file_type
            .unpack()
            .ok_or_else(|| InstallError::UnsupportedHost {
                file_type: entry.file_type.clone(),
                download: crate::output::sanitize::sanitize_line(&entry.download).into_owned(),
            })?;
        let url = self.artifact_url(entry)?;
        let _lock = self.lock()?;
        // Under the lock: anything in staging or the spool was left by a
        // killed install.
        self.store.sweep_staging();
        spool::sweep_spools(&self.cache_dir);
        crate::fs_safety::check_dir_chain(
            &self.store.home,
            &self.store.version_dir(&target.version),
        )?;
        if !force {
            if let Some(installed) = self.reusable(target)? {
                return Ok(installed.into());
            }
        }
        let staging = tempfile::Builder::new()
            .prefix(&format!("{}-", target.version))
            .tempdir_in(self.store.staging_dir())
            .map_err(error::io(
                "create a staging folder in",
                &self.store.staging_dir(),
            ))?;
        let sha256 = self.download(target, &url, unpack, staging.path())?;
        let installed = self.publish(target, &url, sha256, staging)?;
        Ok(Prepared {
            reused: false,
            ..installed.into()
        })
    }

    /// The installed `target`, when it is the same artifact and still
    /// works; a broken one is announced and reinstalled.
    fn reusable(&self, target: &Target) -> Result<Option<Installed>, InstallError> {
        let Some(installed) = self.store.installed(&target.version)? else {
            return Ok(None);
        };
        if !installed
            .record
            .sha256
            .eq_ignore_ascii_case(&target.entry.sha256)
        {
            tracing::info!(
                "installed {} has sha256 {}, the source says {}: reinstalling",
                target.version,
                installed.record.sha256,
                target.entry.sha256
            );
            return Ok(None);
        }
        match reuse::check(&installed, &self.probe) {
            Verdict::Intact => Ok(Some(installed)),
            Verdict::Reprobed { change, .. } => {
                tracing::warn!(
                    "`{}`: {change}, but it passes its probes: reusing it",
                    installed.executable.display()
                );
                Ok(Some(installed))
            }
            Verdict::Broken { change, report } => {
                crate::output::say(
                    self.quiet,
                    format!(
                        "the installed kiro-cli {} is broken ({change}; {}): reinstalling it",
                        target.version,
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
