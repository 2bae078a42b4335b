//! The `session:` section of an adapter data file: the agent's profile
//! world — which variable relocates its home, and which
//! files `config.yaml` becomes in that home. The shapes are a small fixed
//! set that `profile::materialize` implements (a settings file that is flat
//! or nested JSON or TOML, an optional agent file, MCP servers and hooks in
//! the agent file or the settings file, in one of a few forms, …); the data
//! picks among them and names the paths, keys and values. Skills, MCP
//! servers in a file and hooks are optional sections: an adapter whose agent
//! has none says so by leaving the section out, and a config that asks for
//! one gets an error or a diagnostic naming the adapter and what it lacks.

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
    /// The hook triggers `config.yaml` may name (none without `hooks`).
    #[serde(default)]
    pub hook_triggers: Vec<String>,
    /// Remote (http/sse) MCP servers in the file oneworks writes for a TUI
    /// session (agent or settings file), by minimum version; `None` = not
    /// supported by any known release.
    #[serde(default)]
    pub remote_mcp_in_agent_file_since: Option<String>,
    /// The agent's own login, run in the profile world.
    #[serde(default)]
    pub login_command: Vec<String>,
    /// The settings file `configContent` becomes.
    pub settings: SettingsFileData,
    /// The agent file (Kiro's custom agent), if the adapter has one.
    #[serde(default)]
    pub agent_file: Option<AgentFileData>,
    /// Where `systemPrompt` goes; `None`: no file oneworks writes is read
    /// as a prompt (a configured prompt is skipped with a diagnostic).
    #[serde(default)]
    pub system_prompt: Option<SystemPromptData>,
    /// Where skills are staged; `None`: the agent reads no skills folder
    /// (configured skills are skipped with a diagnostic).
    #[serde(default)]
    pub skills: Option<SkillsData>,
    /// The file MCP servers go into for a TUI session; `None`: the agent
    /// reads MCP servers from no file oneworks writes (ACP `session/new`
    /// only; a TUI session skips them with a diagnostic, never silently).
    #[serde(default)]
    pub mcp_servers: Option<McpServersData>,
    /// The agent's hooks; `None`: it has none (a config with hooks is a
    /// config error naming the adapter).
    #[serde(default)]
    pub hooks: Option<HooksData>,
    /// Writing the chosen login method into the settings file.
    #[serde(default)]
    pub auth: Option<AuthData>,
    /// Folder trust (an agent that skips features in untrusted folders).
    #[serde(default)]
    pub trust: Option<TrustData>,
    /// Files written as they are (oneworks' own, no config in them).
    #[serde(default)]
    pub extra_files: Vec<ExtraFile>,
    /// The agent's own state file, where a few keys are set (first-run
    /// dialogs done, folder trust) and everything else is kept.
    #[serde(default)]
    pub state_file: Option<StateFileData>,
    /// Credentials the agent's own TUI must not find under their usual
    /// name (it would ask about them, and keep part of them on a yes).
    #[serde(default)]
    pub tui_credentials: Vec<MovedCredential>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SettingsFormat {
    /// One JSON object of dotted keys (`{"telemetry.enabled": false}`).
    FlatJson,
    /// Nested JSON objects (`{"telemetry": {"enabled": false}}`).
    NestedJson,
    /// A TOML document, nested like `nestedJson` (Codex's `config.toml`:
    /// `[model_providers.local] base_url = …`). JSON `null` has no TOML
    /// form: a config value that is `null` is refused.
    Toml,
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
    /// The keys of `configContent` that apply from an untrusted project
    /// config; every other key of it applies only once the
    /// person trusted the file. Empty unless each key was checked against
    /// what the agent does with it.
    #[serde(default)]
    pub safe_keys: Vec<SafeKey>,
}

/// One key of the agent's settings (`configContent`, `agentConfig`) that
/// an untrusted project config may set (an agent's settings
/// are code, so these lists are allow-lists).
///
/// `path` is a dotted key path (`model`, `ui.theme`, `telemetry.enabled`)
/// matched segment by segment against the key as the settings file gets
/// it: a flat dotted key (`telemetry.enabled: false`, as Kiro's file holds
/// them) and nested maps (`telemetry: {enabled: false}`) are the same key.
/// A listed key is a leaf: it applies only with a scalar value (a map or a
/// list under it is left out, so nothing can hide below an allowed key),
/// and a string only when it is plain text (see
/// `config::untrusted_settings`), which keeps out the agents' own
/// `${VAR}`, `{env:…}` and `{file:…}` substitutions. Written as a map of
/// one entry (`telemetry.enabled: false`), only that value applies.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(try_from = "SafeKeyText")]
pub struct SafeKey {
    pub path: String,
    /// The one value that applies; `None`: any plain scalar.
    pub only: Option<Value>,
}

