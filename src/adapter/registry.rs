//! The known adapters: the data files built into the binary
//! (`manifests/<adapter>.yaml`), then one YAML file per adapter in
//! `$ONEWORKS_ADAPTERS_DIR` (a file there with a built-in name replaces
//! it), then `ONEWORKS_<ADAPTER>_ADAPTER_FILE` for one adapter. Files are
//! listed when the registry is built and parsed when an adapter is used.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::data::{AdapterData, DataError};
use super::session_data::{SafeKey, SafeKeys};

/// The adapter files built into the binary, by name, in the order of
/// `manifests/builtin.txt` (embedded by `build.rs`).
pub const BUILTIN: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/builtin_adapters.rs"));

/// The most files `ONEWORKS_ADAPTERS_DIR` may hold (a folder of thousands
/// is a mistake, not a set of adapters).
const MAX_FILES: usize = 256;

#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("unknown adapter `{name}`; known adapters: {}", .known.join(", "))]
    Unknown { name: String, known: Vec<String> },
    #[error("failed to list the adapter folder `{path}`")]
    List {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("refusing the adapter folder `{path}`: {reason}")]
    Refused { path: PathBuf, reason: String },
    #[error(transparent)]
    Data(#[from] DataError),
}

#[derive(Debug, Clone)]
enum Origin {
    Builtin(&'static str),
    File(PathBuf),
}

/// Where each adapter's data file comes from.
#[derive(Debug, Clone)]
pub struct Registry {
    entries: BTreeMap<String, Origin>,
}

/// Whether `name` can name an adapter: `[a-z][a-z0-9-]{0,31}` (it becomes
/// a folder name, a card id prefix and part of variable names).
pub fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some('a'..='z'))
        && name.len() <= 32
        && chars.all(|c| matches!(c, 'a'..='z' | '0'..='9' | '-'))
}

impl Registry {
    /// The built-in adapters only.
    pub fn builtin() -> Self {
        Self {
            entries: BUILTIN
                .iter()
                .map(|(name, text)| ((*name).to_owned(), Origin::Builtin(text)))
                .collect(),
        }
    }

    /// The built-in adapters, those of `adapters_dir`, and the one-file
    /// overrides `file_for(name)` names (`ONEWORKS_<ADAPTER>_ADAPTER_FILE`).
    pub fn discover(
        adapters_dir: Option<&Path>,
        file_for: impl Fn(&str) -> Option<PathBuf>,
    ) -> Result<Self, RegistryError> {
        let mut registry = Self::builtin();
        if let Some(dir) = adapters_dir {
            for (name, path) in list_dir(dir)? {
                registry.entries.insert(name, Origin::File(path));
            }
        }
        let names: Vec<String> = registry.entries.keys().cloned().collect();
        for name in names {
            if let Some(path) = file_for(&name) {
                registry.entries.insert(name, Origin::File(path));
            }
        }
        Ok(registry)
    }

    /// The known adapter names, sorted.
    pub fn names(&self) -> Vec<String> {
        self.entries.keys().cloned().collect()
    }

    pub fn contains(&self, name: &str) -> bool {
        self.entries.contains_key(name)
    }

    /// Only the `credentials` section of adapter `name` (the startup
    /// scrubber's rules): the rest of the file — pane grammars whose
    /// patterns compile, sections checked against each other — is not
    /// read, so a command that prints before it knows its adapter does not
    /// load every adapter whole. `None` when the file cannot be read or its
    /// credentials do not parse.
    pub fn credentials(&self, name: &str) -> Option<crate::redact::rules::CredentialRules> {
        /// Every other key of the file is ignored.
        #[derive(serde::Deserialize)]
        struct CredentialsOnly {
            credentials: crate::redact::rules::CredentialRules,
        }
        let text = match self.entries.get(name)? {
            Origin::Builtin(text) => std::borrow::Cow::Borrowed(*text),
            Origin::File(path) => std::borrow::Cow::Owned(AdapterData::read_text(path).ok()?),
        };
        serde_yaml_ng::from_str::<CredentialsOnly>(&text)
            .ok()
            .map(|only| only.credentials)
    }

