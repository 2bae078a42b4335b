//! The integration tests: the real `oneworks` binary, run in a private temp
//! world against a local manifest server, generated archives and a fake
//! `kiro-cli` (SPEC §9). Run with `cargo test --features fakes`.

mod support;

mod completions;
mod concurrency;
mod config;
mod harness;
mod hostile;
mod network;
mod output;
mod prepare;
mod session;
mod sources;
mod supervisor;
mod supervisor_fallback;
mod supervisor_lifecycle;
mod supervisor_races;
mod supervisor_webhook;
