//! The worlds of opencode, Codex and Claude from their
//! built-in data files: TOML settings, opencode's `mcp` map, optional
//! sections (no hooks, no MCP file, no prompt file) said in data, the
//! settings that switch off the agent's own auto-approval, and provider
//! entries whose credential stays in the environment.

#![allow(clippy::disallowed_methods)]

use std::path::Path;

use serde_json::{json, Value};

use super::mcp::Target;
use super::*;
use crate::adapter::data::AdapterData;
use crate::adapter::registry::Registry;
use crate::config::AdapterConfig;

const OPENAI_KEY: &str = "sk-test-openai-key-0123456789abcdef";

fn data(name: &str) -> AdapterData {
    Registry::builtin().load(name).expect("built-in adapter")
}

fn config(yaml: &str) -> AdapterConfig {
    serde_yaml_ng::from_str(yaml).expect("config")
}

fn scrubber(data: &AdapterData) -> Scrubber {
    Scrubber::new(
        vec![("OPENAI_API_KEY".to_owned(), OPENAI_KEY.to_owned())],
        &data.credentials,
    )
}

fn tui() -> Target {
    Target::Tui {
        remote_supported: true,
    }
}

fn file(files: &[RenderedFile], name: &str) -> String {
    files
        .iter()
        .find(|file| file.relative == Path::new(name))
        .map(|file| file.text.clone())
        .unwrap_or_else(|| panic!("{name} planned: {files:?}"))
}

