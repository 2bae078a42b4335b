//! `.oneworks/<adapter>.lock`: the reproducibility pin (not the install
//! lock). It records the version and, for a vendor manifest, each archive
//! entry of that version (platform keys, `download`, `sha256`, `size`); for
//! an npm package, its tarball URL, `integrity`, executable and
//! `engines.node`, and every other package of its tree (path, name,
//! version, tarball, integrity).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Classify, ErrorKind};
use crate::install::extract::format::Installable;
use crate::install::source::manifest::{ArtifactEntry, Manifest};

/// The largest `<adapter>.lock` read: a real one is a few kilobytes.
pub const MAX_PIN_BYTES: u64 = 1024 * 1024;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pin {
    pub version: String,
    /// A vendor manifest source: the archive entries of that version.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub packages: Vec<ArtifactEntry>,
    /// An npm source: the tarball of that version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub npm: Option<NpmPin>,
}

/// What `--locked` installs for an npm package. It binds and never names
///: each entry is used only where the registry's document for
/// its name and version gives the same tarball and integrity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NpmPin {
    pub package: String,
    pub tarball: String,
    /// The version's SRI `dist.integrity` (its sha512 is checked).
    pub integrity: String,
    /// The executable inside the package (`bin.<command>`).
    pub bin: String,
    /// `engines.node` of that version, checked before install and launch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engines_node: Option<String>,
    /// The managed Node.js the package runs on (version and sha256), when
    /// it does not run on the system's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<crate::install::node_runtime::node_use::NodeUse>,
    /// Every other package of the installed tree (dependencies, the
    /// platform package), where it lies below the main package. A pin
    /// written before package trees has none and still reads.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub packages: Vec<NpmPinPackage>,
}

/// One package of an installed npm tree, as the pin and the install's
/// `npm-tree.json` record it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NpmPinPackage {
    /// Below the main package folder: `node_modules/<name>` (nested:
    /// `node_modules/<a>/node_modules/<b>`); the last name is the one
    /// it is required by (an npm alias's own name).
    pub path: String,
    /// The registry's package name (differs from the path's under an
    /// `npm:` alias).
    pub name: String,
    pub version: String,
    pub tarball: String,
    pub integrity: String,
    /// The platform package chosen for the main package (its files feed
    /// the adapter's `platformBin`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub platform: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum PinError {
    #[error("`{path}` is not a valid {}", file_name(.path))]
    Invalid {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("`{path}` records version `{}`, which is not a semantic version", crate::output::sanitize::sanitize_line(.version))]
    Version { path: PathBuf, version: String },
    #[error("`{path}` holds a malformed package entry")]
    Entry {
        path: PathBuf,
        #[source]
        source: crate::install::source::manifest::ManifestError,
    },
    #[error("refusing to read `{path}`: {reason}")]
    Refused { path: PathBuf, reason: String },
    #[error("`{path}` is larger than {limit} bytes")]
    TooLarge { path: PathBuf, limit: u64 },
    #[error("`{path}` is not UTF-8 text")]
    NotText { path: PathBuf },
    #[error("failed to read `{path}`")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("failed to write `{path}`")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl Classify for PinError {
    fn kind(&self) -> ErrorKind {
        match self {
            PinError::Write { .. } => ErrorKind::Internal,
            PinError::Refused { .. } => ErrorKind::UnsafeArchive,
            _ => ErrorKind::Config,
        }
    }
    fn hint(&self) -> Option<String> {
        // `.oneworks/<adapter>.lock`: the file names its adapter.
        let id = match self {
            PinError::Invalid { path, .. }
            | PinError::Version { path, .. }
            | PinError::Entry { path, .. }
            | PinError::Refused { path, .. }
            | PinError::TooLarge { path, .. }
            | PinError::NotText { path }
            | PinError::Read { path, .. }
            | PinError::Write { path, .. } => path
                .file_stem()
                .map(|stem| stem.to_string_lossy().into_owned()),
        };
        self.hint_for(id.as_deref().unwrap_or("<adapter>"))
    }
}

/// The pin's file name (`<adapter>.lock`), for messages.
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || "lock file".to_owned(),
        |name| name.to_string_lossy().into_owned(),
    )
}

