//! `oneworks session start`: launches the supervisor (`session supervise`,
//! hidden) as a background process in its own process group, its stderr
//! into the session's log, and waits for its `ready` line.

use std::io::{BufRead, BufReader, IsTerminal};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use crate::cli::GlobalArgs;
use crate::error::{Error, ErrorKind};
use crate::launch::profile::layout::ProfileLayout;
use crate::launch::resolve::ResolvedCli;
use crate::output;
use crate::session::supervisor::ready::ReadyLine;
use crate::session::supervisor::{self, supervise, SessionPaths};
use crate::session::tmux;
use crate::session::SessionError;
use crate::settings::{Adapter, Settings};

/// How long `start` waits for the supervisor to be ready.
const READY_DEADLINE: Duration = Duration::from_secs(120);

/// Starts session `name`'s supervisor and waits until it is ready; the
/// caller attaches unless `detach`.
pub fn start(
    settings: &Settings,
    adapter: &Adapter,
    global: &GlobalArgs,
    name: &str,
    cwd: Option<PathBuf>,
    detach: bool,
) -> Result<(), Error> {
    let tmux_program = tmux::find(settings.options.path.as_deref())?;
    let layout = ProfileLayout::new(
        &settings.project,
        &settings.locations,
        name,
        &adapter.data.id,
    );
    let paths = SessionPaths::new(&layout);
    supervisor::check_runtime(&layout)?;
    if !detach && !std::io::stdin().is_terminal() {
        return Err(Error::msg(
            ErrorKind::Usage,
            "`session start` attaches a terminal, and standard input is not one",
        )
        .with_hint(
            "use `--detach` and answer approvals with `oneworks session approvals`/`answer`",
        ));
    }
    let cwd = match cwd {
        Some(dir) => Some(resolve_dir(&dir)?),
        None => None,
    };
    // A supervisor that died left an agent a new one re-adopts:
    // that session runs; it is not cleaned away.
    if recover(settings, global, name)? {
        return Err(SessionError::AlreadyRunning(name.to_owned()).into());
    }
    clean_up_gone_supervisor(settings, name, &paths, &tmux_program)?;
    // One name is one session: a kept session's name is taken.
    if let Some(kept) = crate::acp::kept::living(&crate::acp::kept::KeptPaths::new(&layout)) {
        return Err(Error::msg(
            ErrorKind::Session,
            format!(
                "session `{name}` is a kept session of `{}` (`run --keep`)",
                kept.adapter
            ),
        )
        .with_hint(format!(
            "end it with `oneworks session stop {name}`, or choose another --name"
        )));
    }
    let cli = crate::launch::resolve::resolve_for_launch(&super::resolver(adapter))?;
    layout.ensure()?;
    layout.ensure_runtime()?;
    let log = open_log(&paths.log)?;
    let command = supervise_command(global, adapter, name, &cli, cwd.as_deref())?;
    start_until_ready(command, log, name, &paths.log)?;
    if detach {
        output::say(
            settings.quiet,
            format_args!("session `{name}` started; attach with `oneworks session attach {name}`"),
        );
    }
    Ok(())
}

/// Refuses a session whose supervisor still runs; cleans up after one
/// that is gone (what its record names, the record and its sockets).
fn clean_up_gone_supervisor(
    settings: &Settings,
    name: &str,
    paths: &SessionPaths,
    tmux_program: &Path,
) -> Result<(), Error> {
    match supervisor::read_record(paths) {
        Some(record) if supervisor::is_running(&record, paths) => {
            Err(SessionError::AlreadyRunning(name.to_owned()).into())
        }
        Some(record) => {
            output::say(
                settings.quiet,
                format_args!("note: cleaning up after the gone supervisor of session `{name}`"),
            );
            supervisor::clean_up(&record, paths, Some(tmux_program));
            Ok(())
        }
        None => Ok(()),
    }
}

/// The hidden `session supervise` of this binary for session `name`, in a
/// process group of its own (a terminal's ^C must not reach it).
fn supervise_command(
    global: &GlobalArgs,
    adapter: &Adapter,
    name: &str,
    cli: &ResolvedCli,
    cwd: Option<&Path>,
) -> Result<std::process::Command, Error> {
    let exe = std::env::current_exe().map_err(|error| Error::new(ErrorKind::Internal, error))?;
    let mut command = std::process::Command::new(exe);
    if let Some(config) = &global.config {
        command.arg("--config").arg(config);
    }
    command
        .args([
            "session",
            "supervise",
            "--name",
            name,
            "--adapter",
            &adapter.data.id,
            "--cli-version",
            &cli.version,
        ])
        .arg("--cli-path")
        .arg(&cli.path)
        .args(supervise::runtime_args(&cli.runtime_path));
    if adapter.config.trust_workspace {
        command.arg("--trust-workspace");
    }
    if let Some(cwd) = cwd {
        command.arg("--cwd").arg(cwd);
    }
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    Ok(command)
}

