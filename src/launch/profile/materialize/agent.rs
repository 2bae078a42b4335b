//! The agent file (Kiro's `oneworks` custom agent, SPEC §5.3): a base document deep-merged with
//! `agentConfig`, after which the fields oneworks owns — `name`,
//! `includeMcpJson: false`, `hooks`, `mcpServers` — are forced back, and
//! oneworks' own resources are added to `agentConfig.resources` (never
//! dropped, never twice).

use serde_json::{json, Map, Value};

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
    /// The adapter data's default description.
    pub description: &'a str,
    pub resources: Vec<String>,
    pub hooks: Map<String, Value>,
    pub mcp_servers: Map<String, Value>,
    pub agent_config: Option<&'a Map<String, Value>>,
}

pub fn build(inputs: AgentInputs<'_>) -> Value {
    let mut agent = json!({
        "name": inputs.name,
        "description": inputs.description,
        "includeMcpJson": false,
        "resources": inputs.resources,
        "tools": ["*"],
        "hooks": {},
        "mcpServers": {},
    });
    if let Some(config) = inputs.agent_config {
        deep_merge(&mut agent, &Value::Object(config.clone()));
    }
    if let Value::Object(agent) = &mut agent {
        agent.insert("name".to_owned(), Value::String(inputs.name.to_owned()));
        agent.insert("includeMcpJson".to_owned(), Value::Bool(false));
        agent.insert("hooks".to_owned(), Value::Object(inputs.hooks));
        agent.insert("mcpServers".to_owned(), Value::Object(inputs.mcp_servers));
        let mut resources = match agent.remove("resources") {
            Some(Value::Array(items)) => items,
            Some(Value::Null) | None => Vec::new(),
            Some(other) => vec![other],
        };
        for own in inputs.resources {
            if !resources
                .iter()
                .any(|kept| kept.as_str() == Some(own.as_str()))
            {
                resources.push(Value::String(own));
            }
        }
        agent.insert("resources".to_owned(), Value::Array(resources));
    }
    agent
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let agent = build(AgentInputs {
            name: "oneworks",
            description: "One Works managed agent",
            resources: vec!["file:///k/steering/oneworks-system.md".into()],
            hooks,
            mcp_servers: Map::new(),
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
        let agent = build(AgentInputs {
            name: "oneworks",
            description: "One Works managed agent",
            resources: vec![
                "file:///k/steering/oneworks-system.md".into(),
                "skill:///k/skills/x/SKILL.md".into(),
            ],
            hooks: Map::new(),
            mcp_servers: Map::new(),
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
