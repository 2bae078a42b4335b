//! What a world depends on besides the config and the adapter data: the
//! agent's home and target, and what is known of the agent's version, the
//! project, the environment and the signal hook.

use std::path::Path;

use super::mcp::Target;
use crate::env_options::environment::Environment;

/// What a world depends on besides the config and the adapter data.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The agent's home (`KIRO_HOME`, `GEMINI_CLI_HOME`).
    pub home: &'a Path,
    pub target: Target,
    /// The agent's version, when known: gates skills.
    pub version: Option<&'a str>,
    /// The project folder, for the trusted-folders file.
    pub project: Option<&'a Path>,
    /// The environment the agent starts from: which credential variables
    /// are set decides an implied login method (only the method is
    /// written).
    pub env: Option<&'a Environment>,
    /// The command line of the adapter's signal hook
    /// (`tui.signals.hook`: `oneworks session hook`), when a session
    /// supervisor asks for it (`session start`, never `run`).
    pub signal_hook_command: Option<&'a str>,
}

impl<'a> Context<'a> {
    pub fn new(home: &'a Path, target: Target) -> Self {
        Self {
            home,
            target,
            version: None,
            project: None,
            env: None,
            signal_hook_command: None,
        }
    }

    pub fn version(mut self, version: &'a str) -> Self {
        self.version = Some(version);
        self
    }

    pub fn project(mut self, project: &'a Path) -> Self {
        self.project = Some(project);
        self
    }

    pub fn env(mut self, env: &'a Environment) -> Self {
        self.env = Some(env);
        self
    }

    pub fn signal_hook_command(mut self, command: &'a str) -> Self {
        self.signal_hook_command = Some(command);
        self
    }
}
