//! An adapter data file (`manifests/<adapter>.yaml`): every
//! vendor fact oneworks needs about one agent CLI, parsed into plain types.
//! Which files exist is `adapter::registry`'s business.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::adapter::file_type::FileType;
/// The credential rules and patterns are plain redaction types (platform);
/// the data file carries their values.
pub use crate::redact::rules::{CredentialRules, DataRegex};

/// One built-in data file, for unit tests that need one
/// (`adapter::registry` lists every built-in adapter).
#[cfg(test)]
pub const BUILTIN_KIRO: &str = include_str!("../../manifests/kiro.yaml");

#[derive(Debug, thiserror::Error)]
pub enum DataError {
    #[error("failed to read adapter data file `{path}`")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("refusing to read adapter data file `{path}`: {reason}")]
    Refused { path: PathBuf, reason: String },
    /// Install sections that contradict each other.
    #[error("refusing to read adapter data file `{path}`")]
    Sections {
        path: PathBuf,
        #[source]
        source: InstallSectionsError,
    },
    #[error("adapter data file `{}{}` is invalid", .path.display(), parse_at(.source))]
    Parse {
        path: PathBuf,
        #[source]
        source: serde_yaml_ng::Error,
    },
    /// A value the shape allows but oneworks cannot use: where it is
    /// (`file:line:column`, when the key is found in the text) and why.
    #[error("adapter data file `{}{}` is invalid: `{key}`: {reason}", .path.display(), at(.location))]
    Invalid {
        path: PathBuf,
        location: Option<(usize, usize)>,
        key: String,
        reason: String,
    },
}

/// Where a parse error is, as `:line:column`.
fn parse_at(source: &serde_yaml_ng::Error) -> String {
    at(&source
        .location()
        .map(|location| (location.line(), location.column())))
}

/// `:line:column`, or nothing.
fn at(location: &Option<(usize, usize)>) -> String {
    location.map_or_else(String::new, |(line, column)| format!(":{line}:{column}"))
}

impl DataError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            DataError::Read { path, .. }
            | DataError::Refused { path, .. }
            | DataError::Sections { path, .. }
            | DataError::Parse { path, .. }
            | DataError::Invalid { path, .. } => path,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AdapterData {
    pub id: String,
    pub display_name: String,
    /// The vendor manifest managed source; at most one of
    /// `manifest`, `npm` and `pinned` is given.
    #[serde(default)]
    pub manifest: Option<ManifestData>,
    /// The npm registry managed source.
    #[serde(default)]
    pub npm: Option<NpmData>,
    /// Archives by version verified against reviewed pins.
    #[serde(default)]
    pub pinned: Option<super::pinned_data::PinnedData>,
    pub binary: BinaryData,
    pub probes: ProbeData,
    /// Platform selection among the vendor manifest's packages.
    #[serde(default)]
    pub platforms: Option<PlatformData>,
    /// The layout of the vendor manifest's archives.
    #[serde(default)]
    pub archive: Option<ArchiveData>,
    pub credentials: CredentialRules,
    pub session: SessionData,
    pub acp: super::acp_data::AcpData,
    pub tui: super::tui_data::TuiData,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ManifestData {
    pub url: String,
    pub base_strip_suffix: String,
    /// Where a version's downloads lie below the download base, with
    /// `{version}` the version (`{version}/`): a lock file's `download`
    /// must lie there for the version it pins. Without it, only
    /// the installed binary's version probe binds a pinned version.
    #[serde(default)]
    pub version_path: Option<String>,
}

/// An npm package as a managed source: the registry is the user's npm
/// setting (or `ONEWORKS_NPM_REGISTRY`), not data.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NpmData {
    /// The package name, scoped or not (`@google/gemini-cli`).
    pub package: String,
    /// The executable: `bin.<binCommand>` of the version document.
    pub bin_command: String,
    /// The packages (anywhere in the tree, by registry name) whose
    /// platform packages — `optionalDependencies` declaring `os`/`cpu`/
    /// `libc` — hold what they run: for each, the one fitting this host is
    /// installed (none fits: exit 4). Other packages' optional dependencies
    /// are never installed (native add-ons that need install scripts).
    #[serde(default)]
    pub platform_packages: Vec<String>,
    /// When several of a package's platform packages fit the host, the first of these names that
    /// is one of them wins; `{os}`, `{cpu}` and `{libc}` are the host's
    /// npm values (`linux`, `x64`, `glibc`). An entry
    /// `{name: …, cpuLacks: avx2}` counts only on a CPU without that
    /// feature (`avx2` is the one oneworks detects, on x86-64). Without a
    /// match: the one that declares the host's `libc`, then the shortest
    /// name.
    #[serde(default)]
    pub platform_prefer: Vec<PlatformPrefer>,
    /// What the package's install script would do, said as data: this
    /// file of the platform package chosen for the main package becomes the
    /// main package's `bin.<binCommand>` (a hard link inside the install).
    #[serde(default)]
    pub platform_bin: Option<String>,
    /// Files that need their exec bit, relative to the main package folder
    /// (a dependency's: `node_modules/<name>/<path>`); `{os}`, `{cpu}` and
    /// `{libc}` as in `platformPrefer` (also in `platformBin`).
    #[serde(default)]
    pub executables: Vec<String>,
    /// `peerDependencies` installed like dependencies, by name (npm's
    /// peers are installed only when named here).
    #[serde(default)]
    pub peer_dependencies: Vec<String>,
    /// What one tarball may unpack to before its integrity is checked, as
    /// a multiple of its version document's `dist.unpackedSize` where the
    /// registry gives one (else the installer's fixed bound holds). npm
    /// records the sum of the packed files' sizes, so the default 2 leaves
    /// room for a registry that counts otherwise.
    #[serde(default = "npm_max_expansion")]
    pub max_expansion: u64,
}

