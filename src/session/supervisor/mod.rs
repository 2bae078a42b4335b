//! The supervisor: one background process per session that owns the agent's TUI
//! in a private tmux server, tails the recorder, serves the approvals
//! channel and delivers verdicts. Its pid and sockets are recorded in the
//! session folder (`supervisor.json`); a record whose process is gone is
//! stale, and `list`/`stop`/`start` detect and clean it.

pub mod adopt;
pub mod ready;
pub mod state;
mod store_task;
pub mod supervise;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::launch::profile::layout::ProfileLayout;
use crate::process::group;
use crate::session::cards::CardBook;
use crate::session::channel;
use crate::session::signals::recorder_tail::{self, RecorderFile, SAFETY_POLL};
use crate::session::supervisor::state::{PaneFactory, SessionState};
use crate::session::tmux::{Tmux, TmuxPane};
use crate::session::{io_error, SessionError};

/// The file names of a session's runtime folder and profile.
pub struct SessionPaths {
    /// The project's root: nothing below it on the way to `record` and
    /// `history` is a link that reads follow (a clone may bring one).
    pub project: PathBuf,
    pub record: PathBuf,
    pub history: PathBuf,
    pub log: PathBuf,
    pub approvals: PathBuf,
    /// The agent's hook hands its signals over here (`hook_signal`).
    pub signals: PathBuf,
    pub tmux: PathBuf,
    pub recorder: PathBuf,
    /// Held (flock) by the running supervisor for its whole life.
    pub lock: PathBuf,
}

impl SessionPaths {
    pub fn new(layout: &ProfileLayout) -> Self {
        Self {
            project: layout.project.clone(),
            record: layout.root.join("supervisor.json"),
            history: layout.root.join("cards.jsonl"),
            log: layout.root.join("supervisor.log"),
            approvals: layout.runtime.join("approvals.sock"),
            signals: layout.runtime.join("signals.sock"),
            tmux: layout.runtime.join("tmux.sock"),
            recorder: layout.runtime.join("recorder.jsonl"),
            lock: layout.runtime.join("supervisor.lock"),
        }
    }
}

/// What a running supervisor leaves in the session folder.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    pub name: String,
    pub pid: u32,
    pub approvals: PathBuf,
    pub tmux: PathBuf,
    pub tmux_program: PathBuf,
    pub tmux_pid: u32,
    pub pane_pid: u32,
    /// The adapter this session runs (records older than adapters were
    /// all the first built-in adapter's: the field defaults to it).
    #[serde(default = "default_adapter")]
    pub adapter: String,
    /// The agent CLI's version.
    #[serde(default)]
    pub cli_version: String,
    pub started_at: String,
    /// This supervisor re-adopted the session after its first one died
    ///; `session list` says so once.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub recovered: bool,
    /// The folder the agent's chat stores live below (the value of the
    /// data's `tui.signals.chatStore.base` in the agent's environment), so
    /// a supervisor that re-adopts the session reads the same stores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store_base: Option<PathBuf>,
}

fn default_adapter() -> String {
    crate::adapter::registry::BUILTIN[0].0.to_owned()
}

/// Whether the record's supervisor still runs: it holds the session lock,
/// and its pid is a `supervise` (or `adopt`) process.
pub fn is_running(record: &Record, paths: &SessionPaths) -> bool {
    // A supervisor started by `session start` runs `session supervise`;
    // one that re-adopted the session, `session adopt`.
    lock_held(&paths.lock)
        && group::is_alive(record.pid)
        && (process_mentions(record.pid, "cmdline", "supervise")
            || process_mentions(record.pid, "cmdline", "adopt"))
}

/// Whether `/proc/<pid>/<file>` (`cmdline`, `environ`) contains `needle`:
/// the record is a file in the project, so a pid from it is signalled only
/// when the process is really ours.
pub(super) fn process_mentions(pid: u32, file: &str, needle: &str) -> bool {
    fs_err::read(format!("/proc/{pid}/{file}"))
        .map(|bytes| String::from_utf8_lossy(&bytes).contains(needle))
        .unwrap_or(false)
}

fn open_lock(path: &Path, create: bool) -> std::io::Result<std::fs::File> {
    crate::fs_safety::open_private(path, crate::fs_safety::PrivateOpen::ReadWrite { create })
}

