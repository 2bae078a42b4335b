//! The settings file `configContent` becomes, kept as
//! one map of dotted keys while it is planned and written in the adapter's
//! format: flat (Kiro's `settings/cli.json`) or nested (Gemini's
//! `settings.json`). `configContent` may be written flat or nested either
//! way; TOML (Codex's `config.toml`) is nested like the latter and made
//! text by `document`. Keys oneworks sets itself (forced keys, the login method, the
//! MCP servers and hooks it owns) replace what the config says there.

use serde_json::{Map, Value};

use crate::adapter::session_data::SettingsFormat;
use crate::launch::profile::ProfileError;

/// Flattens nested maps into dotted keys; a key given twice is an error
/// (`root` names the config entry, `adapters.kiro`).
pub fn flatten(
    content: &Map<String, Value>,
    root: &str,
) -> Result<Map<String, Value>, ProfileError> {
    let mut flat = Map::new();
    walk(content, "", &mut flat, root)?;
    Ok(flat)
}

fn walk(
    map: &Map<String, Value>,
    prefix: &str,
    flat: &mut Map<String, Value>,
    root: &str,
) -> Result<(), ProfileError> {
    for (key, value) in map {
        let dotted = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match value {
            Value::Object(inner) if !inner.is_empty() => walk(inner, &dotted, flat, root)?,
            other => {
                if flat.insert(dotted.clone(), other.clone()).is_some() {
                    return Err(ProfileError::Config {
                        key: format!("{root}.configContent.{dotted}"),
                        message: format!("`{dotted}` is given twice (flat and nested)"),
                    });
                }
            }
        }
    }
    Ok(())
}

/// Whether `key` is `owned` or lies inside or above it (`a`, `a.b`,
/// `a.b.c` for `a.b`): one of them set by the config would clash with the
/// owned key in nested form.
fn overlaps(key: &str, owned: &str) -> bool {
    key == owned
        || key
            .strip_prefix(owned)
            .is_some_and(|rest| rest.starts_with('.'))
        || owned
            .strip_prefix(key)
            .is_some_and(|rest| rest.starts_with('.'))
}

/// The settings while they are planned: dotted keys in order.
#[derive(Debug, Clone, Default)]
pub struct SettingsMap {
    flat: Map<String, Value>,
}

impl SettingsMap {
    pub fn from_config(
        content: Option<&Map<String, Value>>,
        root: &str,
    ) -> Result<Self, ProfileError> {
        Ok(Self {
            flat: match content {
                Some(content) => flatten(content, root)?,
                None => Map::new(),
            },
        })
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.flat.get(key)
    }

    /// Sets `key` to `value`, removing what the config put at, inside or
    /// above it; returns whether the config said something else there.
    pub fn force(&mut self, key: &str, value: Value) -> bool {
        let clashing: Vec<String> = self
            .flat
            .keys()
            .filter(|existing| overlaps(existing, key))
            .cloned()
            .collect();
        let differed = clashing
            .iter()
            .any(|existing| existing != key || self.flat.get(existing) != Some(&value));
        if clashing.iter().any(|existing| existing != key) {
            for existing in &clashing {
                self.flat.shift_remove(existing);
            }
        }
        self.flat.insert(key.to_owned(), value);
        differed
    }

    /// Removes what the config put at, inside or above `key`; returns
    /// whether there was anything.
    pub fn remove(&mut self, key: &str) -> bool {
        let clashing: Vec<String> = self
            .flat
            .keys()
            .filter(|existing| overlaps(existing, key))
            .cloned()
            .collect();
        for existing in &clashing {
            self.flat.shift_remove(existing);
        }
        !clashing.is_empty()
    }

    /// The document in `format`.
    pub fn render(&self, format: SettingsFormat, root: &str) -> Result<Value, ProfileError> {
        match format {
            SettingsFormat::FlatJson => Ok(Value::Object(self.flat.clone())),
            SettingsFormat::NestedJson | SettingsFormat::Toml => {
                nest(&self.flat, root).map(Value::Object)
            }
        }
    }
}

