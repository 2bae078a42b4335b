//! MCP placement (SPEC §5.5): each server reaches Kiro exactly once — in
//! `session/new.mcpServers` for ACP runs (built after `initialize` by
//! [`super::acp_mcp::acp_mcp_servers`], so the agent file of an ACP run
//! holds none), in the agent file for TUI sessions. Remote (HTTP/SSE)
//! servers are used only where supported; otherwise they are skipped with a
//! diagnostic, never reported as enabled, and nothing else takes their name.

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
    /// A structured ACP run: `session/new` carries them, built after
    /// `initialize`; the agent file gets none.
    Acp,
}

#[derive(Debug, Default, Clone)]
pub struct Placement {
    /// For the agent file's `mcpServers`.
    pub agent: Map<String, Value>,
    pub diagnostics: Vec<String>,
}

pub(super) fn transport_name(transport: RemoteTransport) -> &'static str {
    match transport {
        RemoteTransport::Http => "http",
        RemoteTransport::Sse => "sse",
    }
}

pub fn place(servers: &BTreeMap<String, McpServer>, target: Target) -> Placement {
    let mut placement = Placement::default();
    for (name, server) in servers {
        match (server, target) {
            (_, Target::Acp) => {}
            (McpServer::Local(local), _) => {
                placement.agent.insert(
                    name.clone(),
                    json!({"command": local.command, "args": local.args, "env": local.env}),
                );
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
        assert_eq!(render.diagnostics.len(), 2);
        assert!(render
            .diagnostics
            .iter()
            .all(|line| line.contains("pending capability check")));

        let acp = place(&servers, Target::Acp);
        assert!(
            acp.agent.is_empty() && acp.diagnostics.is_empty(),
            "ACP runs keep MCP out of the agent file"
        );

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
