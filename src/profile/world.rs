//! Entering a profile world: the one way every Kiro child (login, ACP run,
//! supervised TUI) gets its world. Ensures the session layout, writes the
//! materialized config (scrubbed), creates a fresh temp HOME and builds the
//! allowlisted child environment — in that order, so Kiro never starts
//! against a half-written profile.

use std::path::Path;

use super::environment::ChildEnvironment;
use super::layout::ProfileLayout;
use super::materialize::{self, mcp::Target, Plan};
use super::temp_home::TempHome;
use crate::error::Error;
use crate::process::spec::ChildSpec;
use crate::redact::Scrubber;
use crate::settings::Settings;

/// Where the child is headed: decides where MCP servers go (SPEC §5.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// `adapter login` and supervised TUI sessions: MCP servers in the
    /// agent file (remote ones when the Kiro version supports them).
    Interactive,
    /// `run` over ACP: the agent file carries no MCP server; the
    /// `session/new` list is built after `initialize` from the config.
    Acp,
}

/// Everything a Kiro child needs. The temp HOME lives as long as this
/// value: drop it after the child has exited.
#[derive(Debug)]
pub struct World {
    pub layout: ProfileLayout,
    pub home: TempHome,
    pub environment: ChildEnvironment,
    pub scrubber: Scrubber,
    /// Notes for the user (skipped remote MCP servers, …), unscrubbed:
    /// print them through `output`.
    pub diagnostics: Vec<String>,
}

impl World {
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

/// Enters session `name`'s world for a Kiro of `version` (the one the
/// launch resolver picked).
pub fn enter(
    settings: &Settings,
    name: &str,
    version: &str,
    purpose: Purpose,
) -> Result<World, Error> {
    let kiro = &settings.config.config.adapters.kiro;
    let layout = ProfileLayout::new(&settings.project, &settings.locations, name);
    let target = match purpose {
        Purpose::Interactive => Target::Tui {
            remote_supported: super::remote_mcp_in_agent_file(&settings.data, Some(version)),
        },
        // Capabilities are unknown until `initialize`; the plan writes no
        // MCP server into the agent file for ACP.
        Purpose::Acp => Target::Acp,
    };
    let plan: Plan = materialize::plan(kiro, &settings.data, &layout.agent_home, target)?;
    let scrubber = super::scrubber_for(&settings.env, &settings.data, kiro);
    plan.write(&layout, &settings.data, &scrubber)?;
    let runtime = layout.ensure_runtime()?;
    let home = TempHome::create(runtime)?;
    let environment =
        ChildEnvironment::build(&settings.env, &settings.data, kiro, &layout, home.path());
    let diagnostics = match purpose {
        Purpose::Interactive => plan.diagnostics,
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