impl PinError {
    /// The hint, naming the adapter `id`'s prepare command.
    pub fn hint_for(&self, id: &str) -> Option<String> {
        match self {
            PinError::Invalid { path, .. }
            | PinError::Version { path, .. }
            | PinError::Entry { path, .. }
            | PinError::Refused { path, .. }
            | PinError::TooLarge { path, .. }
            | PinError::NotText { path } => Some(format!(
                "fix or delete `{}`; `oneworks adapter prepare {id}` writes it again",
                path.display()
            )),
            PinError::Read { .. } | PinError::Write { .. } => None,
        }
    }
}

impl Pin {
    pub fn from_manifest(manifest: &Manifest) -> Self {
        Self {
            version: manifest.version.to_string(),
            packages: manifest
                .packages
                .iter()
                .filter(|entry| entry.file_type.is_installable())
                .cloned()
                .collect(),
            npm: None,
        }
    }

    pub fn semver(&self, path: &Path) -> Result<semver::Version, PinError> {
        crate::config::schema::parse_version(&self.version).ok_or_else(|| PinError::Version {
            path: path.to_owned(),
            version: self.version.clone(),
        })
    }

    /// Reads the pin; `None` when the file does not exist. The file comes
    /// from the project (possibly a hostile clone): a link is not followed,
    /// a FIFO is not waited on and a huge file is not swallowed.
    pub fn read(path: &Path) -> Result<Option<Self>, PinError> {
        use crate::fs_safety::{read_regular_file, ReadRefusal};
        let owned = || path.to_owned();
        let bytes = match read_regular_file(path, MAX_PIN_BYTES, false) {
            Ok(bytes) => bytes,
            Err(ReadRefusal::Missing) => return Ok(None),
            Err(ReadRefusal::Symlink) => {
                return Err(PinError::Refused {
                    path: owned(),
                    reason: "it is a symbolic link".to_owned(),
                })
            }
            Err(ReadRefusal::NotRegular(found)) => {
                return Err(PinError::Refused {
                    path: owned(),
                    reason: format!("it is a {found}, not a regular file"),
                })
            }
            Err(ReadRefusal::TooLarge) => {
                return Err(PinError::TooLarge {
                    path: owned(),
                    limit: MAX_PIN_BYTES,
                })
            }
            Err(ReadRefusal::Io(source)) => {
                return Err(PinError::Read {
                    path: owned(),
                    source,
                })
            }
        };
        let text = String::from_utf8(bytes).map_err(|_| PinError::NotText { path: owned() })?;
        let pin: Pin = serde_json::from_str(&text).map_err(|source| PinError::Invalid {
            path: path.to_owned(),
            source,
        })?;
        pin.semver(path)?;
        for (index, entry) in pin.packages.iter().enumerate() {
            entry.validate(index).map_err(|source| PinError::Entry {
                path: path.to_owned(),
                source,
            })?;
        }
        Ok(Some(pin))
    }

    /// Writes the pin atomically (unchanged content is not rewritten).
    pub fn write(&self, path: &Path, scrubber: &crate::redact::Scrubber) -> Result<(), PinError> {
        // Only the download paths come from outside; versions, digests and
        // sizes are checked values that scrubbing must not touch.
        let mut pin = self.clone();
        for entry in &mut pin.packages {
            entry.download = scrubber.scrub_str(&entry.download).into_owned();
        }
        if let Some(npm) = &mut pin.npm {
            npm.tarball = scrubber.scrub_str(&npm.tarball).into_owned();
            for package in &mut npm.packages {
                package.tarball = scrubber.scrub_str(&package.tarball).into_owned();
            }
        }
        let mut text = serde_json::to_string_pretty(&pin).map_err(|source| PinError::Invalid {
            path: path.to_owned(),
            source,
        })?;
        text.push('\n');
        let existing = crate::fs_safety::read_regular_file(path, MAX_PIN_BYTES, false);
        if existing.is_ok_and(|existing| existing == text.as_bytes()) {
            return Ok(());
        }
        crate::fs_safety::atomic_write(path, text.as_bytes(), 0o644).map_err(|source| {
            PinError::Write {
                path: path.to_owned(),
                source,
            }
        })
    }
}
