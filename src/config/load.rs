//! Layered loading: the user file `$XDG_CONFIG_HOME/oneworks/config.yaml`,
//! then the project file (or `--config`/`ONEWORKS_CONFIG`) over it. Maps
//! merge key by key; lists and scalars are replaced. Each file is first
//! checked on its own so errors carry its name, line and column. The
//! project's own file (or a `--config` anywhere inside the project tree)
//! is untrusted until the person trusts its exact bytes: until
//! then its keys that run code or move a credential are cut out of its
//! layer before the merge ([`super::untrusted::strip_untrusted`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_yaml_ng::Value;

use super::credentials::check_no_credentials;
use super::error::ConfigError;
use super::file::{
    mask_credentials, mask_error, position_of, read_config_file_with_metadata, real_path_of,
};
use super::schema::{ConfigFile, SourceKind};
use super::trust_store::{sha256_hex, TrustStore};
use super::untrusted::{strip_untrusted, Ignored};
use crate::adapter::data::{AdapterData, CredentialRules};
use crate::adapter::registry::{Registry, RegistryError};
use crate::fs_safety;
use crate::fs_safety::lexical_normalize;

/// Which files to layer.
#[derive(Debug, Clone)]
pub struct ConfigSources {
    /// The user file; skipped when it does not exist.
    pub user: Option<PathBuf>,
    /// The project file; skipped when it does not exist.
    pub project: Option<PathBuf>,
    /// `--config`/`ONEWORKS_CONFIG`: replaces the project file and must exist.
    pub explicit: Option<PathBuf>,
    /// The person's trusted config files; `None` trusts no project file.
    pub trust: Option<TrustStore>,
}

#[derive(Debug, Clone, Default)]
pub struct LoadedConfig {
    pub config: ConfigFile,
    /// The files that were read, lowest layer first.
    pub files: Vec<PathBuf>,
    /// The project's own layer, when one was read: whether it was trusted
    /// and what was ignored because it was not.
    pub project_layer: Option<ProjectLayer>,
}

/// How the project's own config file was judged.
#[derive(Debug, Clone)]
pub struct ProjectLayer {
    /// The path as given (the project's `.oneworks/config.yaml`, or `--config`).
    pub path: PathBuf,
    /// Whether it came from `--config`/`ONEWORKS_CONFIG`.
    pub explicit: bool,
    /// Its real path, when it could be told for the bytes that were read.
    pub real: Option<PathBuf>,
    /// The sha256 (hex) of the bytes that were read and parsed.
    pub sha256: String,
    pub trusted: bool,
    /// What was cut out because it was not trusted (empty when trusted).
    pub ignored: Vec<Ignored>,
}

/// A config file read for `config trust`: checked like a layer, with the
/// real path and hash of the very bytes that were checked.
#[derive(Debug, Clone)]
pub struct InspectedFile {
    pub real: PathBuf,
    pub sha256: String,
}

/// Reads and checks config file `path` (it must exist) and tells its real
/// path and the sha256 of the bytes read.
pub fn inspect(path: &Path, registry: &Registry) -> Result<InspectedFile, ConfigError> {
    let rules = &every_adapters_rules(registry);
    let Some((text, metadata)) = read_config_file_with_metadata(path, true)? else {
        return Err(ConfigError::Missing {
            path: path.to_owned(),
        });
    };
    read_layer(path, &text, rules)?;
    let real = real_path_of(path, &metadata).ok_or_else(|| ConfigError::Changed {
        path: path.to_owned(),
    })?;
    Ok(InspectedFile {
        real,
        sha256: sha256_hex(text.as_bytes()),
    })
}

/// Whether `path` (`--config`) is a project config: anywhere
/// inside the project tree `root` (`ci/oneworks.yaml` as much as
/// `.oneworks/other.yaml`), as written (`..` applied) or by its real path
/// (a link from outside into the tree is the tree's file).
fn inside_project(path: &Path, root: &Path) -> bool {
    let absolute = |path: &Path| std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    if lexical_normalize(&absolute(path)).starts_with(lexical_normalize(&absolute(root))) {
        return true;
    }
    match (fs_err::canonicalize(path), fs_err::canonicalize(root)) {
        (Ok(real), Ok(real_root)) => real.starts_with(real_root),
        _ => false,
    }
}

