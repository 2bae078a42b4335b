//! Why a package tree cannot be resolved or installed, with the exit-code
//! kind and a hint.

use crate::error::{Classify, ErrorKind};
use crate::output::sanitize::sanitize_line;

#[derive(Debug, thiserror::Error)]
pub enum TreeError {
    #[error("no platform package of `{package}` fits this host ({host}); it offers: {offered}")]
    NoPlatform {
        package: String,
        host: String,
        offered: String,
    },
    #[error("`{package}` needs `{dependency}` `{range}`, which the registry does not have")]
    Missing {
        package: String,
        dependency: String,
        range: String,
    },
    #[error("`{package}` needs `{dependency}` `{range}`, but the registry lists no such version (newest: {newest})")]
    NoVersion {
        package: String,
        dependency: String,
        range: String,
        newest: String,
    },
    #[error("`{package}` needs `{dependency}` as `{spec}`, which oneworks does not install (only registry versions, ranges, tags and `npm:` aliases)")]
    Specifier {
        package: String,
        dependency: String,
        spec: String,
    },
    /// `dependency` is shown escaped (`\\`, control characters): it is
    /// whatever the document says.
    #[error(
        "`{package}` needs a dependency named `{dependency}`, which is not an npm package name"
    )]
    Name { package: String, dependency: String },
    #[error("the dependency tree of `{package}` {reason}")]
    Bounds { package: String, reason: String },
    #[error(
        "the adapter data's `platformBin` needs a platform package of `{package}`, and it has none"
    )]
    NoPlatformBin { package: String },
    #[error("`{path}` in the installed package cannot be {action}: {reason}")]
    File {
        path: String,
        action: &'static str,
        reason: String,
    },
    #[error("the lock file records a malformed package `{}`: {reason}", sanitize_line(.path))]
    PinEntry { path: String, reason: String },
    #[error("the registry's document of `{package}` is malformed")]
    Document {
        package: String,
        #[source]
        source: super::package_document::PackageError,
    },
    #[error("the installed tree at `{dir}` is incomplete: {reason}")]
    Incomplete { dir: String, reason: TreeDamage },
}

/// What is wrong with an installed tree.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TreeDamage {
    #[error("`{listing}` is malformed: {message}")]
    MalformedListing {
        listing: &'static str,
        message: String,
    },
    #[error("`{0}` is not a readable regular file")]
    UnreadableListing(&'static str),
    #[error("it is not the tree the lock file records")]
    NotThePinnedTree,
    #[error("`{0}` is missing or damaged")]
    Missing(String),
    #[error("`{path}` holds another package than `{name}` {version}")]
    OtherPackage {
        path: String,
        name: String,
        version: String,
    },
}

impl Classify for TreeError {
    fn kind(&self) -> ErrorKind {
        match self {
            TreeError::Name { .. }
            | TreeError::Document { .. }
            | TreeError::Missing { .. }
            | TreeError::NoVersion { .. } => ErrorKind::Network,
            TreeError::Bounds { .. } => ErrorKind::UnsafeArchive,
            TreeError::PinEntry { .. } => ErrorKind::Config,
            // No package for this host: no usable CLI here,
            // whatever shape the vendor ships.
            TreeError::NoPlatform { .. }
            | TreeError::Specifier { .. }
            | TreeError::NoPlatformBin { .. }
            | TreeError::File { .. }
            | TreeError::Incomplete { .. } => ErrorKind::NoUsableCli,
        }
    }
    fn hint(&self) -> Option<String> {
        Some(match self {
            TreeError::NoPlatform { .. } => "nothing was installed: the package ships no build for this host; use `source: system` with an agent installed another way".to_owned(),
            TreeError::Missing { .. } | TreeError::NoVersion { .. } | TreeError::Document { .. } | TreeError::Name { .. } => "nothing was installed: check that ONEWORKS_NPM_REGISTRY (or npm's `registry` setting) points at a registry or a complete mirror".to_owned(),
            TreeError::Specifier { .. } => "nothing was installed: use another version of the package, or `source: system`".to_owned(),
            TreeError::Bounds { .. } => "nothing was installed: the registry's documents describe a tree too large to be this package's".to_owned(),
            TreeError::NoPlatformBin { .. } | TreeError::File { .. } => "nothing was installed: the adapter data does not fit this version of the package; check its `npm` section".to_owned(),
            TreeError::PinEntry { .. } => "fix or delete the lock file; `oneworks adapter prepare <adapter>` writes it again".to_owned(),
            TreeError::Incomplete { .. } => "reinstall it with `oneworks adapter prepare <adapter> --force` (without --offline)".to_owned(),
        })
    }
}
