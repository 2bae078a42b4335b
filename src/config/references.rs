//! `${VAR}` references in config values: resolved from the environment
//! when the agent starts, never written.

use std::collections::BTreeSet;

use super::schema::{is_env_name, AdapterConfig, McpServer};
use crate::env_options::environment::Environment;

/// The variable name of a whole-value `${VAR}` reference.
pub fn reference_name(value: &str) -> Option<&str> {
    let name = value.strip_prefix("${")?.strip_suffix('}')?;
    is_env_name(name).then_some(name)
}

/// Every `${VAR}` named anywhere in a string.
pub fn references_in(text: &str, names: &mut BTreeSet<String>) {
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        match after.find('}') {
            Some(end) => {
                let name = &after[..end];
                if is_env_name(name) {
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
pub(super) fn without_references(text: &str) -> String {
    // A space keeps the text on either side from joining.
    replace_references(text, |_| " ")
}

/// `text` with every `${VAR}` replaced by the variable's value in `env`
/// (empty when unset). For values handed to the agent at start, never written.
pub fn resolve_references(text: &str, env: &Environment) -> String {
    replace_references(text, |name| env.get(name).unwrap_or_default())
}

/// `text` with every well-formed `${VAR}` replaced by `with(VAR)`; a `${`
/// that is not one is kept as it is.
fn replace_references<'a>(text: &str, with: impl Fn(&str) -> &'a str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        match after.find('}') {
            Some(end) if is_env_name(&after[..end]) => {
                out.push_str(&rest[..start]);
                out.push_str(with(&after[..end]));
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
/// the agent child's environment.
pub fn env_references(config: &AdapterConfig) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for server in config.mcp_servers.values() {
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
    for entries in config.hooks.values() {
        for entry in entries {
            references_in(&entry.command, &mut names);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_resolve_from_the_given_environment() {
        let env = Environment::from_pairs([("TOKEN", "t-1"), ("HOST", "h")]);
        assert_eq!(
            resolve_references("Bearer ${TOKEN} @${HOST}/${UNSET} ${not-a-name} $", &env),
            "Bearer t-1 @h/ ${not-a-name} $"
        );
        assert_eq!(reference_name("${TOKEN}"), Some("TOKEN"));
        assert_eq!(reference_name("x${TOKEN}"), None);
    }
}
