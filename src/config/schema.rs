//! The `config.yaml` schema. Strict: unknown keys and wrong types
//! are errors, and the types below validate their own values so the YAML
//! parser can point at the line and column of a bad one.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Deserializer, Serialize};

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, expecting = "a mapping")]
pub struct ConfigFile {
    /// `adapters.<name>`: one entry per adapter (names are checked against
    /// the known adapters when the config is loaded).
    #[serde(default)]
    pub adapters: BTreeMap<String, AdapterConfig>,
    /// The permission policy of every adapter that has none of its own
    ///; only from trusted files.
    pub policy: Option<super::policy::Policy>,
}

impl ConfigFile {
    /// The config of adapter `name` (the defaults when the file has none).
    pub fn adapter(&self, name: &str) -> AdapterConfig {
        self.adapters.get(name).cloned().unwrap_or_default()
    }

    /// The policy adapter `name`'s runs follow: the adapter's own, whole,
    /// else the top-level one.
    pub fn policy_for(&self, name: &str) -> Option<super::policy::PolicyAt> {
        let own = self
            .adapters
            .get(name)
            .and_then(|entry| entry.policy.as_ref());
        let (key, policy) = match own {
            Some(own) => (format!("adapters.{name}.policy"), own),
            None => ("policy".to_owned(), self.policy.as_ref()?),
        };
        Some(super::policy::PolicyAt {
            key,
            policy: policy.clone(),
        })
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, expecting = "a mapping")]
pub struct AdapterConfig {
    #[serde(default)]
    pub cli: CliConfig,
    #[serde(default)]
    pub additional_dirs: Vec<AbsolutePath>,
    /// Becomes the agent's settings file (the adapter data's `session`
    /// section says which; flat dotted keys or nested maps).
    pub config_content: Option<serde_json::Map<String, serde_json::Value>>,
    /// Deep-merged into the session's `oneworks` agent.
    pub agent_config: Option<serde_json::Map<String, serde_json::Value>>,
    pub system_prompt: Option<String>,
    #[serde(default)]
    pub skills: Vec<SkillConfig>,
    #[serde(default)]
    pub mcp_servers: BTreeMap<String, McpServer>,
    /// Trigger name → hook entries; triggers are checked against the adapter data.
    #[serde(default)]
    pub hooks: BTreeMap<String, Vec<HookEntry>>,
    #[serde(default)]
    pub pass_env: Vec<EnvName>,
    #[serde(default)]
    pub approvals: Approvals,
    #[serde(default)]
    pub auth: AuthConfig,
    /// Trust the project folder for agents that gate features on folder
    /// trust (Gemini). Honoured only from the user's own config file: the
    /// loader resets it for every other layer.
    #[serde(default)]
    pub trust_workspace: bool,
    /// This adapter's permission policy: replaces the
    /// top-level one whole; only from trusted files.
    pub policy: Option<super::policy::Policy>,
}

/// How `oneworks run` authenticates with the agent: when `method` is set,
/// `authenticate {methodId}` goes before `session/new` (the id must be one
/// of the agent's advertised `authMethods`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, expecting = "a mapping")]
pub struct AuthConfig {
    pub method: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, expecting = "a mapping")]
pub struct CliConfig {
    #[serde(default)]
    pub source: SourceKind,
    #[serde(default)]
    pub version: VersionRequest,
    pub path: Option<PathBuf>,
    /// The Node.js an npm package runs on; unset:
    /// the system's when it fits the package's `engines.node`, else a
    /// managed one.
    #[serde(default)]
    pub runtime: Option<NodeRuntime>,
    /// The sha256 of `version`'s archive for this host, for a source
    /// verified by pins whose data has none for it. Only from
    /// a trusted file: the loader cuts it from an untrusted one.
    #[serde(default)]
    pub sha256: Option<Sha256Hex>,
}

/// `adapters.<name>.cli.runtime`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeRuntime {
    /// Only the system's `node` (missing or too old: exit 7).
    System,
    /// Always a Node installed by oneworks from `ONEWORKS_NODE_MIRROR`.
    Managed,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    #[default]
    Managed,
    System,
    Path,
}

