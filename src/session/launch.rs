//! The supervisor process's start (`session supervise`, run by `session
//! start`): from resolved settings to a running [`supervisor`]: the profile
//! world with our own `KIRO_ACP_RECORD_PATH`, the private tmux server, the
//! session scrubber (plus the webhook token) and the webhook from the
//! config. It prints one `{"ready":true}` line once the channel listens.

use std::path::PathBuf;

use serde_json::json;

use super::supervisor::{self, Plan, SessionPaths};
use super::tmux::{self, Tmux};
use super::webhook::{self, Webhook};
use crate::error::{Error, ErrorKind};
use crate::output;
use crate::profile::world::{self, Purpose};
use crate::settings::Settings;

pub fn supervise(
    settings: &Settings,
    name: &str,
    kiro: PathBuf,
    kiro_version: &str,
    cwd: Option<PathBuf>,
) -> Result<(), Error> {
    let tmux_program = tmux::find(settings.env.get("PATH"))?;
    let mut world = world::enter(settings, name, kiro_version, Purpose::Interactive)?;
    for diagnostic in &world.diagnostics {
        tracing::warn!("{}", output::clean(diagnostic));
    }
    let paths = SessionPaths::new(&world.layout);
    let tui = settings.data.tui.clone();
    // Ours, in the 0700 runtime folder; a value from the parent never counts.
    if let Some(variable) = &tui.recorder_variable {
        world
            .environment
            .set(variable.clone(), paths.recorder.to_string_lossy());
    }
    let webhook = webhook(settings, name)?;
    // `auto`: scrape the pane only when this Kiro writes no recorder.
    let scrape = match settings.config.config.adapters.kiro.approvals.pane_fallback {
        crate::config::schema::PaneFallback::On => true,
        crate::config::schema::PaneFallback::Off => false,
        crate::config::schema::PaneFallback::Auto => !tui.has_recorder(kiro_version),
    };
    if !scrape && !tui.has_recorder(kiro_version) {
        tracing::warn!("Kiro {kiro_version} predates the recorder and paneFallback is off: approvals are not mirrored");
    }
    let pane_fallback = scrape.then(|| std::time::Duration::from_millis(tui.fallback.poll_ms));
    let plan = Plan {
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
        kiro,
        kiro_version: kiro_version.to_owned(),
        cwd: cwd.unwrap_or_else(|| world.layout.project.clone()),
        tui,
        scrubber: session_scrubber(settings),
        runtime: world.layout.runtime.clone(),
        paths,
        webhook,
        pane_fallback,
    };
    let outcome = supervisor::run(plan, || output::print_json(&json!({"ready": true})));
    drop(world);
    outcome
}

/// The approvals webhook from the config, if one is set.
fn webhook(settings: &Settings, name: &str) -> Result<Option<Webhook>, Error> {
    let approvals = &settings.config.config.adapters.kiro.approvals;
    let Some(text) = &approvals.webhook else {
        return Ok(None);
    };
    let url = url::Url::parse(text)
        .ok()
        .filter(|url| matches!(url.scheme(), "http" | "https"))
        .ok_or_else(|| {
            Error::msg(
                ErrorKind::Config,
                "invalid config at `adapters.kiro.approvals.webhook`: not an http or https URL",
            )
        })?;
    let token = approvals
        .webhook_auth_env
        .as_ref()
        .and_then(|variable| settings.env.get(&variable.0))
        .filter(|token| !token.is_empty())
        .map(str::to_owned);
    Ok(Some(Webhook {
        url,
        token,
        timeout: webhook::http_timeout(settings.env.get("ONEWORKS_HTTP_TIMEOUT")),
        session: name.to_owned(),
        answer_links: super::serve::links::links_file(
            &settings.locations.runtime_dir,
            &settings.project.root,
        ),
    }))
}

/// The session's scrubber: the profile's, plus the webhook token.
fn session_scrubber(settings: &Settings) -> crate::redact::Scrubber {
    let kiro = &settings.config.config.adapters.kiro;
    let referenced = crate::config::env_references(kiro);
    let webhook_env = kiro
        .approvals
        .webhook_auth_env
        .as_ref()
        .map(|name| name.0.as_str());
    let secrets = settings
        .env
        .iter()
        .filter(|(name, value)| {
            !value.is_empty()
                && (settings.data.credentials.is_credential_name(name)
                    || Some(*name) == webhook_env
                    || (referenced.contains(*name)
                        && value.chars().count() >= crate::redact::SHORT_SECRET_CHARS))
        })
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .collect();
    crate::redact::Scrubber::new(secrets, &settings.data.credentials)
}
