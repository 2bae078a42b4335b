//! The agent's own state file (the adapter's `session.stateFile`: Claude
//! Code's `.claude.json`): the agent writes it itself — its onboarding, the
//! folders it was told to trust, its login — and oneworks sets only the
//! data's keys in it: first-run dialogs marked done, and the project's
//! trust entry, trusted only when the user said so (otherwise
//! the entry says untrusted and the agent asks the person). The plan holds
//! just those keys; when it is written they are laid over the file on disk
//! (read without following links), so every key the agent wrote stays.

use std::path::Path;

use serde_json::{Map, Value};

use super::planned::{data_path, Contents, Generated, PlannedFile, WorldPlan};
use super::settings_file;
use crate::adapter::data::AdapterData;
use crate::adapter::session_data::{SettingsFormat, StateFileData};
use crate::fs_safety::{self, ReadRefusal};
use crate::launch::profile::layout::ProfileLayout;
use crate::launch::profile::ProfileError;

/// A state file larger than this is refused, not rewritten.
const MAX_STATE_BYTES: u64 = 16 * 1024 * 1024;

/// The planned keys of the state file (each also recorded in `generated`
/// so scrubbing never takes them away).
pub fn planned(
    state: &StateFileData,
    trusted: bool,
    project: Option<&Path>,
    generated: &mut Generated,
) -> Result<PlannedFile, ProfileError> {
    let relative = data_path(&state.path, "stateFile.path")?;
    let mut document = Value::Object(Map::new());
    let mut set = |path: Vec<String>, value: &Value| {
        super::scrub::put(&mut document, &path, value.clone());
        generated
            .values
            .push((relative.clone(), path, value.clone()));
    };
    for (key, value) in &state.forced {
        set(
            settings_file::path_of(key, SettingsFormat::NestedJson),
            value,
        );
    }
    if let (Some(trust), Some(project)) = (&state.trust, project) {
        let entry = if trusted {
            &trust.trusted
        } else {
            &trust.untrusted
        };
        let folder = project.to_string_lossy().into_owned();
        for (key, value) in entry {
            set(
                vec![trust.folders.clone(), folder.clone(), key.clone()],
                value,
            );
        }
    }
    Ok(PlannedFile {
        relative,
        contents: Contents::Json(document),
    })
}

/// `plan` with the state file's planned keys laid over the file on disk.
/// A missing file is the planned keys alone; one that cannot be read as a
/// JSON object is an error naming it (rewriting it would lose the agent's
/// own state, its login among it).
pub fn over_agent_file(
    plan: &WorldPlan,
    layout: &ProfileLayout,
    data: &AdapterData,
) -> Result<WorldPlan, ProfileError> {
    let Some(state) = &data.session.state_file else {
        return Ok(plan.clone());
    };
    let relative = data_path(&state.path, "stateFile.path")?;
    let path = layout.agent_home.join(&relative);
    let Some(parent) = path.parent() else {
        return Ok(plan.clone());
    };
    if fs_safety::check_dir_chain(&layout.project, parent).is_err() {
        // Refused again, with its reason, when the file is written.
        return Ok(plan.clone());
    }
    let unreadable = |reason: String| ProfileError::AgentState {
        agent: data.display_name.clone(),
        path: path.clone(),
        reason,
    };
    let existing = match fs_safety::read_regular_file(&path, MAX_STATE_BYTES, false) {
        Ok(bytes) => match serde_json::from_slice::<Value>(&bytes) {
            Ok(Value::Object(existing)) => existing,
            _ => return Err(unreadable("is not a JSON object".to_owned())),
        },
        Err(ReadRefusal::Missing) => Map::new(),
        Err(ReadRefusal::TooLarge) => {
            return Err(unreadable(format!(
                "is larger than {MAX_STATE_BYTES} bytes"
            )))
        }
        Err(ReadRefusal::Symlink) => return Err(unreadable("is a symbolic link".to_owned())),
        Err(ReadRefusal::NotRegular(kind)) => return Err(unreadable(format!("is a {kind}"))),
        Err(ReadRefusal::Io(source)) => {
            return Err(ProfileError::AgentStateRead {
                agent: data.display_name.clone(),
                path: path.clone(),
                source,
            })
        }
    };
    let mut merged = plan.clone();
    for file in merged
        .files
        .iter_mut()
        .filter(|file| file.relative == relative)
    {
        let Contents::Json(Value::Object(keys)) = &file.contents else {
            continue;
        };
        let mut document = Value::Object(existing.clone());
        lay_over(&mut document, keys.clone());
        file.contents = Contents::Json(document);
    }
    Ok(merged)
}

/// Lays `keys` over `document`: objects merge key by key, anything else
/// replaces.
fn lay_over(document: &mut Value, keys: Map<String, Value>) {
    let Value::Object(target) = document else {
        *document = Value::Object(keys);
        return;
    };
    for (key, value) in keys {
        match (target.get_mut(&key), value) {
            (Some(existing @ Value::Object(_)), Value::Object(inner)) => lay_over(existing, inner),
            (_, value) => {
                target.insert(key, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapter::session_data::StateTrustData;
    use serde_json::json;

    fn state() -> StateFileData {
        let map = |value: Value| value.as_object().cloned().expect("object");
        StateFileData {
            path: ".claude.json".to_owned(),
            forced: map(json!({"hasCompletedOnboarding": true, "tips.seen": 1})),
            trust: Some(StateTrustData {
                folders: "projects".to_owned(),
                trusted: map(json!({"hasTrustDialogAccepted": true})),
                untrusted: map(json!({"hasTrustDialogAccepted": false})),
            }),
        }
    }

    fn keys(trusted: bool) -> Value {
        let mut generated = Generated::default();
        let file = planned(
            &state(),
            trusted,
            Some(Path::new("/work/my.project")),
            &mut generated,
        )
        .expect("planned");
        assert_eq!(file.relative, Path::new(".claude.json"));
        assert_eq!(generated.values.len(), 3, "{:?}", generated.values);
        file.contents.as_document().cloned().expect("json")
    }

    #[test]
    fn trust_is_set_only_when_the_user_trusted_the_workspace() {
        assert_eq!(
            keys(true),
            json!({
                "hasCompletedOnboarding": true,
                "tips": {"seen": 1},
                "projects": {"/work/my.project": {"hasTrustDialogAccepted": true}},
            })
        );
        assert_eq!(
            keys(false)["projects"],
            json!({"/work/my.project": {"hasTrustDialogAccepted": false}}),
            "a folder path with dots stays one key"
        );
    }

    #[test]
    fn the_agents_own_keys_stay_and_ours_win() {
        let mut document = json!({
            "oauthAccount": {"emailAddress": "a@example.com"},
            "hasCompletedOnboarding": false,
            "projects": {
                "/work/my.project": {"allowedTools": ["Bash(ls)"], "hasTrustDialogAccepted": true},
                "/elsewhere": {"hasTrustDialogAccepted": true},
            },
        });
        let Value::Object(ours) = keys(false) else {
            panic!("object")
        };
        lay_over(&mut document, ours);
        assert_eq!(
            document,
            json!({
                "oauthAccount": {"emailAddress": "a@example.com"},
                "hasCompletedOnboarding": true,
                "tips": {"seen": 1},
                "projects": {
                    "/work/my.project": {"allowedTools": ["Bash(ls)"], "hasTrustDialogAccepted": false},
                    "/elsewhere": {"hasTrustDialogAccepted": true},
                },
            })
        );
    }
}
