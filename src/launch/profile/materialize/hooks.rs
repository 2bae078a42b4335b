//! Hooks: the config's `hooks` (trigger → entries of
//! `{command, matcher?}`, triggers checked against the adapter data when
//! the config is loaded) in the adapter's JSON shape, plus the signal
//! hook (`tui.signals.hook`) a session supervisor asks for.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::adapter::session_data::HookShape;
use crate::adapter::tui_signals::HookSignalData;
use crate::config::HookEntry;

fn entry(hook: &HookEntry, shape: HookShape) -> Value {
    match shape {
        HookShape::Flat => serde_json::to_value(hook).unwrap_or(Value::Null),
        HookShape::Grouped => {
            let mut entry = Map::new();
            if let Some(matcher) = &hook.matcher {
                entry.insert("matcher".to_owned(), Value::String(matcher.clone()));
            }
            entry.insert(
                "hooks".to_owned(),
                json!([{"type": "command", "command": hook.command}]),
            );
            Value::Object(entry)
        }
    }
}

/// The hooks map: the config's triggers in order, then the signal hook
/// (its event's list gets one more entry, after the person's own) when
/// `signal` names a command line and the adapter has such a hook.
pub fn build(
    hooks: &BTreeMap<String, Vec<HookEntry>>,
    shape: HookShape,
    signal: Option<(&HookSignalData, &str)>,
) -> Map<String, Value> {
    let mut map = Map::new();
    for (trigger, entries) in hooks {
        let entries = entries.iter().map(|hook| entry(hook, shape)).collect();
        map.insert(trigger.clone(), Value::Array(entries));
    }
    if let Some((hook, command)) = signal {
        let hook_entry = HookEntry {
            command: command.to_owned(),
            matcher: hook.matcher.clone(),
        };
        let list = map
            .entry(hook.event.clone())
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = list {
            list.push(entry(&hook_entry, shape));
        }
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hooks() -> BTreeMap<String, Vec<HookEntry>> {
        serde_yaml_ng::from_str(
            "BeforeTool:\n  - command: ./check.sh\n    matcher: run_shell_command\nSessionEnd:\n  - command: ./bye.sh\n",
        )
        .expect("hooks")
    }

    #[test]
    fn flat_shape_is_the_config_entries() {
        assert_eq!(
            Value::Object(build(&hooks(), HookShape::Flat, None)),
            json!({
                "BeforeTool": [{"command": "./check.sh", "matcher": "run_shell_command"}],
                "SessionEnd": [{"command": "./bye.sh"}],
            })
        );
    }

    #[test]
    fn grouped_shape_nests_commands_and_adds_the_signal_hook() {
        let signal: HookSignalData = serde_yaml_ng::from_str(
            "event: Notification\nmatcher: ToolPermission\nagentId: [/session_id]\ntext: [/details/command]\n",
        )
        .expect("signal data");
        let built = build(
            &hooks(),
            HookShape::Grouped,
            Some((&signal, "/run/oneworks/notify")),
        );
        assert_eq!(
            Value::Object(built),
            json!({
                "BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "./check.sh"}]}],
                "SessionEnd": [{"hooks": [{"type": "command", "command": "./bye.sh"}]}],
                "Notification": [{"matcher": "ToolPermission", "hooks": [{"type": "command", "command": "/run/oneworks/notify"}]}],
            })
        );
    }
}
