//! The supervisor's chat-store signal (an adapter whose TUI writes its
//! pending calls into a store of its own): where the store lies, and the
//! reader's task.

use std::path::PathBuf;
use std::sync::Arc;

use super::{Record, SupervisorPlan};
use crate::session::supervisor::state::SessionState;

/// The value of the chat store's base variable in the agent's
/// environment, when the adapter reads one.
pub(super) fn store_base(plan: &SupervisorPlan) -> Option<PathBuf> {
    let data = plan.tui.signals.chat_store.as_ref()?;
    plan.tmux.env.get(&data.base).map(PathBuf::from)
}

/// The chat-store reader's task, when the adapter has one.
pub(super) fn task(
    plan: &SupervisorPlan,
    record: &Record,
    state: &Arc<SessionState>,
) -> Option<tokio::task::JoinHandle<()>> {
    let data = plan.tui.signals.chat_store.clone()?;
    let Some(base) = &record.store_base else {
        tracing::warn!(
            "the agent's environment has no `{}`: its chat store is not read",
            data.base
        );
        return None;
    };
    let stores = crate::session::signals::chat_store::Stores::new(data, base, &plan.cwd);
    tracing::info!("reading the chat stores in `{}`", stores.root().display());
    Some(tokio::spawn(crate::session::signals::chat_store::run(
        stores,
        Arc::clone(state),
    )))
}
