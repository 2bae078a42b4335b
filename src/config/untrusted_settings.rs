//! What of an agent's own settings an untrusted project config may set
//! ("an agent's settings are code"). `configContent` and
//! `agentConfig` become the agent's user-level settings, which it trusts
//! fully: almost any key there can run a command or send a credential, and
//! the agents add such keys with every release. So from an untrusted
//! layer nothing of them applies but the keys the adapter's data lists as
//! safe ([`SafeKey`]); everything else is cut and named, leaf by leaf.
//!
//! Keys are matched as the settings file gets them: a flat dotted key
//! (`telemetry.enabled`) and nested maps (`telemetry: {enabled: …}`) are
//! the same key path, compared segment by segment (`model` is not a prefix
//! of `model_providers`). A listed key is a leaf, never a subtree: its
//! value applies when it is a scalar — a string only when it is plain
//! text — or, for a key listed with a value, exactly that value.

use serde_yaml_ng::{Mapping, Value};

use crate::adapter::session_data::SafeKey;

/// The longest string value that applies untrusted (a model or theme
/// name is far shorter).
const MAX_PLAIN: usize = 200;

pub(super) const NOT_LISTED: &str =
    "an agent setting the adapter's data does not list as safe for an untrusted project (agent settings can run commands or send credentials)";
pub(super) const NOT_PLAIN: &str =
    "listed as safe only with a plain value (a number, `true`/`false`, or text of letters, digits, spaces and `._:/@+-`)";
pub(super) const NOT_PINNED: &str =
    "listed as safe only with the one value the adapter's data names";

/// Keeps of `map` (one adapter's `configContent` or `agentConfig`, at
/// key path `base`) only the keys `safe` lists, with a value that fits;
/// `cut` gets every leaf left out (its full key path) and why.
pub(super) fn keep_safe(
    map: &mut Mapping,
    base: &str,
    safe: &[SafeKey],
    cut: &mut impl FnMut(String, &'static str),
) {
    keep_safe_below(map, "", base, safe, cut);
}

/// [`keep_safe`] for the map at dotted key path `prefix` (`""` at the top).
fn keep_safe_below(
    map: &mut Mapping,
    prefix: &str,
    base: &str,
    safe: &[SafeKey],
    cut: &mut impl FnMut(String, &'static str),
) {
    map.retain(|key, value| {
        let dotted = join(prefix, &key_text(key));
        if let Some(listed) = safe.iter().find(|listed| listed.path == dotted) {
            let reason = match &listed.only {
                Some(only) if !equals(value, only) => NOT_PINNED,
                None if !plain(value) => NOT_PLAIN,
                _ => return true,
            };
            report_leaves(value, &dotted, base, reason, cut);
            return false;
        }
        let leads_to_listed = safe.iter().any(|listed| {
            listed
                .path
                .strip_prefix(dotted.as_str())
                .is_some_and(|rest| rest.starts_with('.'))
        });
        if let (true, Value::Mapping(inner)) = (leads_to_listed, &mut *value) {
            if !inner.is_empty() {
                keep_safe_below(inner, &dotted, base, safe, cut);
                return !inner.is_empty();
            }
        }
        report_leaves(value, &dotted, base, NOT_LISTED, cut);
        false
    });
}

/// Names every leaf of `value` (at `dotted`) as cut: a non-empty map by its
/// keys, anything else (a list, an empty map, a scalar) as one key.
fn report_leaves(
    value: &Value,
    dotted: &str,
    base: &str,
    reason: &'static str,
    cut: &mut impl FnMut(String, &'static str),
) {
    match value {
        Value::Mapping(inner) if !inner.is_empty() => {
            for (key, value) in inner {
                report_leaves(value, &join(dotted, &key_text(key)), base, reason, cut);
            }
        }
        _ => cut(format!("{base}.{dotted}"), reason),
    }
}

/// A map key as text: a string as it is, another scalar as YAML writes it.
fn key_text(key: &Value) -> String {
    match key {
        Value::String(text) => text.clone(),
        other => serde_yaml_ng::to_string(other)
            .map(|text| text.trim_end().to_owned())
            .unwrap_or_else(|_| "?".to_owned()),
    }
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_owned()
    } else {
        format!("{prefix}.{key}")
    }
}

/// Whether `value` is the pinned JSON value `only`.
fn equals(value: &Value, only: &serde_json::Value) -> bool {
    serde_json::to_value(value).is_ok_and(|value| &value == only)
}

/// Whether `value` is a plain scalar: a number, a boolean, `null` (which
/// the merge reads as not set), or a string of at most [`MAX_PLAIN`]
/// characters among letters, digits, spaces and `._:/@+-`. That leaves out
/// every substitution an agent makes in its settings (Qwen's and Gemini's
/// `$VAR`/`${VAR}`, opencode's `{env:…}` and `{file:…}`), quotes, shell
/// syntax and control characters.
fn plain(value: &Value) -> bool {
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) => true,
        Value::String(text) => {
            text.chars().count() <= MAX_PLAIN
                && text.chars().all(|character| {
                    character.is_ascii_alphanumeric() || " ._:/@+-".contains(character)
                })
        }
        Value::Sequence(_) | Value::Mapping(_) | Value::Tagged(_) => false,
    }
}