const MCP: &str = "mcpServers:
  github:
    command: /usr/local/bin/github-mcp
    args: [--stdio]
    env: { GITHUB_TOKEN: \"${GITHUB_TOKEN}\" }
  docs:
    url: https://example.com/mcp
    transport: http
  stream:
    url: https://example.com/sse
    transport: sse
";

#[test]
fn opencode_world_asks_and_names_its_provider_key_by_variable() {
    let data = data("opencode");
    let yaml = format!(
        "configContent:
  model: local/gpt-test
  permission:
    bash: allow
  provider:
    local:
      npm: \"@ai-sdk/openai-compatible\"
      options:
        baseURL: http://127.0.0.1:9/v1
        apiKey: \"{{env:OPENAI_API_KEY}}\"
      models:
        gpt-test: {{}}
  mcp:
    stale: {{ type: local, command: [x] }}
{MCP}"
    );
    let context = Context::new(Path::new("/h"), tui()).version("1.18.33");
    let plan = plan_in(&config(&yaml), &data, &context).expect("plan");
    let files = plan.scrubbed(&scrubber(&data)).expect("scrubbed");
    let names: Vec<_> = files.iter().map(|file| file.relative.clone()).collect();
    assert_eq!(names, [std::path::PathBuf::from("opencode.json")]);
    let settings: Value = serde_json::from_str(&file(&files, "opencode.json")).expect("json");
    insta::assert_json_snapshot!("opencode_world", settings);
    assert_eq!(
        settings["permission"],
        json!({"bash": "ask", "edit": "ask"})
    );
    assert_eq!(
        settings["provider"]["local"]["options"]["apiKey"],
        "{env:OPENAI_API_KEY}"
    );
    assert_eq!(
        settings["mcp"]["github"],
        json!({"type": "local", "command": ["/usr/local/bin/github-mcp", "--stdio"], "environment": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}})
    );
    assert!(settings["mcp"].get("stale").is_none());
    assert_eq!(
        plan.diagnostics,
        [
            "`adapters.opencode.configContent.permission.bash` is set by oneworks to `\"ask\"`; the config's value is not used",
            "`adapters.opencode.configContent.mcp` is not used: oneworks writes the servers of `adapters.opencode.mcpServers`",
        ]
    );
    // The forced environment: asked after every config file, offline.
    assert_eq!(
        data.acp.env.get("OPENCODE_PERMISSION").map(String::as_str),
        Some(r#"{"bash":"ask","edit":"ask"}"#)
    );
    assert_eq!(
        data.acp
            .env
            .get("OPENCODE_DISABLE_MODELS_FETCH")
            .map(String::as_str),
        Some("1")
    );
}

#[test]
fn opencode_has_no_hooks_and_no_prompt_file() {
    let data = data("opencode");
    let error = plan_in(
        &config("hooks:\n  stop:\n    - command: ./bye.sh\n"),
        &data,
        &Context::new(Path::new("/h"), Target::Acp),
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "invalid config at `adapters.opencode.hooks`: opencode has no hooks"
    );
    let plan = plan_in(
        &config("systemPrompt: Be brief.\n"),
        &data,
        &Context::new(Path::new("/h"), Target::Acp),
    )
    .expect("plan");
    assert_eq!(plan.files.len(), 1, "{:?}", plan.files);
    assert_eq!(
        plan.diagnostics,
        ["`adapters.opencode.systemPrompt` skipped: opencode reads no prompt file oneworks writes"]
    );
}

#[test]
fn codex_world_is_toml_with_its_provider_and_mcp_servers() {
    let data = data("codex");
    let yaml = format!(
        "configContent:
  model: gpt-test
  model_provider: local
  model_providers:
    local:
      name: Local
      base_url: http://127.0.0.1:9/v1
      env_key: OPENAI_API_KEY
      wire_api: responses
systemPrompt: Be brief.
{MCP}"
    );
    let context = Context::new(Path::new("/h"), tui()).version("2.6.0");
    let plan = plan_in(&config(&yaml), &data, &context).expect("plan");
    let files = plan.scrubbed(&scrubber(&data)).expect("scrubbed");
    let text = file(&files, "config.toml");
    insta::assert_snapshot!("codex_config_toml", text);
    let parsed: Value = toml::from_str(&text).expect("toml");
    assert_eq!(
        parsed["model_providers"]["local"]["env_key"],
        "OPENAI_API_KEY"
    );
    assert_eq!(
        parsed["mcp_servers"]["docs"],
        json!({"url": "https://example.com/mcp", "http_headers": {}})
    );
    assert!(parsed["mcp_servers"].get("stream").is_none());
    assert_eq!(file(&files, "AGENTS.md"), "Be brief.\n");
    assert_eq!(plan.diagnostics.len(), 2, "{:?}", plan.diagnostics);
    assert_eq!(
        plan.diagnostics[0],
        "MCP server `stream` skipped: Codex reads no remote (sse) MCP servers from `config.toml`"
    );
    // Not trusted: no trust level, the TUI asks the person; a note says how.
    assert!(
        plan.diagnostics[1].contains("adapters.codex.trustWorkspace")
            && parsed.get("projects").is_none(),
        "{:?}",
        plan.diagnostics
    );
    // Trusted by the user: the level under the whole path (dots and all).
    let mut trusted = config(&yaml);
    trusted.trust_workspace = true;
    let project = Path::new("/work/my.project");
    let context = Context::new(Path::new("/h"), tui())
        .version("2.6.0")
        .project(project);
    let plan = plan_in(&trusted, &data, &context).expect("plan");
    let parsed: Value = toml::from_str(&file(
        &plan.scrubbed(&scrubber(&data)).expect("scrubbed"),
        "config.toml",
    ))
    .expect("toml");
    assert_eq!(
        parsed["projects"],
        json!({"/work/my.project": {"trust_level": "trusted"}})
    );
    assert_eq!(plan.diagnostics.len(), 1, "{:?}", plan.diagnostics);
    // Approvals go to the person, not a reviewer model.
    assert_eq!(
        data.acp.env.get("INITIAL_AGENT_MODE").map(String::as_str),
        Some("workspace-write")
    );
}

#[test]
fn codex_scrubs_toml_and_refuses_null() {
    let data = data("codex");
    let context = Context::new(Path::new("/h"), Target::Acp);
    // A secret pasted as a value is refused when the config is checked;
    // one that slips into the plan anyway is scrubbed out of the TOML.
    let plan = plan_in(
        &config(
            "configContent:\n  notify: [\"say\", \"token-sk-test-openai-key-0123456789abcdef\"]\n",
        ),
        &data,
        &context,
    )
    .expect("plan");
    let text = file(
        &plan.scrubbed(&scrubber(&data)).expect("scrubbed"),
        "config.toml",
    );
    assert!(!text.contains(OPENAI_KEY), "{text}");
    assert!(toml::from_str::<Value>(&text).is_ok(), "{text}");
    let error = plan_in(&config("configContent:\n  model: null\n"), &data, &context).unwrap_err();
    assert_eq!(
        error.to_string(),
        "invalid config at `adapters.codex.configContent.model`: `null` has no TOML form; leave the key out instead"
    );
}

#[test]
fn claude_world_forces_default_mode_and_keeps_mcp_out_of_files() {
    let data = data("claude");
    let yaml = format!(
        "configContent:
  permissions:
    defaultMode: bypassPermissions
    allow: [\"Bash(ls:*)\"]
hooks:
  PreToolUse:
    - command: ./check.sh
      matcher: Bash
{MCP}"
    );
    let plan = plan_in(&config(&yaml), &data, &Context::new(Path::new("/h"), tui())).expect("plan");
    let files = plan.scrubbed(&scrubber(&data)).expect("scrubbed");
    let settings: Value = serde_json::from_str(&file(&files, "settings.json")).expect("json");
    assert_eq!(
        settings,
        json!({
            "permissions": {"allow": ["Bash(ls:*)"], "defaultMode": "default"},
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh"}]}]},
        })
    );
    assert_eq!(file(&files, "CLAUDE.md"), "");
    let unplaced: Vec<_> = plan
        .diagnostics
        .iter()
        .filter(|line| line.contains("reads MCP servers only from ACP"))
        .collect();
    assert_eq!(unplaced.len(), 3, "{:?}", plan.diagnostics);
    // ACP runs give them in session/new: nothing to say, nothing written.
    let acp = plan_in(
        &config(&yaml),
        &data,
        &Context::new(Path::new("/h"), Target::Acp),
    )
    .expect("plan");
    assert!(
        !acp.diagnostics.iter().any(|line| line.contains("MCP")),
        "{:?}",
        acp.diagnostics
    );
}

#[test]
fn an_agent_without_skills_says_so_and_stages_none() {
    let temp = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(temp.path().join("review")).expect("mkdir");
    std::fs::write(temp.path().join("review/SKILL.md"), "# Review\n").expect("write");
    let mut data = data("codex");
    data.session.skills = None;
    // Its folder-trust note is not what this test is about.
    data.session.trust = None;
    let yaml = format!(
        "skills:\n  - name: Review\n    path: {}\n",
        temp.path().join("review").display()
    );
    let plan = plan_in(
        &config(&yaml),
        &data,
        &Context::new(Path::new("/h"), Target::Acp),
    )
    .expect("plan");
    assert!(plan.skill_dirs.is_empty());
    assert!(
        plan.files
            .iter()
            .all(|file| !file.relative.ends_with("SKILL.md")),
        "{:?}",
        plan.files
    );
    assert_eq!(
        plan.diagnostics,
        ["skills skipped: Codex reads no skills folder (`adapters.codex.skills`)"]
    );
    // A hostile skill source is still refused, staged or not.
    let outside = temp.path().join("linked");
    std::os::unix::fs::symlink(temp.path().join("review"), &outside).expect("symlink");
    let yaml = format!(
        "skills:\n  - name: Linked\n    path: {}\n",
        outside.display()
    );
    assert!(plan_in(
        &config(&yaml),
        &data,
        &Context::new(Path::new("/h"), Target::Acp)
    )
    .is_err());
}

#[test]
fn copilot_reads_its_mcp_servers_from_a_file_of_their_own() {
    let data = data("copilot");
    let context = Context::new(Path::new("/h"), tui()).version("1.0.102");
    let plan = plan_in(&config(MCP), &data, &context).expect("plan");
    let files = plan.scrubbed(&scrubber(&data)).expect("scrubbed");
    let mcp: Value = serde_json::from_str(&file(&files, "mcp-config.json")).expect("json");
    assert_eq!(
        mcp["mcpServers"]["github"]["command"], "/usr/local/bin/github-mcp",
        "{mcp}"
    );
    assert!(mcp["mcpServers"].get("docs").is_some(), "{mcp}");
    // Never in settings.json, where Copilot does not read them.
    let settings: Value = serde_json::from_str(&file(&files, "settings.json")).expect("json");
    assert!(settings.get("mcpServers").is_none(), "{settings}");

    // Without servers the file is still written, empty: an earlier
    // config's servers do not linger.
    let plan = plan_in(&config("{}"), &data, &context).expect("plan");
    let files = plan.scrubbed(&scrubber(&data)).expect("scrubbed");
    let mcp: Value = serde_json::from_str(&file(&files, "mcp-config.json")).expect("json");
    assert_eq!(mcp, json!({"mcpServers": {}}));
}

#[test]
fn claude_gets_its_signal_hook_only_when_a_supervisor_asks() {
    let data = data("claude");
    let yaml = "hooks:\n  PermissionRequest:\n    - command: ./mine.sh\n";
    let command = "'/opt/one works/oneworks' session hook";
    let supervised = Context::new(Path::new("/h"), tui()).signal_hook_command(command);
    let plan = plan_in(&config(yaml), &data, &supervised).expect("plan");
    let files = plan.scrubbed(&scrubber(&data)).expect("scrubbed");
    let settings: Value = serde_json::from_str(&file(&files, "settings.json")).expect("json");
    // The person's own hook first, ours after it, for shell asks.
    assert_eq!(
        settings["hooks"],
        json!({"PermissionRequest": [
            {"hooks": [{"type": "command", "command": "./mine.sh"}]},
            {"matcher": "Bash", "hooks": [{"type": "command", "command": command}]},
        ]})
    );
    // `run` and `config render` ask for none.
    for context in [
        Context::new(Path::new("/h"), Target::Acp),
        Context::new(Path::new("/h"), tui()),
    ] {
        let plan = plan_in(&config(""), &data, &context).expect("plan");
        let files = plan.scrubbed(&scrubber(&data)).expect("scrubbed");
        let settings: Value = serde_json::from_str(&file(&files, "settings.json")).expect("json");
        assert_eq!(settings.get("hooks"), None, "{settings}");
    }
}
