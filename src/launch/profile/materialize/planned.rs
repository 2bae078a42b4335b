//! What a [`WorldPlan`] holds — the files of an agent's home before they are
//! written, and what oneworks itself generated in them — and the one check
//! of a path the adapter data names. Computed by `plan.rs`; read back,
//! merged and scrubbed by the modules beside it.

use std::path::{Component, PathBuf};

use serde_json::Value;

use crate::launch::profile::ProfileError;

/// One file to write, relative to the agent's home.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedFile {
    pub relative: PathBuf,
    pub contents: String,
}

/// Everything a session gets, before it is written.
#[derive(Debug, Clone, Default)]
pub struct WorldPlan {
    pub files: Vec<PlannedFile>,
    /// Skill folder names under the skills folder (oneworks-owned).
    pub skill_dirs: Vec<String>,
    pub diagnostics: Vec<String>,
    /// What oneworks itself generates, which scrubbing never takes away
    /// (SPEC §6.2): the agent file, its name and resource URIs, the
    /// prompt file's front matter, the values it sets in JSON files.
    pub generated: Generated,
}

#[derive(Debug, Clone, Default)]
pub struct Generated {
    pub agent_file: PathBuf,
    pub agent_name: String,
    pub resources: Vec<String>,
    /// The system prompt file and its front matter (oneworks').
    pub steering_file: Option<PathBuf>,
    pub front_matter: String,
    /// Values oneworks sets in a JSON file (forced keys, the login method,
    /// the trust level): `(file, JSON path, value)`, put back after
    /// scrubbing.
    pub values: Vec<(PathBuf, Vec<String>, Value)>,
}

/// A path of the adapter data, relative to the agent's home: plain names
/// only (a data file from `ONEWORKS_ADAPTERS_DIR` must not point outside).
pub fn data_path(path: &str, key: &str) -> Result<PathBuf, ProfileError> {
    let relative = PathBuf::from(path);
    let plain = !path.is_empty()
        && relative
            .components()
            .all(|component| matches!(component, Component::Normal(_)));
    if plain {
        Ok(relative)
    } else {
        Err(ProfileError::Config {
            key: format!("session.{key}"),
            message: format!("`{path}` in the adapter data is not a relative path of plain names"),
        })
    }
}
