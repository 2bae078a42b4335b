//! Delivering a verdict: the keystroke bridge that
//! types it into the agent's own box, verify-then-key, failing closed; the
//! optional webhook that POSTs each new card and takes an answer back; the
//! one-time answer links a card's message carries.

pub mod keystroke_bridge;
pub mod links;
pub mod webhook;
