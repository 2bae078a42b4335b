//! What can go wrong while installing or reusing a managed CLI, with the
//! exit-code kind and, where the user can act, a hint naming the adapter's
//! own variables and commands (from its data, never spelled here).

use std::path::{Path, PathBuf};

use crate::adapter::file_type::FileType;
use crate::env_options::names::{AdapterVariable, EnvVars};
use crate::error::{Classify, ErrorKind};
use crate::fs_safety::UnsafePath;
use crate::install::extract::ExtractError;
use crate::install::pin::PinError;
use crate::install::source::manifest::ManifestError;
use crate::install::source::npm::node::NodeError;
use crate::install::source::npm::package_document::PackageError;
use crate::install::source::npm::registry_choice::NpmRegistryError;
use crate::install::source::platform::NoPackage;
use crate::install::store::install_lock::LockError;
use crate::install::transport::network_error::NetworkError;

/// How an adapter is named in messages and hints, from its data: the
/// binary (`kiro-cli`), the display name (`Kiro CLI`) and the id, which
/// gives the `ONEWORKS_<ADAPTER>_…` variables and the commands to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Names {
    pub id: String,
    pub binary: String,
    pub display: String,
    /// Whether the managed source is an npm package (not a vendor manifest).
    pub npm: bool,
    /// Whether the managed source is archives checked against pins (no
    /// manifest to point elsewhere, only the download base).
    pub pinned: bool,
}

impl Names {
    pub fn of(data: &crate::adapter::data::AdapterData) -> Self {
        Self {
            id: data.id.clone(),
            binary: data.binary.name.clone(),
            display: data.display_name.clone(),
            npm: data.npm.is_some(),
            pinned: data.pinned.is_some(),
        }
    }

    /// Names for an error raised without its adapter at hand.
    fn generic() -> Self {
        Self {
            id: "<adapter>".to_owned(),
            binary: "the CLI".to_owned(),
            display: "the agent".to_owned(),
            npm: false,
            pinned: false,
        }
    }

    /// The adapter's `ONEWORKS_<ADAPTER>_…` variable `which`.
    pub fn variable(&self, which: AdapterVariable) -> String {
        which.name(&self.id)
    }

    /// The variable of the first URL the installer asks.
    pub fn primary_variable(&self) -> String {
        if self.npm {
            format!(
                "{} (or npm's `registry` setting)",
                EnvVars::ONEWORKS_NPM_REGISTRY
            )
        } else if self.pinned {
            self.variable(AdapterVariable::DownloadBase)
        } else {
            self.variable(AdapterVariable::ManifestUrl)
        }
    }

