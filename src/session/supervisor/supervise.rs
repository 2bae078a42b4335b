//! The supervisor process's start (`session supervise`, run by `session
//! start`): from plain values to a running [`supervisor`]: the profile
//! world with our own recorder variable (when the adapter's TUI has one),
//! the private tmux server, the command's scrubber and the webhook from the
//! config. It prints one `{"ready":true}` line once the channel listens.

use std::path::PathBuf;

use serde_json::json;

use crate::launch::profile::world::{self, Purpose};
use crate::output;
use crate::session::delivery::webhook::Webhook;
use crate::session::supervisor::{self, SessionPaths, SupervisorPlan};
use crate::session::tmux::{self, Tmux};
use crate::session::SessionError;

/// The `session supervise` arguments that hand the agent's runtime (the
/// managed Node.js's `bin/`) to the supervisor.
pub fn runtime_args(runtime_path: &Option<PathBuf>) -> Vec<std::ffi::OsString> {
    runtime_path
        .as_ref()
        .map(|path| vec!["--runtime-path".into(), path.as_os_str().to_owned()])
        .unwrap_or_default()
}

pub fn supervise(
    inputs: &world::Inputs<'_>,
    name: &str,
    cli_path: PathBuf,
    cli_version: &str,
    runtime_path: Option<PathBuf>,
    cwd: Option<PathBuf>,
) -> Result<(), SessionError> {
    let tmux_program = tmux::find(inputs.options.path.as_deref())?;
    let mut world = world::enter(inputs, name, cli_version, Purpose::Supervised)?;
    world.use_runtime(runtime_path.as_deref());
    for diagnostic in &world.diagnostics {
        tracing::warn!("{}", output::clean(diagnostic));
    }
    let paths = SessionPaths::new(&world.layout);
    let tui = inputs.data.tui.clone();
    // Ours, in the 0700 runtime folder; a value from the parent never counts.
    for (name, value) in &tui.env {
        world.environment.set(name.clone(), value.clone());
    }
    // The agent's hook finds the supervisor here, never from its payload.
    if tui.signals.hook.is_some() {
        world.environment.set(
            crate::env_options::names::EnvVars::ONEWORKS_SESSION_SIGNALS,
            paths.signals.to_string_lossy(),
        );
    }
    if let Some(variable) = &tui.recorder_variable {
        world
            .environment
            .set(variable.clone(), paths.recorder.to_string_lossy());
    }
    let webhook = webhook(inputs, name)?;
    // `auto`: scrape the pane only when this CLI writes no recorder.
    let pane_fallback = pane_fallback(inputs, &tui, cli_version);
    if pane_fallback.is_none() && !tui.has_recorder(cli_version) {
        tracing::warn!(
            "{} {cli_version} writes no recorder and paneFallback is off: approvals are not mirrored",
            inputs.data.display_name
        );
    }
    let plan = SupervisorPlan {
        name: name.to_owned(),
        tmux: Tmux {
            program: tmux_program,
            socket: paths.tmux.clone(),
            env: world
                .environment
                .iter()
                .map(|(name, value)| (name.to_owned(), value.to_owned()))
                .collect(),
        },
        adapter: inputs.data.id.clone(),
        cli_path,
        cli_version: cli_version.to_owned(),
        cwd: cwd.unwrap_or_else(|| world.layout.project.clone()),
        tui,
        scrubber: std::sync::Arc::clone(inputs.scrubber),
        runtime: world.layout.runtime.clone(),
        paths,
        webhook,
        pane_fallback,
    };
    let outcome = supervisor::run(plan, || output::print_json(&json!({"ready": true})));
    drop(world);
    outcome
}

/// The hidden `session adopt`: a new supervisor for a session whose
/// supervisor died, over the same tmux server and agent. The
/// world is not entered again (the agent lives in it); the plan is built
/// from the adapter's data, the config and the session's paths.
pub fn adopt(inputs: &world::Inputs<'_>, name: &str) -> Result<(), SessionError> {
    let tmux_program = tmux::find(inputs.options.path.as_deref())?;
    let layout = crate::launch::profile::layout::ProfileLayout::new(
        inputs.project,
        inputs.locations,
        name,
        &inputs.data.id,
    );
    supervisor::check_runtime(&layout)?;
    let paths = SessionPaths::new(&layout);
    let Some(record) = supervisor::read_record(&paths) else {
        return Err(SessionError::NotRunning(name.to_owned()));
    };
    let tui = inputs.data.tui.clone();
    let plan = SupervisorPlan {
        name: name.to_owned(),
        tmux: Tmux {
            program: tmux_program,
            socket: paths.tmux.clone(),
            env: Default::default(),
        },
        adapter: inputs.data.id.clone(),
        cli_path: std::path::PathBuf::new(),
        cli_version: record.cli_version.clone(),
        cwd: layout.project.clone(),
        pane_fallback: pane_fallback(inputs, &tui, &record.cli_version),
        tui,
        scrubber: std::sync::Arc::clone(inputs.scrubber),
        runtime: layout.runtime.clone(),
        paths,
        webhook: webhook(inputs, name)?,
    };
    supervisor::adopt::adopt(plan, || output::print_json(&json!({"ready": true})))
}

/// How often the pane is read when it is the signal, per the
/// config's `paneFallback` and whether this version writes a recorder.
fn pane_fallback(
    inputs: &world::Inputs<'_>,
    tui: &crate::adapter::tui_data::TuiData,
    cli_version: &str,
) -> Option<std::time::Duration> {
    let scrape = match inputs.config.approvals.pane_fallback {
        crate::config::schema::PaneFallback::On => true,
        crate::config::schema::PaneFallback::Off => false,
        crate::config::schema::PaneFallback::Auto => !tui.has_recorder(cli_version),
    };
    scrape.then(|| std::time::Duration::from_millis(tui.fallback.poll_ms))
}

/// The approvals webhook from the config, if one is set.
pub fn webhook(inputs: &world::Inputs<'_>, name: &str) -> Result<Option<Webhook>, SessionError> {
    let approvals = &inputs.config.approvals;
    let Some(text) = &approvals.webhook else {
        return Ok(None);
    };
    let url = url::Url::parse(text)
        .ok()
        .filter(|url| matches!(url.scheme(), "http" | "https"))
        .ok_or_else(|| SessionError::InvalidWebhook {
            adapter: inputs.data.id.clone(),
        })?;
    let token = approvals
        .webhook_auth_env
        .as_ref()
        .and_then(|variable| inputs.env.get(&variable.0))
        .filter(|token| !token.is_empty())
        .map(str::to_owned);
    Ok(Some(Webhook {
        url,
        token,
        timeout: inputs.options.http_timeout,
        session: name.to_owned(),
        answer_links: crate::session::delivery::links::links_prefix(
            &inputs.locations.runtime_dir,
            &inputs.project.root,
        ),
    }))
}
