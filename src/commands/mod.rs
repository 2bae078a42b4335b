//! One file per command: each takes resolved [`Settings`](crate::settings::Settings)
//! and does its job; none parses arguments or reads the environment.

pub mod completions;
pub mod config;
pub mod login;
pub mod prepare;
pub mod prune;
pub mod run;
pub mod serve;
pub mod session;
pub mod session_hook;
pub mod status;
