//! Folder trust (SPEC §11.3): an agent that skips features in folders it
//! was not told to trust gets the project in its trusted-folders file only
//! when the user said so — `trustWorkspace: true` in the user's own config
//! file or `--trust-workspace` (the config loader keeps the key from no
//! other file). oneworks owns the file: without trust it says so
//! explicitly (an agent asked nothing would stop at a trust dialog), so no
//! earlier trust outlives the user's config, and a warning names what the
//! agent will skip.

use std::path::Path;

use serde_json::{Map, Value};

use crate::adapter::session_data::{TrustData, TRUST_PROJECT};

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
/// trusted.
pub fn document(
    trust: &TrustData,
    trusted: bool,
    project: Option<&Path>,
    agent: &str,
    adapter: &str,
) -> (Value, Option<String>) {
    let mut folders = Map::new();
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
            let shown = project
                .map(|project| format!("`{}`", project.display()))
                .unwrap_or_else(|| "the project folder".to_owned());
            let warning = format!(
                "{agent} will treat {shown} as untrusted and skip {}; to trust it, set `adapters.{adapter}.trustWorkspace: true` in your own config file or pass `--trust-workspace`",
                trust.untrusted_skips.join(", ")
            );
            (Value::Object(folders), Some(warning))
        }
    }
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