    /// The variables that point the installer at another source.
    pub fn source_variables(&self) -> String {
        if self.npm {
            format!(
                "{} (or npm's `registry` setting)",
                EnvVars::ONEWORKS_NPM_REGISTRY
            )
        } else if self.pinned {
            self.variable(AdapterVariable::DownloadBase)
        } else {
            format!(
                "{} / {}",
                self.variable(AdapterVariable::ManifestUrl),
                self.variable(AdapterVariable::DownloadBase)
            )
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// Any other variant, with the adapter names its hint uses.
    #[error(transparent)]
    Named(Box<Named>),
    #[error(transparent)]
    Network(#[from] NetworkError),
    #[error("failed to read the {display} manifest `{url}`")]
    Manifest {
        display: String,
        url: String,
        #[source]
        source: ManifestError,
    },
    #[error("failed to read the npm package document `{url}`")]
    Package {
        url: String,
        #[source]
        source: PackageError,
    },
    #[error(transparent)]
    Registry(#[from] NpmRegistryError),
    #[error(transparent)]
    Node(#[from] NodeError),
    #[error(transparent)]
    Tree(#[from] crate::install::source::npm::tree_error::TreeError),
    /// `name` is shown escaped: it is whatever a document or the data said.
    #[error("refusing to ask the registry for `{name}`: it is not an npm package name")]
    NotAPackageName { name: String },
    #[error("the download `{download}` leaves the download base `{base}`")]
    OutsideBase { download: String, base: String },
    #[error(transparent)]
    NoPackage(#[from] NoPackage),
    /// `subject` is the binary and version: ``` `kiro-cli` 2.15.1 ```.
    #[error("failed to verify {subject}: expected {algorithm} {expected}, computed {computed} (from `{url}`)")]
    Checksum {
        subject: String,
        algorithm: &'static str,
        expected: String,
        computed: String,
        url: String,
    },
    /// A lock file, or an artifact, that says otherwise than the source
    /// of truth: `subject` is what was checked (``` `gemini.lock`'s
    /// `@google/gemini-cli` 0.99.0 ```), `field` the value that differs.
    #[error("{subject} disagrees with {authority}: `{field}` expected `{}`, found `{}`", crate::output::sanitize::sanitize_line(.expected), crate::output::sanitize::sanitize_line(.found))]
    Disagrees {
        subject: String,
        authority: Authority,
        field: &'static str,
        expected: String,
        found: String,
    },
    #[error("refusing to install `{name}` {version}: {reason}")]
    Unverifiable {
        name: String,
        version: String,
        reason: String,
    },
    #[error("refused the `{name}` {version} archive from `{url}`")]
    Extract {
        name: String,
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
    #[error("`{name}` {requested} is not available: the stable manifest offers only {latest}, and no {id}.lock records {requested}")]
    VersionPolicy {
        name: String,
        id: String,
        requested: String,
        latest: String,
    },
    #[error("`{name}` {requested} has no reviewed sha256 for {host}: nothing was downloaded")]
    Unpinned {
        name: String,
        requested: String,
        host: String,
        /// The versions pinned for this host, newest first.
        pinned: Vec<String>,
    },
    #[error("`{name}` {requested} is configured but `{pin}` records {locked}")]
    PinConflict {
        name: String,
        requested: String,
        locked: String,
        pin: PathBuf,
    },
    #[error("`{name}` {requested} is not published: the npm package `{package}` lists {newest}")]
    NotPublished {
        name: String,
        id: String,
        package: String,
        requested: String,
        newest: String,
    },
    #[error("the lock file pins the npm package `{found}`, but the adapter installs `{wanted}`")]
    PinPackage { found: String, wanted: String },
    #[error("`{pin}` records a {found} source, but the configured source is {wanted}")]
    PinSource {
        pin: PathBuf,
        found: &'static str,
        wanted: &'static str,
    },
    #[error("--offline: no installed `{name}` {wanted} under `{root}`")]
    Offline {
        name: String,
        wanted: String,
        root: PathBuf,
    },
    #[error("--offline: the installed `{name}` {version} at `{path}` was not checked against the registry as the lock file's package")]
    Unverified {
        name: String,
        version: String,
        path: PathBuf,
    },
    #[error("--locked needs `{path}`, which does not exist")]
    LockedWithoutPin { path: PathBuf },
    #[error("--locked needs a project: no `.oneworks/` folder at or above the working directory")]
    LockedWithoutProject,
    #[error("the adapter data of {display} has no {missing} section for a managed install")]
    NoManagedSource {
        display: String,
        missing: &'static str,
    },
    #[error("installing a `{file_type}` package is not supported on this host yet (selected `{download}`)")]
    UnsupportedHost {
        file_type: FileType,
        download: String,
    },
    #[error("the `{name}` {version} archive holds none of {candidates}")]
    NoBinary {
        name: String,
        version: String,
        candidates: String,
    },
    #[error("the downloaded `{name}` {version} failed its probe: {problem}")]
    ProbeFailed {
        name: String,
        version: String,
        problem: String,
        /// What the probe's output says to do (a cause it recognised).
        cause_hint: Option<String>,
    },
    #[error("the installed `{name}` {version} at `{path}` is broken: {change}, and it fails its probe: {problem}")]
    Broken {
        name: String,
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

/// What a lock file or an artifact is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Authority {
    /// The registry's package document for the pinned name and version.
    RegistryDocument,
    /// Where the vendor lays out a version's downloads.
    DownloadLayout,
    /// The tarball's own `package.json`.
    OwnPackage,
    /// The installed binary's version probe.
    VersionProbe,
    /// The sha256 the adapter's data pins for a version.
    ReviewedPin,
}

impl std::fmt::Display for Authority {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(match self {
            Authority::RegistryDocument => "the registry's package document",
            Authority::DownloadLayout => "the vendor's download layout",
            Authority::OwnPackage => "its own `package.json`",
            Authority::VersionProbe => "its version probe",
            Authority::ReviewedPin => "the adapter's reviewed pin",
        })
    }
}

/// An [`InstallError`] with the names of the adapter it is about.
#[derive(Debug)]
pub struct Named {
    pub names: Names,
    pub error: InstallError,
}

impl std::fmt::Display for Named {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(formatter)
    }
}

impl std::error::Error for Named {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.error)
    }
}

impl InstallError {
    /// This error with `names` for its hint (once: an already named error
    /// keeps its names).
    pub fn named(self, names: &Names) -> Self {
        match self {
            InstallError::Named(_) => self,
            error => InstallError::Named(Box::new(Named {
                names: names.clone(),
                error,
            })),
        }
    }

    /// The error without its names.
    pub fn inner(&self) -> &InstallError {
        match self {
            InstallError::Named(named) => named.error.inner(),
            error => error,
        }
    }

    /// The hint, naming `names`' variables and commands.
    pub fn hint_for(&self, names: &Names) -> Option<String> {
        let id = &names.id;
        let display = &names.display;
        let binary = &names.binary;
        let sources = names.source_variables();
        match self {
            InstallError::Named(named) => named.error.hint_for(&named.names),
            InstallError::Network(error) => error.hint_with(&names.primary_variable(), &sources),
            InstallError::Registry(error) => error.hint(),
            InstallError::Node(error) => error.hint(),
            InstallError::Tree(error) => error.hint().map(|hint| hint.replace("<adapter>", id)),
            InstallError::Unsafe(error) => error.hint(),
            InstallError::Lock(error) => error.hint(),
            InstallError::Pin(error) => error.hint(),
            InstallError::Manifest { .. } => Some(format!(
                "the server did not send a valid {display} manifest: check that {} points at {display}'s manifest or a faithful mirror",
                names.variable(AdapterVariable::ManifestUrl)
            )),
            InstallError::Package { .. } => Some(
                "the registry did not send a valid npm package document: check ONEWORKS_NPM_REGISTRY (or npm's `registry` setting) points at an npm registry or a faithful mirror".to_owned(),
            ),
            InstallError::NotAPackageName { .. } => Some(
                "nothing was asked or installed: a package name is lowercase letters, digits and `-._~`, with one optional `@scope/`".to_owned(),
            ),
            InstallError::OutsideBase { .. } => Some(format!(
                "the source (manifest or lock file) points outside its download base; nothing was downloaded: check {sources}, or delete the lock file if it came from elsewhere"
            )),
            InstallError::Checksum { .. } => Some(
                "the download was corrupted or the mirror serves another file; nothing was installed".to_owned(),
            ),
            InstallError::Disagrees { authority: Authority::ReviewedPin, subject, .. } if subject.starts_with("`adapters.") => Some(
                "nothing was downloaded: your `cli.sha256` names another archive than the one the adapter's data pins for this version; remove it, or check where you read it".to_owned(),
            ),
            InstallError::Disagrees { authority: Authority::RegistryDocument | Authority::DownloadLayout | Authority::ReviewedPin, .. } => Some(format!(
                "nothing was installed or changed: a lock file only narrows what the source publishes, and this one does not match it; if it came with a clone, check who changed it, or delete it and run `oneworks adapter prepare {id}` to write it from the source"
            )),
            InstallError::Disagrees { .. } => Some(format!(
                "nothing was installed: the artifact is not the {display} version it is published as; check {sources}"
            )),
            InstallError::Unverifiable { .. } => Some(
                "nothing was installed: oneworks installs only packages it can verify by a sha512 `integrity`; use a registry that records it, or `source: system`".to_owned(),
            ),
            InstallError::Extract { source, .. } if source.is_unsafe() => Some(format!(
                "the archive was refused and nothing was installed: check that the mirror serves {display}'s own archives"
            )),
            InstallError::Extract { .. } => None,
            InstallError::VersionPolicy { latest, .. } => Some(format!(
                "set `adapters.{id}.cli.version` to `latest` or `{latest}`, or run `--locked` with a {id}.lock that records the version"
            )),
            InstallError::Unpinned { pinned, .. } => Some(format!(
                "the vendor publishes no checksum, so oneworks installs a version only against a sha256 it can check: set `adapters.{id}.cli.sha256` beside `cli.version` in your own config (a project's is not trusted until you run `oneworks config trust`), or use a pinned version ({})",
                if pinned.is_empty() { "none for this host".to_owned() } else { pinned.join(", ") }
            )),
            InstallError::PinConflict { .. } => Some(format!(
                "make `adapters.{id}.cli.version` and {id}.lock agree: set the version to `latest`, or run `oneworks adapter prepare {id}` without --locked to rewrite {id}.lock"
            )),
            InstallError::NotPublished { .. } => Some(format!(
                "set `adapters.{id}.cli.version` to `latest` or a version the registry lists"
            )),
            InstallError::PinSource { .. } | InstallError::PinPackage { .. } => Some(format!(
                "run `oneworks adapter prepare {id}` without --locked to rewrite {id}.lock"
            )),
            InstallError::LockedWithoutPin { .. } | InstallError::LockedWithoutProject => Some(
                format!("run `oneworks adapter prepare {id}` once inside the project to write {id}.lock"),
            ),
            InstallError::Unverified { .. } => Some(format!(
                "run `oneworks adapter prepare {id}` without --offline: it checks the lock file against the registry and reinstalls what it pins"
            )),
            InstallError::Offline { .. } => Some(format!(
                "run `oneworks adapter prepare {id}` without --offline first"
            )),
            InstallError::NoManagedSource { .. } => Some(format!(
                "use `source: system` or `source: path` for {display}"
            )),
            InstallError::UnsupportedHost { .. } => Some(format!(
                "install {display} with its own installer and use `source: system`"
            )),
            InstallError::NoPackage(_) => Some(format!(
                "use `source: system` with {display}'s own installer, or set {} to a format the manifest offers",
                names.variable(AdapterVariable::Formats)
            )),
            InstallError::ProbeFailed {
                cause_hint: Some(cause),
                ..
            } => Some(format!("nothing was installed: {cause}")),
            InstallError::NoBinary { .. } | InstallError::ProbeFailed { .. } => Some(format!(
                "nothing was installed: the archive does not hold a working {binary} for this host; check the mirror, or use `source: system`"
            )),
            InstallError::Broken { .. } => Some(format!(
                "reinstall it with `oneworks adapter prepare {id} --force`"
            )),
            InstallError::Io { .. } => None,
        }
    }
}

impl Classify for InstallError {
    fn kind(&self) -> ErrorKind {
        match self {
            InstallError::Named(named) => named.error.kind(),
            InstallError::Network(error) => error.kind(),
            InstallError::Registry(error) => error.kind(),
            InstallError::Node(error) => error.kind(),
            InstallError::Tree(error) => error.kind(),
            InstallError::Manifest { .. }
            | InstallError::Package { .. }
            | InstallError::OutsideBase { .. }
            | InstallError::NotAPackageName { .. } => ErrorKind::Network,
            InstallError::Checksum { .. }
            | InstallError::Unverifiable { .. }
            | InstallError::Disagrees { .. } => ErrorKind::ChecksumMismatch,
            InstallError::Extract { source, .. } => match source {
                ExtractError::Write { .. } => ErrorKind::Internal,
                _ => ErrorKind::UnsafeArchive,
            },
            InstallError::Unsafe(error) => error.kind(),
            InstallError::Lock(error) => error.kind(),
            InstallError::Pin(error) => error.kind(),
            InstallError::LockedWithoutPin { .. }
            | InstallError::LockedWithoutProject
            | InstallError::PinConflict { .. }
            | InstallError::Unpinned { .. }
            | InstallError::PinSource { .. }
            | InstallError::PinPackage { .. }
            | InstallError::NoManagedSource { .. } => ErrorKind::Config,
            InstallError::NoPackage(_)
            | InstallError::VersionPolicy { .. }
            | InstallError::NotPublished { .. }
            | InstallError::Offline { .. }
            | InstallError::Unverified { .. }
            | InstallError::UnsupportedHost { .. }
            | InstallError::NoBinary { .. }
            | InstallError::ProbeFailed { .. }
            | InstallError::Broken { .. } => ErrorKind::NoUsableCli,
            InstallError::Io { .. } => ErrorKind::Internal,
        }
    }

    fn hint(&self) -> Option<String> {
        self.hint_for(&Names::generic())
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