/// How a [`SafeKey`] is written: `model`, or `telemetry.enabled: false`.
#[derive(Deserialize)]
#[serde(untagged)]
enum SafeKeyText {
    Path(String),
    Pinned(std::collections::BTreeMap<String, Value>),
}

/// Why a safe key's entry in an adapter file is refused.
#[derive(Debug, thiserror::Error)]
pub enum SafeKeyError {
    #[error("a pinned safe key is a map of exactly one key to its value")]
    NotOnePin,
    #[error("safe key `{0}` is not a dotted key path (no empty segments)")]
    NotAPath(String),
    #[error("safe key `{0}` is a leaf: its value is a scalar, not a map or a list")]
    NotALeaf(String),
}

impl TryFrom<SafeKeyText> for SafeKey {
    type Error = SafeKeyError;

    fn try_from(text: SafeKeyText) -> Result<Self, SafeKeyError> {
        let (path, only) = match text {
            SafeKeyText::Path(path) => (path, None),
            SafeKeyText::Pinned(map) => {
                let mut entries = map.into_iter();
                match (entries.next(), entries.next()) {
                    (Some((path, value)), None) => (path, Some(value)),
                    _ => return Err(SafeKeyError::NotOnePin),
                }
            }
        };
        if path.split('.').any(|segment| segment.trim().is_empty()) {
            return Err(SafeKeyError::NotAPath(path));
        }
        if matches!(&only, Some(Value::Object(_) | Value::Array(_))) {
            return Err(SafeKeyError::NotALeaf(path));
        }
        Ok(SafeKey { path, only })
    }
}

/// An adapter's allow-lists for an untrusted project config:
/// `session.settings.safeKeys` and `session.agentFile.safeKeys`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SafeKeys {
    /// Of `configContent`.
    pub config_content: Vec<SafeKey>,
    /// Of `agentConfig` (empty for an adapter without an agent file).
    pub agent_config: Vec<SafeKey>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgentFileData {
    /// The folder of `<agentName>.json`, relative to the agent's home.
    pub dir: String,
    /// The description unless `agentConfig` gives one.
    pub description: String,
    /// Keys of the file before `agentConfig` merges over it (Kiro's
    /// `tools: ["*"]`): the config may change them.
    #[serde(default)]
    pub base: Map<String, Value>,
    /// Keys oneworks owns, set again after `agentConfig` merged (Kiro's
    /// `includeMcpJson: false`: the agent must not read the project's own
    /// MCP file); scrubbing never takes them away.
    #[serde(default)]
    pub forced: Map<String, Value>,
    /// Where the file lists the files oneworks writes for the agent to
    /// read (the prompt file, the skills); `None`: it lists none.
    #[serde(default)]
    pub resources: Option<AgentResources>,
    /// The keys of `agentConfig` that apply from an untrusted project
    /// config, as [`SettingsFileData::safe_keys`] for `configContent`.
    #[serde(default)]
    pub safe_keys: Vec<SafeKey>,
}

/// The agent file's list of files to read, and how each is named in it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgentResources {
    /// The key of the list (`resources`); entries the config lists stay.
    pub key: String,
    /// The prompt file's entry; `{path}` is its absolute path
    /// (`file://{path}`).
    pub prompt: String,
    /// A skill's entry, for its `SKILL.md` (`skill://{path}`).
    pub skill: String,
}

impl AgentResources {
    /// The entry `template` makes of `path`.
    pub fn entry(template: &str, path: &std::path::Path) -> String {
        template.replace("{path}", &path.display().to_string())
    }
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
    /// Entries of that folder the agent writes itself (Codex's `.system`):
    /// kept when oneworks removes the skills no config names any more.
    #[serde(default)]
    pub agent_owned: Vec<String>,
}

/// Which file holds a list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Place {
    AgentFile,
    Settings,
    /// A JSON file of its own (`file`), holding only `{<key>: {...}}`:
    /// written every time, so servers of an earlier config do not linger.
    OwnFile,
}

