//! Adapter data files edited by key path rather than by text: a test that
//! tunes a built-in adapter (`tui.renderGapMs` = 40) edits the parsed YAML
//! of `manifests/<id>.yaml`, and fails naming the key when the manifest no
//! longer has it (the manifest moved on: the test follows it, it does not
//! silently test the built-in values). Comments are not kept; positions a
//! test checks are read from [`AdapterYaml::text`].

use std::path::Path;

pub use serde_yaml_ng::Value;

/// A parsed adapter file.
#[derive(Clone)]
pub struct AdapterYaml {
    root: Value,
}

impl AdapterYaml {
    /// The built-in `manifests/<id>.yaml`.
    #[track_caller]
    pub fn builtin(id: &str) -> AdapterYaml {
        let path = format!("{}/manifests/{id}.yaml", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        AdapterYaml::parse(&text)
    }

    /// An adapter file from its text.
    #[track_caller]
    pub fn parse(text: &str) -> AdapterYaml {
        let root = serde_yaml_ng::from_str(text).expect("an adapter file is YAML");
        AdapterYaml { root }
    }

    /// The value at `path` (`acp.stopGraceMs`; a number indexes a list:
    /// `acp.command.0.program`), which must exist.
    #[track_caller]
    pub fn get(&self, path: &str) -> &Value {
        let mut at = &self.root;
        for key in path.split('.') {
            at = step(at, key).unwrap_or_else(|| panic!("the adapter file has no `{path}`"));
        }
        at
    }

    /// Sets the value at `path`, which must exist.
    #[track_caller]
    pub fn set(&mut self, path: &str, value: impl Into<Value>) -> &mut AdapterYaml {
        *self.at_mut(path) = value.into();
        self
    }

    /// Adds the key at `path`, which must not exist yet, to its parent
    /// mapping, which must.
    #[track_caller]
    pub fn insert(&mut self, path: &str, value: impl Into<Value>) -> &mut AdapterYaml {
        let (parent, key) = path.rsplit_once('.').unwrap_or(("", path));
        let map = if parent.is_empty() {
            &mut self.root
        } else {
            self.at_mut(parent)
        };
        let map = map
            .as_mapping_mut()
            .unwrap_or_else(|| panic!("`{parent}` is not a mapping"));
        let before = map.insert(key.into(), value.into());
        assert!(before.is_none(), "the adapter file already has `{path}`");
        self
    }

    /// Removes the key at `path`, which must exist.
    #[track_caller]
    pub fn remove(&mut self, path: &str) -> &mut AdapterYaml {
        let (parent, key) = path.rsplit_once('.').unwrap_or(("", path));
        let map = if parent.is_empty() {
            &mut self.root
        } else {
            self.at_mut(parent)
        };
        let removed = map.as_mapping_mut().and_then(|map| map.shift_remove(key));
        assert!(removed.is_some(), "the adapter file has no `{path}`");
        self
    }

    /// The file's text.
    pub fn text(&self) -> String {
        serde_yaml_ng::to_string(&self.root).expect("serialize the adapter file")
    }

    /// Writes the file's text to `path`.
    #[track_caller]
    pub fn write(&self, path: &Path) {
        std::fs::write(path, self.text())
            .unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    }

    #[track_caller]
    fn at_mut(&mut self, path: &str) -> &mut Value {
        let mut at = &mut self.root;
        for key in path.split('.') {
            at = step_mut(at, key).unwrap_or_else(|| panic!("the adapter file has no `{path}`"));
        }
        at
    }
}

/// YAML text as a value, for what a test inserts (a mapping, a list).
#[track_caller]
pub fn yaml(text: &str) -> Value {
    serde_yaml_ng::from_str(text).expect("YAML")
}

fn step<'a>(at: &'a Value, key: &str) -> Option<&'a Value> {
    match (at, key.parse::<usize>()) {
        (Value::Sequence(items), Ok(index)) => items.get(index),
        _ => at.as_mapping()?.get(key),
    }
}

fn step_mut<'a>(at: &'a mut Value, key: &str) -> Option<&'a mut Value> {
    match (at, key.parse::<usize>()) {
        (Value::Sequence(items), Ok(index)) => items.get_mut(index),
        (at, _) => at.as_mapping_mut()?.get_mut(key),
    }
}
