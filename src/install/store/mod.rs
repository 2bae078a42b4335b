//! The managed store: `$ONEWORKS_HOME/adapters/<adapter>/` with `versions/`,
//! `.staging/` and `.install.lock`. Versions appear only by atomic rename of
//! a complete, verified staging folder; each holds an `install.json` record.
//!
//! Beside the store: [`install_lock`] (the one flock per managed root),
//! `publish` (a verified staging folder made a version), [`reuse`] (an
//! installed version checked against its record before use) and
//! [`fingerprint`] (what a published executable looked like).

pub mod fingerprint;
pub mod install_lock;
pub(super) mod publish;
pub mod reuse;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::fs_safety::{self, ReadRefusal, UnsafePath};

pub const RECORD_FILE: &str = "install.json";
/// A larger install record is not read.
const MAX_RECORD_BYTES: u64 = 64 * 1024;

/// What was installed, written inside the version folder.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstallRecord {
    pub version: String,
    pub sha256: String,
    pub url: String,
    pub size: u64,
    pub file_type: crate::adapter::file_type::FileType,
    pub target_triple: String,
    /// The executable, relative to the version folder.
    pub binary: String,
    pub installed_at: String,
    /// The executable as published, compared before every reuse.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary_fingerprint: Option<self::fingerprint::BinaryFingerprint>,
    /// npm installs: the SRI `integrity` that was verified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrity: Option<String>,
    /// npm installs: the registry's name of the package, as the registry's
    /// document and the tarball's own `package.json` gave it for
    /// `version`. An install without it was not checked that
    /// way: `--offline` with a lock file does not use it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    /// npm installs: the package's `engines.node`, checked before launch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engines_node: Option<String>,
    /// npm installs: the managed Node.js the package runs on, when it does
    /// not run on the system's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<crate::install::node_runtime::node_use::NodeUse>,
}

/// An installed, checked version.
#[derive(Debug, Clone)]
pub struct Installed {
    pub version: semver::Version,
    pub dir: PathBuf,
    pub executable: PathBuf,
    pub record: InstallRecord,
}

#[derive(Debug, Clone)]
pub struct Store {
    /// `$ONEWORKS_HOME`: symlinks are refused below it.
    pub home: PathBuf,
    /// `$ONEWORKS_HOME/adapters/<adapter>`.
    pub root: PathBuf,
}

impl Store {
    pub fn new(home: PathBuf, adapter: &str) -> Self {
        let root = home.join("adapters").join(adapter);
        Self { home, root }
    }

    pub fn versions_dir(&self) -> PathBuf {
        self.root.join("versions")
    }

    pub fn version_dir(&self, version: &semver::Version) -> PathBuf {
        self.versions_dir().join(version.to_string())
    }

    pub fn staging_dir(&self) -> PathBuf {
        self.root.join(".staging")
    }

    pub fn lock_path(&self) -> PathBuf {
        self.root.join(".install.lock")
    }

    /// Creates the root, `versions/` and `.staging/`, refusing links.
    pub fn prepare_dirs(&self) -> Result<(), UnsafePath> {
        fs_safety::create_dir_chain(&self.home, &self.versions_dir(), 0o755)?;
        fs_safety::create_dir_chain(&self.home, &self.staging_dir(), 0o700)
    }

    /// Removes staging folders left by killed installs. Call under the lock.
    pub fn sweep_staging(&self) {
        let staging = self.staging_dir();
        match fs_safety::empty_dir(&staging) {
            Ok(()) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => tracing::warn!(
                "could not sweep stale staging in `{}`: {error}",
                staging.display()
            ),
        }
    }

    /// The installed version `version`, checked, or `None` when absent.
    pub fn installed(&self, version: &semver::Version) -> Result<Option<Installed>, UnsafePath> {
        let dir = self.version_dir(version);
        fs_safety::check_dir_chain(&self.home, &dir)?;
        let record_path = dir.join(RECORD_FILE);
        // Bounded, non-blocking, no link followed: a FIFO planted as the
        // record must not hang every command that looks at installs.
        let text = match fs_safety::read_regular_file(&record_path, MAX_RECORD_BYTES, false) {
            Ok(bytes) => bytes,
            Err(ReadRefusal::Symlink) => return Err(UnsafePath::Symlink { path: record_path }),
            Err(ReadRefusal::NotRegular(found)) => {
                return Err(UnsafePath::WrongType {
                    path: record_path,
                    found,
                    expected: "regular file",
                })
            }
            Err(ReadRefusal::TooLarge) => {
                tracing::warn!(
                    "ignoring `{}`: larger than {MAX_RECORD_BYTES} bytes",
                    record_path.display()
                );
                return Ok(None);
            }
            Err(ReadRefusal::Missing | ReadRefusal::Io(_)) => return Ok(None),
        };
        let Ok(record) = serde_json::from_slice::<InstallRecord>(&text) else {
            tracing::warn!(
                "ignoring `{}`: unreadable install record",
                record_path.display()
            );
            return Ok(None);
        };
        // A folder counts as the version its record was installed as, and
        // as no other.
        if semver::Version::parse(&record.version).ok().as_ref() != Some(version) {
            tracing::warn!(
                "ignoring `{}`: it records another version",
                record_path.display()
            );
            return Ok(None);
        }
        let executable = dir.join(&record.binary);
        fs_safety::check_executable(&dir, &executable)?;
        Ok(Some(Installed {
            version: version.clone(),
            dir,
            executable,
            record,
        }))
    }

    /// The version folders present, newest first, not yet checked one by
    /// one (see [`Self::installed`]).
    pub fn versions(&self) -> Result<Vec<semver::Version>, UnsafePath> {
        fs_safety::check_dir_chain(&self.home, &self.versions_dir())?;
        let Ok(entries) = fs_err::read_dir(self.versions_dir()) else {
            return Ok(Vec::new());
        };
        let mut versions: Vec<semver::Version> = entries
            .flatten()
            .filter_map(|entry| semver::Version::parse(entry.file_name().to_str()?).ok())
            .collect();
        versions.sort_by(|a, b| b.cmp(a));
        Ok(versions)
    }

    /// Every installed version, newest first. Unsafe ones are errors.
    pub fn list(&self) -> Result<Vec<Installed>, UnsafePath> {
        let mut installed = Vec::new();
        for version in self.versions()? {
            if let Some(found) = self.installed(&version)? {
                installed.push(found);
            }
        }
        Ok(installed)
    }

    /// Publishes a complete staging folder as `version` by rename. An
    /// existing version (with `--force`) is moved aside first and removed.
    pub fn publish(&self, staging: &Path, version: &semver::Version) -> std::io::Result<PathBuf> {
        let target = self.version_dir(version);
        if fs_err::symlink_metadata(&target).is_ok() {
            let aside = self
                .staging_dir()
                .join(format!("replaced-{version}-{}", std::process::id()));
            fs_err::rename(&target, &aside)?;
            fs_err::rename(staging, &target)?;
            if let Err(error) = fs_err::remove_dir_all(&aside).map_err(crate::fs_error::os_cause) {
                tracing::warn!("could not remove `{}`: {error}", aside.display());
            }
        } else {
            fs_err::rename(staging, &target)?;
        }
        Ok(target)
    }

    /// Removes an installed version: rename out of `versions/` first so a
    /// half-deleted folder is never visible.
    pub fn remove(&self, version: &semver::Version) -> std::io::Result<()> {
        let target = self.version_dir(version);
        let aside = self
            .staging_dir()
            .join(format!("pruned-{version}-{}", std::process::id()));
        fs_err::rename(&target, &aside)?;
        fs_err::remove_dir_all(&aside)
    }
}
