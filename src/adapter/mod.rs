//! Vendor adapters: what oneworks knows about each agent CLI (data), how it
//! finds an installed CLI (sources, using `install::probe`), and the one resolver
//! that turns settings into a runnable CLI for `prepare` and for launches.

pub mod acp_data;
pub mod data;
pub mod file_type;
pub mod registry;
pub mod resolve;
pub mod session_data;
pub mod source;
pub mod tui_data;