impl SourceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Managed => "managed",
            SourceKind::System => "system",
            SourceKind::Path => "path",
        }
    }
}

impl fmt::Display for SourceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `latest` or an exact `X.Y.Z`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum VersionRequest {
    #[default]
    Latest,
    Exact(semver::Version),
}

impl fmt::Display for VersionRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VersionRequest::Latest => f.write_str("latest"),
            VersionRequest::Exact(version) => write!(f, "{version}"),
        }
    }
}

impl<'de> Deserialize<'de> for VersionRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        if text == "latest" {
            return Ok(VersionRequest::Latest);
        }
        parse_version(&text)
            .map(VersionRequest::Exact)
            .ok_or_else(|| {
                // The value is not echoed: a secret pasted into the wrong
                // field must not reach the terminal.
                serde::de::Error::custom(
                    "invalid version: expected `latest` or an exact version such as `2.15.1`",
                )
            })
    }
}

/// A version as a vendor writes it: semver, where the major, minor and
/// patch numbers may carry leading zeros (a dated `2026.06.26-7079533`),
/// read as the numbers they are. The one parser of versions from outside
/// (config, lock files, a binary's `--version`).
pub fn parse_version(text: &str) -> Option<semver::Version> {
    let (core, rest) = match text.find(['-', '+']) {
        Some(at) => text.split_at(at),
        None => (text, ""),
    };
    let numbers: Vec<&str> = core.split('.').collect();
    if numbers.len() != 3 || numbers.iter().any(|number| number.is_empty()) {
        return None;
    }
    let trimmed: Vec<&str> = numbers
        .iter()
        .map(|number| match number.trim_start_matches('0') {
            "" => "0",
            trimmed => trimmed,
        })
        .collect();
    semver::Version::parse(&format!("{}{rest}", trimmed.join("."))).ok()
}

/// A sha256 digest as 64 hex digits (kept lowercase).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sha256Hex(pub String);

impl<'de> Deserialize<'de> for Sha256Hex {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        if text.len() == 64 && text.bytes().all(|byte| byte.is_ascii_hexdigit()) {
            Ok(Sha256Hex(text.to_ascii_lowercase()))
        } else {
            Err(serde::de::Error::custom(
                "invalid sha256: expected 64 hex digits",
            ))
        }
    }
}

/// An absolute path (relative ones are refused where they are written).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AbsolutePath(pub PathBuf);

impl<'de> Deserialize<'de> for AbsolutePath {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let path = PathBuf::deserialize(deserializer)?;
        if path.is_absolute() {
            Ok(AbsolutePath(path))
        } else {
            Err(serde::de::Error::custom(format!(
                "`{}` is not an absolute path",
                path.display()
            )))
        }
    }
}

/// An environment variable name (`[A-Za-z_][A-Za-z0-9_]*`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct EnvName(pub String);

impl<'de> Deserialize<'de> for EnvName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        if is_env_name(&name) {
            Ok(EnvName(name))
        } else {
            Err(serde::de::Error::custom(format!(
                "`{name}` is not an environment variable name"
            )))
        }
    }
}

pub fn is_env_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b'A'..=b'Z' | b'a'..=b'z' | b'_'))
        && bytes.all(|byte| byte.is_ascii_alphanumeric() || byte == b'_')
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, expecting = "a mapping")]
pub struct SkillConfig {
    pub name: String,
    /// Folder holding `SKILL.md`; relative paths are resolved against the
    /// config file that names them when the file is loaded.
    pub path: PathBuf,
    /// The folder of the config file that named this skill (set when the
    /// file is loaded): no link may lie between it and the skill.
    #[serde(skip)]
    pub config_dir: PathBuf,
}

/// An MCP server: local (`command`) or remote (`url`).
#[derive(Debug, Clone)]
pub enum McpServer {
    Local(LocalMcpServer),
    Remote(RemoteMcpServer),
}

#[derive(Debug, Clone)]
pub struct LocalMcpServer {
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
}

