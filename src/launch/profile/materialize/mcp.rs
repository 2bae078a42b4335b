//! MCP placement: each server reaches the agent exactly once —
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

/// One local server in `shape`.
fn local(server: &crate::config::LocalMcpServer, shape: McpShape) -> Value {
    match shape {
        McpShape::LocalRemote => {
            let command: Vec<&str> = std::iter::once(server.command.as_str())
                .chain(server.args.iter().map(String::as_str))
                .collect();
            json!({"type": "local", "command": command, "environment": server.env})
        }
        McpShape::TypedUrl | McpShape::UrlByTransport | McpShape::HttpHeaders => {
            json!({"command": server.command, "args": server.args, "env": server.env})
        }
    }
}

/// One remote server in `shape`; `None` when the shape has no form for
/// its transport.
fn remote(server: &crate::config::RemoteMcpServer, shape: McpShape) -> Option<Value> {
    Some(match (shape, server.transport) {
        (McpShape::TypedUrl, transport) => {
            json!({"url": server.url, "type": transport_name(transport), "headers": server.headers})
        }
        (McpShape::UrlByTransport, RemoteTransport::Http) => {
            json!({"httpUrl": server.url, "headers": server.headers})
        }
        (McpShape::UrlByTransport, RemoteTransport::Sse) => {
            json!({"url": server.url, "headers": server.headers})
        }
        (McpShape::LocalRemote, _) => {
            json!({"type": "remote", "url": server.url, "headers": server.headers})
        }
        (McpShape::HttpHeaders, RemoteTransport::Http) => {
            json!({"url": server.url, "http_headers": server.headers})
        }
        (McpShape::HttpHeaders, RemoteTransport::Sse) => return None,
    })
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
                placement.agent.insert(name.clone(), local(server, shape));
            }
            (McpServer::Remote(server), Target::Tui { remote_supported: true }) => {
                match remote(server, shape) {
                    Some(value) => {
                        placement.agent.insert(name.clone(), value);
                    }
                    None => placement.diagnostics.push(format!(
                        "MCP server `{name}` skipped: {agent} reads no remote ({}) MCP servers from {file}",
                        transport_name(server.transport)
                    )),
                }
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

/// The diagnostics of an adapter whose agent reads MCP servers from no
/// file oneworks writes: ACP runs give them in `session/new` (nothing to
/// say here), every other target names each server it cannot place.
pub fn unplaced(servers: &BTreeMap<String, McpServer>, target: Target, agent: &str) -> Vec<String> {
    match target {
        Target::Acp => Vec::new(),
        Target::Render | Target::Tui { .. } => servers
            .keys()
            .map(|name| {
                format!(
                    "MCP server `{name}` not written: {agent} reads MCP servers only from ACP `session/new` (oneworks run)"
                )
            })
            .collect(),
    }
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

    #[test]
    fn local_remote_shape_is_opencodes_mcp_map() {
        let servers = servers();
        let tui = place(
            &servers,
            Target::Tui {
                remote_supported: true,
            },
            McpShape::LocalRemote,
            "opencode",
            "`opencode.json`",
        );
        assert_eq!(
            Value::Object(tui.agent),
            json!({
                "docs": {"type": "remote", "url": "https://example.com/mcp", "headers": {}},
                "github": {"type": "local", "command": ["/usr/local/bin/github-mcp", "--stdio"], "environment": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}},
                "stream": {"type": "remote", "url": "https://example.com/sse", "headers": {}},
            })
        );
        assert!(tui.diagnostics.is_empty(), "{:?}", tui.diagnostics);
    }

    #[test]
    fn http_headers_shape_skips_sse_with_a_diagnostic() {
        let servers = servers();
        let tui = place(
            &servers,
            Target::Tui {
                remote_supported: true,
            },
            McpShape::HttpHeaders,
            "Codex",
            "`config.toml`",
        );
        assert_eq!(
            Value::Object(tui.agent),
            json!({
                "docs": {"url": "https://example.com/mcp", "http_headers": {}},
                "github": {"command": "/usr/local/bin/github-mcp", "args": ["--stdio"], "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}},
            })
        );
        assert_eq!(
            tui.diagnostics,
            ["MCP server `stream` skipped: Codex reads no remote (sse) MCP servers from `config.toml`"]
        );
    }

    #[test]
    fn servers_no_file_carries_are_named_outside_acp() {
        let servers = servers();
        assert!(unplaced(&servers, Target::Acp, "Claude").is_empty());
        let tui = unplaced(
            &servers,
            Target::Tui {
                remote_supported: true,
            },
            "Claude",
        );
        assert_eq!(tui.len(), 3);
        assert!(
            tui[0].starts_with(
                "MCP server `docs` not written: Claude reads MCP servers only from ACP"
            ),
            "{tui:?}"
        );
        assert_eq!(unplaced(&servers, Target::Render, "Claude").len(), 3);
    }
}
