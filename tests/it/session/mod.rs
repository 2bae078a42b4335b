//! `oneworks session` on real tmux: supervised TUI sessions of the fake
//! `kiro-cli chat --tui` (the [`supervisor::Session`] harness and its
//! tests), a supervisor that dies and is adopted, the pane-scrape fallback,
//! the agent's hook as a signal, the fake TUI's key times, starting,
//! listing and stopping, the keystroke bridge's races, the approvals
//! webhook, Cursor's TUI, what a clone brings under `.oneworks/sessions/`
//! and session names.

mod adopt;
mod cursor;
mod fallback;
mod files;
mod hook;
mod key_times;
mod lifecycle;
mod names;
mod races;
pub mod supervisor;
pub mod webhook;