#[derive(Debug, Clone)]
pub struct RemoteMcpServer {
    pub url: String,
    pub transport: RemoteTransport,
    pub headers: BTreeMap<String, String>,
}

/// Every key either kind of server may have, so that an unknown key
/// (`comand:`) is named with its line instead of "did not match any
/// variant"; which kind it is is decided afterwards.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, expecting = "a mapping")]
struct RawMcpServer {
    command: Option<String>,
    args: Option<Vec<String>>,
    env: Option<BTreeMap<String, String>>,
    url: Option<String>,
    transport: Option<RemoteTransport>,
    headers: Option<BTreeMap<String, String>>,
}

impl<'de> Deserialize<'de> for McpServer {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RawMcpServer::deserialize(deserializer)?;
        let misplaced = |keys: &[(&str, bool)], kind: &str| {
            let found: Vec<String> = keys
                .iter()
                .filter(|(_, present)| *present)
                .map(|(key, _)| format!("`{key}`"))
                .collect();
            (!found.is_empty()).then(|| {
                serde::de::Error::custom(format!("{} only apply to {kind}", found.join(" and ")))
            })
        };
        match (raw.command, raw.url) {
            (Some(command), None) => {
                let remote_keys = [
                    ("transport", raw.transport.is_some()),
                    ("headers", raw.headers.is_some()),
                ];
                if let Some(error) = misplaced(&remote_keys, "remote servers (`url`)") {
                    return Err(error);
                }
                Ok(McpServer::Local(LocalMcpServer {
                    command,
                    args: raw.args.unwrap_or_default(),
                    env: raw.env.unwrap_or_default(),
                }))
            }
            (None, Some(url)) => {
                let local_keys = [("args", raw.args.is_some()), ("env", raw.env.is_some())];
                if let Some(error) = misplaced(&local_keys, "local servers (`command`)") {
                    return Err(error);
                }
                Ok(McpServer::Remote(RemoteMcpServer {
                    url,
                    transport: raw.transport.unwrap_or_default(),
                    headers: raw.headers.unwrap_or_default(),
                }))
            }
            (Some(_), Some(_)) => Err(serde::de::Error::custom(
                "an MCP server has either `command` (a local server) or `url` (a remote one), not both",
            )),
            (None, None) => Err(serde::de::Error::custom(
                "an MCP server needs `command` (a local server) or `url` (a remote one)",
            )),
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RemoteTransport {
    #[default]
    Http,
    Sse,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, expecting = "a mapping")]
pub struct HookEntry {
    pub command: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, expecting = "a mapping")]
pub struct Approvals {
    pub webhook: Option<WebhookUrl>,
    pub webhook_auth_env: Option<EnvName>,
    #[serde(default)]
    pub pane_fallback: PaneFallback,
}

/// An `http` or `https` URL for approval cards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookUrl(pub String);

impl std::ops::Deref for WebhookUrl {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for WebhookUrl {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        match url::Url::parse(&text) {
            Ok(url) if matches!(url.scheme(), "http" | "https") && url.has_host() => {
                Ok(WebhookUrl(text))
            }
            _ => Err(serde::de::Error::custom(format!(
                "`{}` is not an http or https URL",
                crate::redact::redact_url(&text)
            ))),
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PaneFallback {
    #[default]
    Auto,
    On,
    Off,
}

#[cfg(test)]
mod version_tests {
    use super::parse_version;

    #[test]
    fn a_dated_version_reads_as_its_numbers() {
        let version = parse_version("2026.06.26-7079533").expect("dated version");
        assert_eq!(version.to_string(), "2026.6.26-7079533");
        assert_eq!(
            parse_version("2.15.1").expect("semver").to_string(),
            "2.15.1"
        );
        assert_eq!(parse_version("0.0.0").expect("zeros").to_string(), "0.0.0");
        for bad in ["2026.06", "latest", "1..2", "1.2.3.4", "v1.2.3"] {
            assert!(parse_version(bad).is_none(), "{bad}");
        }
    }
}