/// Dotted keys as nested maps: `{"a.b": 1}` → `{"a": {"b": 1}}`.
pub fn nest(flat: &Map<String, Value>, root: &str) -> Result<Map<String, Value>, ProfileError> {
    let mut nested = Map::new();
    for (dotted, value) in flat {
        let clash = || ProfileError::Config {
            key: format!("{root}.configContent.{dotted}"),
            message: format!("`{dotted}` is both a value and a map of values"),
        };
        let mut parts: Vec<&str> = dotted.split('.').collect();
        let last = parts.pop().unwrap_or_default();
        let mut map = &mut nested;
        for part in parts {
            let entry = map
                .entry(part.to_owned())
                .or_insert_with(|| Value::Object(Map::new()));
            map = match entry {
                Value::Object(inner) => inner,
                _ => return Err(clash()),
            };
        }
        if map.insert(last.to_owned(), value.clone()).is_some() {
            return Err(clash());
        }
    }
    Ok(nested)
}

/// The JSON path of dotted `key` in a document of `format`.
pub fn path_of(key: &str, format: SettingsFormat) -> Vec<String> {
    match format {
        SettingsFormat::FlatJson => vec![key.to_owned()],
        SettingsFormat::NestedJson | SettingsFormat::Toml => {
            key.split('.').map(str::to_owned).collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn flat_and_nested_give_the_same_file() {
        let flat = flatten(
            &map(json!({"telemetry.enabled": false, "chat.defaultModel": "m"})),
            "adapters.kiro",
        )
        .expect("flat");
        let nested = flatten(
            &map(json!({"telemetry": {"enabled": false}, "chat": {"defaultModel": "m"}})),
            "adapters.kiro",
        )
        .expect("nested");
        assert_eq!(
            Value::Object(flat.clone()),
            json!({"telemetry.enabled": false, "chat.defaultModel": "m"})
        );
        assert_eq!(flat, nested);
        let mixed = flatten(
            &map(json!({"chat": {"defaultAgent": "oneworks", "x": {"y": [1]}}, "a.b": 1})),
            "adapters.kiro",
        )
        .expect("mixed");
        assert_eq!(
            Value::Object(mixed),
            json!({"chat.defaultAgent": "oneworks", "chat.x.y": [1], "a.b": 1})
        );
    }

    #[test]
    fn a_key_given_twice_is_refused() {
        let error = flatten(
            &map(json!({"telemetry.enabled": false, "telemetry": {"enabled": true}})),
            "adapters.gemini",
        )
        .unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains("adapters.gemini.configContent.telemetry.enabled"),
            "{message}"
        );
    }

    #[test]
    fn nested_form_from_either_form() {
        let settings = SettingsMap::from_config(
            Some(&map(
                json!({"ui.theme": "Dracula", "ui": {"hideTips": true}, "model": {"name": "m"}}),
            )),
            "adapters.gemini",
        )
        .expect("settings");
        assert_eq!(
            settings
                .render(SettingsFormat::NestedJson, "adapters.gemini")
                .expect("nested"),
            json!({"ui": {"theme": "Dracula", "hideTips": true}, "model": {"name": "m"}})
        );
    }

    #[test]
    fn a_value_that_is_also_a_map_is_refused() {
        let settings = SettingsMap::from_config(
            Some(&map(json!({"ui": "plain", "ui.theme": "Dracula"}))),
            "adapters.gemini",
        )
        .expect("settings");
        let error = settings
            .render(SettingsFormat::NestedJson, "adapters.gemini")
            .unwrap_err();
        assert!(error.to_string().contains("`ui.theme`"), "{error}");
    }

    #[test]
    fn forcing_replaces_values_inside_and_above_the_key() {
        let mut settings = SettingsMap::from_config(
            Some(&map(
                json!({"general": {"sessionRetention": {}, "vimMode": true}}),
            )),
            "adapters.gemini",
        )
        .expect("settings");
        assert!(settings.force("general.sessionRetention.enabled", json!(false)));
        assert!(!settings.force("general.vimMode", json!(true)));
        assert!(!settings.force("general.enableAutoUpdate", json!(false)));
        assert_eq!(
            settings
                .render(SettingsFormat::NestedJson, "adapters.gemini")
                .expect("nested"),
            json!({"general": {"vimMode": true, "sessionRetention": {"enabled": false}, "enableAutoUpdate": false}})
        );
        assert!(settings.remove("general"));
        assert!(!settings.remove("mcpServers"));
    }
}
