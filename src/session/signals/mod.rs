//! Where approvals come from, strongest signal
//! first: the agent's ACP recorder ([`recorder`], tailed by
//! [`recorder_tail`]), the agent's own hook ([`hook`]) or chat store
//! ([`chat_store`], its rows read by [`chat_store_frames`]), and the pane
//! ([`pane`]: the box read through the adapter's grammar; [`pane_fallback`]:
//! the generic detector; [`pane_watch`]: the loop that turns what appears
//! and vanishes into cards). Everything read here is untrusted.

pub mod chat_store;
pub mod chat_store_frames;
pub mod hook;
pub mod pane;
pub mod pane_fallback;
pub mod pane_watch;
pub mod recorder;
pub mod recorder_tail;
