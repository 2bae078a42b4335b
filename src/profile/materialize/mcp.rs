//! MCP placement (SPEC §5.5): each server reaches Kiro exactly once — in
//! `session/new.mcpServers` for ACP runs, in the agent file for TUI
//! sessions. Remote (HTTP/SSE) servers are used only where supported;
//! otherwise they are skipped with a diagnostic, never reported as enabled,
//! and nothing else takes their name.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::config::{McpServer, RemoteTransport};

/// Where the materialized config is headed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// `config render`: capabilities unknown, remote servers pending.
    Render,
    /// A supervised TUI session: the agent file carries MCP servers.
    Tui { remote_supported: bool },
    /// A structured ACP run: `session/new` carries them, per `initialize`.
    Acp { http: bool, sse: bool },
}

#[derive(Debug, Default, Clone)]
pub struct Placement {
    /// For the agent file's `mcpServers`.
    pub agent: Map<String, Value>,
    /// For ACP `session/new.mcpServers` (`${VAR}` still unresolved).
    pub acp: Vec<Value>,
    pub diagnostics: Vec<String>,
}

fn transport_name(transport: RemoteTransport) -> &'static str {
    match transport {
        RemoteTransport::Http => "http",
        RemoteTransport::Sse => "sse",
    }
}

fn pairs(map: &BTreeMap<String, String>) -> Vec<Value> {
    map.iter()
        .map(|(name, value)| json!({"name": name, "value": value}))
        .collect()
}

pub fn place(servers: &BTreeMap<String, McpServer>, target: Target) -> Placement {
    let mut placement = Placement::default();
    for (name, server) in servers {
        match (server, target) {
            (McpServer::Local(local), Target::Acp { .. }) => placement.acp.push(json!({
                "name": name,
                "command": local.command,
                "args": local.args,
                "env": pairs(&local.env),
            })),
            (McpServer::Local(local), _) => {
                placement.agent.insert(
                    name.clone(),
                    json!({"command": local.command, "args": local.args, "env": local.env}),
                );
            }
            (McpServer::Remote(remote), Target::Acp { http, sse }) => {
                let supported = match remote.transport {
                    RemoteTransport::Http => http,
                    RemoteTransport::Sse => sse,
                };
                let kind = transport_name(remote.transport);
                if supported {
                    placement.acp.push(json!({
                        "type": kind,
                        "name": name,
                        "url": remote.url,
                        "headers": pairs(&remote.headers),
                    }));
                } else {
                    placement.diagnostics.push(format!(
                        "MCP server `{name}` skipped: the agent does not advertise {kind} MCP support"
                    ));
                }
            }
            (McpServer::Remote(remote), Target::Tui { remote_supported: true }) => {
                placement.agent.insert(
                    name.clone(),
                    json!({"url": remote.url, "type": transport_name(remote.transport), "headers": remote.headers}),
                );
            }
            (McpServer::Remote(remote), Target::Tui { remote_supported: false }) => {
                placement.diagnostics.push(format!(
                    "MCP server `{name}` skipped: this Kiro version does not support remote ({}) MCP servers in agent files",
                    transport_name(remote.transport)
                ));
            }
            (McpServer::Remote(remote), Target::Render) => placement.diagnostics.push(format!(
                "MCP server `{name}` ({}, {}): pending capability check; not written until the agent's support is known",
                transport_name(remote.transport),
                crate::redact::redact_url(&remote.url)
            )),
        }
    }
    placement
}

#[cfg(test)]
mod tests {
    use super::*;

    fn servers() -> BTreeMap<String, McpServer> {
        serde_yaml_ng::from_str(
            "github:\n  command: /usr/local/bin/github-mcp\n  args: [--stdio]\n  env: { GITHUB_TOKEN: \"${GITHUB_TOKEN}\" }\ndocs:\n  url: https://example.com/mcp\n  transport: http\nstream:\n  url: https://example.com/sse\n  transport: sse\n",
        )
        .expect("servers")
    }

    #[test]
    fn each_server_lands_exactly_once() {
        let servers = servers();
        let render = place(&servers, Target::Render);
        assert_eq!(render.agent.keys().collect::<Vec<_>>(), ["github"]);
        assert!(render.acp.is_empty());
        assert_eq!(render.diagnostics.len(), 2);
        assert!(render
            .diagnostics
            .iter()
            .all(|line| line.contains("pending capability check")));

        let acp = place(
            &servers,
            Target::Acp {
                http: true,
                sse: false,
            },
        );
        assert!(
            acp.agent.is_empty(),
            "ACP runs keep MCP out of the agent file"
        );
        let names: Vec<&str> = acp
            .acp
            .iter()
            .filter_map(|server| server["name"].as_str())
            .collect();
        assert_eq!(names, ["docs", "github"]);
        assert_eq!(acp.diagnostics.len(), 1);
        assert!(acp.diagnostics[0].contains("stream"));

        let tui = place(
            &servers,
            Target::Tui {
                remote_supported: false,
            },
        );
        assert_eq!(tui.agent.keys().collect::<Vec<_>>(), ["github"]);
        assert_eq!(
            tui.agent["github"]["env"]["GITHUB_TOKEN"],
            "${GITHUB_TOKEN}"
        );
        assert_eq!(tui.diagnostics.len(), 2);
    }
}
