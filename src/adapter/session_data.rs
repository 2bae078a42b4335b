//! The `session:` section of an adapter data file: the agent's profile
//! world (SPEC §5, §11.3) — which variable relocates its home, and which
//! files `config.yaml` becomes in that home. The shapes are a small fixed
//! set that `profile::materialize` implements (a settings file that is flat
//! or nested JSON, an optional agent file, MCP servers and hooks in the
//! agent file or the settings file, in one of a few JSON forms, …); the data
//! picks among them and names the paths, keys and values.

use serde::Deserialize;
use serde_json::{Map, Value};

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionData {
    /// The variable that points the agent at the session's home.
    pub home_variable: String,
    /// The agent oneworks writes and starts (`acp --agent <name>`); empty
    /// when the adapter has no agent file.
    #[serde(default)]
    pub agent_name: String,
    /// The hook triggers `config.yaml` may name.
    pub hook_triggers: Vec<String>,
    /// Remote (http/sse) MCP servers in the file oneworks writes for a TUI
    /// session (agent or settings file), by minimum version; `None` = not
    /// supported by any known release.
    pub remote_mcp_in_agent_file_since: Option<String>,
    /// The agent's own login, run in the profile world.
    pub login_command: Vec<String>,
    /// The settings file `configContent` becomes.
    pub settings: SettingsFileData,
    /// The agent file (Kiro's custom agent), if the adapter has one.
    #[serde(default)]
    pub agent_file: Option<AgentFileData>,
    /// Where `systemPrompt` goes.
    pub system_prompt: SystemPromptData,
    pub skills: SkillsData,
    pub mcp_servers: McpServersData,
    pub hooks: HooksData,
    /// Writing the chosen login method into the settings file.
    #[serde(default)]
    pub auth: Option<AuthData>,
    /// Folder trust (an agent that skips features in untrusted folders).
    #[serde(default)]
    pub trust: Option<TrustData>,
    /// Files written as they are (oneworks' own, no config in them).
    #[serde(default)]
    pub extra_files: Vec<ExtraFile>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SettingsFormat {
    /// One JSON object of dotted keys (`{"telemetry.enabled": false}`).
    FlatJson,
    /// Nested JSON objects (`{"telemetry": {"enabled": false}}`).
    NestedJson,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SettingsFileData {
    /// Relative to the agent's home.
    pub path: String,
    pub format: SettingsFormat,
    /// Dotted keys oneworks sets whatever `configContent` says (a user
    /// value that differs is reported, then replaced).
    #[serde(default)]
    pub forced: Map<String, Value>,
    /// Dotted keys the agent writes into this file itself (the method of
    /// a login made in its TUI): kept from the file on disk when oneworks
    /// does not set them, so a rewrite does not undo the login.
    #[serde(default)]
    pub keep: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgentFileData {
    /// The folder of `<agentName>.json`, relative to the agent's home.
    pub dir: String,
    /// The description unless `agentConfig` gives one.
    pub description: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SystemPromptData {
    /// Relative to the agent's home.
    pub path: String,
    /// Front matter put before the prompt (`inclusion: always`), between
    /// `---` lines; oneworks' own, never scrubbed away.
    #[serde(default)]
    pub front_matter: Option<String>,
    /// Written (empty) even without a `systemPrompt`: the agent reads the
    /// file by itself, so one left from an earlier prompt would stay in use.
    #[serde(default)]
    pub always: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SkillsData {
    /// `<dir>/<skill>/SKILL.md`, relative to the agent's home.
    pub dir: String,
    /// The first version that reads skills; older ones get a diagnostic
    /// and no skills. `None`: every version.
    #[serde(default)]
    pub since: Option<String>,
}

/// Which file holds a list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Place {
    AgentFile,
    Settings,
}

/// The JSON form of an MCP server in a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum McpShape {
    /// `{command, args, env}`; remote `{url, type: http|sse, headers}`
    /// (Kiro).
    TypedUrl,
    /// `{command, args, env}`; remote `{httpUrl, headers}` for http,
    /// `{url, headers}` for sse (Gemini).
    UrlByTransport,
}

/// The JSON form of a trigger's hook list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum HookShape {
    /// `[{command, matcher?}]` (Kiro).
    Flat,
    /// `[{matcher?, hooks: [{type: command, command}]}]` (Gemini).
    Grouped,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpServersData {
    pub place: Place,
    pub shape: McpShape,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HooksData {
    pub place: Place,
    pub shape: HookShape,
    /// Dotted settings keys set when any hook is written (a hooks system
    /// that is off unless switched on).
    #[serde(default)]
    pub enable: Map<String, Value>,
    /// The hook a session supervisor may ask for to learn of pending
    /// approvals (Gemini's `Notification` for `ToolPermission`).
    #[serde(default)]
    pub notification: Option<NotificationHookData>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NotificationHookData {
    /// The trigger (event) name.
    pub event: String,
    pub matcher: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AuthData {
    /// The dotted settings key that holds the method id.
    pub settings_key: String,
    /// Variables that imply a method when `auth.method` is not configured,
    /// first match wins. Only the method is written, never a value.
    #[serde(default)]
    pub implied_by: Vec<ImpliedAuth>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImpliedAuth {
    pub variable: String,
    /// The value the variable must have; `None`: any non-empty value.
    #[serde(default)]
    pub equals: Option<String>,
    pub method: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TrustData {
    /// The trusted-folders file, relative to the agent's home: `{<project>:
    /// <level>}` when the user trusts the project, else `{<project>:
    /// <untrustedLevel>}` (oneworks owns it, so no trust outlives the
    /// user's config).
    pub path: String,
    pub level: String,
    /// The explicit "not trusted" level: an agent asked nothing stops at a
    /// trust dialog. `None`: the project is left out.
    #[serde(default)]
    pub untrusted_level: Option<String>,
    /// What the agent skips in an untrusted folder, for the warning.
    pub untrusted_skips: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExtraFile {
    /// Relative to the agent's home.
    pub path: String,
    pub contents: String,
}