/// The form of an MCP server in a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum McpShape {
    /// `{command, args, env}`; remote `{url, type: http|sse, headers}`
    /// (Kiro).
    TypedUrl,
    /// `{command, args, env}`; remote `{httpUrl, headers}` for http,
    /// `{url, headers}` for sse (Gemini).
    UrlByTransport,
    /// `{type: local, command: [command, args…], environment}`; remote
    /// `{type: remote, url, headers}` for http and sse alike (opencode,
    /// which finds the transport itself).
    LocalRemote,
    /// `{command, args, env}`; remote `{url, http_headers}`, streamable
    /// HTTP only: an sse server is skipped with a diagnostic (Codex's
    /// `[mcp_servers.<name>]`).
    HttpHeaders,
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
    /// The key of the server map in that file (`mcpServers`; opencode's
    /// `mcp`, Codex's `mcp_servers`).
    #[serde(default = "mcp_servers_key")]
    pub key: String,
    /// With `place: ownFile`: that file, relative to the agent's home
    /// (Copilot's `mcp-config.json`).
    #[serde(default)]
    pub file: Option<String>,
}

fn mcp_servers_key() -> String {
    "mcpServers".to_owned()
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HooksData {
    pub place: Place,
    pub shape: HookShape,
    /// The key of the hooks map in that file.
    #[serde(default = "hooks_key")]
    pub key: String,
    /// Dotted settings keys set when any hook is written (a hooks system
    /// that is off unless switched on).
    #[serde(default)]
    pub enable: Map<String, Value>,
}

fn hooks_key() -> String {
    "hooks".to_owned()
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
    /// user's config). Exactly one of `path` and `settingsPath`.
    #[serde(default)]
    pub path: Option<String>,
    /// Where the level goes inside the settings file instead, key by key;
    /// the one key [`TRUST_PROJECT`] is the project's path (Codex:
    /// `["projects", "{project}", "trust_level"]`). Written only when the
    /// user trusts the project: untrusted, the agent asks the person.
    #[serde(default)]
    pub settings_path: Option<Vec<String>>,
    /// The level written for a trusted project (the `{<project>: <level>}`
    /// shape, or the settings' level); empty with `listKey`.
    #[serde(default)]
    pub level: String,
    /// The other shape: the file is the agent's own JSON object (other keys
    /// the agent's, kept) whose `listKey` is a list of trusted folders; the
    /// project is in it when the user trusts it and taken out otherwise,
    /// other folders kept.
    #[serde(default)]
    pub list_key: Option<String>,
    /// The explicit "not trusted" level: an agent asked nothing stops at a
    /// trust dialog. `None`: the project is left out.
    #[serde(default)]
    pub untrusted_level: Option<String>,
    /// What the agent skips in an untrusted folder, for the warning.
    pub untrusted_skips: Vec<String>,
}

/// The project's path as one key of [`TrustData::settings_path`].
pub const TRUST_PROJECT: &str = "{project}";

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExtraFile {
    /// Relative to the agent's home.
    pub path: String,
    pub contents: String,
}

/// A JSON file the agent writes itself (Claude Code's `.claude.json`: its
/// onboarding, its per-folder trust, its login): on every start oneworks
/// sets the keys below in it and keeps every other key the agent wrote.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StateFileData {
    /// Relative to the agent's home.
    pub path: String,
    /// Dotted keys set on every start (first-run dialogs marked done).
    #[serde(default)]
    pub forced: Map<String, Value>,
    /// The project's own entry in that file, for folder trust.
    #[serde(default)]
    pub trust: Option<StateTrustData>,
}

/// Folder trust kept in the agent's state file as `{<folders>: {<project
/// path>: {…}}}`: `trusted` is set there only when the user trusted the
/// workspace, `untrusted` otherwise — so no earlier trust
/// outlives the user's config, and the agent asks the person itself.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StateTrustData {
    /// The key of the map of folders (`projects`).
    pub folders: String,
    pub trusted: Map<String, Value>,
    pub untrusted: Map<String, Value>,
}

/// A credential variable moved for the agent's TUI (never for ACP): when
/// `variable` is set, the TUI child gets its value as `to` instead, and
/// the `settings` keys are forced (a helper command that reads `to`), so
/// the credential still comes from the environment only.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MovedCredential {
    pub variable: String,
    pub to: String,
    #[serde(default)]
    pub settings: Map<String, Value>,
}
