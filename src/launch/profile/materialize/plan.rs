//! Computing a [`WorldPlan`]: what the agent's home should hold, from the
//! config, the adapter's `session:` data and the [`Context`] (version,
//! project, environment, signal hook), one [`Planner`] method per section
//! of the data (`sections.rs`). Reads skill sources; writes nothing.

use std::path::Path;

use super::context::Context;
use super::mcp::Target;
use super::planned::WorldPlan;
use super::sections::Planner;
use crate::adapter::data::AdapterData;
use crate::config::AdapterConfig;
use crate::launch::profile::ProfileError;

/// Computes what `agent_home` should hold for `target`, knowing nothing
/// else (no version, project or environment): see [`plan_in`].
pub fn plan(
    config: &AdapterConfig,
    data: &AdapterData,
    agent_home: &Path,
    target: Target,
) -> Result<WorldPlan, ProfileError> {
    plan_in(config, data, &Context::new(agent_home, target))
}

/// Computes what the agent's home should hold, section by section: the
/// settings file comes first, the other files in the order of their
/// sections, which is also the order of the notes and of the refusals.
pub fn plan_in(
    config: &AdapterConfig,
    data: &AdapterData,
    context: &Context<'_>,
) -> Result<WorldPlan, ProfileError> {
    let mut planner = Planner::new(config, data, context)?;
    planner.forced_settings();
    planner.tui_credentials();
    planner.auth_method();
    planner.system_prompt()?;
    planner.skills()?;
    planner.hooks()?;
    planner.mcp_servers()?;
    planner.settings_file()?;
    planner.agent_file()?;
    planner.trust_file()?;
    planner.extra_files()?;
    planner.state_file()?;
    Ok(planner.plan)
}
