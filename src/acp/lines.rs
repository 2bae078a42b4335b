//! The agent's stdout as lines, each at most the adapter's
//! `maxMessageBytes`: a longer line is dropped whole (reported, never
//! fatal) without being held in memory. The reader is the shared bounded
//! one of [`crate::process::lines`].

pub use crate::process::lines::{Line, LineReader};