fn npm_max_expansion() -> u64 {
    2
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BinaryData {
    pub name: String,
    pub aliases: Vec<String>,
    pub identifies: DataRegex,
    pub version_pattern: DataRegex,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeData {
    pub version: Vec<String>,
    /// A second probe that the ACP mode exists; absent when the agent has
    /// no cheap way to ask (Gemini).
    #[serde(default)]
    pub acp: Option<Vec<String>>,
    pub timeout_seconds: u64,
    /// Variables the probed process gets (Gemini's `GEMINI_CLI_NO_RELAUNCH`:
    /// one process, not a relaunched second one).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Whether a fresh managed install is probed before it is published
    /// (default). `false` when the source already proves what the probe
    /// would (an npm package: its version from the integrity-checked
    /// package document, Node against `engines.node`); `adapter status`
    /// and a changed install are still probed.
    #[serde(default = "probe_at_install")]
    pub at_install: bool,
}

fn probe_at_install() -> bool {
    true
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlatformData {
    pub linux: LinuxData,
    pub macos: MacosData,
    pub windows: WindowsData,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LinuxData {
    pub variant: String,
    pub glibc_floor: BTreeMap<String, String>,
    pub format_preference: Vec<FileType>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MacosData {
    pub file_type: FileType,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WindowsData {
    pub file_type: FileType,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ArchiveData {
    pub binary_paths: Vec<String>,
    pub max_expansion: u64,
}

/// The profile world's data lives in its own file.
pub use super::session_data::SessionData;

/// The largest adapter data file read (the built-in one is a few KiB).
const MAX_DATA_BYTES: u64 = 1024 * 1024;

impl AdapterData {
    /// The first built-in adapter's data, for unit tests.
    #[cfg(test)]
    pub fn builtin() -> Result<Self, DataError> {
        Self::parse(BUILTIN_KIRO, Path::new("<built-in data>"))
    }

    /// The data file at `path` (refused when it is not a regular file of
    /// at most 1 MiB of UTF-8 text).
    pub fn load(path: &Path) -> Result<Self, DataError> {
        Self::parse(&Self::read_text(path)?, path)
    }

    /// The text of the data file at `path`, refused as [`AdapterData::load`]
    /// says (the registry parses and validates it).
    pub fn read_text(path: &Path) -> Result<String, DataError> {
        {
            {
                // Like a config file: a FIFO is not waited on, a device not
                // drained.
                use crate::fs_safety::{read_regular_file, ReadRefusal};
                let refused = |reason: String| DataError::Refused {
                    path: path.to_owned(),
                    reason,
                };
                let bytes =
                    read_regular_file(path, MAX_DATA_BYTES, true).map_err(
                        |refusal| match refusal {
                            ReadRefusal::Missing | ReadRefusal::Symlink => {
                                refused("it does not exist".to_owned())
                            }
                            ReadRefusal::NotRegular(found) => {
                                refused(format!("it is a {found}, not a regular file"))
                            }
                            ReadRefusal::TooLarge => {
                                refused(format!("it is larger than {MAX_DATA_BYTES} bytes"))
                            }
                            ReadRefusal::Io(source) => DataError::Read {
                                path: path.to_owned(),
                                source,
                            },
                        },
                    )?;
                String::from_utf8(bytes).map_err(|_| refused("it is not UTF-8 text".to_owned()))
            }
        }
    }

    /// Parses one data file's text; `path` names it in errors.
    pub fn parse_named(text: &str, path: &Path) -> Result<Self, DataError> {
        Self::parse(text, path)
    }

    fn parse(text: &str, path: &Path) -> Result<Self, DataError> {
        let data: AdapterData =
            serde_yaml_ng::from_str(text).map_err(|source| DataError::Parse {
                path: path.to_owned(),
                source,
            })?;
        data.check_install_sections()
            .map_err(|source| DataError::Sections {
                path: path.to_owned(),
                source,
            })?;
        Ok(data)
    }
}

/// What is wrong with an adapter file's install sections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum InstallSectionsError {
    #[error("give one managed source: `manifest`, `npm` or `pinned`, not two")]
    BothSources,
    #[error("a `manifest` source needs `platforms` and `archive` sections")]
    ManifestWithoutPlatforms,
    #[error("a `pinned` source needs an `archive` section")]
    PinnedWithoutArchive,
}

impl AdapterData {
    /// At most one managed source, and what it needs: `manifest` with
    /// `platforms` and `archive`, `npm`, or `pinned` with `archive`. Says
    /// what is wrong.
    pub fn check_install_sections(&self) -> Result<(), InstallSectionsError> {
        let given = [
            self.manifest.is_some(),
            self.npm.is_some(),
            self.pinned.is_some(),
        ];
        if given.iter().filter(|given| **given).count() > 1 {
            return Err(InstallSectionsError::BothSources);
        }
        if self.manifest.is_some() && (self.platforms.is_none() || self.archive.is_none()) {
            return Err(InstallSectionsError::ManifestWithoutPlatforms);
        }
        if self.pinned.is_some() && self.archive.is_none() {
            return Err(InstallSectionsError::PinnedWithoutArchive);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_override_file_is_named_once() {
        let temp = tempfile::tempdir().expect("tempdir");
        let path = temp.path().join("missing-kiro.yaml");
        let error = AdapterData::load(&path).expect_err("missing file");
        let message = crate::error::message(&error);
        assert_eq!(message.matches("missing-kiro.yaml").count(), 1, "{message}");
        assert!(message.ends_with("it does not exist"), "{message}");
    }

    #[test]
    fn builtin_data_parses() {
        let data = AdapterData::builtin().expect("built-in data parses");
        assert_eq!(data.binary.name, "kiro-cli");
        let platforms = data.platforms.as_ref().expect("kiro has platforms");
        assert_eq!(platforms.linux.glibc_floor["x86_64"], "2.34");
        assert!(data.npm.is_none());
        assert_eq!(data.check_install_sections(), Ok(()));
    }

    #[test]
    fn a_bad_pattern_is_refused_with_its_position() {
        let text = BUILTIN_KIRO.replace(r"'(?i)\bkiro(-cli)?\b'", "'(unclosed'");
        assert_ne!(text, BUILTIN_KIRO, "the identifies pattern moved");
        let error = AdapterData::parse(&text, Path::new("kiro.yaml")).expect_err("bad pattern");
        let DataError::Parse { source, .. } = &error else {
            panic!("expected a parse error, got {error}");
        };
        assert!(source.location().is_some(), "{source}");
        assert!(source.to_string().contains("(unclosed"), "{source}");
    }

    #[test]
    fn credential_names_match_in_any_case() {
        let rules = AdapterData::builtin().expect("built-in data").credentials;
        assert!(rules.is_credential_name("aws_secret_access_key"));
        assert!(rules.is_credential_name("KIRO_GITHUB_TOKEN"));
        assert!(rules.is_credential_name("kiro_db_password"));
        assert!(!rules.is_credential_name("AWS_REGION"));
        assert!(!rules.is_credential_name("GITHUB_TOKEN"));
        assert!(!rules.is_credential_name("KIRO_HOME"));
    }
}

/// One `platformPrefer` entry: a package name template, counted always or
/// only on a CPU that lacks a feature.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum PlatformPrefer {
    Always(String),
    #[serde(rename_all = "camelCase")]
    When {
        name: String,
        cpu_lacks: String,
    },
}

impl PlatformPrefer {
    pub fn name(&self) -> &str {
        match self {
            PlatformPrefer::Always(name) | PlatformPrefer::When { name, .. } => name,
        }
    }

    /// Whether the entry counts on a CPU that lacks `lacks`.
    pub fn counts(&self, lacks: &[String]) -> bool {
        match self {
            PlatformPrefer::Always(_) => true,
            PlatformPrefer::When { cpu_lacks, .. } => lacks.contains(cpu_lacks),
        }
    }
}