/// Waits (within `bound`) until no process holds the session's lock: a
/// supervisor killed with threads still ending holds it a little past the
/// death of its main thread. Whether it was released.
pub fn lock_released_within(paths: &SessionPaths, bound: std::time::Duration) -> bool {
    let deadline = std::time::Instant::now() + bound;
    while lock_held(&paths.lock) {
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    true
}

fn lock_held(path: &Path) -> bool {
    use fs4::fs_std::FileExt;
    match open_lock(path, false) {
        Ok(file) => matches!(file.try_lock_exclusive(), Ok(false)),
        Err(_) => false,
    }
}

/// Takes the session lock for this supervisor's life.
pub fn take_lock(paths: &SessionPaths, name: &str) -> Result<std::fs::File, SessionError> {
    use fs4::fs_std::FileExt;
    let file = open_lock(&paths.lock, true).map_err(io_error("open", &paths.lock))?;
    match file.try_lock_exclusive() {
        Ok(true) => Ok(file),
        Ok(false) => Err(SessionError::AlreadyRunning(name.to_owned())),
        Err(error) => Err(io_error("lock", &paths.lock)(error)),
    }
}

/// Reads the session's record: ours, a regular file, with no link on the
/// way below the project (never waiting on a FIFO); else `None`.
pub fn read_record(paths: &SessionPaths) -> Option<Record> {
    use std::os::unix::fs::MetadataExt;
    let (bytes, meta) =
        crate::fs_safety::read_regular_file_beneath(&paths.project, &paths.record, 64 * 1024)
            .ok()?;
    if meta.uid() != crate::fs_safety::current_uid() {
        return None;
    }
    serde_json::from_slice(&bytes).ok()
}

pub fn write_record(path: &Path, record: &Record) -> Result<(), SessionError> {
    let text = serde_json::to_vec_pretty(record).map_err(|error| SessionError::Io {
        action: "encode",
        path: path.to_owned(),
        source: std::io::Error::other(error),
    })?;
    crate::fs_safety::atomic_write(path, &text, 0o600).map_err(io_error("write", path))
}

/// Ends what a record names — the agent, its tmux server — and removes the
/// record and sockets. Used by `stop` after a supervisor that was killed,
/// and by the supervisor itself. Sockets are the computed ones (never a
/// path from the record), `tmux` is the one on PATH, and a recorded pid is
/// signalled only when the process is that session's tmux server or runs
/// inside it.
pub fn clean_up(record: &Record, paths: &SessionPaths, tmux_program: Option<&Path>) {
    let socket = paths.tmux.to_string_lossy().into_owned();
    if let Some(program) = tmux_program {
        if paths.tmux.exists() {
            let tmux = Tmux {
                program: program.to_owned(),
                socket: paths.tmux.clone(),
                env: Default::default(),
            };
            let _ = tmux.kill_server();
        }
    }
    let server = |pid: u32| group::is_alive(pid) && process_mentions(pid, "cmdline", &socket);
    let pane = |pid: u32| {
        group::is_alive(pid) && process_mentions(pid, "environ", &format!("TMUX={socket},"))
    };
    let deadline = Instant::now() + Duration::from_secs(3);
    while Instant::now() < deadline && (server(record.tmux_pid) || pane(record.pane_pid)) {
        std::thread::sleep(Duration::from_millis(20));
    }
    // The tmux server and the agent each lead their own session and group.
    if server(record.tmux_pid) {
        group::kill_group(record.tmux_pid);
    }
    if pane(record.pane_pid) {
        group::kill_group(record.pane_pid);
    }
    for path in [
        &paths.approvals,
        &paths.signals,
        &paths.tmux,
        &paths.recorder,
        &paths.record,
    ] {
        let _ = fs_err::remove_file(path);
    }
}

/// Everything the supervisor needs, resolved before it starts.
pub struct SupervisorPlan {
    pub name: String,
    pub tmux: Tmux,
    /// The adapter's name (card id prefix, record).
    pub adapter: String,
    /// The agent CLI and its version.
    pub cli_path: PathBuf,
    pub cli_version: String,
    pub cwd: PathBuf,
    pub tui: crate::adapter::tui_data::TuiData,
    pub scrubber: Arc<crate::redact::Scrubber>,
    pub paths: SessionPaths,
    pub runtime: PathBuf,
    pub webhook: Option<crate::session::delivery::webhook::Webhook>,
    /// Read approvals from the pane at this pace instead of
    /// the recorder.
    pub pane_fallback: Option<Duration>,
}

/// Starts the agent in tmux, writes the record, signals `ready` and runs until
/// the TUI exits, `stop` arrives or a signal ends it; then cleans up.
pub fn run(
    plan: SupervisorPlan,
    ready: impl FnOnce() -> Result<(), crate::output::OutputError>,
) -> Result<(), SessionError> {
    let _lock = take_lock(&plan.paths, &plan.name)?;
    // With the lock ours, a tmux server still on this session's socket was
    // left by a supervisor that died before writing its record.
    if plan.paths.tmux.exists() {
        let _ = plan.tmux.kill_server();
        let _ = fs_err::remove_file(&plan.paths.tmux);
    }
    fresh_recorder(&plan.paths.recorder)?;
    let reader = RecorderFile::at_end(&plan.paths.recorder);
    // Listening before the agent starts: its first hook must find us.
    let (runtime, signals) = runtime_and_signals(&plan)?;
    let record = start_agent(&plan)?;
    let outcome = runtime.block_on(supervise(&plan, &record, reader, signals, ready));
    clean_up(&record, &plan.paths, Some(&plan.tmux.program));
    outcome
}

/// The supervisor's runtime, and the socket the agent's hook hands its
/// signals to when the adapter has one (bound inside the runtime).
pub(super) fn runtime_and_signals(
    plan: &SupervisorPlan,
) -> Result<(tokio::runtime::Runtime, Option<tokio::net::UnixListener>), SessionError> {
    let runtime = crate::process::runtime().map_err(SessionError::Runtime)?;
    let signals = match plan.tui.signals.hook {
        Some(_) => {
            let _entered = runtime.enter();
            Some(channel::bind(&plan.paths.signals)?)
        }
        None => None,
    };
    Ok((runtime, signals))
}

/// Starts the agent in its private tmux and writes the session's record;
/// when the record cannot be written, the tmux server goes too.
fn start_agent(plan: &SupervisorPlan) -> Result<Record, SessionError> {
    plan.tmux.start(
        &plan.cwd,
        plan.tui.width,
        plan.tui.height,
        &plan.cli_path,
        &plan.tui.command,
    )?;
    let started = (|| {
        let record = Record {
            name: plan.name.clone(),
            pid: std::process::id(),
            approvals: plan.paths.approvals.clone(),
            tmux: plan.tmux.socket.clone(),
            tmux_program: plan.tmux.program.clone(),
            tmux_pid: plan.tmux.server_pid()?,
            pane_pid: plan.tmux.pane_pid()?,
            adapter: plan.adapter.clone(),
            cli_version: plan.cli_version.clone(),
            started_at: crate::output::now_rfc3339(),
            recovered: false,
            store_base: store_task::store_base(plan),
        };
        write_record(&plan.paths.record, &record)?;
        Ok::<_, SessionError>(record)
    })();
    if started.is_err() {
        let _ = plan.tmux.kill_server();
    }
    started
}

/// The supervisor's life on the runtime: the card book, the approvals
/// socket, the signal sources (recorder, the agent's hook, the pane), the
/// webhook; `ready` once all listen; then until the end.
pub(super) async fn supervise(
    plan: &SupervisorPlan,
    record: &Record,
    reader: RecorderFile,
    signals: Option<tokio::net::UnixListener>,
    ready: impl FnOnce() -> Result<(), crate::output::OutputError>,
) -> Result<(), SessionError> {
    let tmux = plan.tmux.clone();
    let factory: PaneFactory = Arc::new(move || Box::new(OwnedTmuxPane(tmux.clone())));
    let book = CardBook::new(
        &crate::session::cards::card_prefix(&plan.adapter, &plan.name),
        Some(plan.paths.history.clone()),
        Some((*plan.scrubber).clone()),
    );
    let mut book = book;
    if record.recovered {
        // The cards the dead supervisor left pending keep their ids.
        book.adopt_pending(
            crate::session::cards::history::read(&plan.paths.project, &plan.paths.history)
                .unwrap_or_default(),
        );
    }
    let state = SessionState::new(book, plan.tui.clone(), factory);
    if let Some(webhook) = plan.webhook.clone() {
        webhook.attach(&state);
    }
    let listener = channel::bind(&plan.paths.approvals)?;
    let (_watcher, wake) = recorder_tail::watch(&plan.runtime);
    let server = tokio::spawn(channel::serve(listener, Arc::clone(&state)));
    let signals = signals.map(|listener| {
        tokio::spawn(crate::session::signals::hook::serve(
            listener,
            Arc::clone(&state),
            plan.tui.clone(),
        ))
    });
    let chat_store = store_task::task(plan, record, &state);
    let pane_watch = plan.pane_fallback.map(|every| {
        tokio::spawn(crate::session::signals::pane_watch::run(
            plan.tmux.clone(),
            Arc::clone(&state),
            plan.tui.clone(),
            every,
        ))
    });
    let interrupts = crate::process::interrupts::Interrupts::install()
        .map_err(io_error("install signal handlers for", &plan.runtime))?;
    // A closed terminal must not end the session.
    let _hangup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
        .map_err(io_error("install signal handlers for", &plan.runtime))?;
    let mut reader = reader;
    if record.recovered && pane_watch.is_none() {
        adopt::rederive(&state, &mut reader);
    }
    ready()?;
    let recorder = pane_watch.is_none().then_some(reader);
    until_the_end(&state, record, recorder, wake, interrupts).await;
    server.abort();
    for task in [signals, pane_watch, chat_store].into_iter().flatten() {
        task.abort();
    }
    Ok(())
}

/// Reads the recorder (when it is the signal) into the card book until the
/// tmux server is gone, `stop` arrives, or SIGINT/SIGTERM.
async fn until_the_end(
    state: &SessionState,
    record: &Record,
    mut recorder: Option<RecorderFile>,
    mut wake: tokio::sync::mpsc::Receiver<()>,
    mut interrupts: crate::process::interrupts::Interrupts,
) {
    let mut poll = tokio::time::interval(SAFETY_POLL);
    loop {
        if let Some(reader) = &mut recorder {
            let read = match reader.read_messages() {
                Ok(messages) => messages,
                Err(error) => {
                    tracing::warn!("cannot read the recorder: {error}");
                    Vec::new()
                }
            };
            state.recorder_batch(read);
        }
        if !group::is_alive(record.tmux_pid) {
            break;
        }
        // A huge append is read in bounded steps, one after another.
        let behind = recorder.as_ref().is_some_and(RecorderFile::behind);
        tokio::select! {
            () = std::future::ready(()), if behind => {}
            _ = wake.recv() => {}
            _ = poll.tick() => {}
            () = state.stop.notified() => break,
            _ = interrupts.recv() => break,
        }
    }
}

/// The recorder starts empty and ours (0600, not a link), so the agent appends
/// to a file nobody else wrote.
fn fresh_recorder(path: &Path) -> Result<(), SessionError> {
    match fs_err::remove_file(path).map_err(crate::fs_error::os_cause) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => return Err(io_error("remove", path)(error)),
    }
    crate::fs_safety::open_private(path, crate::fs_safety::PrivateOpen::CreateNew)
        .map(drop)
        .map_err(io_error("create", path))
}

