//! Folder trust: an agent that skips features in folders it
//! was not told to trust gets the project in its trusted-folders file only
//! when the user said so — `trustWorkspace: true` in the user's own config
//! file or `--trust-workspace` (the config loader keeps the key from no
//! other file). oneworks owns the file: without trust it says so
//! explicitly (an agent asked nothing would stop at a trust dialog), so no
//! earlier trust outlives the user's config, and a warning names what the
//! agent will skip.

use std::path::Path;

use serde_json::{Map, Value};

use super::planned::{data_path, Contents, WorldPlan};
use crate::adapter::data::AdapterData;
use crate::adapter::session_data::{TrustData, TRUST_PROJECT};
use crate::fs_safety;
use crate::launch::profile::layout::ProfileLayout;
use crate::launch::profile::ProfileError;

/// The keys, inside the settings document, of the trust level of an
/// adapter that keeps it in its settings (Codex's `[projects."<project>"]
/// trust_level`): only when the user trusts the project; `None` otherwise
/// (untrusted, the agent asks the person itself).
pub fn settings_keys(
    trust: &TrustData,
    trusted: bool,
    project: Option<&Path>,
) -> Option<Vec<String>> {
    let keys = trust.settings_path.as_ref()?;
    let project = project.filter(|_| trusted)?.to_string_lossy().into_owned();
    Some(
        keys.iter()
            .map(|key| {
                if key == TRUST_PROJECT {
                    project.clone()
                } else {
                    key.clone()
                }
            })
            .collect(),
    )
}

/// Sets `keys` to `value` in `document`, each key taken whole (a project
/// path holds dots and slashes), replacing what the config put there.
pub fn insert(document: &mut Value, keys: &[String], value: Value) {
    let Some((last, parents)) = keys.split_last() else {
        return;
    };
    let mut map = document;
    for key in parents {
        let Value::Object(object) = map else { return };
        let entry = object
            .entry(key.clone())
            .or_insert_with(|| Value::Object(Map::new()));
        if !entry.is_object() {
            *entry = Value::Object(Map::new());
        }
        map = entry;
    }
    if let Value::Object(object) = map {
        object.insert(last.clone(), value);
    }
}

/// The trusted-folders document, and the warning when the project is not
/// trusted. With `listKey`: `{<listKey>: [<project>]}` (trusted) or
/// `{<listKey>: []}`, merged into the agent's own file when written
/// ([`with_agent_file`]).
pub fn document(
    trust: &TrustData,
    trusted: bool,
    project: Option<&Path>,
    agent: &str,
    adapter: &str,
) -> (Value, Option<String>) {
    let mut folders = Map::new();
    if let Some(key) = &trust.list_key {
        let listed: Vec<Value> = project
            .filter(|_| trusted)
            .map(|project| Value::String(project.to_string_lossy().into_owned()))
            .into_iter()
            .collect();
        folders.insert(key.clone(), Value::Array(listed));
        let warning = (!trusted).then(|| warning(trust, project, agent, adapter));
        return (Value::Object(folders), warning);
    }
    match project {
        Some(project) if trusted => {
            folders.insert(
                project.to_string_lossy().into_owned(),
                Value::String(trust.level.clone()),
            );
            (Value::Object(folders), None)
        }
        _ => {
            if let (Some(project), Some(level)) = (project, &trust.untrusted_level) {
                folders.insert(
                    project.to_string_lossy().into_owned(),
                    Value::String(level.clone()),
                );
            }
            (
                Value::Object(folders),
                Some(warning(trust, project, agent, adapter)),
            )
        }
    }
}

fn warning(trust: &TrustData, project: Option<&Path>, agent: &str, adapter: &str) -> String {
    let shown = project
        .map(|project| format!("`{}`", project.display()))
        .unwrap_or_else(|| "the project folder".to_owned());
    format!(
        "{agent} will treat {shown} as untrusted and skip {}; to trust it, set `adapters.{adapter}.trustWorkspace: true` in your own config file or pass `--trust-workspace`",
        trust.untrusted_skips.join(", ")
    )
}

/// The largest agent file read back (Copilot's `config.json` is a few
/// hundred bytes).
const MAX_AGENT_FILE_BYTES: u64 = 1024 * 1024;

