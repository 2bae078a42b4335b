//! The agent file: its shape is the adapter's data
//! (`session.agentFile`: `base`, `forced`, `resources`, and the keys of the
//! hooks and MCP maps when they live in it). Its document is built as
//! name, description, the forced keys, the resources, the base keys, hooks
//! and MCP servers; `agentConfig` deep-merges over it; then what oneworks
//! owns — the name, the forced keys, hooks, MCP servers — is set back, and
//! oneworks' own resources are added to the config's (never dropped, never
//! twice).

use serde_json::{Map, Value};

use crate::adapter::session_data::AgentFileData;

/// Deep merge: maps merge key by key, anything else in `upper` replaces.
pub fn deep_merge(lower: &mut Value, upper: &Value) {
    match (lower, upper) {
        (Value::Object(lower), Value::Object(upper)) => {
            for (key, value) in upper {
                match lower.get_mut(key) {
                    Some(existing) => deep_merge(existing, value),
                    None => {
                        lower.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (lower, upper) => *lower = upper.clone(),
    }
}

pub struct AgentInputs<'a> {
    pub name: &'a str,
    /// The adapter data's shape of the file.
    pub file: &'a AgentFileData,
    /// oneworks' own entries of the resources list.
    pub resources: Vec<String>,
    /// The hooks map under its key, when the hooks live in the agent file.
    pub hooks: Option<(&'a str, Map<String, Value>)>,
    /// The MCP server map under its key, when it lives in the agent file.
    pub mcp_servers: Option<(&'a str, Map<String, Value>)>,
    pub agent_config: Option<&'a Map<String, Value>>,
}

pub fn build(inputs: AgentInputs<'_>) -> Value {
    let file = inputs.file;
    let mut agent = Map::new();
    agent.insert("name".to_owned(), Value::String(inputs.name.to_owned()));
    agent.insert(
        "description".to_owned(),
        Value::String(file.description.clone()),
    );
    agent.extend(file.forced.clone());
    if let Some(resources) = &file.resources {
        let own = inputs.resources.iter().cloned().map(Value::String);
        agent.insert(resources.key.clone(), Value::Array(own.collect()));
    }
    agent.extend(file.base.clone());
    for (key, _) in [&inputs.hooks, &inputs.mcp_servers].into_iter().flatten() {
        agent.insert((*key).to_owned(), Value::Object(Map::new()));
    }
    let mut agent = Value::Object(agent);
    if let Some(config) = inputs.agent_config {
        deep_merge(&mut agent, &Value::Object(config.clone()));
    }
    if let Value::Object(agent) = &mut agent {
        agent.insert("name".to_owned(), Value::String(inputs.name.to_owned()));
        for (key, value) in &file.forced {
            agent.insert(key.clone(), value.clone());
        }
        for (key, map) in [inputs.hooks, inputs.mcp_servers].into_iter().flatten() {
            agent.insert(key.to_owned(), Value::Object(map));
        }
        if let Some(resources) = &file.resources {
            add_resources(agent, &resources.key, inputs.resources);
        }
    }
    agent
}

/// oneworks' `own` entries added after the config's list under `key`
/// (each once).
fn add_resources(agent: &mut Map<String, Value>, key: &str, own: Vec<String>) {
    let mut resources = match agent.remove(key) {
        Some(Value::Array(items)) => items,
        Some(Value::Null) | None => Vec::new(),
        Some(other) => vec![other],
    };
    for own in own {
        if !resources
            .iter()
            .any(|kept| kept.as_str() == Some(own.as_str()))
        {
            resources.push(Value::String(own));
        }
    }
    agent.insert(key.to_owned(), Value::Array(resources));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The built-in Kiro data's agent file shape.
    fn kiro_shape() -> AgentFileData {
        crate::adapter::registry::Registry::builtin()
            .load("kiro")
            .expect("kiro data")
            .session
            .agent_file
            .expect("an agent file")
    }

    /// Another agent's file, of another shape: nothing of Kiro's in it.
    #[test]
    fn the_shape_is_the_datas() {
        let file: AgentFileData =
            serde_yaml_ng::from_str("dir: agents\ndescription: d\nforced: {sandbox: strict}\n")
                .expect("shape");
        let Value::Object(config) = json!({"sandbox": "off", "model": "m"}) else {
            unreachable!()
        };
        let agent = build(AgentInputs {
            name: "oneworks",
            file: &file,
            resources: vec!["file:///k/p.md".into()],
            hooks: None,
            mcp_servers: None,
            agent_config: Some(&config),
        });
        assert_eq!(
            agent,
            json!({"name": "oneworks", "description": "d", "sandbox": "strict", "model": "m"})
        );
    }

    #[test]
    fn merge_keeps_user_fields_but_forces_owned_ones() {
        let config = json!({
            "name": "hijack",
            "description": "mine",
            "includeMcpJson": true,
            "hooks": {"stop": [{"command": "rm -rf /"}]},
            "mcpServers": {"evil": {"command": "x"}},
            "tools": ["read", "write"],
            "toolsSettings": {"shell": {"allowedCommands": ["ls"]}},
        });
        let Value::Object(config) = config else {
            unreachable!()
        };
        let mut hooks = Map::new();
        hooks.insert("agentSpawn".into(), json!([{"command": "echo hi"}]));
        let file = kiro_shape();
        let agent = build(AgentInputs {
            name: "oneworks",
            file: &file,
            resources: vec!["file:///k/steering/oneworks-system.md".into()],
            hooks: Some(("hooks", hooks)),
            mcp_servers: Some(("mcpServers", Map::new())),
            agent_config: Some(&config),
        });
        assert_eq!(agent["name"], "oneworks");
        assert_eq!(agent["includeMcpJson"], false);
        assert_eq!(
            agent["hooks"],
            json!({"agentSpawn": [{"command": "echo hi"}]})
        );
        assert_eq!(agent["mcpServers"], json!({}));
        assert_eq!(agent["description"], "mine");
        assert_eq!(agent["tools"], json!(["read", "write"]));
        assert_eq!(
            agent["toolsSettings"]["shell"]["allowedCommands"],
            json!(["ls"])
        );
        assert_eq!(
            agent["resources"],
            json!(["file:///k/steering/oneworks-system.md"])
        );
    }

    #[test]
    fn configured_resources_are_kept_and_ours_added_once() {
        let Value::Object(config) = json!({
            "resources": ["file://docs/a.md", "file:///k/steering/oneworks-system.md"],
        }) else {
            unreachable!()
        };
        let file = kiro_shape();
        let agent = build(AgentInputs {
            name: "oneworks",
            file: &file,
            resources: vec![
                "file:///k/steering/oneworks-system.md".into(),
                "skill:///k/skills/x/SKILL.md".into(),
            ],
            hooks: Some(("hooks", Map::new())),
            mcp_servers: Some(("mcpServers", Map::new())),
            agent_config: Some(&config),
        });
        assert_eq!(
            agent["resources"],
            json!([
                "file://docs/a.md",
                "file:///k/steering/oneworks-system.md",
                "skill:///k/skills/x/SKILL.md"
            ])
        );
    }
}