/// Loads the layered config; every `adapters.<name>` must be a known
/// adapter, checked against its own data file.
pub fn load(sources: &ConfigSources, registry: &Registry) -> Result<LoadedConfig, ConfigError> {
    let rules = &every_adapters_rules(registry);
    let dot_dir = sources.project.as_deref().and_then(Path::parent);
    // The project's `.oneworks` is refused when linked, whichever file is
    // read: commands write `<adapter>.lock` and sessions below it.
    if let Some(dot_dir) = dot_dir {
        fs_safety::check_project_dot_dir(dot_dir)?;
    }
    let mut files = Vec::new();
    let mut merged = Value::Mapping(Default::default());
    let mut skills_dirs: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut user_trust: BTreeMap<String, bool> = BTreeMap::new();
    let mut project_layer = None;
    for (path, required, projects_own) in layers(sources, dot_dir) {
        let Some((text, metadata)) = read_config_file_with_metadata(path, required)? else {
            continue;
        };
        let mut layer = read_layer(path, &text, rules)?;
        if projects_own {
            let read = (path, text.as_str(), &metadata);
            let judged = judge_project_layer(sources, dot_dir, read, registry, &mut layer);
            project_layer = Some(judged);
        }
        for adapter in skill_setters(&layer) {
            skills_dirs.insert(adapter, folder_of(path));
        }
        if Some(path) == sources.user.as_deref() {
            user_trust = trust_settings(&layer);
        }
        merge(&mut merged, layer);
        files.push(path.to_owned());
    }
    let mut config: ConfigFile =
        serde_yaml_ng::from_value(merged).map_err(|error| ConfigError::Invalid {
            key: "adapters".to_owned(),
            message: mask_credentials(&error.to_string(), rules),
        })?;
    for (adapter, dir) in skills_dirs {
        if let Some(entry) = config.adapters.get_mut(&adapter) {
            for skill in &mut entry.skills {
                skill.path = dir.join(&skill.path);
                skill.config_dir = dir.clone();
            }
        }
    }
    // Workspace trust is the user's own decision: only the
    // user file may set it, never a project's.
    for (name, entry) in &mut config.adapters {
        entry.trust_workspace = user_trust.get(name).copied().unwrap_or(false);
    }
    check_adapters(&config, registry, rules)?;
    Ok(LoadedConfig {
        config,
        files,
        project_layer,
    })
}

/// Every adapter's credential rules, which error messages are masked with
/// (a broken adapter file is reported when that adapter is used).
fn every_adapters_rules(registry: &Registry) -> CredentialRules {
    // Only the credentials sections: loading every adapter whole (its pane
    // grammar's patterns compiled) cost ~20 ms on every command.
    let all: Vec<CredentialRules> = registry
        .names()
        .iter()
        .filter_map(|name| registry.credentials(name))
        .collect();
    CredentialRules::union(all.iter())
}

/// The files to read, lowest layer first, each as (path, whether it must
/// exist, whether it is the project's own): the user file, then
/// `--config` or the project file.
fn layers<'a>(
    sources: &'a ConfigSources,
    dot_dir: Option<&Path>,
) -> impl Iterator<Item = (&'a Path, bool, bool)> {
    let upper = match &sources.explicit {
        Some(explicit) => Some((
            explicit.as_path(),
            true,
            dot_dir
                .and_then(Path::parent)
                .is_some_and(|root| inside_project(explicit, root)),
        )),
        None => sources
            .project
            .as_deref()
            .map(|project| (project, false, true)),
    };
    sources
        .user
        .as_deref()
        .map(|user| (user, false, false))
        .into_iter()
        .chain(upper)
}

