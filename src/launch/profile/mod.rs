//! Profile worlds: where a session's agent profile lives (`layout`), the
//! fresh per-process HOME (`temp_home`), the allowlisted child environment
//! (`environment`) and the agent config written from `config.yaml`
//! (`materialize`). Structured runs and supervised TUI sessions start the agent
//! only through these.

pub mod child_environment;
pub mod layout;
pub mod materialize;
pub mod temp_home;
pub mod tui_credentials;
pub mod world;

use std::path::PathBuf;

use crate::error::{Classify, ErrorKind};
use crate::fs_safety::UnsafePath;

#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error(transparent)]
    Unsafe(#[from] UnsafePath),
    #[error("failed to {action} `{path}`")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("invalid config at `{key}`: {message}")]
    Config { key: String, message: String },
    /// A `configContent` TOML cannot hold (the serializer says why).
    #[error("invalid config at `{key}`: cannot be written as TOML")]
    Toml {
        key: String,
        #[source]
        source: toml::ser::Error,
    },
    #[error(transparent)]
    Configuration(#[from] crate::config::ConfigError),
    /// The agent's own state file (`session.stateFile`) cannot be kept.
    #[error("failed to keep {agent}'s own state file `{path}`: it {reason}; fix or remove it")]
    AgentState {
        agent: String,
        path: PathBuf,
        reason: String,
    },
    /// The agent's own state file is there but the OS will not read it.
    #[error("failed to keep {agent}'s own state file `{path}`: it cannot be read")]
    AgentStateRead {
        agent: String,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl Classify for ProfileError {
    fn kind(&self) -> ErrorKind {
        match self {
            ProfileError::Unsafe(error) => error.kind(),
            ProfileError::Io { .. } | ProfileError::AgentStateRead { .. } => ErrorKind::Internal,
            ProfileError::Config { .. }
            | ProfileError::Toml { .. }
            | ProfileError::AgentState { .. } => ErrorKind::Config,
            ProfileError::Configuration(error) => error.kind(),
        }
    }
    fn hint(&self) -> Option<String> {
        match self {
            ProfileError::Unsafe(error) => error.hint(),
            ProfileError::Configuration(error) => error.hint(),
            ProfileError::AgentStateRead { path, .. } => Some(format!(
                "fix the permissions of `{}` or remove it",
                path.display()
            )),
            _ => None,
        }
    }
}

pub(crate) fn io_error<'a>(
    action: &'static str,
    path: &'a std::path::Path,
) -> impl FnOnce(std::io::Error) -> ProfileError + 'a {
    move |source| ProfileError::Io {
        action,
        path: path.to_owned(),
        source: crate::fs_error::os_cause(source),
    }
}

/// The scrubber for everything a session writes: the credential variables
/// present in `env`, the variable named by
/// `approvals.webhookAuthEnv` (its value is a bearer token), plus the values
/// of variables the config references as `${VAR}` (they reach the agent through
/// the environment, never through files) — those only when at least
/// [`SHORT_SECRET_CHARS`](crate::redact::SHORT_SECRET_CHARS) long: a short
/// referenced value (`USER_NAME=proj`) is more likely a plain setting.
/// A secret shorter than that is warned about, once per variable: it only
/// redacts strings equal to it.
pub fn scrubber_for(
    env: &crate::env_options::environment::Environment,
    data: &crate::adapter::data::AdapterData,
    config: &crate::config::AdapterConfig,
) -> crate::redact::Scrubber {
    scrubber_with(env, data, config, Vec::new())
}

/// [`scrubber_for`] that also learns `read`: credential values read from
/// elsewhere than the environment (the user's `.npmrc`), by their key.
pub fn scrubber_with(
    env: &crate::env_options::environment::Environment,
    data: &crate::adapter::data::AdapterData,
    config: &crate::config::AdapterConfig,
    read: Vec<(String, String)>,
) -> crate::redact::Scrubber {
    let referenced = crate::config::env_references(config);
    let webhook_auth = config
        .approvals
        .webhook_auth_env
        .as_ref()
        .map(|name| name.0.as_str());
    let secrets: Vec<(String, String)> = env
        .iter()
        .filter(|(name, value)| {
            !value.is_empty()
                && (data.credentials.is_credential_name(name)
                    || webhook_auth == Some(*name)
                    || (referenced.contains(*name)
                        && value.chars().count() >= crate::redact::SHORT_SECRET_CHARS))
        })
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .chain(read)
        .collect();
    for (name, value) in &secrets {
        if value.chars().count() < crate::redact::SHORT_SECRET_CHARS {
            warn_short_once(name);
        }
    }
    crate::redact::Scrubber::new(secrets, &data.credentials)
}

/// Warns, once per process and variable, that a credential variable's
/// value is too short to be a credential (unless `-q`).
fn warn_short_once(name: &str) {
    static WARNED: std::sync::Mutex<std::collections::BTreeSet<String>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    let first = WARNED
        .lock()
        .map(|mut warned| warned.insert(name.to_owned()))
        .unwrap_or(false);
    // A warning: `-q` (log level `error`) silences it like any other.
    if first && tracing::enabled!(tracing::Level::WARN) {
        // Not through `output`: the print scrubber is built by this
        // function. `eprintln!` would panic on a closed stderr.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "warning: `{name}` is shorter than {} characters, too short to be a credential; only text equal to it is redacted",
            crate::redact::SHORT_SECRET_CHARS
        );
    }
}

