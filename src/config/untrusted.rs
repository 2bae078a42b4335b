//! What an untrusted project config may not do. A project's
//! `.oneworks/config.yaml` arrives with a clone: until the person trusts
//! that exact file, every key that runs code or moves a credential is cut
//! out of its parsed layer before the layers merge, and the rest applies.
//! A `--config` file anywhere inside the project tree is judged the same
//! way. The rules are in one place ([`strip_untrusted`]; the agent's own
//! settings, an allow-list, in `untrusted_settings`); the loader calls it
//! once per untrusted layer and reports what it removed.

use std::path::{Path, PathBuf};

use serde_yaml_ng::{Mapping, Value};

use super::references::references_in;
use super::untrusted_settings::keep_safe;
use crate::adapter::session_data::SafeKeys;

/// One key cut out of an untrusted layer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ignored {
    /// Where it was, as a key path: `adapters.kiro.hooks.preToolUse`,
    /// `adapters.kiro.skills[1]`.
    pub key: String,
    /// Why it needs trust, for `config check`.
    pub reason: &'static str,
}

const RUNS_A_COMMAND: &str = "runs a command";
const STARTS_A_PROGRAM: &str = "starts a local program (an MCP server with `command`)";
const SENDS_VARIABLES: &str = "sends environment variables to a server";
const PASSES_VARIABLES: &str = "passes environment variables to the agent";
const CHOOSES_EXECUTABLE: &str = "chooses the agent executable";
const OUTSIDE_PROJECT: &str = "reaches files outside the project";
const SENDS_CARDS: &str = "sends approval cards (and a token) to a server";
const TRUST_KEY: &str = "trusts the folder for the agent (only your own config may)";
const VOUCHES_FOR_DOWNLOAD: &str =
    "vouches for a download (only a file you trust may name its sha256)";
const ANSWERS_PERMISSIONS: &str =
    "answers the agent's permission questions (only a file you trust may)";

/// Cuts out of `layer` (one config file's YAML tree, already checked
/// against the schema) every key that runs code or moves a credential,
/// and returns what it cut (key paths, in a fixed order). `config_dir` is the folder of
/// the file (relative skill paths resolve against it); `project_root` is
/// the project whose files stay allowed; `safe_keys` tells an adapter's
/// allow-lists of its agent settings.
pub fn strip_untrusted(
    layer: &mut Value,
    config_dir: &Path,
    project_root: &Path,
    safe_keys: &dyn Fn(&str) -> SafeKeys,
) -> Vec<Ignored> {
    let mut ignored = Vec::new();
    // A clone may not pre-approve a request: `policy`, top level and per
    // adapter (below), never applies untrusted.
    if let Value::Mapping(top) = layer {
        if top.remove("policy").is_some() {
            ignored.push(Ignored {
                key: "policy".to_owned(),
                reason: ANSWERS_PERMISSIONS,
            });
        }
    }
    let Some(Value::Mapping(adapters)) = layer.get_mut("adapters") else {
        return ignored;
    };
    for (name, entry) in adapters.iter_mut() {
        let Some(name) = name.as_str() else { continue };
        let Value::Mapping(entry) = entry else {
            continue;
        };
        let base = format!("adapters.{name}");
        let paths = (config_dir, project_root);
        strip_adapter(entry, &base, paths, &safe_keys(name), &mut ignored);
    }
    ignored
}

/// Cuts what needs trust out of one `adapters.<name>` entry (`base`); the
/// order of the steps is the order of the report. `paths` are the
/// config's folder and the project root.
///
/// Keys that only a trusted file may set are cut here, whole: `policy`
/// (a clone must not pre-approve a request) and `cli.sha256`
/// (§11.5: a clone must not vouch for a download).
fn strip_adapter(
    entry: &mut Mapping,
    base: &str,
    paths: (&Path, &Path),
    safe_keys: &SafeKeys,
    ignored: &mut Vec<Ignored>,
) {
    let mut cut = |key: String, reason| ignored.push(Ignored { key, reason });
    strip_executable(entry, base, &mut cut);
    // Paths outside the project, entry by entry.
    keep_inside(
        entry,
        "additionalDirs",
        Value::as_str,
        base,
        paths,
        &mut cut,
    );
    keep_inside(entry, "skills", skill_path, base, paths, &mut cut);
    strip_programs(entry, base, &mut cut);
    strip_credentials_and_trust(entry, base, &mut cut);
    // The agent's own settings: only what its data lists as safe.
    let sections = [
        ("agentConfig", &safe_keys.agent_config),
        ("configContent", &safe_keys.config_content),
    ];
    for (section, safe) in sections {
        if let Some(Value::Mapping(map)) = entry.get_mut(section) {
            keep_safe(map, &format!("{base}.{section}"), safe, &mut cut);
        }
        remove_if_empty(entry, section);
    }
}

