//! The arguments of the processes oneworks starts itself (hidden
//! commands): a person never types them.

use std::path::PathBuf;

use clap::Args;

use super::values::{parse_adapter_name, parse_keep};
use super::AdapterName;
use crate::launch::profile::layout::parse_session_name;

/// The owner of a kept session (started by `run --keep`), detached.
#[derive(Debug, Args)]
pub struct KeepArgs {
    /// Session name
    #[arg(long, value_parser = parse_session_name)]
    pub name: String,
    #[arg(long, value_parser = parse_adapter_name)]
    pub adapter: AdapterName,
    /// How long the agent stays idle before the session ends
    #[arg(long, value_parser = parse_keep)]
    pub keep: std::time::Duration,
    #[arg(long)]
    pub cli_path: PathBuf,
    #[arg(long)]
    pub cli_version: String,
    /// A folder first on the agent's PATH (its managed Node.js)
    #[arg(long)]
    pub runtime_path: Option<PathBuf>,
    #[arg(long)]
    pub trust_workspace: bool,
}

/// The supervisor of a TUI session (started by `session start`).
#[derive(Debug, Args)]
pub struct SuperviseArgs {
    /// Session name
    #[arg(long, value_parser = parse_session_name)]
    pub name: String,
    #[arg(long, value_parser = parse_adapter_name)]
    pub adapter: AdapterName,
    #[arg(long)]
    pub cli_path: PathBuf,
    #[arg(long)]
    pub cli_version: String,
    /// A folder first on the agent's PATH (its managed Node.js)
    #[arg(long)]
    pub runtime_path: Option<PathBuf>,
    #[arg(long)]
    pub trust_workspace: bool,
    #[arg(long)]
    pub cwd: Option<PathBuf>,
}
