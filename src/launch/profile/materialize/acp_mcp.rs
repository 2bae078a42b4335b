//! The `session/new.mcpServers` list of an ACP run. Built
//! after `initialize`, when the agent's `mcpCapabilities` are known, from
//! typed structs shaped like ACP's `McpServer`; `${VAR}` references are
//! resolved from the environment at that moment and never written to disk.
//! The resolved values are secrets: `Debug` shows names only.

use std::fmt;

use serde::Serialize;

use super::mcp::transport_name;
use crate::config::{resolve_references, AdapterConfig, McpServer, RemoteTransport};
use crate::env_options::environment::Environment;

/// What `initialize` advertised in `agentCapabilities.mcpCapabilities`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RemoteSupport {
    pub http: bool,
    pub sse: bool,
}

/// One ACP `McpServer`: stdio (no `type`), or `http`/`sse`.
#[derive(Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum AcpMcpServer {
    Stdio(AcpStdioServer),
    Remote(AcpRemoteServer),
}

#[derive(Clone, PartialEq, Eq, Serialize)]
pub struct AcpStdioServer {
    pub name: String,
    pub command: String,
    pub args: Vec<String>,
    pub env: Vec<NameValue>,
}

#[derive(Clone, PartialEq, Eq, Serialize)]
pub struct AcpRemoteServer {
    #[serde(rename = "type")]
    pub transport: AcpTransport,
    pub name: String,
    pub url: String,
    pub headers: Vec<NameValue>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AcpTransport {
    Http,
    Sse,
}

/// ACP's `EnvVariable` and `HttpHeader`: `{name, value}`.
#[derive(Clone, PartialEq, Eq, Serialize)]
pub struct NameValue {
    pub name: String,
    pub value: String,
}

impl AcpMcpServer {
    pub fn name(&self) -> &str {
        match self {
            AcpMcpServer::Stdio(server) => &server.name,
            AcpMcpServer::Remote(server) => &server.name,
        }
    }
}

impl fmt::Debug for AcpMcpServer {
    // Never prints resolved values (commands, URLs, env, headers).
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self {
            AcpMcpServer::Stdio(_) => "stdio",
            AcpMcpServer::Remote(server) => match server.transport {
                AcpTransport::Http => "http",
                AcpTransport::Sse => "sse",
            },
        };
        formatter
            .debug_struct("AcpMcpServer")
            .field("name", &self.name())
            .field("kind", &kind)
            .finish_non_exhaustive()
    }
}

