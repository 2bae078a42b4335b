//! Keys an agent writes into its own settings file — the method of a
//! login made in its TUI or by ACP `authenticate` — survive oneworks'
//! rewrite of that file when the plan does not set them (a
//! login survives). The file on disk is read without following links, at
//! most 1 MiB; anything unreadable keeps nothing.

use serde_json::Value;

use super::document;
use super::planned::{data_path, Contents, WorldPlan};
use super::settings_file::path_of;
use crate::adapter::data::AdapterData;
use crate::fs_safety;
use crate::launch::profile::layout::ProfileLayout;
use crate::launch::profile::ProfileError;

const MAX_SETTINGS_BYTES: u64 = 1024 * 1024;

fn lookup<'a>(document: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter()
        .try_fold(document, |value, key| value.as_object()?.get(key))
}

/// `plan` with the data's `settings.keep` keys copied from the settings
/// file on disk where the planned file lacks them.
pub fn with_agent_keys(
    plan: &WorldPlan,
    layout: &ProfileLayout,
    data: &AdapterData,
) -> Result<WorldPlan, ProfileError> {
    let settings = &data.session.settings;
    if settings.keep.is_empty() {
        return Ok(plan.clone());
    }
    let relative = data_path(&settings.path, "settings.path")?;
    let path = layout.agent_home.join(&relative);
    let Some(parent) = path.parent() else {
        return Ok(plan.clone());
    };
    if fs_safety::check_dir_chain(&layout.project, parent).is_err() {
        // Refused again, with its reason, when the file is written.
        return Ok(plan.clone());
    }
    let Some(existing) = fs_safety::read_regular_file(&path, MAX_SETTINGS_BYTES, false)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|text| document::parse(settings.format, &text))
    else {
        return Ok(plan.clone());
    };
    let mut kept = plan.clone();
    for file in kept
        .files
        .iter_mut()
        .filter(|file| file.relative == relative)
    {
        let Some(mut document) = file.contents.as_document().cloned() else {
            continue;
        };
        let mut changed = false;
        for key in &settings.keep {
            let path = path_of(key, settings.format);
            if lookup(&document, &path).is_some() {
                continue;
            }
            // Only plain values: a map or list from the agent's file is
            // not a login method.
            if let Some(value) = lookup(&existing, &path)
                .filter(|value| value.is_string() || value.is_boolean() || value.is_number())
            {
                super::scrub::put(&mut document, &path, value.clone());
                changed = true;
            }
        }
        if changed {
            file.contents = match file.contents {
                Contents::Toml(_) => Contents::Toml(document),
                _ => Contents::Json(document),
            };
        }
    }
    Ok(kept)
}
