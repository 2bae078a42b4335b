//! A settings document as text in the adapter's format (§11.3,
//! §11.4): JSON, flat or nested, or TOML (Codex's `config.toml`). Planned,
//! kept and scrubbed as a JSON value; turned into text only here, so the
//! scrubber and the forced keys see one kind of document whatever the
//! file's format.

use serde_json::Value;

use crate::adapter::session_data::SettingsFormat;
use crate::launch::profile::ProfileError;

/// `document` as the file's text. TOML has no `null`: a config value that
/// is `null` is a config error at `root.configContent`. A TOML table's keys
/// are written sorted, as the `toml` crate's own tables hold them: the
/// file reads the same whatever order the config and the data gave.
pub fn render(
    format: SettingsFormat,
    document: &Value,
    root: &str,
) -> Result<String, ProfileError> {
    match format {
        SettingsFormat::FlatJson | SettingsFormat::NestedJson => Ok(to_json(document)),
        SettingsFormat::Toml => {
            if let Some(path) = null_path(document, String::new()) {
                return Err(ProfileError::Config {
                    key: format!("{root}.configContent.{path}"),
                    message: "`null` has no TOML form; leave the key out instead".to_owned(),
                });
            }
            toml::to_string(&sorted(document)).map_err(|source| ProfileError::Toml {
                key: format!("{root}.configContent"),
                source,
            })
        }
    }
}

/// A JSON document as a file's text: pretty, one final newline.
pub fn to_json(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_else(|_| "{}".to_owned());
    text.push('\n');
    text
}

/// The file's text as a document; `None` when it does not parse.
pub fn parse(format: SettingsFormat, text: &str) -> Option<Value> {
    match format {
        SettingsFormat::FlatJson | SettingsFormat::NestedJson => serde_json::from_str(text).ok(),
        SettingsFormat::Toml => toml::from_str::<Value>(text).ok(),
    }
}

/// `value` with every object's keys sorted.
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut map: serde_json::Map<String, Value> = map
                .iter()
                .map(|(key, inner)| (key.clone(), sorted(inner)))
                .collect();
            map.sort_keys();
            Value::Object(map)
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// The dotted path of the first `null` in `value` (array items by index).
fn null_path(value: &Value, prefix: String) -> Option<String> {
    let join = |key: &str| {
        if prefix.is_empty() {
            key.to_owned()
        } else {
            format!("{prefix}.{key}")
        }
    };
    match value {
        Value::Null => Some(prefix),
        Value::Object(map) => map
            .iter()
            .find_map(|(key, inner)| null_path(inner, join(key))),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(index, inner)| null_path(inner, join(&index.to_string()))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn toml_round_trips_nested_tables_and_arrays() {
        let document = json!({
            "model": "gpt-test",
            "model_provider": "local",
            "model_providers": {"local": {"base_url": "http://127.0.0.1:9/v1", "env_key": "OPENAI_API_KEY", "wire_api": "responses"}},
            "mcp_servers": {"docs": {"command": "/bin/docs", "args": ["--stdio"], "env": {}}},
        });
        let text = render(SettingsFormat::Toml, &document, "adapters.codex").expect("toml");
        assert!(text.contains("[model_providers.local]"), "{text}");
        assert!(text.contains("env_key = \"OPENAI_API_KEY\""), "{text}");
        assert_eq!(parse(SettingsFormat::Toml, &text), Some(document));
    }

    #[test]
    fn a_null_is_refused_with_its_key() {
        let document = json!({"a": {"b": [1, null]}});
        let error = render(SettingsFormat::Toml, &document, "adapters.codex").unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid config at `adapters.codex.configContent.a.b.1`: `null` has no TOML form; leave the key out instead"
        );
        assert_eq!(parse(SettingsFormat::Toml, "a = "), None);
    }

    /// The serializer's refusal (a bare number is no TOML document)
    /// stays the error's source, not its text.
    #[test]
    fn a_document_toml_cannot_hold_keeps_the_serializer_error_as_its_source() {
        let document = json!(1);
        let error = render(SettingsFormat::Toml, &document, "adapters.codex").unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid config at `adapters.codex.configContent`: cannot be written as TOML"
        );
        let cause = std::error::Error::source(&error).expect("the serializer's error");
        assert!(
            crate::error::message(&error).ends_with(&format!(": {cause}")),
            "{error:?}"
        );
    }
}