struct OwnedTmuxPane(Tmux);

impl crate::session::delivery::keystroke_bridge::Pane for OwnedTmuxPane {
    fn capture(&mut self) -> Result<String, crate::session::delivery::keystroke_bridge::PaneError> {
        TmuxPane(&self.0).capture()
    }
    fn send_key(
        &mut self,
        key: &str,
    ) -> Result<(), crate::session::delivery::keystroke_bridge::PaneError> {
        TmuxPane(&self.0).send_key(key)
    }
}

/// Refuses a runtime folder that is a link, not ours, or open to others
/// (the approvals socket and recorder live there). A missing one is fine.
fn check_private(path: &Path) -> Result<(), crate::session::SessionError> {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = fs_err::symlink_metadata(path) else {
        return Ok(());
    };
    let problem = if !meta.is_dir() {
        Some("is not a folder".to_owned())
    } else if meta.uid() != crate::fs_safety::current_uid() {
        Some(format!("belongs to another user (uid {})", meta.uid()))
    } else if meta.mode() & 0o077 != 0 {
        Some(format!(
            "is open to other users (mode {:o}); it must be 700",
            meta.mode() & 0o777
        ))
    } else {
        None
    };
    match problem {
        Some(problem) => Err(crate::session::SessionError::Refused(format!(
            "refusing the runtime folder `{}`: it {problem}",
            path.display()
        ))),
        None => Ok(()),
    }
}

pub fn check_runtime(layout: &ProfileLayout) -> Result<(), crate::session::SessionError> {
    check_private(&layout.runtime_base)?;
    check_private(&layout.runtime)
}
