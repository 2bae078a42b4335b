//! Tests of the layered loading.
#![allow(clippy::disallowed_methods)]
use super::*;
use crate::config::{McpServer, RemoteTransport};

fn load_text(text: &str) -> Result<LoadedConfig, ConfigError> {
    let temp = tempfile::tempdir().expect("tempdir");
    let path = temp.path().join("config.yaml");
    std::fs::write(&path, text).expect("write");
    // Named with `--config` outside any project: trusted.
    let sources = ConfigSources {
        user: None,
        project: None,
        explicit: Some(path),
        trust: None,
    };
    load(&sources, &crate::adapter::registry::Registry::builtin())
}

#[test]
fn bad_version_names_line_and_column() {
    let error = load_text("adapters:\n  kiro:\n    cli:\n      version: nonsense\n").unwrap_err();
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
    let servers = &loaded.config.adapters["kiro"].mcp_servers;
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
    let error = load_text("adapters:\n  kiro:\n    additionalDirs: [relative/dir]\n").unwrap_err();
    assert!(
        error.to_string().contains("not an absolute path"),
        "{error}"
    );
}

#[test]
fn path_needs_path_source() {
    let error = load_text("adapters:\n  kiro:\n    cli:\n      path: /opt/kiro-cli\n").unwrap_err();
    assert!(
        error.to_string().contains("adapters.kiro.cli.path"),
        "{error}"
    );
    let loaded =
        load_text("adapters:\n  kiro:\n    cli:\n      source: path\n      path: /opt/kiro-cli\n")
            .expect("valid");
    assert_eq!(loaded.config.adapters["kiro"].cli.source, SourceKind::Path);
}

#[test]
fn empty_file_is_defaults() {
    let loaded = load_text("").expect("empty config is valid");
    assert_eq!(
        loaded.config.adapter("kiro").cli.source,
        SourceKind::Managed
    );
}

#[test]
fn an_unknown_adapter_is_refused_naming_the_known_ones() {
    let error = load_text("adapters:\n  nope:\n    passEnv: [A]\n").unwrap_err();
    let message = error.to_string();
    assert!(message.contains("adapters.nope"), "{message}");
    let known = message.split("known adapters: ").nth(1).unwrap_or_default();
    for name in crate::adapter::registry::Registry::builtin().names() {
        assert!(known.split(", ").any(|k| k == name), "{name}: {message}");
    }
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
        project: None,
        explicit: Some(project),
        trust: None,
    };
    let loaded = load(&sources, &crate::adapter::registry::Registry::builtin()).expect("loads");
    let kiro = &loaded.config.adapters["kiro"];
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
        project: None,
        explicit: Some(project.clone()),
        trust: None,
    };
    let data = crate::adapter::registry::Registry::builtin();
    let loaded = load(&sources, &data).expect("loads");
    assert_eq!(
        loaded.config.adapters["kiro"].cli.source,
        SourceKind::System
    );
    assert_eq!(loaded.config.adapters["kiro"].pass_env.len(), 1);
    // A null deeper down, with a set sibling, behaves the same.
    std::fs::write(
        &project,
        "adapters:\n  kiro:\n    cli:\n    passEnv: [B, C]\n",
    )
    .expect("write");
    let loaded = load(&sources, &data).expect("loads");
    assert_eq!(
        loaded.config.adapters["kiro"].cli.source,
        SourceKind::System
    );
    assert_eq!(loaded.config.adapters["kiro"].pass_env.len(), 2);
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
        trust: None,
    };
    let data = crate::adapter::registry::Registry::builtin();
    let loaded = load(&sources, &data).expect("loads");
    let skill = &loaded.config.adapters["kiro"].skills[0];
    assert_eq!(skill.path, user_dir.join("skills/a"));
    assert_eq!(skill.config_dir, user_dir);

    std::fs::write(
        &project,
        "adapters:\n  kiro:\n    skills:\n      - name: b\n        path: ./skills/b\n",
    )
    .expect("write");
    let loaded = load(&sources, &data).expect("loads");
    let skill = &loaded.config.adapters["kiro"].skills[0];
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
