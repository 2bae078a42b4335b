//! Keeps credentials out of config files (SPEC §2): a value in
//! `configContent`, `agentConfig` or an MCP `env`/`headers` map whose key is
//! a credential variable name, or whose value is shaped like a key, is
//! refused — unless it is a `${VAR}` reference, resolved at start.

use std::collections::BTreeSet;

use regex::Regex;
use serde_json::Value;

use super::load::ConfigError;
use super::schema::{KiroConfig, McpServer};
use crate::adapter::data::CredentialRules;

/// The variable name of a whole-value `${VAR}` reference.
pub fn reference_name(value: &str) -> Option<&str> {
    let name = value.strip_prefix("${")?.strip_suffix('}')?;
    super::schema::is_env_name(name).then_some(name)
}

/// Every `${VAR}` named anywhere in a string.
fn references_in(text: &str, names: &mut BTreeSet<String>) {
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        match after.find('}') {
            Some(end) => {
                let name = &after[..end];
                if super::schema::is_env_name(name) {
                    names.insert(name.to_owned());
                }
                rest = &after[end + 1..];
            }
            None => break,
        }
    }
}

/// `text` with every `${VAR}` reference cut out: what is left is written
/// literally, and only that can hold a credential.
fn without_references(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        match after.find('}') {
            Some(end) if super::schema::is_env_name(&after[..end]) => {
                out.push_str(&rest[..start]);
                // A space keeps the text on either side from joining.
                out.push(' ');
                rest = &after[end + 1..];
            }
            _ => {
                out.push_str(&rest[..start + 2]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The variables that MCP and hooks config reference as `${VAR}`: they join
/// the Kiro child's environment (SPEC §6.1).
pub fn env_references(kiro: &KiroConfig) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for server in kiro.mcp_servers.values() {
        match server {
            McpServer::Local(local) => {
                references_in(&local.command, &mut names);
                local
                    .args
                    .iter()
                    .for_each(|arg| references_in(arg, &mut names));
                local
                    .env
                    .values()
                    .for_each(|value| references_in(value, &mut names));
            }
            McpServer::Remote(remote) => {
                references_in(&remote.url, &mut names);
                remote
                    .headers
                    .values()
                    .for_each(|value| references_in(value, &mut names));
            }
        }
    }
    for entries in kiro.hooks.values() {
        for entry in entries {
            references_in(&entry.command, &mut names);
        }
    }
    names
}

struct Checker<'a> {
    rules: &'a CredentialRules,
    shapes: Vec<Regex>,
}

impl Checker<'_> {
    fn check_entry(&self, key_path: &str, key: &str, value: &Value) -> Result<(), ConfigError> {
        let path = format!("{key_path}.{key}");
        if self.rules.is_credential_name(key) {
            let allowed = match value {
                Value::String(text) => reference_name(text).is_some(),
                Value::Null => true,
                _ => false,
            };
            if !allowed {
                return Err(ConfigError::Credential {
                    key: path,
                    reason: format!("`{key}` names a credential variable; its value must not be written in config"),
                });
            }
        }
        self.check_value(&path, value)
    }

    fn check_value(&self, path: &str, value: &Value) -> Result<(), ConfigError> {
        match value {
            Value::String(text) => {
                let literal = without_references(text);
                if self.shapes.iter().any(|shape| shape.is_match(&literal)) {
                    return Err(ConfigError::Credential {
                        key: path.to_owned(),
                        reason: "the value looks like an access key or token".to_owned(),
                    });
                }
                Ok(())
            }
            Value::Array(items) => items
                .iter()
                .enumerate()
                .try_for_each(|(index, item)| self.check_value(&format!("{path}[{index}]"), item)),
            Value::Object(map) => map
                .iter()
                .try_for_each(|(key, value)| self.check_entry(path, key, value)),
            _ => Ok(()),
        }
    }

    fn check_map(
        &self,
        path: &str,
        map: &std::collections::BTreeMap<String, String>,
    ) -> Result<(), ConfigError> {
        map.iter()
            .try_for_each(|(key, value)| self.check_entry(path, key, &Value::String(value.clone())))
    }
}

pub(super) fn check_no_credentials(
    kiro: &KiroConfig,
    rules: &CredentialRules,
) -> Result<(), ConfigError> {
    let shapes = rules
        .value_patterns
        .iter()
        .map(|pattern| pattern.0.clone())
        .collect();
    let checker = Checker { rules, shapes };
    if let Some(content) = &kiro.config_content {
        checker.check_value(
            "adapters.kiro.configContent",
            &Value::Object(content.clone()),
        )?;
    }
    if let Some(agent) = &kiro.agent_config {
        checker.check_value("adapters.kiro.agentConfig", &Value::Object(agent.clone()))?;
    }
    for (name, server) in &kiro.mcp_servers {
        match server {
            McpServer::Local(local) => {
                checker.check_map(&format!("adapters.kiro.mcpServers.{name}.env"), &local.env)?
            }
            McpServer::Remote(remote) => checker.check_map(
                &format!("adapters.kiro.mcpServers.{name}.headers"),
                &remote.headers,
            )?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::adapter::data::AdapterData;
    use crate::config::{load, ConfigError, ConfigSources};

    fn load_text(text: &str) -> Result<crate::config::LoadedConfig, ConfigError> {
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
    fn credential_values_are_refused() {
        for text in [
            "adapters:\n  kiro:\n    configContent:\n      aws.key: AKIAABCDEFGHIJKLMNOP\n",
            "adapters:\n  kiro:\n    agentConfig:\n      nested:\n        KIRO_API_KEY: abc123\n",
            "adapters:\n  kiro:\n    agentConfig:\n      token: ghp_abcdefghijklmnopqrstuvwxyz0123\n",
            "adapters:\n  kiro:\n    mcpServers:\n      gh:\n        command: /bin/gh\n        env:\n          AWS_SECRET_ACCESS_KEY: s3cr3t-value\n",
            "adapters:\n  kiro:\n    configContent:\n      api: ksk_0123456789abcdef\n",
        ] {
            let error = load_text(text).unwrap_err();
            assert!(matches!(error, ConfigError::Credential { .. }), "{text}: {error}");
        }
    }

    #[test]
    fn credential_shapes_are_found_anywhere_in_a_value() {
        for value in [
            "Bearer ghp_abcdefghijklmnopqrstuvwxyz0123",
            "token=ghs_abcdefghijklmnopqrstuvwxyz0123&x=1",
            "key AKIAABCDEFGHIJKLMNOP, region us-east-1",
            "--api-key ksk_0123456789abcdef",
            "${GITHUB_TOKEN} ghp_abcdefghijklmnopqrstuvwxyz0123",
        ] {
            let text = format!("adapters:\n  kiro:\n    agentConfig:\n      prompt: \"{value}\"\n");
            let error = load_text(&text).unwrap_err();
            assert!(
                matches!(error, ConfigError::Credential { .. }),
                "{value}: {error}"
            );
        }
        for value in [
            "Bearer ${GITHUB_TOKEN}",
            "${ghp_abcdefghijklmnopqrstuvwxyz0123}",
            "x${ksk_0123456789abcdef}",
            "see AKIAABCDEFGHIJKLMNOPQ and notghp_abcdefghijklmnopqrstuvwxyz0123",
            "the ksk_ prefix",
        ] {
            let text = format!("adapters:\n  kiro:\n    agentConfig:\n      prompt: \"{value}\"\n");
            load_text(&text).unwrap_or_else(|error| panic!("{value}: {error}"));
        }
    }

    #[test]
    fn references_are_allowed_and_collected() {
        let loaded = load_text(
            "adapters:\n  kiro:\n    mcpServers:\n      gh:\n        command: /bin/gh\n        env:\n          GITHUB_TOKEN: \"${GITHUB_TOKEN}\"\n          KIRO_API_KEY: \"${KIRO_API_KEY}\"\n    hooks:\n      stop:\n        - command: notify ${NOTIFY_URL}\n",
        )
        .expect("references are fine");
        let names = super::env_references(&loaded.config.adapters.kiro);
        let names: Vec<_> = names.into_iter().collect();
        assert_eq!(names, ["GITHUB_TOKEN", "KIRO_API_KEY", "NOTIFY_URL"]);
    }
}
