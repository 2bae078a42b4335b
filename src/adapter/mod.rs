//! Vendor adapters: what oneworks knows about each agent CLI (data), how it
//! finds and probes an installed CLI (sources, probes).

pub mod data;
pub mod probe;
pub mod resolve;
pub mod source;
pub mod tui_data;