/// Whether the project's own `layer` (read from `path` as `text`) is
/// trusted; when it is not, what runs code or moves a credential is cut
/// out of it.
fn judge_project_layer(
    sources: &ConfigSources,
    dot_dir: Option<&Path>,
    (path, text, metadata): (&Path, &str, &std::fs::Metadata),
    registry: &Registry,
    layer: &mut Value,
) -> ProjectLayer {
    // Judged by the bytes just parsed and the real path of the file they
    // came from (a link is judged by its target).
    let real = real_path_of(path, metadata);
    let sha256 = sha256_hex(text.as_bytes());
    let trusted = match (&sources.trust, &real) {
        (Some(store), Some(real)) => store.is_trusted(real, &sha256),
        _ => false,
    };
    let ignored = if trusted {
        Vec::new()
    } else {
        let root = dot_dir.and_then(Path::parent).unwrap_or(Path::new("/"));
        let safe_keys = |adapter: &str| registry.safe_keys(adapter);
        strip_untrusted(layer, &folder_of(path), &folder_of_dir(root), &safe_keys)
    };
    ProjectLayer {
        path: path.to_owned(),
        explicit: sources.explicit.is_some(),
        real,
        sha256,
        trusted,
        ignored,
    }
}

/// Each configured adapter is known and its entry fits its data.
fn check_adapters(
    config: &ConfigFile,
    registry: &Registry,
    rules: &CredentialRules,
) -> Result<(), ConfigError> {
    for (name, entry) in &config.adapters {
        let data = match registry.load(name) {
            Ok(data) => data,
            Err(RegistryError::Unknown { known, .. }) => {
                return Err(mask_error(
                    ConfigError::Invalid {
                        key: format!("adapters.{name}"),
                        message: format!("unknown adapter; known adapters: {}", known.join(", ")),
                    },
                    rules,
                ))
            }
            Err(error) => {
                return Err(ConfigError::AdapterFile {
                    key: format!("adapters.{name}"),
                    source: Box::new(error),
                })
            }
        };
        check_semantics(name, entry, &data).map_err(|error| mask_error(error, rules))?;
    }
    Ok(())
}

/// `dir` made absolute (the project root, for the outside-the-project test).
fn folder_of_dir(dir: &Path) -> PathBuf {
    std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned())
}

/// The absolute folder of a config file.
fn folder_of(path: &Path) -> PathBuf {
    let parent = path.parent().unwrap_or(Path::new("."));
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    std::path::absolute(parent).unwrap_or_else(|_| parent.to_owned())
}

/// The adapters whose `skills` this layer sets (their paths are relative
/// to this layer's file).
fn skill_setters(layer: &Value) -> Vec<String> {
    let Some(Value::Mapping(adapters)) = layer.get("adapters") else {
        return Vec::new();
    };
    adapters
        .iter()
        .filter(|(_, entry)| entry.get("skills").is_some_and(|skills| !skills.is_null()))
        .filter_map(|(name, _)| name.as_str().map(str::to_owned))
        .collect()
}

/// `adapters.<name>.trustWorkspace` as the user file sets it.
fn trust_settings(layer: &Value) -> BTreeMap<String, bool> {
    let Some(Value::Mapping(adapters)) = layer.get("adapters") else {
        return Default::default();
    };
    adapters
        .iter()
        .filter_map(|(name, entry)| {
            let trust = entry.get("trustWorkspace")?.as_bool()?;
            Some((name.as_str()?.to_owned(), trust))
        })
        .collect()
}

/// Checks one file alone against the schema (for positions) and returns
/// its YAML tree.
fn read_layer(path: &Path, text: &str, rules: &CredentialRules) -> Result<Value, ConfigError> {
    // The parser reports a NUL or another character YAML forbids at 1:1
    // whatever its place (and a byte offset besides): name the real one.
    if let Some((offset, character)) = text
        .char_indices()
        .find(|&(_, character)| !yaml_printable(character))
    {
        let (line, column) = position_of(text, offset);
        let message = if character == '\0' {
            "the file contains a NUL byte".to_owned()
        } else {
            format!(
                "the file contains a control character (U+{:04X})",
                u32::from(character)
            )
        };
        return Err(ConfigError::Parse {
            path: path.to_owned(),
            line,
            column,
            message,
        });
    }
    let positioned = |error: serde_yaml_ng::Error| match error.location() {
        Some(location) => ConfigError::Parse {
            path: path.to_owned(),
            line: location.line(),
            column: location.column(),
            message: mask_credentials(
                &without_location(&error.to_string(), location.line(), location.column()),
                rules,
            ),
        },
        None => ConfigError::ParseNoPosition {
            path: path.to_owned(),
            message: mask_credentials(&error.to_string(), rules),
        },
    };
    let value: Value = serde_yaml_ng::from_str(text).map_err(positioned)?;
    if value.is_null() {
        return Ok(Value::Mapping(Default::default()));
    }
    let _: ConfigFile = serde_yaml_ng::from_str(text).map_err(positioned)?;
    Ok(value)
}

