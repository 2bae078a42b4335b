//! Sessions that last: `run ADAPTER --session NAME --keep DUR`
//! leaves the agent running under a small detached **owner** process, and
//! every later `run … --session NAME` of the same user and project reaches
//! that agent and its agent session instead of starting another.
//!
//! The owner relays; it does not run turns. A caller gets the agent's
//! stdio, line for line, over the owner's socket and runs the same ACP
//! client a one-shot run does ([`crate::acp::client`]): its own events,
//! questions, `--mode`, `--timeout`, exit code and cancel sequence, with
//! nothing re-implemented between the two. The owner reads just enough of
//! the traffic ([`traffic`]) to act alone when the caller cannot: which
//! prompt is in flight, which questions wait for the caller, which agent
//! session is open.
//!
//! The owner, one per kept session, alone owns the agent process, the
//! socket (0600, in the session's 0700 runtime folder), the lock that says
//! it lives and the queue. Its states ([`owner`]):
//!
//! - **Idle** — no caller. The agent's requests are answered (a question
//!   `cancelled`, anything else "method not found"); its notifications are
//!   dropped. The idle deadline (`--keep DUR`) moves to **Stopping**.
//! - **Serving(caller)** — the first waiting caller is granted the agent:
//!   lines go both ways (to the caller through a bounded buffer of its
//!   own: while it is full the agent's stdout is not read, so a slow
//!   caller holds back its agent, never the owner). The caller's end of
//!   stream with nothing in flight → the next caller, or Idle; with
//!   requests in flight (it was interrupted twice, or killed) →
//!   **Cancelling**. `session cancel NAME` asks the caller to cancel (a
//!   `_oneworks/cancel` notification carrying the grant's random token:
//!   one the agent writes cancels nothing).
//! - **Cancelling** — the owner answers the questions the caller left
//!   `cancelled`, sends `session/cancel` when its prompt was in flight, and
//!   waits for the answers to all its requests (dropped: the next caller
//!   numbers its requests from 1 again) within the adapter's cancel grace;
//!   past it the agent is stopped.
//! - An agent that exits is **gone**: the caller (if any) loses its
//!   connection, and the next grant starts the agent again, asking that
//!   caller to load the cached agent session (`session/load`/`resume`).
//! - **Stopping** — `session stop NAME`, the idle deadline or SIGTERM:
//!   the agent is shut down as a run's is (stdin closed, grace, SIGTERM,
//!   SIGKILL), then the socket and the record go, then the owner exits.
//!
//! Nothing secret is written: the agent's environment lives in the owner's
//! memory (inherited from the `run` that started it), the record holds
//! pids and paths, and the owner's log passes the scrubber.

pub mod agent_process;
pub mod caller;
pub mod connections;
pub mod owner;
pub mod protocol;
pub mod question_cards;
pub mod traffic;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::launch::profile::layout::ProfileLayout;
use crate::process::spec::ChildSpec;

/// Everything the owner needs, resolved by the command that starts it.
pub struct OwnerPlan {
    /// The agent's ACP command in its world.
    pub spec: ChildSpec,
    /// The child's label in logs (`<adapter> acp`).
    pub label: String,
    /// How long the agent stays idle before the session ends.
    pub keep: Duration,
    pub paths: KeptPaths,
    /// The adapter's cancel grace (waiting for a cancelled turn's answer).
    pub cancel_grace: Duration,
    /// The adapter's grace after closing the agent's stdin.
    pub stop_grace: Duration,
    /// The adapter's bound on one agent message.
    pub max_message_bytes: usize,
}

/// Where a kept session's owner keeps its things.
#[derive(Debug, Clone)]
pub struct KeptPaths {
    /// The project's root: nothing below it on the way to `record` is
    /// followed if it is a link.
    pub project: PathBuf,
    /// `kept.json` in the session folder: who owns the session.
    pub record: PathBuf,
    /// The owner's log (0600, scrubbed).
    pub log: PathBuf,
    /// The owner's socket (0600) in the runtime folder.
    pub socket: PathBuf,
    /// Held (flock) by the owner for its whole life.
    pub lock: PathBuf,
}

impl KeptPaths {
    pub fn new(layout: &ProfileLayout) -> Self {
        Self {
            project: layout.project.clone(),
            record: layout.root.join("kept.json"),
            log: layout.root.join("kept.log"),
            socket: layout.runtime.join("kept.sock"),
            lock: layout.runtime.join("kept.lock"),
        }
    }
}

/// What a living owner leaves in the session folder.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerRecord {
    pub name: String,
    pub pid: u32,
    pub adapter: String,
    pub cli_version: String,
    pub started_at: String,
    /// The digest of the world the agent was started in
    /// (`commands::run_plan::world_digest`).
    #[serde(default)]
    pub world: String,
}

fn open_lock(path: &Path, create: bool) -> std::io::Result<std::fs::File> {
    crate::fs_safety::open_private(path, crate::fs_safety::PrivateOpen::ReadWrite { create })
}

/// Whether an owner holds the session's lock (it lives).
pub fn is_owned(paths: &KeptPaths) -> bool {
    use fs4::fs_std::FileExt;
    match open_lock(&paths.lock, false) {
        Ok(file) => matches!(file.try_lock_exclusive(), Ok(false)),
        Err(_) => false,
    }
}

/// Takes the session's lock for the owner's life; `None` when another
/// owner holds it.
pub fn take_lock(paths: &KeptPaths) -> std::io::Result<Option<std::fs::File>> {
    use fs4::fs_std::FileExt;
    let file = open_lock(&paths.lock, true)?;
    Ok(file.try_lock_exclusive()?.then_some(file))
}

/// The record, when it is ours: a regular file, small, reached through
/// no link below the project (never waiting on a FIFO).
pub fn read_record(paths: &KeptPaths) -> Option<OwnerRecord> {
    use std::os::unix::fs::MetadataExt;
    let (bytes, metadata) =
        crate::fs_safety::read_regular_file_beneath(&paths.project, &paths.record, 64 * 1024)
            .ok()?;
    if metadata.uid() != crate::fs_safety::current_uid() {
        return None;
    }
    serde_json::from_slice(&bytes).ok()
}

/// Writes the record (0600, atomically).
pub fn write_record(path: &Path, record: &OwnerRecord) -> std::io::Result<()> {
    let text = serde_json::to_vec_pretty(record).map_err(std::io::Error::other)?;
    crate::fs_safety::atomic_write(path, &text, 0o600)
}

/// The living owner's record, or `None` (no owner, or a stale record,
/// which is removed: a dead owner blocks nothing).
pub fn living(paths: &KeptPaths) -> Option<OwnerRecord> {
    let record = read_record(paths);
    if is_owned(paths) {
        return record;
    }
    if record.is_some() {
        let _ = fs_err::remove_file(&paths.record);
    }
    None
}
