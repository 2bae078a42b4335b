//! The profile shapes of the built-in opencode, Codex and Claude adapters
//! through the binary: Codex's TOML `config.toml` with a
//! provider entry whose key stays in the environment, opencode's `mcp` map
//! and forced `permission`, Claude's forced `defaultMode`, and the optional
//! sections — hooks for an agent without hooks are a config error naming
//! it (nothing written), MCP servers no file carries are named, never
//! dropped silently.

use std::path::{Path, PathBuf};

use crate::support::TestEnv;

const KEY: &str = "sk-test-provider-key-0123456789abcdef";

fn home(env: &TestEnv, adapter: &str) -> PathBuf {
    env.project
        .join(format!(".oneworks/sessions/default/{adapter}-home"))
}

/// Every file under `root`, with its text.
fn files(root: &Path) -> Vec<(PathBuf, String)> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read dir").flatten() {
            let path = entry.path();
            if entry.file_type().expect("type").is_dir() {
                stack.push(path);
            } else {
                let text =
                    String::from_utf8_lossy(&std::fs::read(&path).expect("read")).into_owned();
                found.push((path, text));
            }
        }
    }
    found
}

#[test]
fn codex_config_is_toml_and_its_provider_key_stays_in_the_environment() {
    let mut env = TestEnv::new();
    env.set_env("OPENAI_API_KEY", KEY);
    env.write_config(
        "adapters:
  codex:
    configContent:
      model: gpt-test
      model_provider: local
      model_providers:
        local:
          name: Local
          base_url: http://127.0.0.1:9/v1
          env_key: OPENAI_API_KEY
          wire_api: responses
    systemPrompt: Be brief.
",
    );
    let outcome = env.run(&["config", "render", "codex"]);
    outcome.assert_success();
    let home = home(&env, "codex");
    let text = std::fs::read_to_string(home.join("config.toml")).expect("config.toml");
    assert_eq!(
        text,
        "check_for_update_on_startup = false
model = \"gpt-test\"
model_provider = \"local\"

[features]
daemon_auto_start = false
shell_snapshot = false

[model_providers.local]
base_url = \"http://127.0.0.1:9/v1\"
env_key = \"OPENAI_API_KEY\"
name = \"Local\"
wire_api = \"responses\"
"
    );
    assert_eq!(
        std::fs::read_to_string(home.join("AGENTS.md")).expect("AGENTS.md"),
        "Be brief.\n"
    );
    for (path, text) in files(&env.project.join(".oneworks")) {
        assert!(!text.contains(KEY), "{} holds the key", path.display());
    }
}

#[test]
fn a_key_pasted_into_codex_toml_is_refused_and_nothing_is_written() {
    let mut env = TestEnv::new();
    env.set_env("OPENAI_API_KEY", KEY);
    env.write_config(&format!(
        "adapters:\n  codex:\n    configContent:\n      model_providers:\n        local:\n          api_key: {KEY}\n"
    ));
    let outcome = env.run(&["config", "render", "codex"]);
    outcome.assert_code(3);
    let message = &outcome.stderr;
    assert!(message.contains("adapters.codex"), "{}", outcome.describe());
    outcome.assert_stderr_lacks(KEY);
    assert!(!home(&env, "codex").exists(), "nothing written");
}

#[test]
fn hooks_for_opencode_are_a_config_error_naming_it() {
    let env = TestEnv::new();
    env.write_config(
        "adapters:\n  opencode:\n    hooks:\n      stop:\n        - command: ./bye.sh\n",
    );
    for args in [
        &["config", "check"][..],
        &["config", "render", "opencode"][..],
    ] {
        let outcome = env.run(args);
        outcome.assert_code(3);
        let message = &outcome.stderr;
        assert!(
            message.contains("adapters.opencode.hooks.stop")
                && message.contains("opencode has no hooks"),
            "{args:?}: {message}"
        );
    }
    assert!(!home(&env, "opencode").exists(), "nothing written");
}

#[test]
fn opencode_asks_and_gets_its_mcp_map() {
    let env = TestEnv::new();
    env.write_config(
        "adapters:
  opencode:
    configContent:
      permission: allow
      provider:
        local:
          npm: \"@ai-sdk/openai-compatible\"
          options:
            baseURL: http://127.0.0.1:9/v1
            apiKey: \"{env:OPENAI_API_KEY}\"
    mcpServers:
      github:
        command: /usr/local/bin/github-mcp
        args: [--stdio]
",
    );
    let outcome = env.run(&["config", "render", "opencode"]);
    outcome.assert_success();
    assert!(
        outcome.stderr.contains("permission.bash"),
        "the replaced permission is reported: {}",
        outcome.describe()
    );
    let text = std::fs::read_to_string(home(&env, "opencode").join("opencode.json"))
        .expect("opencode.json");
    let settings: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(
        settings["permission"],
        serde_json::json!({"bash": "ask", "edit": "ask"})
    );
    assert_eq!(
        settings["mcp"]["github"],
        serde_json::json!({"type": "local", "command": ["/usr/local/bin/github-mcp", "--stdio"], "environment": {}})
    );
    assert!(settings.get("mcpServers").is_none(), "{text}");
}

#[test]
fn claude_names_mcp_servers_no_file_carries() {
    let env = TestEnv::new();
    env.write_config(
        "adapters:
  claude:
    configContent:
      permissions:
        defaultMode: bypassPermissions
    mcpServers:
      github:
        command: /usr/local/bin/github-mcp
",
    );
    let outcome = env.run(&["config", "render", "claude"]);
    outcome.assert_success();
    assert!(
        outcome
            .stderr
            .contains("MCP server `github` not written: Claude reads MCP servers only from ACP"),
        "{}",
        outcome.describe()
    );
    let text =
        std::fs::read_to_string(home(&env, "claude").join("settings.json")).expect("settings.json");
    assert_eq!(
        text,
        "{\n  \"permissions\": {\n    \"defaultMode\": \"default\"\n  }\n}\n"
    );
}
