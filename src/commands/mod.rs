//! One file per command: each takes resolved [`Settings`](crate::settings::Settings)
//! and does its job; none parses arguments or reads the environment.

pub mod completions;
pub mod config;
pub mod kept_cards;
pub mod login;
pub mod prepare;
pub mod prune;
pub mod run;
pub mod run_kept;
pub mod run_plan;
pub mod serve;
pub mod session;
pub mod session_hook;
pub mod session_keep;
pub mod session_start;
pub mod status;

use crate::install::transport::fetcher::Fetcher;
use crate::install::Installer;
use crate::launch::inputs::Resolver;
use crate::settings::{Adapter, InstallInputs};

/// The resolver of `adapter`'s CLI, built from its resolved values (with
/// an installer when the settings resolved the installer's inputs:
/// preparing or launching `source: managed`).
pub fn resolver(adapter: &Adapter) -> Resolver<'_> {
    let cli = &adapter.cli;
    Resolver {
        data: &adapter.data,
        cli: &adapter.config.cli,
        probe: cli.probe.clone(),
        store: cli.store.clone(),
        data_home: cli.data_home.clone(),
        lock_file: cli.lock_file.clone(),
        installer: cli
            .install
            .as_ref()
            .map(|inputs| installer(adapter, inputs)),
    }
}

/// The installer of `adapter`'s managed source, from its inputs.
fn installer<'a>(adapter: &'a Adapter, inputs: &InstallInputs) -> Installer<'a> {
    let inputs = inputs.clone();
    Installer {
        data: &adapter.data,
        store: adapter.cli.store.clone(),
        cache_dir: inputs.cache_dir,
        source: inputs.source,
        lock_timeout: inputs.lock_timeout,
        host: inputs.host,
        probe: adapter.cli.probe.clone(),
        fetcher: Fetcher::new(inputs.retry, inputs.http_timeout)
            .with_network(inputs.transport, inputs.credentials),
        progress: inputs.progress,
        quiet: inputs.quiet,
        scrubber: std::sync::Arc::clone(&adapter.scrubber),
        node: inputs.node,
    }
}