    /// Only the allow-lists of adapter `name` for an untrusted project
    /// config (`session.settings.safeKeys`, `session.agentFile.safeKeys`),
    /// read like [`Registry::credentials`]: the config loader needs them
    /// before it knows which adapter a command uses. Empty when the file
    /// cannot be read or the lists do not parse: then nothing of the
    /// agent's settings applies untrusted.
    pub fn safe_keys(&self, name: &str) -> SafeKeys {
        /// Every other key of the file is ignored.
        #[derive(serde::Deserialize)]
        struct SessionOnly {
            session: SafeKeysOnly,
        }
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct SafeKeysOnly {
            settings: Listed,
            #[serde(default)]
            agent_file: Option<Listed>,
        }
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Listed {
            #[serde(default)]
            safe_keys: Vec<SafeKey>,
        }
        let text = match self.entries.get(name) {
            Some(Origin::Builtin(text)) => std::borrow::Cow::Borrowed(*text),
            Some(Origin::File(path)) => match AdapterData::read_text(path) {
                Ok(text) => std::borrow::Cow::Owned(text),
                Err(_) => return SafeKeys::default(),
            },
            None => return SafeKeys::default(),
        };
        match serde_yaml_ng::from_str::<SessionOnly>(&text) {
            Ok(only) => SafeKeys {
                config_content: only.session.settings.safe_keys,
                agent_config: only
                    .session
                    .agent_file
                    .map(|file| file.safe_keys)
                    .unwrap_or_default(),
            },
            Err(_) => SafeKeys::default(),
        }
    }

    /// The data of adapter `name`: unknown names list the known ones.
    pub fn load(&self, name: &str) -> Result<AdapterData, RegistryError> {
        let origin = self
            .entries
            .get(name)
            .ok_or_else(|| RegistryError::Unknown {
                name: crate::output::sanitize::sanitize_line(name).into_owned(),
                known: self.names(),
            })?;
        let data = match origin {
            Origin::Builtin(text) => parse_checked(
                text,
                Path::new(&format!("<built-in manifests/{name}.yaml>")),
            )?,
            Origin::File(path) => parse_checked(&AdapterData::read_text(path)?, path)?,
        };
        if data.id != name {
            return Err(DataError::Refused {
                path: match origin {
                    Origin::File(path) => path.clone(),
                    Origin::Builtin(_) => PathBuf::from(format!("manifests/{name}.yaml")),
                },
                reason: format!(
                    "its `id` is `{}`, but the file is the adapter `{name}`",
                    crate::output::sanitize::sanitize_line(&data.id)
                ),
            }
            .into());
        }
        Ok(data)
    }
}

/// Parses one data file and checks what its shape cannot say (versions,
/// paths, quirk names): a problem names the file, line, column and key.
fn parse_checked(text: &str, path: &Path) -> Result<AdapterData, DataError> {
    let data = AdapterData::parse_named(text, path)?;
    super::validate::check(&data).map_err(|problem| DataError::Invalid {
        path: path.to_owned(),
        location: super::key_location::locate(text, &problem.key),
        key: problem.key,
        reason: problem.reason,
    })?;
    Ok(data)
}

/// The `*.yaml`/`*.yml` files of `dir` by adapter name (the file's stem).
/// Links, special files and names that cannot be adapters are refused:
/// the folder is meant to hold adapter files only.
fn list_dir(dir: &Path) -> Result<Vec<(String, PathBuf)>, RegistryError> {
    let refused = |reason: String| RegistryError::Refused {
        path: dir.to_owned(),
        reason,
    };
    let meta = fs_err::metadata(dir).map_err(|source| RegistryError::List {
        path: dir.to_owned(),
        source: crate::fs_error::os_cause(source),
    })?;
    if !meta.is_dir() {
        return Err(refused("it is not a folder".to_owned()));
    }
    let entries = fs_err::read_dir(dir).map_err(|source| RegistryError::List {
        path: dir.to_owned(),
        source: crate::fs_error::os_cause(source),
    })?;
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| RegistryError::List {
            path: dir.to_owned(),
            source,
        })?;
        let file_name = entry.file_name();
        let Some(file_name) = file_name.to_str() else {
            continue;
        };
        let Some(stem) = file_name
            .strip_suffix(".yaml")
            .or_else(|| file_name.strip_suffix(".yml"))
        else {
            continue;
        };
        if !valid_name(stem) {
            return Err(refused(format!(
                "`{}` does not name an adapter (lower-case letters, digits and `-`, starting with a letter)",
                crate::output::sanitize::sanitize_line(file_name)
            )));
        }
        if found.iter().any(|(name, _)| name == stem) {
            return Err(refused(format!(
                "it holds two files for the adapter `{stem}`"
            )));
        }
        found.push((stem.to_owned(), entry.path()));
        if found.len() > MAX_FILES {
            return Err(refused(format!(
                "it holds more than {MAX_FILES} adapter files"
            )));
        }
    }
    Ok(found)
}

#[cfg(test)]
#[path = "registry_tests.rs"]
mod tests;
