//! What a [`WorldPlan`] holds — the files of an agent's home before they are
//! written, typed (a JSON or TOML document, or text), and what oneworks
//! itself generated in them — and the one check of a path the adapter data
//! names. Computed by `plan.rs`; merged and scrubbed as documents by the
//! modules beside it, and turned into text only when written or shown.

use std::path::{Component, PathBuf};

use serde_json::Value;

use super::document;
use crate::adapter::session_data::SettingsFormat;
use crate::launch::profile::ProfileError;

/// One file to write, relative to the agent's home.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedFile {
    pub relative: PathBuf,
    pub contents: Contents,
}

/// What a planned file holds. Documents stay values until written, so the
/// files laid over the agent's own and the scrubber see the document, not
/// its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Contents {
    /// A JSON document: written pretty, with one final newline.
    Json(Value),
    /// A TOML document, held as the JSON value it was planned as; planned
    /// only when it has a TOML form (no `null`), see [`Contents::document`].
    Toml(Value),
    /// Text written as it is: the prompt file, skills, the data's extra
    /// files.
    Text(String),
}

impl Contents {
    /// `document` as a settings file's contents in `format`. A document
    /// without a TOML form is refused here, when planned, as a config
    /// error at `root.configContent`, not when written.
    pub fn document(
        format: SettingsFormat,
        document: Value,
        root: &str,
    ) -> Result<Contents, ProfileError> {
        match format {
            SettingsFormat::FlatJson | SettingsFormat::NestedJson => Ok(Contents::Json(document)),
            SettingsFormat::Toml => {
                document::render(format, &document, root)?;
                Ok(Contents::Toml(document))
            }
        }
    }

    /// The document, for a JSON or TOML file.
    pub fn as_document(&self) -> Option<&Value> {
        match self {
            Contents::Json(document) | Contents::Toml(document) => Some(document),
            Contents::Text(_) => None,
        }
    }

    /// The file's exact text.
    pub fn render(&self) -> Result<String, ProfileError> {
        match self {
            Contents::Json(document) => Ok(document::to_json(document)),
            Contents::Toml(document) => document::render(SettingsFormat::Toml, document, ""),
            Contents::Text(text) => Ok(text.clone()),
        }
    }
}

/// A planned file as written or shown: scrubbed, then rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedFile {
    pub relative: PathBuf,
    pub text: String,
}

/// Everything a session gets, before it is written.
#[derive(Debug, Clone, Default)]
pub struct WorldPlan {
    pub files: Vec<PlannedFile>,
    /// Skill folder names under the skills folder (oneworks-owned).
    pub skill_dirs: Vec<String>,
    pub diagnostics: Vec<String>,
    /// What oneworks itself generates, which scrubbing never takes away
    ///: the agent file, its name and resource URIs, the
    /// prompt file's front matter, the values it sets in JSON files.
    pub generated: Generated,
}

#[derive(Debug, Clone, Default)]
pub struct Generated {
    pub agent_file: PathBuf,
    pub agent_name: String,
    /// The agent file's keys oneworks owns (the data's `forced`).
    pub agent_forced: serde_json::Map<String, Value>,
    /// The key of the agent file's resources list, and oneworks' entries.
    pub resources_key: Option<String>,
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