/// Starts a background process of ours (a supervisor, a kept session's
/// owner) with its stderr in `log` and waits for its one ready line: its
/// error, with its own exit code, when it is not ready. It runs on by
/// itself; it is reaped in the background while this process lasts.
pub fn start_until_ready(
    mut command: std::process::Command,
    log: std::fs::File,
    name: &str,
    log_path: &Path,
) -> Result<(), Error> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .map_err(|error| Error::new(ErrorKind::Internal, error))?;
    let ready = read_ready_line(&mut child);
    if !ready.ready {
        let _ = child.kill();
        let _ = child.wait();
    }
    ready.into_result(name, || format!("see `{}`", log_path.display()))?;
    std::thread::spawn(move || child.wait());
    Ok(())
}

/// The supervisor's first stdout line, read on a helper thread so a
/// supervisor that never writes one is given up on after
/// [`READY_DEADLINE`].
fn read_ready_line(child: &mut std::process::Child) -> ReadyLine {
    let stdout = child.stdout.take();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        if let Some(stdout) = stdout {
            let _ = BufReader::new(stdout).read_line(&mut line);
        }
        let _ = sender.send(line);
    });
    let line = receiver.recv_timeout(READY_DEADLINE).unwrap_or_default();
    ReadyLine::parse(&line)
}

fn resolve_dir(dir: &Path) -> Result<PathBuf, Error> {
    let resolved = std::path::absolute(dir).and_then(|path| path.canonicalize());
    match resolved {
        Ok(path) if path.is_dir() => Ok(path),
        _ => Err(Error::msg(
            ErrorKind::Usage,
            format!("`--cwd {}` is not a folder", dir.display()),
        )),
    }
}

fn open_log(path: &Path) -> Result<std::fs::File, Error> {
    crate::fs_safety::open_private(path, crate::fs_safety::PrivateOpen::Truncate).map_err(
        |source| {
            SessionError::Io {
                action: "open",
                path: path.to_owned(),
                source,
            }
            .into()
        },
    )
}

/// Session `name`'s supervisor died while its tmux server (and
/// the agent in it) lives: a new supervisor re-adopts them (`session
/// adopt`), started like the first one. Nothing to do when the supervisor
/// runs, when there is no record, or when the tmux server is gone too
/// (that session is for `session stop` to clear: no second agent is ever
/// started under its name). `Ok(true)` when a supervisor was started.
pub fn recover(settings: &Settings, global: &GlobalArgs, name: &str) -> Result<bool, Error> {
    let at = RecoverAt {
        project: settings.project.clone(),
        locations: settings.locations.clone(),
        config: global.config.clone(),
        quiet: settings.quiet,
    };
    at.recover(name)
}

/// How long a dead supervisor's lock may take to be released (its last
/// threads ending) before re-adoption waits for the next command.
const LOCK_RELEASE: std::time::Duration = std::time::Duration::from_secs(2);

/// What [`recover`] needs, owned (`session serve` re-adopts from its
/// page's threads).
#[derive(Clone)]
pub struct RecoverAt {
    pub project: crate::locations::Project,
    pub locations: crate::locations::Locations,
    pub config: Option<std::path::PathBuf>,
    pub quiet: bool,
}

impl RecoverAt {
    pub fn recover(&self, name: &str) -> Result<bool, Error> {
        let settings = self;
        let layout = ProfileLayout::new(&settings.project, &settings.locations, name, "");
        let paths = SessionPaths::new(&layout);
        let Some(record) = supervisor::read_record(&paths) else {
            return Ok(false);
        };
        if supervisor::is_running(&record, &paths)
            || !supervisor::adopt::tmux_alive(&record, &paths)
        {
            return Ok(false);
        }
        supervisor::check_runtime(&layout)?;
        if !supervisor::lock_released_within(&paths, LOCK_RELEASE) {
            // Still ending: the next command that looks re-adopts it.
            return Ok(false);
        }
        let exe =
            std::env::current_exe().map_err(|error| Error::new(ErrorKind::Internal, error))?;
        let mut command = std::process::Command::new(exe);
        if let Some(config) = &settings.config {
            command.arg("--config").arg(config);
        }
        command.args([
            "session",
            "adopt",
            "--name",
            name,
            "--adapter",
            &record.adapter,
        ]);
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let log = crate::fs_safety::open_private(&paths.log, crate::fs_safety::PrivateOpen::Append)
            .map_err(|source| {
                Error::from(SessionError::Io {
                    action: "open",
                    path: paths.log.clone(),
                    source,
                })
            })?;
        start_until_ready(command, log, name, &paths.log)?;
        output::say(
            settings.quiet,
            format_args!(
                "note: the supervisor of session `{name}` had died; a new one re-adopted its agent"
            ),
        );
        Ok(true)
    }
}
