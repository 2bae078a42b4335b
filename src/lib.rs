//! oneworks: installs, configures and supervises vendor coding-agent CLIs.
//! Each agent CLI is an adapter: a data file (`manifests/<adapter>.yaml`).
//!
//! Layout: `cli` (clap types) → `settings` (resolved options) → `commands`
//! (one file per command). Subsystems: `config` and `adapter` (vendor
//! data: the user's config, the adapter files), `install` (the managed
//! installer), `launch` (sources, the resolver, and `launch::profile`, the
//! agent's profile world a child runs in: layout, temp HOME, environment,
//! materialized config), `acp` (the ACP client), `session` (the TUI
//! supervisor), `process` (the
//! child-process seam and signals), `output` (everything printed),
//! `redact` (the credential scrubber), `fs_safety` (shared path checks and
//! atomic writes).

pub mod acp;
pub mod acp_wire;
pub mod adapter;
pub mod cli;
pub mod commands;
pub mod config;
pub mod dispatch;
pub mod env_options;
pub mod error;
pub mod fs_error;
pub mod fs_safety;
pub mod install;
pub mod launch;
pub mod locations;
pub mod logging;
pub mod output;
pub mod process;
pub mod redact;
pub mod serve;
pub mod session;
pub mod settings;