/// Whether YAML's parser accepts `character` in a stream (YAML 1.1
/// `c-printable`, as libyaml checks it).
fn yaml_printable(character: char) -> bool {
    matches!(
        character,
        '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}'
    ) || character >= '\u{10000}'
}

/// `message` without the parser's own " at line N column M" for the
/// position the error prefix already names (`path:line:column`).
fn without_location(message: &str, line: usize, column: usize) -> String {
    message.replacen(&format!(" at line {line} column {column}"), "", 1)
}

/// Maps merge key by key; anything else in `upper` replaces `lower`, but
/// a `null` in `upper` counts as not set: a project file whose `<adapter>:` has
/// every line commented out must not wipe the user file's settings.
fn merge(lower: &mut Value, upper: Value) {
    match (lower, upper) {
        (_, Value::Null) => {}
        (Value::Mapping(lower), Value::Mapping(upper)) => {
            for (key, value) in upper {
                match lower.get_mut(&key) {
                    Some(existing) => merge(existing, value),
                    None => {
                        lower.insert(key, value);
                    }
                }
            }
        }
        (lower, upper) => *lower = upper,
    }
}

fn check_semantics(
    adapter: &str,
    config: &super::schema::AdapterConfig,
    data: &AdapterData,
) -> Result<(), ConfigError> {
    match (&config.cli.path, config.cli.source) {
        (Some(_), source) if source != SourceKind::Path => {
            return Err(ConfigError::Invalid {
                key: format!("adapters.{adapter}.cli.path"),
                message: format!(
                    "`path` is only allowed with `source: path` (source is `{source}`)"
                ),
            })
        }
        (None, SourceKind::Path) => {
            return Err(ConfigError::Invalid {
                key: format!("adapters.{adapter}.cli.path"),
                message: format!(
                    "`source: path` needs `path`, the absolute path of {}",
                    data.binary.name
                ),
            })
        }
        (Some(path), _) if !path.is_absolute() => {
            return Err(ConfigError::Invalid {
                key: format!("adapters.{adapter}.cli.path"),
                message: format!("`{}` is not an absolute path", path.display()),
            })
        }
        _ => {}
    }
    if let (None, Some(trigger)) = (&data.session.hooks, config.hooks.keys().next()) {
        return Err(ConfigError::Invalid {
            key: format!("adapters.{adapter}.hooks.{trigger}"),
            message: format!(
                "{} has no hooks (its adapter data has no `session.hooks`); remove `adapters.{adapter}.hooks`",
                data.display_name
            ),
        });
    }
    for trigger in config.hooks.keys() {
        if !data.session.hook_triggers.contains(trigger) {
            return Err(ConfigError::Invalid {
                key: format!("adapters.{adapter}.hooks.{trigger}"),
                message: format!(
                    "unknown hook trigger `{trigger}`; known triggers: {}",
                    data.session.hook_triggers.join(", ")
                ),
            });
        }
    }
    for (index, skill) in config.skills.iter().enumerate() {
        if skill.name.trim().is_empty() {
            return Err(ConfigError::Invalid {
                key: format!("adapters.{adapter}.skills[{index}].name"),
                message: "a skill needs a non-blank name".to_owned(),
            });
        }
    }
    check_no_credentials(adapter, config, &data.credentials)
}

#[cfg(test)]
#[path = "load_tests.rs"]
mod tests;
