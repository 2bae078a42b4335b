//! Keeps credentials out of everything oneworks writes for an agent:
//! `configContent` and `agentConfig` keys and values, `systemPrompt`, skill
//! bodies, MCP `command`/`args`/`env`/`url`/`headers`, hook commands and
//! the approvals webhook. A value is refused when its key is a credential
//! variable name, when it holds text shaped like a key (`AKIA…`, `ghp_…`,
//! `ksk_…`), or when it is a URL with a literal password or a literal
//! value for a query parameter such as `token=`. `${VAR}` references are
//! the way to pass a credential: they are resolved at start, never written.

use regex::Regex;
use serde_json::Value;

use super::error::ConfigError;
use super::references::{reference_name, without_references};
use super::schema::{AdapterConfig, McpServer};
use crate::adapter::data::CredentialRules;

struct Checker<'a> {
    rules: &'a CredentialRules,
    shapes: Vec<&'a Regex>,
}

fn refused(path: &str, reason: impl Into<String>) -> ConfigError {
    ConfigError::Credential {
        key: path.to_owned(),
        reason: reason.into(),
    }
}

/// Whether `value` holds nothing but `${VAR}` references, blanks and an
/// optional auth scheme word (`Bearer ${TOKEN}`).
fn only_references(value: &str) -> bool {
    let literal = without_references(value);
    let mut words = literal.split_whitespace();
    match (words.next(), words.next()) {
        (None, _) => true,
        (Some(word), None) => {
            value.contains("${")
                && ["bearer", "basic", "token"].contains(&word.to_ascii_lowercase().as_str())
        }
        _ => false,
    }
}

impl<'a> Checker<'a> {
    fn new(rules: &'a CredentialRules) -> Self {
        let shapes = rules
            .value_patterns
            .iter()
            .map(|pattern| &pattern.0)
            .collect();
        Checker { rules, shapes }
    }

    fn check_entry(&self, key_path: &str, key: &str, value: &Value) -> Result<(), ConfigError> {
        let path = format!("{key_path}.{key}");
        self.check_string(&path, key)?;
        if self.rules.is_credential_name(key) {
            let allowed = match value {
                Value::String(text) => reference_name(text).is_some(),
                Value::Null => true,
                _ => false,
            };
            if !allowed {
                return Err(refused(
                    &path,
                    format!("`{key}` names a credential variable; its value must not be written in config"),
                ));
            }
        }
        self.check_value(&path, value)
    }

    /// Refuses text shaped like a key outside `${VAR}` references.
    fn check_string(&self, path: &str, text: &str) -> Result<(), ConfigError> {
        let literal = without_references(text);
        if self.shapes.iter().any(|shape| shape.is_match(&literal)) {
            return Err(refused(path, "the value looks like an access key or token"));
        }
        Ok(())
    }

    /// As [`Self::check_string`], and a URL's password and sensitive query
    /// values must be `${VAR}` references.
    fn check_url(&self, path: &str, url: &str) -> Result<(), ConfigError> {
        self.check_string(path, url)?;
        let secrets = crate::redact::url_secrets(url);
        if let Some(password) = secrets.password {
            if !only_references(&url[password]) {
                return Err(refused(path, "the URL holds a password"));
            }
        }
        for value in secrets.values {
            if !only_references(&url[value]) {
                return Err(refused(
                    path,
                    "the URL holds a credential in its query (a parameter such as `token=`)",
                ));
            }
        }
        Ok(())
    }