/// Whether the agent `version` accepts remote MCP servers in agent files.
pub fn remote_mcp_in_agent_file(
    data: &crate::adapter::data::AdapterData,
    version: Option<&str>,
) -> bool {
    let since = data
        .session
        .remote_mcp_in_agent_file_since
        .as_deref()
        .and_then(|since| semver::Version::parse(since).ok());
    let version = version.and_then(|version| semver::Version::parse(version).ok());
    matches!((since, version), (Some(since), Some(version)) if version >= since)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_referenced_values_are_not_secrets_but_short_credentials_are() {
        let env = crate::env_options::environment::Environment::from_pairs([
            ("USER_NAME", "proj"),
            ("LONG_REFERENCE", "long-value-1234"),
            ("KIRO_API_KEY", "abc"),
            ("UNREFERENCED", "unreferenced-value"),
        ]);
        let data = crate::adapter::data::AdapterData::builtin().expect("data");
        let kiro: crate::config::AdapterConfig = serde_yaml_ng::from_str(
            "hooks:\n  stop:\n    - command: notify ${USER_NAME} ${LONG_REFERENCE}\n",
        )
        .expect("config");
        let scrubber = scrubber_for(&env, &data, &kiro);
        assert!(!scrubber.contains_secret("the proj agent"));
        assert!(scrubber.contains_secret("x long-value-1234 y"));
        assert!(scrubber.contains_secret("abc"));
        assert!(!scrubber.contains_secret("unreferenced-value"));
    }

    #[test]
    fn the_webhook_token_is_a_secret() {
        let env = crate::env_options::environment::Environment::from_pairs([(
            "HOOK_BEARER",
            "webhook-bearer-value",
        )]);
        let data = crate::adapter::data::AdapterData::builtin().expect("data");
        let plain: crate::config::AdapterConfig = serde_yaml_ng::from_str("{}").expect("config");
        assert!(!scrubber_for(&env, &data, &plain).contains_secret("webhook-bearer-value"));
        let kiro: crate::config::AdapterConfig = serde_yaml_ng::from_str(
            "approvals:\n  webhook: https://hooks.example/k\n  webhookAuthEnv: HOOK_BEARER\n  paneFallback: off\n",
        )
        .expect("config");
        let scrubber = scrubber_for(&env, &data, &kiro);
        assert_eq!(
            scrubber.scrub_str("Bearer webhook-bearer-value"),
            "Bearer [redacted]"
        );
    }
}
