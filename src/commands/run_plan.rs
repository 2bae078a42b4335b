//! What a run needs, built from the command line, the config and the
//! session's folders: the agent's ACP command, the session plan (opening
//! the agent session) and the run plan. Shared by a one-shot `run`, a
//! kept session's caller (`run_kept.rs`) and its owner (`session_keep.rs`).

use std::path::Path;
use std::sync::Arc;

use crate::acp::client::RunPlan;
use crate::acp::permissions::decide::WrittenPolicy;
use crate::acp::permissions::decision_log::{DecisionLog, DecisionPlan};
use crate::acp::permissions::remembered::Rules;
use crate::acp::session_cache::SessionCache;
use crate::acp::setup::SessionPlan;
use crate::cli::RunArgs;
use crate::launch::profile::layout::ProfileLayout;
use crate::launch::profile::world;
use crate::process::spec::ChildSpec;
use crate::settings::{Adapter, Settings};

/// How to log in, from the adapter's data: its `adapter login` command for
/// this session, and its first credential variable for CI.
pub fn login_hint(adapter: &Adapter, session: &str) -> String {
    let data = &adapter.data;
    let mut hint = format!(
        "log the session in with `oneworks adapter login {} --session {session}`",
        data.id
    );
    if let Some(name) = data.credentials.names.first() {
        hint.push_str(&format!(", or set `{name}` in the environment (CI)"));
    }
    hint
}

/// The agent's ACP command in its world (shared with a kept session's owner).
pub fn acp_spec(
    world: &world::World,
    adapter: &Adapter,
    version: &str,
    cli_path: &Path,
) -> ChildSpec {
    let data = &adapter.data;
    let (program, acp_args) = data
        .acp
        .command_for(version, &data.session.agent_name, cli_path);
    world.child(&program).args(acp_args).envs(data.acp.env())
}

/// What opening the agent session needs from the command line and config.
pub fn session_plan<'a>(
    adapter: &'a Adapter,
    args: &RunArgs,
    layout: &ProfileLayout,
    scrubber: &'a crate::redact::Scrubber,
    environment: crate::env_options::environment::Environment,
    handshake_timeout: std::time::Duration,
) -> SessionPlan<'a> {
    let data = &adapter.data;
    let config = &adapter.config;
    SessionPlan {
        data: &data.acp,
        cwd: layout.project.clone(),
        resume: args.resume,
        cache: SessionCache::new(&layout.root),
        scrubber,
        config,
        additional_dirs: config
            .additional_dirs
            .iter()
            .map(|dir| dir.0.clone())
            .collect(),
        environment,
        model: args.model.clone(),
        effort: args.effort.clone(),
        handshake_timeout,
        auth_method: config.auth.method.clone(),
        auth_key: format!("adapters.{}.auth.method", data.id),
        login_hint: login_hint(adapter, &args.session),
    }
}

/// The run: its session plan, prompt, `--mode` and remembered rules.
pub fn run_plan<'a>(
    settings: &Settings,
    adapter: &Adapter,
    args: &RunArgs,
    prompt: String,
    session: SessionPlan<'a>,
    layout: &ProfileLayout,
) -> RunPlan<'a> {
    let dot_dir = settings
        .project
        .initialized
        .then(|| settings.project.dot_dir());
    let (rules, rule_notes) = Rules::load(
        &settings.locations.data_home,
        &settings.project.root,
        dot_dir.as_deref(),
    );
    RunPlan {
        adapter: adapter.data.id.clone(),
        display_name: adapter.data.display_name.clone(),
        session,
        prompt,
        mode: args.mode.into(),
        rules,
        rule_notes,
        decisions: DecisionPlan {
            policy: adapter
                .policy
                .clone()
                .map(|at| Arc::new(WrittenPolicy::new(at.key, at.policy, &layout.project))),
            log: Some(DecisionLog::new(&layout.root, &adapter.data.id)),
        },
        json: args.json,
        timeout: args.timeout.clone(),
    }
}

/// What a kept session's world was made from (the adapter and its
/// effective config, after trust), as a digest: a run whose config differs
/// from the owner's is refused rather than sent to an agent of another
/// world.
pub fn world_digest(adapter: &Adapter) -> String {
    use sha2::{Digest, Sha256};
    let text = format!("{}\n{:?}", adapter.data.id, adapter.config);
    hex::encode(Sha256::digest(text.as_bytes()))
}
