//! Layered loading: the user file `$XDG_CONFIG_HOME/oneworks/config.yaml`,
//! then the project file (or `--config`/`ONEWORKS_CONFIG`) over it. Maps
//! merge key by key; lists and scalars are replaced. Each file is first
//! checked on its own so errors carry its name, line and column.

use std::path::{Path, PathBuf};

use serde_yaml_ng::Value;

use super::credentials::check_no_credentials;
use super::error::ConfigError;
use super::file::{mask_credentials, position_of, read_config_file};
use super::schema::{ConfigFile, SourceKind};
use crate::adapter::data::{AdapterData, CredentialRules};
use crate::fs_safety;

/// Which files to layer.
#[derive(Debug, Clone)]
pub struct ConfigSources {
    /// The user file; skipped when it does not exist.
    pub user: Option<PathBuf>,
    /// The project file; skipped when it does not exist.
    pub project: Option<PathBuf>,
    /// `--config`/`ONEWORKS_CONFIG`: replaces the project file and must exist.
    pub explicit: Option<PathBuf>,
}

#[derive(Debug, Clone, Default)]
pub struct LoadedConfig {
    pub config: ConfigFile,
    /// The files that were read, lowest layer first.
    pub files: Vec<PathBuf>,
}

pub fn load(sources: &ConfigSources, data: &AdapterData) -> Result<LoadedConfig, ConfigError> {
    let rules = &data.credentials;
    // The project's `.oneworks` is refused when linked, whichever file is
    // read: commands write `kiro.lock` and sessions below it.
    if let Some(dot_dir) = sources.project.as_deref().and_then(Path::parent) {
        fs_safety::check_project_dot_dir(dot_dir)?;
    }
    let mut files = Vec::new();
    let mut merged = Value::Mapping(Default::default());
    let mut skills_dir = None;
    let upper = match &sources.explicit {
        Some(explicit) => Some((explicit.as_path(), true)),
        None => sources.project.as_deref().map(|project| (project, false)),
    };
    let layers = sources
        .user
        .as_deref()
        .map(|user| (user, false))
        .into_iter()
        .chain(upper);
    for (path, required) in layers {
        let Some(text) = read_config_file(path, required)? else {
            continue;
        };
        let layer = read_layer(path, &text, rules)?;
        if sets_skills(&layer) {
            skills_dir = Some(folder_of(path));
        }
        merge(&mut merged, layer);
        files.push(path.to_owned());
    }
    let mut config: ConfigFile =
        serde_yaml_ng::from_value(merged).map_err(|error| ConfigError::Invalid {
            key: "adapters".to_owned(),
            message: mask_credentials(&error.to_string(), rules),
        })?;
    if let Some(dir) = skills_dir {
        for skill in &mut config.adapters.kiro.skills {
            skill.path = dir.join(&skill.path);
            skill.config_dir = dir.clone();
        }
    }
    check_semantics(&config, data)?;
    Ok(LoadedConfig { config, files })
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

fn sets_skills(layer: &Value) -> bool {
    layer
        .get("adapters")
        .and_then(|adapters| adapters.get("kiro"))
        .and_then(|kiro| kiro.get("skills"))
        .is_some_and(|skills| !skills.is_null())
}

/// Checks one file alone against the schema (for positions) and returns
/// its YAML tree.
fn read_layer(path: &Path, text: &str, rules: &CredentialRules) -> Result<Value, ConfigError> {
    // The parser reports a NUL at 1:1 whatever its place: name the real one.
    if let Some(offset) = text.find('\0') {
        let (line, column) = position_of(text, offset);
        return Err(ConfigError::Parse {
            path: path.to_owned(),
            line,
            column,
            message: "the file contains a NUL byte".to_owned(),
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

/// `message` without the parser's own " at line N column M" for the
/// position the error prefix already names (`path:line:column`).
fn without_location(message: &str, line: usize, column: usize) -> String {
    message.replacen(&format!(" at line {line} column {column}"), "", 1)
}

/// Maps merge key by key; anything else in `upper` replaces `lower`, but
/// a `null` in `upper` counts as not set: a project file whose `kiro:` has
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

fn check_semantics(config: &ConfigFile, data: &AdapterData) -> Result<(), ConfigError> {
    let kiro = &config.adapters.kiro;
    match (&kiro.cli.path, kiro.cli.source) {
        (Some(_), source) if source != SourceKind::Path => {
            return Err(ConfigError::Invalid {
                key: "adapters.kiro.cli.path".to_owned(),
                message: format!(
                    "`path` is only allowed with `source: path` (source is `{source}`)"
                ),
            })
        }
        (None, SourceKind::Path) => {
            return Err(ConfigError::Invalid {
                key: "adapters.kiro.cli.path".to_owned(),
                message: "`source: path` needs `path`, the absolute path of kiro-cli".to_owned(),
            })
        }
        (Some(path), _) if !path.is_absolute() => {
            return Err(ConfigError::Invalid {
                key: "adapters.kiro.cli.path".to_owned(),
                message: format!("`{}` is not an absolute path", path.display()),
            })
        }
        _ => {}
    }
    for trigger in kiro.hooks.keys() {
        if !data.session.hook_triggers.contains(trigger) {
            return Err(ConfigError::Invalid {
                key: format!("adapters.kiro.hooks.{trigger}"),
                message: format!(
                    "unknown hook trigger `{trigger}`; known triggers: {}",
                    data.session.hook_triggers.join(", ")
                ),
            });
        }
    }
    for (index, skill) in kiro.skills.iter().enumerate() {
        if skill.name.trim().is_empty() {
            return Err(ConfigError::Invalid {
                key: format!("adapters.kiro.skills[{index}].name"),
                message: "a skill needs a non-blank name".to_owned(),
            });
        }
    }
    check_no_credentials(kiro, &data.credentials)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::config::{McpServer, RemoteTransport};

    fn load_text(text: &str) -> Result<LoadedConfig, ConfigError> {
        let temp = tempfile::tempdir().expect("tempdir");
        let path = temp.path().join("config.yaml");
        std::fs::write(&path, text).expect("write");
        let sources = ConfigSources {
            user: None,
            project: Some(path),
            explicit: None,
        };
        load(&sources, &AdapterData::builtin().expect("data"))
    }

    #[test]
    fn bad_version_names_line_and_column() {
        let error =
            load_text("adapters:\n  kiro:\n    cli:\n      version: nonsense\n").unwrap_err();
        let message = error.to_string();
        assert!(
            matches!(
                error,
                ConfigError::Parse {
                    line: 4,
                    column: 7,
                    ..
                }
            ),
            "{message}"
        );
        assert!(message.contains("config.yaml:4:"), "{message}");
        assert!(message.contains("invalid version"), "{message}");
        assert!(
            !message.contains("nonsense"),
            "the value is not echoed: {message}"
        );
    }

    #[test]
    fn positions_are_named_once() {
        for (text, line) in [
            ("adapters:\n  kiro:\n    cli:\n      version: nonsense\n", 4),
            ("adapters:\n  kiro:\n    colour: red\n", 3),
            ("adapters:\n  kiro:\n    passEnv: [A\n", 4),
        ] {
            let error = load_text(text).unwrap_err();
            let message = error.to_string();
            assert!(
                matches!(error, ConfigError::Parse { line: found, .. } if found == line),
                "{message}"
            );
            assert!(
                message.contains(&format!("config.yaml:{line}:")),
                "{message}"
            );
            assert!(
                !message.contains(&format!("at line {line} column")),
                "the position is repeated: {message}"
            );
        }
    }

    #[test]
    fn mcp_server_errors_say_what_is_wrong() {
        let error =
            load_text("adapters:\n  kiro:\n    mcpServers:\n      x:\n        comand: /bin/x\n")
                .unwrap_err();
        let message = error.to_string();
        assert!(
            matches!(error, ConfigError::Parse { line: 5, .. }),
            "{message}"
        );
        assert!(message.contains("unknown field `comand`"), "{message}");
        assert!(!message.contains("untagged"), "{message}");
        for (text, expected) in [
            (
                "adapters:\n  kiro:\n    mcpServers:\n      x:\n        args: [a]\n",
                "needs `command` (a local server) or `url`",
            ),
            (
                "adapters:\n  kiro:\n    mcpServers:\n      x:\n        command: /bin/x\n        url: https://example.com\n",
                "not both",
            ),
            (
                "adapters:\n  kiro:\n    mcpServers:\n      x:\n        command: /bin/x\n        headers: {a: b}\n",
                "`headers` only apply to remote servers",
            ),
            (
                "adapters:\n  kiro:\n    mcpServers:\n      x:\n        url: https://example.com\n        env: {A: b}\n",
                "`env` only apply to local servers",
            ),
        ] {
            let error = load_text(text).unwrap_err();
            let message = error.to_string();
            assert!(matches!(error, ConfigError::Parse { .. }), "{message}");
            assert!(message.contains(expected), "{text}: {message}");
        }
        let loaded = load_text(
            "adapters:\n  kiro:\n    mcpServers:\n      a:\n        command: /bin/a\n      b:\n        url: https://example.com/mcp\n        transport: sse\n",
        )
        .expect("valid servers");
        let servers = &loaded.config.adapters.kiro.mcp_servers;
        assert!(matches!(&servers["a"], McpServer::Local(local) if local.command == "/bin/a"));
        assert!(
            matches!(&servers["b"], McpServer::Remote(remote) if remote.transport == RemoteTransport::Sse)
        );
    }

    #[test]
    fn unknown_key_and_relative_dir_are_refused() {
        let error = load_text("adapters:\n  kiro:\n    colour: red\n").unwrap_err();
        assert!(
            matches!(error, ConfigError::Parse { line: 3, .. }),
            "{error}"
        );
        let error =
            load_text("adapters:\n  kiro:\n    additionalDirs: [relative/dir]\n").unwrap_err();
        assert!(
            error.to_string().contains("not an absolute path"),
            "{error}"
        );
    }

    #[test]
    fn path_needs_path_source() {
        let error =
            load_text("adapters:\n  kiro:\n    cli:\n      path: /opt/kiro-cli\n").unwrap_err();
        assert!(
            error.to_string().contains("adapters.kiro.cli.path"),
            "{error}"
        );
        let loaded = load_text(
            "adapters:\n  kiro:\n    cli:\n      source: path\n      path: /opt/kiro-cli\n",
        )
        .expect("valid");
        assert_eq!(loaded.config.adapters.kiro.cli.source, SourceKind::Path);
    }

    #[test]
    fn empty_file_is_defaults() {
        let loaded = load_text("").expect("empty config is valid");
        assert_eq!(loaded.config.adapters.kiro.cli.source, SourceKind::Managed);
    }

    #[test]
    fn layers_merge_maps_and_replace_lists() {
        let temp = tempfile::tempdir().expect("tempdir");
        let user = temp.path().join("user.yaml");
        let project = temp.path().join("project.yaml");
        std::fs::write(
            &user,
            "adapters:\n  kiro:\n    passEnv: [A, B]\n    configContent:\n      telemetry.enabled: false\n      chat.defaultModel: m1\n",
        )
        .expect("write");
        std::fs::write(
            &project,
            "adapters:\n  kiro:\n    passEnv: [C]\n    configContent:\n      chat.defaultModel: m2\n",
        )
        .expect("write");
        let sources = ConfigSources {
            user: Some(user),
            project: Some(project),
            explicit: None,
        };
        let loaded = load(&sources, &AdapterData::builtin().expect("data")).expect("loads");
        let kiro = &loaded.config.adapters.kiro;
        assert_eq!(kiro.pass_env.len(), 1);
        let content = kiro.config_content.as_ref().expect("content");
        assert_eq!(content["telemetry.enabled"], false);
        assert_eq!(content["chat.defaultModel"], "m2");
        assert_eq!(loaded.files.len(), 2);
    }

    #[test]
    fn null_in_the_upper_layer_keeps_the_lower_one() {
        let temp = tempfile::tempdir().expect("tempdir");
        let user = temp.path().join("user.yaml");
        let project = temp.path().join("project.yaml");
        std::fs::write(
            &user,
            "adapters:\n  kiro:\n    cli:\n      source: system\n    passEnv: [A]\n",
        )
        .expect("write");
        // Everything under `kiro:` commented out: `kiro` is null.
        std::fs::write(
            &project,
            "adapters:\n  kiro:\n#    cli:\n#      source: managed\n",
        )
        .expect("write");
        let sources = ConfigSources {
            user: Some(user),
            project: Some(project.clone()),
            explicit: None,
        };
        let data = AdapterData::builtin().expect("data");
        let loaded = load(&sources, &data).expect("loads");
        assert_eq!(loaded.config.adapters.kiro.cli.source, SourceKind::System);
        assert_eq!(loaded.config.adapters.kiro.pass_env.len(), 1);
        // A null deeper down, with a set sibling, behaves the same.
        std::fs::write(
            &project,
            "adapters:\n  kiro:\n    cli:\n    passEnv: [B, C]\n",
        )
        .expect("write");
        let loaded = load(&sources, &data).expect("loads");
        assert_eq!(loaded.config.adapters.kiro.cli.source, SourceKind::System);
        assert_eq!(loaded.config.adapters.kiro.pass_env.len(), 2);
    }

    #[test]
    fn relative_skill_paths_follow_the_file_that_set_them() {
        let temp = tempfile::tempdir().expect("tempdir");
        let user_dir = temp.path().join("user");
        let project_dir = temp.path().join("project/.oneworks");
        std::fs::create_dir_all(&user_dir).expect("mkdir");
        std::fs::create_dir_all(&project_dir).expect("mkdir");
        let user = user_dir.join("config.yaml");
        let project = project_dir.join("config.yaml");
        std::fs::write(
            &user,
            "adapters:\n  kiro:\n    skills:\n      - name: a\n        path: ./skills/a\n",
        )
        .expect("write");
        std::fs::write(&project, "adapters:\n  kiro:\n    systemPrompt: hi\n").expect("write");
        let sources = ConfigSources {
            user: Some(user),
            project: Some(project.clone()),
            explicit: None,
        };
        let data = AdapterData::builtin().expect("data");
        let loaded = load(&sources, &data).expect("loads");
        let skill = &loaded.config.adapters.kiro.skills[0];
        assert_eq!(skill.path, user_dir.join("skills/a"));
        assert_eq!(skill.config_dir, user_dir);

        std::fs::write(
            &project,
            "adapters:\n  kiro:\n    skills:\n      - name: b\n        path: ./skills/b\n",
        )
        .expect("write");
        let loaded = load(&sources, &data).expect("loads");
        let skill = &loaded.config.adapters.kiro.skills[0];
        assert_eq!(skill.path, project_dir.join("skills/b"));
        assert_eq!(skill.config_dir, project_dir);
    }

    #[test]
    fn control_characters_in_messages_are_escaped() {
        let error = load_text("adapters:\n  kiro:\n    \"\\e[2Jx\": 1\n").unwrap_err();
        let message = error.to_string();
        assert!(!message.contains('\u{1b}'), "{message:?}");
        assert!(message.contains("\\u{1b}[2Jx"), "{message:?}");
    }

    #[test]
    fn unknown_hook_trigger_is_refused() {
        let error =
            load_text("adapters:\n  kiro:\n    hooks:\n      beforeAll:\n        - command: x\n")
                .unwrap_err();
        assert!(
            error.to_string().contains("adapters.kiro.hooks.beforeAll"),
            "{error}"
        );
    }
}
