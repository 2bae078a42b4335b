//! Supervised Kiro TUI sessions (SPEC §8): Kiro's own terminal UI in a
//! private tmux server, with every one-time approval mirrored as a card
//! that can be answered from elsewhere.
//!
//! - [`recorder`], [`recorder_tail`]: Kiro's ACP recorder, parsed and
//!   tailed with the race rules of the original design.
//! - [`cards`]: the card model, states, ids and `cards.jsonl` history.
//! - [`pane`], [`keystroke_bridge`]: reading the prompt on screen and
//!   typing a verdict into it, verify-then-key, failing closed.
//! - [`pane_fallback`]: the generic approval detector for Kiro versions
//!   without the recorder and other TUIs.

pub mod cards;
pub mod keystroke_bridge;
pub mod pane;
pub mod recorder;
pub mod recorder_tail;