/// `cli.source: path` and `cli.path`: they choose the executable. They go
/// together: one without the other is a schema error. `cli.sha256`: it
/// vouches for a download.
fn strip_executable(entry: &mut Mapping, base: &str, cut: &mut impl FnMut(String, &'static str)) {
    let Some(Value::Mapping(cli)) = entry.get_mut("cli") else {
        return;
    };
    let path_source = cli.get("source").and_then(Value::as_str) == Some("path");
    if path_source {
        cli.remove("source");
        cut(format!("{base}.cli.source"), CHOOSES_EXECUTABLE);
    }
    if cli.remove("path").is_some() {
        cut(format!("{base}.cli.path"), CHOOSES_EXECUTABLE);
    }
    if cli.remove("sha256").is_some() {
        cut(format!("{base}.cli.sha256"), VOUCHES_FOR_DOWNLOAD);
    }
}

/// Keeps the items of list `key` whose path (`path_of`, relative to the
/// config's folder) stays inside the project; an emptied list goes away
/// so the user's own list still applies.
fn keep_inside(
    entry: &mut Mapping,
    key: &str,
    path_of: fn(&Value) -> Option<&str>,
    base: &str,
    (config_dir, project_root): (&Path, &Path),
    cut: &mut impl FnMut(String, &'static str),
) {
    if let Some(Value::Sequence(items)) = entry.get_mut(key) {
        let mut index = 0;
        items.retain(|item| {
            let keep =
                path_of(item).is_some_and(|path| inside(&config_dir.join(path), project_root));
            if !keep {
                cut(format!("{base}.{key}[{index}]"), OUTSIDE_PROJECT);
            }
            index += 1;
            keep
        });
    }
    remove_if_empty(entry, key);
}

/// A skill entry's path.
fn skill_path(skill: &Value) -> Option<&str> {
    skill.get("path").and_then(Value::as_str)
}

/// Hooks, and MCP servers that start a local program or send variables.
fn strip_programs(entry: &mut Mapping, base: &str, cut: &mut impl FnMut(String, &'static str)) {
    if let Some(Value::Mapping(hooks)) = entry.remove("hooks") {
        for (trigger, _) in hooks {
            let trigger = trigger.as_str().unwrap_or("?");
            cut(format!("{base}.hooks.{trigger}"), RUNS_A_COMMAND);
        }
    }
    if let Some(Value::Mapping(servers)) = entry.get_mut("mcpServers") {
        servers.retain(|name, server| {
            let name = name.as_str().unwrap_or("?");
            let reason = if server.get("command").is_some() {
                STARTS_A_PROGRAM
            } else if names_a_variable(server) {
                SENDS_VARIABLES
            } else {
                return true;
            };
            cut(format!("{base}.mcpServers.{name}"), reason);
            false
        });
    }
    remove_if_empty(entry, "mcpServers");
}

/// Variables passed to the agent, the approvals webhook (and its token),
/// workspace trust and the adapter's permission policy.
fn strip_credentials_and_trust(
    entry: &mut Mapping,
    base: &str,
    cut: &mut impl FnMut(String, &'static str),
) {
    if entry.remove("passEnv").is_some() {
        cut(format!("{base}.passEnv"), PASSES_VARIABLES);
    }
    if let Some(Value::Mapping(approvals)) = entry.get_mut("approvals") {
        for key in ["webhook", "webhookAuthEnv"] {
            if approvals.remove(key).is_some() {
                cut(format!("{base}.approvals.{key}"), SENDS_CARDS);
            }
        }
    }
    if entry.remove("trustWorkspace").is_some() {
        cut(format!("{base}.trustWorkspace"), TRUST_KEY);
    }
    if entry.remove("policy").is_some() {
        cut(format!("{base}.policy"), ANSWERS_PERMISSIONS);
    }
}

fn remove_if_empty(entry: &mut Mapping, key: &str) {
    let empty = match entry.get(key) {
        Some(Value::Sequence(items)) => items.is_empty(),
        Some(Value::Mapping(items)) => items.is_empty(),
        _ => false,
    };
    if empty {
        entry.remove(key);
    }
}

/// Whether a remote MCP server's URL or headers name a `${VAR}` (its
/// value would be sent to the server).
fn names_a_variable(server: &Value) -> bool {
    let mut names = std::collections::BTreeSet::new();
    if let Some(url) = server.get("url").and_then(Value::as_str) {
        references_in(url, &mut names);
    }
    if let Some(Value::Mapping(headers)) = server.get("headers") {
        for value in headers.values().filter_map(Value::as_str) {
            references_in(value, &mut names);
        }
    }
    !names.is_empty()
}

/// Whether `path` lies inside `root`: lexically (`..` resolved) and by
/// the real path of its longest existing part (a link inside the project
/// that points out is outside).
fn inside(path: &Path, root: &Path) -> bool {
    let lexical = crate::fs_safety::lexical_normalize(path);
    if !lexical.starts_with(crate::fs_safety::lexical_normalize(root)) {
        return false;
    }
    let Ok(real_root) = fs_err::canonicalize(root) else {
        return false;
    };
    let mut existing = lexical.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = fs_err::canonicalize(existing) {
            let real: PathBuf = real.join(rest.iter().rev().collect::<PathBuf>());
            return real.starts_with(&real_root);
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name);
                existing = parent;
            }
            _ => return false,
        }
    }
}

#[cfg(test)]
#[path = "untrusted_tests.rs"]
mod tests;
