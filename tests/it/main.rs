//! The integration tests: the real `oneworks` binary, run in a private temp
//! world against a local manifest server, generated archives and a fake
//! `kiro-cli`. Run with `cargo test --features fakes`.

// Fixtures build files with `std::fs`: clippy.toml's fs-err rule is for
// errors users read.
#![allow(clippy::disallowed_methods)]

mod support;

mod agents_real;
mod architecture;
mod config;
mod gemini;
mod harness;
mod install;
mod output;
mod pane_grammar;
mod run;
mod serve;
mod session;
mod trust;
mod tui_real;
