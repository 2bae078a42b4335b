//! Claude over ACP (`@agentclientprotocol/claude-agent-acp` 0.101.0 →
//! `@anthropic-ai/claude-agent-sdk` 0.3.318 → its platform package
//! `@anthropic-ai/claude-agent-sdk-linux-x64` with Claude Code)
//! against the fake model's Anthropic messages API: `claude-agent-acp`,
//! `ANTHROPIC_BASE_URL` (no `/v1`) and `ANTHROPIC_API_KEY` from the
//! environment only, `permissions.defaultMode: default` forced into
//! `$CLAUDE_CONFIG_DIR/settings.json` by the adapter data so that Claude
//! asks instead of starting in `auto`.
//!
//! Path taken: `adapter prepare claude` from the loopback registry — the
//! dependency tree and the platform package of the host's libc, no install
//! script; its `engines.node >=22` is not met by the machine's Node 20, so
//! it runs on the managed Node 24 of the loopback Node mirror.

use super::{RealAgent, Snapshot, SECRET};
use crate::support::node_mirror::{self, NodeRelease};

const VERSION: &str = "0.101.0";

#[test]
fn the_real_claude_asks_before_its_shell_tool_runs_allow_once_then_reject_once() {
    let _share = crate::support::heavy::share();
    let snapshot = Snapshot::get("claude");
    assert_eq!(snapshot.root.name, "@agentclientprotocol/claude-agent-acp");
    assert_eq!(snapshot.root.version, VERSION);
    let mut claude = RealAgent::new("claude", "Bash");
    node_mirror::serve(&claude.env.server, &[&NodeRelease::real()], &[]);
    claude.write_user_config(&format!(
        "adapters:\n  claude:\n    cli:\n      source: managed\n      version: {VERSION}\n"
    ));
    let prepared = claude.prepare();
    assert_eq!(prepared["adapter"], "claude", "{prepared}");
    assert_eq!(prepared["version"], VERSION, "{prepared}");
    assert_eq!(
        claude.registry.hits(
            "/@anthropic-ai/claude-agent-sdk-linux-x64/-/claude-agent-sdk-linux-x64-0.3.318.tgz"
        ),
        1,
        "the glibc platform package is fetched once"
    );
    claude
        .env
        .set_env("ANTHROPIC_BASE_URL", &claude.model.url(""));
    claude.env.set_env("ANTHROPIC_API_KEY", SECRET);
    claude.allow_then_reject();
    let calls = claude.model.tool_calls();
    assert!(!calls.is_empty(), "{}", claude.model.describe());
    assert!(
        calls.iter().all(|c| c.path.ends_with("/messages")),
        "{}",
        claude.model.describe()
    );
}
