//! What can go wrong while installing or reusing a managed `kiro-cli`, with
//! the exit-code kind and, where the user can act, a hint.

use std::path::{Path, PathBuf};

use super::download::NetworkError;
use super::extract::ExtractError;
use super::format::FileType;
use super::lock::LockError;
use super::manifest::ManifestError;
use super::pin::PinError;
use super::platform::NoPackage;
use crate::error::{Classify, ErrorKind};
use crate::fs_safety::UnsafePath;

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error(transparent)]
    Network(#[from] NetworkError),
    #[error("failed to read the Kiro manifest `{url}`")]
    Manifest {
        url: String,
        #[source]
        source: ManifestError,
    },
    #[error("the manifest's download path `{download}` leaves the download base `{base}`")]
    OutsideBase { download: String, base: String },
    #[error(transparent)]
    NoPackage(#[from] NoPackage),
    #[error("failed to verify `kiro-cli` {version}: expected sha256 {expected}, computed {computed} (from `{url}`)")]
    Checksum {
        version: String,
        expected: String,
        computed: String,
        url: String,
    },
    #[error("refused the `kiro-cli` {version} archive from `{url}`")]
    Extract {
        version: String,
        url: String,
        #[source]
        source: ExtractError,
    },
    #[error(transparent)]
    Unsafe(#[from] UnsafePath),
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error(transparent)]
    Pin(#[from] PinError),
    #[error("`kiro-cli` {requested} is not available: the stable manifest offers only {latest}, and no kiro.lock records {requested}")]
    VersionPolicy { requested: String, latest: String },
    #[error("`kiro-cli` {requested} is configured but `{pin}` records {locked}")]
    PinConflict {
        requested: String,
        locked: String,
        pin: PathBuf,
    },
    #[error("--offline: no installed `kiro-cli` {wanted} under `{root}`")]
    Offline { wanted: String, root: PathBuf },
    #[error("--locked needs `{path}`, which does not exist")]
    LockedWithoutPin { path: PathBuf },
    #[error("--locked needs a project: no `.oneworks/` folder at or above the working directory")]
    LockedWithoutProject,
    #[error("installing a `{file_type}` package is not supported on this host yet (selected `{download}`)")]
    UnsupportedHost {
        file_type: FileType,
        download: String,
    },
    #[error("the `kiro-cli` {version} archive holds none of {candidates}")]
    NoBinary { version: String, candidates: String },
    #[error("the downloaded `kiro-cli` {version} failed its probe: {problem}")]
    ProbeFailed { version: String, problem: String },
    #[error("the installed `kiro-cli` {version} at `{path}` is broken: {change}, and it fails its probe: {problem}")]
    Broken {
        version: String,
        path: PathBuf,
        change: String,
        problem: String,
    },
    #[error("failed to {action} `{path}`")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl Classify for InstallError {
    fn kind(&self) -> ErrorKind {
        match self {
            InstallError::Network(error) => error.kind(),
            InstallError::Manifest { .. } | InstallError::OutsideBase { .. } => ErrorKind::Network,
            InstallError::Checksum { .. } => ErrorKind::ChecksumMismatch,
            InstallError::Extract { source, .. } => match source {
                ExtractError::Write { .. } => ErrorKind::Internal,
                _ => ErrorKind::UnsafeArchive,
            },
            InstallError::Unsafe(error) => error.kind(),
            InstallError::Lock(error) => error.kind(),
            InstallError::Pin(error) => error.kind(),
            InstallError::LockedWithoutPin { .. }
            | InstallError::LockedWithoutProject
            | InstallError::PinConflict { .. } => ErrorKind::Config,
            InstallError::NoPackage(_)
            | InstallError::VersionPolicy { .. }
            | InstallError::Offline { .. }
            | InstallError::UnsupportedHost { .. }
            | InstallError::NoBinary { .. }
            | InstallError::ProbeFailed { .. }
            | InstallError::Broken { .. } => ErrorKind::NoUsableCli,
            InstallError::Io { .. } => ErrorKind::Internal,
        }
    }

    fn hint(&self) -> Option<String> {
        match self {
            InstallError::Network(error) => error.hint(),
            InstallError::Unsafe(error) => error.hint(),
            InstallError::Lock(error) => error.hint(),
            InstallError::Pin(error) => error.hint(),
            InstallError::Manifest { .. } => Some(
                "the server did not send a valid Kiro manifest: check that ONEWORKS_KIRO_MANIFEST_URL points at Kiro's manifest or a faithful mirror".to_owned(),
            ),
            InstallError::OutsideBase { .. } => Some(
                "the manifest does not belong to this download base: check ONEWORKS_KIRO_MANIFEST_URL and ONEWORKS_KIRO_DOWNLOAD_BASE".to_owned(),
            ),
            InstallError::Checksum { .. } => Some(
                "the download was corrupted or the mirror serves another file; nothing was installed".to_owned(),
            ),
            InstallError::Extract { source, .. } if source.is_unsafe() => Some(
                "the archive was refused and nothing was installed: check that the mirror serves Kiro's own archives".to_owned(),
            ),
            InstallError::Extract { .. } => None,
            InstallError::VersionPolicy { latest, .. } => Some(format!(
                "set `adapters.kiro.cli.version` to `latest` or `{latest}`, or run `--locked` with a kiro.lock that records the version"
            )),
            InstallError::PinConflict { .. } => Some(
                "make `adapters.kiro.cli.version` and kiro.lock agree: set the version to `latest`, or run `oneworks adapter prepare kiro` without --locked to rewrite kiro.lock".to_owned(),
            ),
            InstallError::LockedWithoutPin { .. } | InstallError::LockedWithoutProject => {
                Some("run `oneworks adapter prepare kiro` once inside the project to write kiro.lock".to_owned())
            }
            InstallError::Offline { .. } => {
                Some("run `oneworks adapter prepare kiro` without --offline first".to_owned())
            }
            InstallError::UnsupportedHost { .. } => {
                Some("install Kiro with its own installer and use `source: system`".to_owned())
            }
            InstallError::NoPackage(_) => Some(
                "use `source: system` with Kiro's own installer, or set ONEWORKS_KIRO_FORMATS to a format the manifest offers".to_owned(),
            ),
            InstallError::NoBinary { .. } | InstallError::ProbeFailed { .. } => Some(
                "nothing was installed: the archive does not hold a working kiro-cli for this host; check the mirror, or use `source: system`".to_owned(),
            ),
            InstallError::Broken { .. } => Some(
                "reinstall it with `oneworks adapter prepare kiro --force`".to_owned(),
            ),
            InstallError::Io { .. } => None,
        }
    }
}

/// Maps an I/O error on `path` to [`InstallError::Io`].
pub(crate) fn io<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> InstallError + 'a {
    move |source| InstallError::Io {
        action,
        path: path.to_owned(),
        source,
    }
}
