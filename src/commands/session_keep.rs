//! The hidden `session keep`: the owner process of a kept session
//! (`acp::kept`), started by `run --keep`. It enters the session's world
//! once, takes the session's lock, listens on its socket, starts the agent
//! and prints one ready line (`session_start.rs`'s format) before it lets
//! go of stdout; then it runs until the session ends.

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use serde_json::json;

use std::sync::Arc;

use crate::acp::kept::owner;
use crate::acp::kept::protocol::QUEUE;
use crate::acp::kept::question_cards::CardSide;
use crate::acp::kept::{self, KeptPaths, OwnerPlan, OwnerRecord};
use crate::cli::KeepArgs;
use crate::error::{Error, ErrorKind};
use crate::launch::profile::layout::ProfileLayout;
use crate::launch::profile::world::{self, Purpose};
use crate::output;
use crate::process;
use crate::session::cards::CardBook;
use crate::session::supervisor::state::SessionState;
use crate::session::supervisor::{self, SessionPaths};
use crate::session::SessionError;
use crate::settings::{Adapter, Settings};

pub fn own(settings: &Settings, adapter: &Adapter, args: KeepArgs) -> Result<(), Error> {
    let name = &args.name;
    let layout = ProfileLayout::new(
        &settings.project,
        &settings.locations,
        name,
        &adapter.data.id,
    );
    supervisor::check_runtime(&layout)?;
    layout.ensure()?;
    layout.ensure_runtime()?;
    let paths = KeptPaths::new(&layout);
    let io = |error: std::io::Error| Error::new(ErrorKind::Session, error);
    // Held for the owner's whole life: dropping it is the end.
    let Some(_lock) = kept::take_lock(&paths).map_err(io)? else {
        // Another owner of this name won the start: the caller reaches it.
        return Ok(output::print_json(&json!({"ready": true}))?);
    };
    let tui = SessionPaths::new(&layout);
    if supervisor::read_record(&tui).is_some_and(|record| supervisor::is_running(&record, &tui)) {
        return Err(SessionError::AlreadyRunning(name.clone()).into());
    }
    let version = &args.cli_version;
    let mut world = world::enter(&settings.world(adapter), name, version, Purpose::Acp)?;
    world.use_runtime(args.runtime_path.as_deref());
    let data = &adapter.data;
    let plan = OwnerPlan {
        spec: super::run_plan::acp_spec(&world, adapter, version, &args.cli_path),
        label: format!("{} acp", data.id),
        keep: args.keep,
        paths: paths.clone(),
        cancel_grace: Duration::from_secs(data.acp.cancel_grace_seconds),
        stop_grace: Duration::from_millis(data.acp.stop_grace_ms),
        max_message_bytes: data.acp.max_message_bytes,
    };
    let _ = fs_err::remove_file(&paths.socket);
    let listener = std::os::unix::net::UnixListener::bind(&paths.socket).map_err(io)?;
    fs_err::set_permissions(&paths.socket, std::fs::Permissions::from_mode(0o600)).map_err(io)?;
    listener.set_nonblocking(true).map_err(io)?;
    kept::write_record(
        &paths.record,
        &OwnerRecord {
            name: name.clone(),
            pid: std::process::id(),
            adapter: data.id.clone(),
            cli_version: version.clone(),
            started_at: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
            world: super::run_plan::world_digest(adapter),
        },
    )
    .map_err(io)?;
    let runtime = process::runtime().map_err(|error| Error::new(ErrorKind::Internal, error))?;
    let inputs = settings.world(adapter);
    let outcome = runtime.block_on(async {
        let listener = tokio::net::UnixListener::from_std(listener)?;
        let (cards, channel) =
            cards(&inputs, name, &tui).map_err(|error| std::io::Error::other(error.to_string()))?;
        owner::own(plan, listener, Some(cards), || {
            let said = output::print_json(&json!({"ready": true}));
            // Nothing else goes to stdout: its reader (the `run` that
            // started us) is gone soon.
            release_stdout();
            said.map_err(|error| std::io::Error::other(error.to_string()))
        })
        .await?;
        channel.abort();
        Ok::<(), std::io::Error>(())
    });
    let _ = fs_err::remove_file(&paths.socket);
    let _ = fs_err::remove_file(&tui.approvals);
    let _ = fs_err::remove_file(&paths.record);
    drop(world);
    outcome.map_err(|error| Error::new(ErrorKind::AgentFailed, error))
}

/// Points stdout at `/dev/null`, so the owner never writes to (or blocks
/// on) the pipe of the `run` that started it.
fn release_stdout() {
    if let Ok(null) = fs_err::OpenOptions::new().write(true).open("/dev/null") {
        let _ = rustix::stdio::dup2_stdout(null.file());
    }
}

/// The session's card book and approvals channel (listening), and the
/// owner's side of them.
fn cards(
    inputs: &world::Inputs<'_>,
    name: &str,
    paths: &SessionPaths,
) -> Result<(CardSide, tokio::task::JoinHandle<()>), Error> {
    let book = CardBook::new(
        &crate::session::cards::card_prefix(&inputs.data.id, name),
        Some(paths.history.clone()),
        Some((**inputs.scrubber).clone()),
    );
    let state = SessionState::without_pane(book, inputs.data.tui.clone());
    if let Some(webhook) = crate::session::supervisor::supervise::webhook(inputs, name)? {
        webhook.attach(&state);
    }
    let listener = crate::session::channel::bind(&paths.approvals)?;
    let channel = tokio::spawn(crate::session::channel::serve(listener, Arc::clone(&state)));
    let (answers, received) = tokio::sync::mpsc::channel(QUEUE);
    let mirror = super::kept_cards::KeptCards { state, answers };
    let side = CardSide {
        mirror: Box::new(mirror),
        answers: received,
    };
    Ok((side, channel))
}