fn unset_references(text: &str, env: &Environment, name: &str, notes: &mut Vec<String>) {
    let mut names = std::collections::BTreeSet::new();
    crate::config::references_in(text, &mut names);
    for variable in names {
        if env.get(&variable).is_none() {
            let note = format!(
                "MCP server `{name}`: `${{{variable}}}` is not set in the environment; passed as empty"
            );
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
    }
}

fn pairs(
    map: &std::collections::BTreeMap<String, String>,
    env: &Environment,
    name: &str,
    notes: &mut Vec<String>,
) -> Vec<NameValue> {
    map.iter()
        .map(|(key, value)| {
            unset_references(value, env, name, notes);
            NameValue {
                name: key.clone(),
                value: resolve_references(value, env),
            }
        })
        .collect()
}

/// The servers for `session/new.mcpServers`, and diagnostics to show: a
/// remote server the agent does not support is skipped (and said so),
/// never listed, and nothing takes its name.
pub fn acp_mcp_servers(
    config: &AdapterConfig,
    remote: RemoteSupport,
    env: &Environment,
) -> (Vec<AcpMcpServer>, Vec<String>) {
    let mut servers = Vec::new();
    let mut notes = Vec::new();
    for (name, server) in &config.mcp_servers {
        match server {
            McpServer::Local(local) => {
                unset_references(&local.command, env, name, &mut notes);
                for arg in &local.args {
                    unset_references(arg, env, name, &mut notes);
                }
                servers.push(AcpMcpServer::Stdio(AcpStdioServer {
                    name: name.clone(),
                    command: resolve_references(&local.command, env),
                    args: local
                        .args
                        .iter()
                        .map(|arg| resolve_references(arg, env))
                        .collect(),
                    env: pairs(&local.env, env, name, &mut notes),
                }));
            }
            McpServer::Remote(server) => {
                let (supported, transport) = match server.transport {
                    RemoteTransport::Http => (remote.http, AcpTransport::Http),
                    RemoteTransport::Sse => (remote.sse, AcpTransport::Sse),
                };
                if !supported {
                    notes.push(format!(
                        "MCP server `{name}` skipped: the agent does not advertise {} MCP support",
                        transport_name(server.transport)
                    ));
                    continue;
                }
                unset_references(&server.url, env, name, &mut notes);
                servers.push(AcpMcpServer::Remote(AcpRemoteServer {
                    transport,
                    name: name.clone(),
                    url: resolve_references(&server.url, env),
                    headers: pairs(&server.headers, env, name, &mut notes),
                }));
            }
        }
    }
    (servers, notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kiro() -> AdapterConfig {
        serde_yaml_ng::from_str(
            "mcpServers:\n  github:\n    command: /usr/local/bin/github-mcp\n    args: [--stdio, \"--org=${ORG}\"]\n    env: { GITHUB_TOKEN: \"${GITHUB_TOKEN}\", MODE: fast }\n  docs:\n    url: https://example.com/mcp?token=${DOCS_TOKEN}\n    transport: http\n    headers: { Authorization: \"Bearer ${DOCS_TOKEN}\" }\n  stream:\n    url: https://example.com/sse\n    transport: sse\n",
        )
        .expect("config")
    }

    #[test]
    fn servers_are_typed_resolved_and_gated_by_capability() {
        let env = Environment::from_pairs([
            ("GITHUB_TOKEN", "ghp-live-value"),
            ("DOCS_TOKEN", "docs-live-value"),
        ]);
        let (servers, notes) = acp_mcp_servers(
            &kiro(),
            RemoteSupport {
                http: true,
                sse: false,
            },
            &env,
        );
        assert_eq!(
            serde_json::to_value(&servers).expect("serializes"),
            json!([
                {
                    "type": "http",
                    "name": "docs",
                    "url": "https://example.com/mcp?token=docs-live-value",
                    "headers": [{"name": "Authorization", "value": "Bearer docs-live-value"}],
                },
                {
                    "name": "github",
                    "command": "/usr/local/bin/github-mcp",
                    "args": ["--stdio", "--org="],
                    "env": [
                        {"name": "GITHUB_TOKEN", "value": "ghp-live-value"},
                        {"name": "MODE", "value": "fast"},
                    ],
                },
            ])
        );
        assert_eq!(
            notes,
            [
                "MCP server `github`: `${ORG}` is not set in the environment; passed as empty",
                "MCP server `stream` skipped: the agent does not advertise sse MCP support",
            ]
        );
        let shown = format!("{servers:?}");
        assert!(
            !shown.contains("live-value") && shown.contains("github"),
            "{shown}"
        );
    }

    #[test]
    fn without_remote_support_only_local_servers_are_listed() {
        let env = Environment::from_pairs([("ORG", "o"), ("GITHUB_TOKEN", "t")]);
        let (servers, notes) = acp_mcp_servers(&kiro(), RemoteSupport::default(), &env);
        let names: Vec<&str> = servers.iter().map(AcpMcpServer::name).collect();
        assert_eq!(names, ["github"]);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes.iter().all(|note| note.contains("skipped")),
            "{notes:?}"
        );
    }

    #[test]
    fn an_acp_plan_writes_no_mcp_servers_in_the_agent_file() {
        let data = crate::adapter::data::AdapterData::builtin().expect("data");
        let plan = super::super::plan(
            &kiro(),
            &data,
            std::path::Path::new("/k"),
            super::super::mcp::Target::Acp,
        )
        .expect("plan");
        let agent = plan
            .files
            .iter()
            .find(|file| file.relative.ends_with("oneworks.json"))
            .expect("agent file");
        let agent = agent.contents.as_document().expect("json");
        assert_eq!(agent["mcpServers"], json!({}));
        assert!(plan.diagnostics.is_empty(), "{:?}", plan.diagnostics);
    }
}
