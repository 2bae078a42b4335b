//! The `acp:` section of the adapter data file: how Kiro is started for a
//! structured run and the names of its ACP methods and extensions.

use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AcpData {
    /// Arguments before the agent name: `kiro-cli acp --agent <agent>`.
    pub command: Vec<String>,
    /// Notification methods carrying session updates (standard first).
    pub update_methods: Vec<String>,
    /// Prefix of Kiro's extension methods (`_kiro.dev/`), ignored.
    pub extension_prefix: String,
    /// Kiro's native model setter.
    pub set_model_method: String,
    /// ACP's config-option setter (effort).
    pub set_config_option_method: String,
    /// The only model usable when the session advertises none.
    pub default_model: String,
    /// `configOptions` entries that carry the reasoning effort: by category…
    pub effort_category: String,
    /// …or by id.
    pub effort_config_ids: Vec<String>,
    /// How long a cancelled turn may take to answer `stopReason: cancelled`.
    pub cancel_grace_seconds: u64,
    /// How long the agent may keep running after its stdin closed, before
    /// its process group gets SIGTERM (milliseconds). An agent that exits
    /// on EOF is not waited for beyond its exit.
    pub stop_grace_ms: u64,
    /// Longest line read from the agent; a longer one is skipped.
    pub max_message_bytes: usize,
}
