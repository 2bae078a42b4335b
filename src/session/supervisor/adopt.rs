//! Re-adoption: a supervisor that died leaves the agent
//! running in its tmux pane; a new one takes over the same tmux server
//! and pane (the agent is not started again), derives the cards still
//! pending again from the recorder, and supervises on.

use super::{
    clean_up, process_mentions, read_record, runtime_and_signals, supervise, take_lock,
    write_record, Record, RecorderFile, SessionError, SessionPaths, SupervisorPlan,
};
use crate::process::group;
use crate::session::supervisor::state::SessionState;

/// Whether the record's tmux server still runs and is this session's (its
/// command line names the session's socket): the agent in it can be
/// re-adopted.
pub fn tmux_alive(record: &Record, paths: &SessionPaths) -> bool {
    let socket = paths.tmux.to_string_lossy();
    group::is_alive(record.tmux_pid) && process_mentions(record.tmux_pid, "cmdline", &socket)
}

/// Re-adopts the tmux server and pane a dead supervisor left:
/// the agent is not started again; the record becomes this process's
/// (marked `recovered`); the cards still pending are derived again from the
/// recorder (its requests after the last response) and keep their ids;
/// then the session is supervised as after a start.
pub fn adopt(
    plan: SupervisorPlan,
    ready: impl FnOnce() -> Result<(), crate::output::OutputError>,
) -> Result<(), SessionError> {
    let _lock = take_lock(&plan.paths, &plan.name)?;
    let Some(old) = read_record(&plan.paths) else {
        return Err(SessionError::NotRunning(plan.name.clone()));
    };
    if !tmux_alive(&old, &plan.paths) {
        return Err(SessionError::Unadoptable(plan.name.clone()));
    }
    let record = Record {
        pid: std::process::id(),
        approvals: plan.paths.approvals.clone(),
        tmux: plan.tmux.socket.clone(),
        tmux_program: plan.tmux.program.clone(),
        recovered: true,
        ..old
    };
    write_record(&plan.paths.record, &record)?;
    let reader = RecorderFile::from_start(&plan.paths.recorder);
    let (runtime, signals) = runtime_and_signals(&plan)?;
    let outcome = runtime.block_on(supervise(&plan, &record, reader, signals, ready));
    clean_up(&record, &plan.paths, Some(&plan.tmux.program));
    outcome
}

/// Reads the whole recorder a dead supervisor tailed into the card book
/// as one batch: a request answered within the batch opens no
/// card, so what opens is what is still unanswered, wherever it stands;
/// the dead supervisor's pending cards that nothing re-derived were
/// answered in the terminal meanwhile.
pub(super) fn rederive(state: &SessionState, reader: &mut RecorderFile) {
    let mut messages = Vec::new();
    loop {
        match reader.read_messages() {
            Ok(batch) => messages.extend(batch),
            Err(error) => {
                tracing::warn!("cannot read the recorder: {error}");
                break;
            }
        }
        if !reader.behind() {
            break;
        }
    }
    state.recorder_batch(messages);
    let expired = state.lock().book.expire_adopted();
    for card in expired {
        state.publish(card);
    }
}
