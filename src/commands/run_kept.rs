//! `run ADAPTER --session NAME` when NAME is kept: the prompt
//! goes to the kept agent through its owner; with `--keep` and no owner
//! yet, the owner is started first (`session keep`, detached, in its own
//! process group) and this run is its first caller.

use std::path::Path;
use std::time::Duration;

use crate::acp::client;
use crate::acp::kept::caller::{KeptError, OwnerConnection};
use crate::acp::kept::{self, KeptPaths, OwnerRecord};
use crate::cli::{GlobalArgs, RunArgs};
use crate::error::{Error, ErrorKind};
use crate::launch::profile::child_environment::ChildEnvironment;
use crate::launch::profile::layout::ProfileLayout;
use crate::launch::resolve::ResolvedCli;
use crate::process;
use crate::session::supervisor;
use crate::settings::{Adapter, Settings};

/// The kept session a run reaches.
pub struct Kept {
    pub layout: ProfileLayout,
    pub paths: KeptPaths,
    /// The owner's record when one lives.
    pub living: Option<OwnerRecord>,
    pub prompt: String,
    pub handshake_timeout: Duration,
}

/// How a run through a kept session ended.
pub enum Reached {
    /// The turn ran (its own result is the run's).
    Ran,
    /// The owner ended before this prompt's turn (stopped, idle): nothing
    /// was sent; the run starts afresh.
    OwnerGone,
}

pub fn run(
    settings: &Settings,
    adapter: &Adapter,
    global: &GlobalArgs,
    args: &RunArgs,
    kept: Kept,
) -> Result<Reached, Error> {
    let Kept {
        layout,
        paths,
        living,
        prompt,
        handshake_timeout,
    } = kept;
    let name = &args.session;
    let living = match living {
        Some(record) => Some(record),
        None => {
            start_owner(settings, adapter, global, args, &layout, &paths)?;
            // The owner that holds the name: ours, or another run's that
            // started one at the same moment (it writes its record soon).
            owner_record(&paths)
        }
    };
    match &living {
        Some(record) if record.adapter != adapter.data.id => {
            return Err(Error::msg(
                ErrorKind::Session,
                format!(
                    "session `{name}` is a kept session of `{}`, not of `{}`",
                    record.adapter, adapter.data.id
                ),
            )
            .with_hint(format!(
                "end it with `oneworks session stop {name}`, or use another --session"
            )))
        }
        Some(record) if record.world != super::run_plan::world_digest(adapter) => {
            return Err(Error::msg(
                ErrorKind::Session,
                format!(
                    "kept session `{name}` runs an agent started with another config than this run's"
                ),
            )
            .with_hint(format!(
                "end it with `oneworks session stop {name}` to start it again with this config"
            )))
        }
        Some(_) => {}
        None => return Ok(Reached::OwnerGone),
    }
    // The agent's environment as the owner built it, for `${VAR}` in the
    // MCP servers a handshake sends (the owner inherited this process's).
    let environment = ChildEnvironment::build(
        &settings.env,
        &adapter.data,
        &adapter.config,
        &layout,
        &layout.runtime,
    );
    let environment = crate::env_options::environment::Environment::from_pairs(environment.iter());
    let session = super::run_plan::session_plan(
        adapter,
        args,
        &layout,
        &adapter.scrubber,
        environment,
        handshake_timeout,
    );
    let plan = super::run_plan::run_plan(settings, adapter, args, prompt, session, &layout);
    let runtime = process::runtime().map_err(|error| Error::new(ErrorKind::Internal, error))?;
    let result = runtime.block_on(async {
        let connection = open(&paths, name).await?;
        client::run_kept(plan, connection, args.keep).await
    });
    runtime.shutdown_background();
    match result {
        Err(crate::acp::AcpError::Kept(error)) if error.before_the_turn() => {
            // A dead owner blocks nothing: once it is gone, afresh.
            wait_while(Duration::from_secs(30), || kept::is_owned(&paths));
            if kept::is_owned(&paths) {
                return Err(crate::acp::AcpError::Kept(error).into());
            }
            Ok(Reached::OwnerGone)
        }
        other => other.map(|()| Reached::Ran).map_err(Error::from),
    }
}