/// `plan` with a `listKey` trust file merged into the agent's own file on
/// disk: the agent's other keys and other folders kept, the project in the
/// list only when the plan put it there. When the agent's file already says
/// so, the file is left out of the plan (not rewritten). Comment lines at
/// the top (`// …`, Copilot writes two) are dropped; a file that is not a
/// JSON object then is replaced by the planned document.
pub fn with_agent_file(
    plan: &WorldPlan,
    layout: &ProfileLayout,
    data: &AdapterData,
) -> Result<WorldPlan, ProfileError> {
    let Some(trust) = &data.session.trust else {
        return Ok(plan.clone());
    };
    let Some(key) = &trust.list_key else {
        return Ok(plan.clone());
    };
    let Some(path) = &trust.path else {
        return Ok(plan.clone());
    };
    let relative = data_path(path, "trust.path")?;
    let path = layout.agent_home.join(&relative);
    let existing = path
        .parent()
        .filter(|parent| fs_safety::check_dir_chain(&layout.project, parent).is_ok())
        .and_then(|_| fs_safety::read_regular_file(&path, MAX_AGENT_FILE_BYTES, false).ok())
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|text| parse_commented(&text));
    let project = Value::String(layout.project.to_string_lossy().into_owned());
    let mut merged = plan.clone();
    let mut unchanged = false;
    for file in merged
        .files
        .iter_mut()
        .filter(|file| file.relative == relative)
    {
        let planned = match &file.contents {
            Contents::Json(planned) => planned.clone(),
            _ => Value::Null,
        };
        let wanted = planned[key.as_str()]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let Some(Value::Object(mut document)) = existing.clone() else {
            continue;
        };
        let before = document.get(key).cloned();
        let mut list: Vec<Value> = before
            .as_ref()
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .filter(|folder| *folder != project && !wanted.contains(folder))
            .collect();
        list.extend(wanted);
        let list = Value::Array(list);
        unchanged = before.as_ref() == Some(&list);
        document.insert(key.clone(), list.clone());
        file.contents = Contents::Json(Value::Object(document));
        for (at, path, value) in &mut merged.generated.values {
            if *at == relative && path.len() == 1 && path[0] == *key {
                *value = list.clone();
            }
        }
    }
    if unchanged {
        merged.files.retain(|file| file.relative != relative);
    }
    Ok(merged)
}

/// A JSON document after any `//` comment lines at its top.
fn parse_commented(text: &str) -> Option<Value> {
    let body: String = text
        .lines()
        .skip_while(|line| line.trim_start().starts_with("//") || line.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    serde_json::from_str(&body).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn trust() -> TrustData {
        TrustData {
            path: Some(".gemini/trustedFolders.json".to_owned()),
            settings_path: None,
            level: "TRUST_FOLDER".to_owned(),
            untrusted_level: Some("DO_NOT_TRUST".to_owned()),
            list_key: None,
            untrusted_skips: vec!["its MCP servers".to_owned(), "yolo".to_owned()],
        }
    }

    #[test]
    fn trusted_only_when_the_user_says_so() {
        let project = Path::new("/work/project");
        let (document_trusted, warning) =
            document(&trust(), true, Some(project), "Gemini CLI", "gemini");
        assert_eq!(document_trusted, json!({"/work/project": "TRUST_FOLDER"}));
        assert_eq!(warning, None);
        let (untrusted, warning) = document(&trust(), false, Some(project), "Gemini CLI", "gemini");
        assert_eq!(untrusted, json!({"/work/project": "DO_NOT_TRUST"}));
        let (unknown, _) = document(&trust(), true, None, "Gemini CLI", "gemini");
        assert_eq!(unknown, json!({}));
        let warning = warning.expect("a warning");
        assert!(
            warning.contains("`/work/project`")
                && warning.contains("its MCP servers, yolo")
                && warning.contains("adapters.gemini.trustWorkspace"),
            "{warning}"
        );
    }

    #[test]
    fn a_list_key_lists_the_project_only_when_trusted() {
        let list = TrustData {
            path: Some("config.json".to_owned()),
            settings_path: None,
            level: String::new(),
            untrusted_level: None,
            list_key: Some("trustedFolders".to_owned()),
            untrusted_skips: vec!["its files".to_owned()],
        };
        let project = Path::new("/work/project");
        let (trusted, warning) = document(&list, true, Some(project), "Copilot", "copilot");
        assert_eq!(trusted, json!({"trustedFolders": ["/work/project"]}));
        assert_eq!(warning, None);
        let (untrusted, warning) = document(&list, false, Some(project), "Copilot", "copilot");
        assert_eq!(untrusted, json!({"trustedFolders": []}));
        assert!(warning.is_some_and(|w| w.contains("skip its files")));
    }

    #[test]
    fn the_agents_file_is_read_after_its_comment_lines() {
        let text = "// User settings belong in settings.json.\n// This file is managed automatically.\n{\n  \"a\": 1\n}\n";
        assert_eq!(parse_commented(text), Some(json!({"a": 1})));
        assert_eq!(parse_commented("{\"a\": [1]}"), Some(json!({"a": [1]})));
        assert_eq!(parse_commented("// only a comment\n"), None);
        assert_eq!(parse_commented("{\"a\": // no\n1}"), None);
    }

    #[test]
    fn a_level_in_the_settings_only_when_trusted_under_the_whole_path() {
        let codex = TrustData {
            path: None,
            settings_path: Some(vec![
                "projects".to_owned(),
                TRUST_PROJECT.to_owned(),
                "trust_level".to_owned(),
            ]),
            level: "trusted".to_owned(),
            untrusted_level: None,
            list_key: None,
            untrusted_skips: vec![],
        };
        let project = Path::new("/work/my.project");
        assert_eq!(settings_keys(&codex, false, Some(project)), None);
        assert_eq!(settings_keys(&codex, true, None), None);
        let keys = settings_keys(&codex, true, Some(project)).expect("trusted");
        assert_eq!(keys, ["projects", "/work/my.project", "trust_level"]);
        let mut document = json!({"model": "m", "projects": {"/other": {"trust_level": "trusted"}, "/work/my.project": "odd"}});
        insert(&mut document, &keys, json!("trusted"));
        assert_eq!(
            document,
            json!({"model": "m", "projects": {"/other": {"trust_level": "trusted"}, "/work/my.project": {"trust_level": "trusted"}}})
        );
        let gemini = trust();
        assert_eq!(settings_keys(&gemini, true, Some(project)), None);
    }
}