    fn check_value(&self, path: &str, value: &Value) -> Result<(), ConfigError> {
        match value {
            Value::String(text) => self.check_string(path, text),
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

    /// `env` or `headers`: credential-named keys, and header names such as
    /// `Authorization`, must hold references only.
    fn check_pairs(
        &self,
        path: &str,
        map: &std::collections::BTreeMap<String, String>,
        headers: bool,
    ) -> Result<(), ConfigError> {
        for (key, value) in map {
            if headers && crate::redact::is_sensitive_parameter(key) && !only_references(value) {
                return Err(refused(
                    &format!("{path}.{key}"),
                    format!("the `{key}` header must be a `${{VAR}}` reference"),
                ));
            }
            self.check_entry(path, key, &Value::String(value.clone()))?;
        }
        Ok(())
    }
}

/// Refuses credential-shaped text in `text`, reported at `key` (a skill
/// body, or any other string oneworks writes for an agent).
pub fn check_text(rules: &CredentialRules, key: &str, text: &str) -> Result<(), ConfigError> {
    Checker::new(rules).check_string(key, text)
}

pub(super) fn check_no_credentials(
    adapter: &str,
    config: &AdapterConfig,
    rules: &CredentialRules,
) -> Result<(), ConfigError> {
    let checker = Checker::new(rules);
    let root = format!("adapters.{adapter}");
    if let Some(content) = &config.config_content {
        checker.check_value(
            &format!("{root}.configContent"),
            &Value::Object(content.clone()),
        )?;
    }
    if let Some(agent) = &config.agent_config {
        checker.check_value(
            &format!("{root}.agentConfig"),
            &Value::Object(agent.clone()),
        )?;
    }
    if let Some(prompt) = &config.system_prompt {
        checker.check_string(&format!("{root}.systemPrompt"), prompt)?;
    }
    for (index, skill) in config.skills.iter().enumerate() {
        checker.check_string(&format!("{root}.skills[{index}].name"), &skill.name)?;
    }
    for (name, server) in &config.mcp_servers {
        let path = format!("{root}.mcpServers.{name}");
        checker.check_string(&path, name)?;
        match server {
            McpServer::Local(local) => {
                checker.check_string(&format!("{path}.command"), &local.command)?;
                for (index, arg) in local.args.iter().enumerate() {
                    checker.check_string(&format!("{path}.args[{index}]"), arg)?;
                }
                checker.check_pairs(&format!("{path}.env"), &local.env, false)?;
            }
            McpServer::Remote(remote) => {
                checker.check_url(&format!("{path}.url"), &remote.url)?;
                checker.check_pairs(&format!("{path}.headers"), &remote.headers, true)?;
            }
        }
    }
    for (trigger, entries) in &config.hooks {
        for (index, entry) in entries.iter().enumerate() {
            let path = format!("{root}.hooks.{trigger}[{index}]");
            checker.check_string(&format!("{path}.command"), &entry.command)?;
            if let Some(matcher) = &entry.matcher {
                checker.check_string(&format!("{path}.matcher"), matcher)?;
            }
        }
    }
    if let Some(webhook) = &config.approvals.webhook {
        checker.check_url(&format!("{root}.approvals.webhook"), webhook)?;
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use crate::config::{load, ConfigError, ConfigSources};

    fn load_text(text: &str) -> Result<crate::config::LoadedConfig, ConfigError> {
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

    fn assert_refused_at(text: &str, key: &str) {
        match load_text(text) {
            Err(ConfigError::Credential { key: found, .. }) => assert_eq!(found, key, "{text}"),
            other => panic!("{text}: expected a credential error, got {other:?}"),
        }
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
    fn every_string_written_for_kiro_is_checked() {
        let key = "ghp_abcdefghijklmnopqrstuvwxyz0123";
        let mcp = "adapters:\n  kiro:\n    mcpServers:\n      x:\n";
        for (text, at) in [
            (
                format!("{mcp}        command: /bin/x\n        args: [--token, {key}]\n"),
                "adapters.kiro.mcpServers.x.args[1]",
            ),
            (
                format!("{mcp}        command: /bin/x --key={key}\n"),
                "adapters.kiro.mcpServers.x.command",
            ),
            (
                format!("adapters:\n  kiro:\n    systemPrompt: \"use {key}\"\n"),
                "adapters.kiro.systemPrompt",
            ),
            (
                format!("adapters:\n  kiro:\n    hooks:\n      stop:\n        - command: notify {key}\n"),
                "adapters.kiro.hooks.stop[0].command",
            ),
            (
                format!("{mcp}        url: https://example.com/mcp?k={key}\n"),
                "adapters.kiro.mcpServers.x.url",
            ),
            (
                format!("{mcp}        url: https://example.com/mcp?token=plain-value\n"),
                "adapters.kiro.mcpServers.x.url",
            ),
            (
                format!("{mcp}        url: https://me:hunter2@example.com/mcp\n"),
                "adapters.kiro.mcpServers.x.url",
            ),
            (
                format!("{mcp}        url: https://example.com/mcp\n        headers:\n          Authorization: Bearer abc\n"),
                "adapters.kiro.mcpServers.x.headers.Authorization",
            ),
            (
                format!("adapters:\n  kiro:\n    configContent:\n      {key}: true\n"),
                // The key path shows a credential-shaped key masked.
                "adapters.kiro.configContent.***",
            ),
            (
                format!("adapters:\n  kiro:\n    agentConfig:\n      resources: [\"file://{key}\"]\n"),
                "adapters.kiro.agentConfig.resources[0]",
            ),
            (
                "adapters:\n  kiro:\n    approvals:\n      webhook: https://hooks.example/x?auth=abc\n".to_owned(),
                "adapters.kiro.approvals.webhook",
            ),
        ] {
            assert_refused_at(&text, at);
        }
    }

    #[test]
    fn references_in_urls_and_headers_are_fine() {
        load_text(
            "adapters:\n  kiro:\n    mcpServers:\n      x:\n        url: https://me:${PASS}@example.com/mcp?token=${TOKEN}&page=2\n        headers:\n          Authorization: Bearer ${TOKEN}\n          Accept: text/plain\n",
        )
        .expect("references are fine");
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
        let names = crate::config::env_references(&loaded.config.adapters["kiro"]);
        let names: Vec<_> = names.into_iter().collect();
        assert_eq!(names, ["GITHUB_TOKEN", "KIRO_API_KEY", "NOTIFY_URL"]);
    }
}