/// Polls `busy` every 20 ms until it is false or `bound` passed.
fn wait_while(bound: Duration, mut busy: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + bound;
    while busy() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The record of the owner holding the name, once it has written it
/// (bounded); `None` when no owner holds it.
fn owner_record(paths: &KeptPaths) -> Option<OwnerRecord> {
    wait_while(Duration::from_secs(30), || {
        kept::is_owned(paths) && kept::read_record(paths).is_none()
    });
    kept::living(paths)
}

/// Connects to the owner, again while it holds the name but does not
/// listen yet (bounded).
async fn open(paths: &KeptPaths, name: &str) -> Result<OwnerConnection, KeptError> {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        match OwnerConnection::open(&paths.socket, name).await {
            Err(KeptError::Connect { .. })
                if kept::is_owned(paths) && std::time::Instant::now() < deadline =>
            {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            other => return other,
        }
    }
}

/// Starts the owner and waits for its ready line. Another run starting an
/// owner for the same name at the same moment is no error: the owner that
/// finds the lock taken says ready and leaves, and both runs reach the one
/// that holds it (`owner_record`, `open`).
fn start_owner(
    settings: &Settings,
    adapter: &Adapter,
    global: &GlobalArgs,
    args: &RunArgs,
    layout: &ProfileLayout,
    paths: &KeptPaths,
) -> Result<(), Error> {
    let name = &args.session;
    supervisor::check_runtime(layout)?;
    let cli = crate::launch::resolve::resolve_for_launch(&super::resolver(adapter))?;
    layout.ensure()?;
    layout.ensure_runtime()?;
    let log = crate::fs_safety::open_private(&paths.log, crate::fs_safety::PrivateOpen::Truncate)
        .map_err(|error| Error::new(ErrorKind::Session, error))?;
    let keep = args.keep.unwrap_or_default();
    let command = owner_command(
        global,
        adapter,
        name,
        keep,
        &cli,
        settings.project.root.as_path(),
    )?;
    super::session_start::start_until_ready(command, log, name, &paths.log)?;
    Ok(())
}

fn owner_command(
    global: &GlobalArgs,
    adapter: &Adapter,
    name: &str,
    keep: Duration,
    cli: &ResolvedCli,
    project: &Path,
) -> Result<std::process::Command, Error> {
    let exe = std::env::current_exe().map_err(|error| Error::new(ErrorKind::Internal, error))?;
    let mut command = std::process::Command::new(exe);
    if let Some(config) = &global.config {
        command.arg("--config").arg(config);
    }
    command
        .current_dir(project)
        .args([
            "session",
            "keep",
            "--name",
            name,
            "--adapter",
            &adapter.data.id,
            "--keep",
            &format!("{}s", keep.as_secs()),
            "--cli-version",
            &cli.version,
        ])
        .arg("--cli-path")
        .arg(&cli.path)
        .args(crate::session::supervisor::supervise::runtime_args(
            &cli.runtime_path,
        ));
    if adapter.config.trust_workspace {
        command.arg("--trust-workspace");
    }
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    Ok(command)
}

/// `session cancel NAME`.
pub fn cancel(settings: &Settings, name: &str) -> Result<(), Error> {
    let paths = kept_paths(settings, name);
    if kept::living(&paths).is_none() {
        return Err(not_kept(name));
    }
    let runtime = process::runtime().map_err(|error| Error::new(ErrorKind::Internal, error))?;
    let cancelled = runtime
        .block_on(async {
            OwnerConnection::open(&paths.socket, name)
                .await?
                .cancel()
                .await
        })
        .map_err(|error| Error::from(crate::acp::AcpError::from(error)))?;
    let said = if cancelled {
        format!("cancelled the turn of kept session `{name}`")
    } else {
        format!("kept session `{name}` has no turn running")
    };
    crate::output::say(settings.quiet, said);
    Ok(())
}

/// A kept session's paths, from its name alone (they do not depend on the
/// adapter).
pub fn kept_paths(settings: &Settings, name: &str) -> KeptPaths {
    KeptPaths::new(&ProfileLayout::new(
        &settings.project,
        &settings.locations,
        name,
        "",
    ))
}

fn not_kept(name: &str) -> Error {
    Error::msg(ErrorKind::Session, format!("session `{name}` is not a kept session that runs"))
        .with_hint("start one with `oneworks run ADAPTER --session NAME --keep`; `oneworks session list` shows what runs")
}

/// `session stop NAME` of a kept session: the owner ends it; waits until
/// it is gone.
pub fn stop(settings: &Settings, name: &str) -> Result<bool, Error> {
    let paths = kept_paths(settings, name);
    if kept::living(&paths).is_none() {
        return Ok(false);
    }
    let runtime = process::runtime().map_err(|error| Error::new(ErrorKind::Internal, error))?;
    runtime
        .block_on(async {
            OwnerConnection::open(&paths.socket, name)
                .await?
                .stop()
                .await
        })
        .map_err(|error| Error::from(crate::acp::AcpError::from(error)))?;
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while kept::is_owned(&paths) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    if kept::is_owned(&paths) {
        return Err(Error::msg(
            ErrorKind::Session,
            format!("the owner of kept session `{name}` did not end within 20 s"),
        ));
    }
    crate::output::say(settings.quiet, format_args!("session `{name}` stopped"));
    Ok(true)
}

/// The kept sessions of the project, for `session list`: name, record and
/// the owner's status when it answers.
pub fn listed(
    settings: &Settings,
    names: &[String],
) -> Vec<(
    String,
    OwnerRecord,
    Option<crate::acp::kept::protocol::Status>,
)> {
    let Ok(runtime) = process::runtime() else {
        return Vec::new();
    };
    names
        .iter()
        .filter_map(|name| {
            let paths = kept_paths(settings, name);
            let record = kept::living(&paths)?;
            let status = runtime
                .block_on(async {
                    OwnerConnection::open(&paths.socket, name)
                        .await?
                        .status()
                        .await
                })
                .ok();
            Some((name.clone(), record, status))
        })
        .collect()
}
