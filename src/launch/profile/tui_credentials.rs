//! Credentials moved for the agent's own TUI (the adapter's
//! `session.tuiCredentials`). Claude Code's TUI asks "use this API key?"
//! whenever `ANTHROPIC_API_KEY` is in its environment, and a yes keeps the
//! key's last characters in its state file; under another name, read by a
//! helper command its settings name (`apiKeyHelper`), the key still comes
//! from the environment only and nothing of it is written. ACP runs keep
//! the variable as it is.

use serde_json::Value;

use super::child_environment::ChildEnvironment;
use crate::adapter::data::AdapterData;
use crate::adapter::session_data::MovedCredential;
use crate::env_options::environment::Environment;

/// The moves whose variable is set (non-empty) in `env`.
pub fn moved<'a>(
    data: &'a AdapterData,
    env: Option<&'a Environment>,
) -> impl Iterator<Item = &'a MovedCredential> + 'a {
    data.session.tui_credentials.iter().filter(move |moved| {
        env.and_then(|env| env.get(&moved.variable))
            .is_some_and(|value| !value.is_empty())
    })
}

/// The settings keys the moves that apply force (dotted key, value).
pub fn settings<'a>(
    data: &'a AdapterData,
    env: Option<&'a Environment>,
) -> impl Iterator<Item = (&'a String, &'a Value)> + 'a {
    moved(data, env).flat_map(|moved| moved.settings.iter())
}

/// Moves each variable of the TUI child's environment to its new name.
pub fn apply(environment: &mut ChildEnvironment, data: &AdapterData) {
    for moved in &data.session.tui_credentials {
        let Some(value) = environment
            .get(&moved.variable)
            .filter(|value| !value.is_empty())
            .map(str::to_owned)
        else {
            continue;
        };
        environment.remove(&moved.variable);
        environment.set(moved.to.clone(), value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapter::session_data::MovedCredential;
    use serde_json::json;

    fn data() -> AdapterData {
        let mut data = AdapterData::builtin().expect("data");
        data.session.tui_credentials = vec![MovedCredential {
            variable: "KIRO_API_KEY".to_owned(),
            to: "ONEWORKS_TUI_KEY".to_owned(),
            settings: json!({"keyHelper": "printenv ONEWORKS_TUI_KEY"})
                .as_object()
                .cloned()
                .expect("object"),
        }];
        data
    }

    #[test]
    fn a_set_variable_is_moved_and_its_settings_apply() {
        let data = data();
        let mut environment = ChildEnvironment::default();
        environment.set("KIRO_API_KEY", "ksk_value");
        environment.set("PATH", "/usr/bin");
        apply(&mut environment, &data);
        assert_eq!(environment.get("KIRO_API_KEY"), None);
        assert_eq!(environment.get("ONEWORKS_TUI_KEY"), Some("ksk_value"));
        assert_eq!(environment.get("PATH"), Some("/usr/bin"));

        let set = Environment::from_pairs([("KIRO_API_KEY", "ksk_value")]);
        let forced: Vec<_> = settings(&data, Some(&set)).collect();
        assert_eq!(
            forced,
            [(&"keyHelper".to_owned(), &json!("printenv ONEWORKS_TUI_KEY"))]
        );
    }

    #[test]
    fn an_unset_or_empty_variable_moves_nothing() {
        let data = data();
        let mut environment = ChildEnvironment::default();
        environment.set("KIRO_API_KEY", "");
        apply(&mut environment, &data);
        assert_eq!(environment.get("KIRO_API_KEY"), Some(""));
        assert_eq!(environment.get("ONEWORKS_TUI_KEY"), None);
        let empty = Environment::from_pairs([("KIRO_API_KEY", "")]);
        assert_eq!(settings(&data, Some(&empty)).count(), 0);
        assert_eq!(settings(&data, None).count(), 0);
    }
}
