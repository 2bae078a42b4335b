//! The integration tests: the real `oneworks` binary, run in a private temp
//! world against a local manifest server, generated archives and a fake
//! `kiro-cli` (SPEC §9). Run with `cargo test --features fakes`.

mod support;

mod architecture;
mod completions;
mod concurrency;
mod config;
mod harness;
mod hostile;
mod launch;
mod login;
mod messages;
mod network;
mod output;
mod outside;
mod prepare;
mod profile;
mod reuse;
mod review;
mod sources;
