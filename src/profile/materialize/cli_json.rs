//! `settings/cli.json` (SPEC §5.2): Kiro's settings are a flat map of
//! dotted keys. `configContent` may be written flat or as nested maps; both
//! become the flat form.

use serde_json::{Map, Value};

use crate::profile::ProfileError;

/// Flattens nested maps into dotted keys; a key given twice is an error.
pub fn flatten(content: &Map<String, Value>) -> Result<Map<String, Value>, ProfileError> {
    let mut flat = Map::new();
    walk(content, "", &mut flat)?;
    Ok(flat)
}

fn walk(
    map: &Map<String, Value>,
    prefix: &str,
    flat: &mut Map<String, Value>,
) -> Result<(), ProfileError> {
    for (key, value) in map {
        let dotted = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match value {
            Value::Object(inner) if !inner.is_empty() => walk(inner, &dotted, flat)?,
            other => {
                if flat.insert(dotted.clone(), other.clone()).is_some() {
                    return Err(ProfileError::Config {
                        key: format!("adapters.kiro.configContent.{dotted}"),
                        message: format!("`{dotted}` is given twice (flat and nested)"),
                    });
                }
            }
        }
    }
    Ok(())
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
        let flat = flatten(&map(
            json!({"telemetry.enabled": false, "chat.defaultModel": "m"}),
        ))
        .expect("flat");
        let nested = flatten(&map(
            json!({"telemetry": {"enabled": false}, "chat": {"defaultModel": "m"}}),
        ))
        .expect("nested");
        assert_eq!(
            Value::Object(flat.clone()),
            json!({"telemetry.enabled": false, "chat.defaultModel": "m"})
        );
        assert_eq!(flat, nested);
        let mixed = flatten(&map(
            json!({"chat": {"defaultAgent": "oneworks", "x": {"y": [1]}}, "a.b": 1}),
        ))
        .expect("mixed");
        assert_eq!(
            Value::Object(mixed),
            json!({"chat.defaultAgent": "oneworks", "chat.x.y": [1], "a.b": 1})
        );
    }

    #[test]
    fn a_key_given_twice_is_refused() {
        let error = flatten(&map(
            json!({"telemetry.enabled": false, "telemetry": {"enabled": true}}),
        ))
        .unwrap_err();
        assert!(error.to_string().contains("telemetry.enabled"), "{error}");
    }
}
