//! Entering a profile world: the one way every agent child (login, ACP run,
//! supervised TUI) gets its world. Ensures the session layout, writes the
//! materialized config (scrubbed), creates a fresh temp HOME and builds the
//! allowlisted child environment — in that order, so the agent never starts
//! against a half-written profile.

use std::path::Path;

use super::child_environment::ChildEnvironment;
use super::layout::ProfileLayout;
use super::materialize::{self, mcp::Target, WorldPlan};
use super::temp_home::TempHome;
use super::ProfileError;
use std::sync::Arc;

use crate::adapter::data::AdapterData;
use crate::config::AdapterConfig;
use crate::env_options::environment::Environment;
use crate::env_options::EnvOptions;
use crate::locations::{Locations, Project};
use crate::process::spec::ChildSpec;
use crate::redact::Scrubber;

/// What entering a world needs, as plain values (the commands build it).
#[derive(Clone, Copy)]
pub struct Inputs<'a> {
    /// The process's variables (passed on as they are).
    pub env: &'a Environment,
    /// Every variable oneworks interprets, parsed.
    pub options: &'a EnvOptions,
    pub locations: &'a Locations,
    pub project: &'a Project,
    pub data: &'a AdapterData,
    pub config: &'a AdapterConfig,
    /// The command's one scrubber: everything written passes through it.
    pub scrubber: &'a Arc<Scrubber>,
}

/// Where the child is headed: decides where MCP servers go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// `adapter login`: MCP servers in the agent file (remote ones when
    /// the agent version supports them).
    Interactive,
    /// A supervised TUI session (`session start`): as `Interactive`, and
    /// the adapter's signal hook (`tui.signals.hook`) is registered,
    /// pointing at `oneworks session hook`.
    Supervised,
    /// `run` over ACP: the agent file carries no MCP server; the
    /// `session/new` list is built after `initialize` from the config.
    Acp,
}

/// Everything an agent child needs. The temp HOME lives as long as this
/// value: drop it after the child has exited.
#[derive(Debug)]
pub struct World {
    pub layout: ProfileLayout,
    pub home: TempHome,
    pub environment: ChildEnvironment,
    pub scrubber: Arc<Scrubber>,
    /// Notes for the user (skipped remote MCP servers, …), unscrubbed:
    /// print them through `output`.
    pub diagnostics: Vec<String>,
}

impl World {
    /// Puts the runtime the agent runs on (the managed Node.js's `bin/`)
    /// first on its PATH: its bins are `#!/usr/bin/env node`.
    pub fn use_runtime(&mut self, runtime_path: Option<&Path>) {
        if let Some(dir) = runtime_path {
            self.environment.prepend_path(dir);
        }
    }

    /// A [`ChildSpec`] for `program` with this world's environment, run
    /// from the project folder unless the caller sets another.
    pub fn child(&self, program: &Path) -> ChildSpec {
        ChildSpec::new(program)
            .current_dir(&self.layout.project)
            .envs(
                self.environment
                    .iter()
                    .map(|(name, value)| (name.to_owned(), value.to_owned())),
            )
    }
}

/// Enters session `name`'s world for an agent CLI of `version` (the one the
/// launch resolver picked).
pub fn enter(
    inputs: &Inputs<'_>,
    name: &str,
    version: &str,
    purpose: Purpose,
) -> Result<World, ProfileError> {
    let config = inputs.config;
    let data = inputs.data;
    let layout = ProfileLayout::new(inputs.project, inputs.locations, name, &data.id);
    let target = match purpose {
        Purpose::Interactive | Purpose::Supervised => Target::Tui {
            remote_supported: super::remote_mcp_in_agent_file(data, Some(version)),
        },
        // Capabilities are unknown until `initialize`; the plan writes no
        // MCP server into the agent file for ACP.
        Purpose::Acp => Target::Acp,
    };
    let hook_command = (purpose == Purpose::Supervised)
        .then(signal_hook_command)
        .flatten();
    let mut context = materialize::Context::new(&layout.agent_home, target)
        .version(version)
        .project(&layout.project)
        .env(inputs.env);
    if let Some(command) = &hook_command {
        context = context.signal_hook_command(command);
    }
    let plan: WorldPlan = materialize::plan_in(config, data, &context)?;
    let scrubber = Arc::clone(inputs.scrubber);
    plan.write(&layout, data, &scrubber)?;
    let runtime = layout.ensure_runtime()?;
    let home = TempHome::create(runtime)?;
    let mut environment = ChildEnvironment::build(inputs.env, data, config, &layout, home.path());
    environment.set("TMPDIR", home.tmp().to_string_lossy());
    // A cache, not a requirement: without it the agent only starts slower.
    match layout.ensure_compile_cache() {
        Ok(dir) => environment.set("NODE_COMPILE_CACHE", dir.to_string_lossy()),
        Err(error) => tracing::warn!("the agent runs without Node's compile cache: {error}"),
    }
    if purpose != Purpose::Acp {
        super::tui_credentials::apply(&mut environment, data);
    }
    let diagnostics = match purpose {
        Purpose::Interactive | Purpose::Supervised => plan.diagnostics,
        // The ACP list is built later; its notes come from there.
        Purpose::Acp => Vec::new(),
    };
    Ok(World {
        layout,
        home,
        environment,
        scrubber,
        diagnostics,
    })
}

/// `'<this binary>' session hook`, the command line an agent's hook runs
/// (through its shell: the path is quoted). `None` when this binary's path
/// is unknown or not UTF-8: then no hook is registered and the pane is read.
fn signal_hook_command() -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    let exe = exe.to_str()?;
    Some(format!("{} session hook", shell_quote(exe)))
}

/// `text` as one POSIX shell word: single-quoted, `'` as `'\''`.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_hook_command_quotes_the_binary_path() {
        assert_eq!(super::shell_quote("/a b/it's"), "'/a b/it'\\''s'");
        let command = super::signal_hook_command().expect("this binary's path");
        assert!(
            command.starts_with('\'') && command.ends_with("' session hook"),
            "{command}"
        );
    }
}
