//! MCP placement (SPEC §5.5): each server reaches the agent exactly once —
//! in `session/new.mcpServers` for ACP runs (built after `initialize` by
//! [`super::acp_mcp::acp_mcp_servers`], so the file of an ACP run holds
//! none), in the agent or settings file for TUI sessions, in the adapter's
//! JSON shape. Remote (HTTP/SSE) servers are used only where supported;
//! otherwise they are skipped with a diagnostic, never reported as
//! enabled, and nothing else takes their name.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::adapter::session_data::McpShape;
use crate::config::{McpServer, RemoteTransport};

/// Where the materialized config is headed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// `config render`: capabilities unknown, remote servers pending.
    Render,
    /// A supervised TUI session: the agent or settings file carries MCP
    /// servers.
    Tui { remote_supported: bool },
    /// A structured ACP run: `session/new` carries them, built after
    /// `initialize`; the files get none.
    Acp,
}

#[derive(Debug, Default, Clone)]
pub struct Placement {
    /// For the file's `mcpServers`.
    pub agent: Map<String, Value>,
    pub diagnostics: Vec<String>,
}

pub(super) fn transport_name(transport: RemoteTransport) -> &'static str {
    match transport {
        RemoteTransport::Http => "http",
        RemoteTransport::Sse => "sse",
    }
}

/// One local server (every shape agrees).
fn local(server: &crate::config::LocalMcpServer) -> Value {
    json!({"command": server.command, "args": server.args, "env": server.env})
}

/// One remote server in `shape`.
fn remote(server: &crate::config::RemoteMcpServer, shape: McpShape) -> Value {
    match (shape, server.transport) {
        (McpShape::TypedUrl, transport) => {
            json!({"url": server.url, "type": transport_name(transport), "headers": server.headers})
        }
        (McpShape::UrlByTransport, RemoteTransport::Http) => {
            json!({"httpUrl": server.url, "headers": server.headers})
        }
        (McpShape::UrlByTransport, RemoteTransport::Sse) => {
            json!({"url": server.url, "headers": server.headers})
        }
    }
}

/// The servers for the file, in `shape`; `agent` names the agent in the
/// diagnostics (`Kiro CLI`), `file` the file (`agent files`).
pub fn place(
    servers: &BTreeMap<String, McpServer>,
    target: Target,
    shape: McpShape,
    agent: &str,
    file: &str,
) -> Placement {
    let mut placement = Placement::default();
    for (name, server) in servers {
        match (server, target) {
            (_, Target::Acp) => {}
            (McpServer::Local(server), _) => {
                placement.agent.insert(name.clone(), local(server));
            }
            (McpServer::Remote(server), Target::Tui { remote_supported: true }) => {
                placement.agent.insert(name.clone(), remote(server, shape));
            }
            (McpServer::Remote(server), Target::Tui { remote_supported: false }) => {
                placement.diagnostics.push(format!(
                    "MCP server `{name}` skipped: this {agent} version does not support remote ({}) MCP servers in {file}",
                    transport_name(server.transport)
                ));
            }
            (McpServer::Remote(server), Target::Render) => placement.diagnostics.push(format!(
                "MCP server `{name}` ({}, {}): pending capability check; not written until the agent's support is known",
                transport_name(server.transport),
                crate::redact::redact_url(&server.url)
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
        let render = place(
            &servers,
            Target::Render,
            McpShape::TypedUrl,
            "Kiro CLI",
            "agent files",
        );
        assert_eq!(render.agent.keys().collect::<Vec<_>>(), ["github"]);
        assert_eq!(render.diagnostics.len(), 2);
        assert!(render
            .diagnostics
            .iter()
            .all(|line| line.contains("pending capability check")));

        let acp = place(
            &servers,
            Target::Acp,
            McpShape::TypedUrl,
            "Kiro CLI",
            "agent files",
        );
        assert!(
            acp.agent.is_empty() && acp.diagnostics.is_empty(),
            "ACP runs keep MCP out of the agent file"
        );

        let tui = place(
            &servers,
            Target::Tui {
                remote_supported: false,
            },
            McpShape::TypedUrl,
            "Kiro CLI",
            "agent files",
        );
        assert_eq!(tui.agent.keys().collect::<Vec<_>>(), ["github"]);
        assert_eq!(
            tui.agent["github"]["env"]["GITHUB_TOKEN"],
            "${GITHUB_TOKEN}"
        );
        assert_eq!(tui.diagnostics.len(), 2);
    }

    #[test]
    fn url_by_transport_names_http_and_sse_urls_apart() {
        let servers = servers();
        let tui = place(
            &servers,
            Target::Tui {
                remote_supported: true,
            },
            McpShape::UrlByTransport,
            "Gemini CLI",
            "settings.json",
        );
        assert_eq!(
            Value::Object(tui.agent),
            json!({
                "docs": {"httpUrl": "https://example.com/mcp", "headers": {}},
                "github": {"command": "/usr/local/bin/github-mcp", "args": ["--stdio"], "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}},
                "stream": {"url": "https://example.com/sse", "headers": {}},
            })
        );
        assert!(tui.diagnostics.is_empty(), "{:?}", tui.diagnostics);
    }
}
