//! The `acp:` section of an adapter data file: how the agent is started for
//! a structured run (argv by version, extra environment), which protocol
//! quirk set its messages go through, and the names and bounds oneworks
//! needs around the standard ACP methods.

use std::collections::BTreeMap;

use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AcpData {
    /// The agent's ACP arguments: one list, or lists by the first agent
    /// version that takes them. `{agentName}` stands for the session's agent
    /// name (`session.agentName`).
    pub command: AcpArgv,
    /// Variables added to the agent's environment for an ACP run (on top of
    /// the profile world's allowlist).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The protocol quirk set the agent's messages go through (`none`
    /// unless the adapter names one oneworks ships).
    #[serde(default = "no_quirks")]
    pub quirks: String,
    /// Authentication methods that need a person at a terminal (a browser
    /// login that takes over the agent's stdout): never sent over ACP; the
    /// run fails with the adapter's login hint instead.
    #[serde(default)]
    pub interactive_auth_methods: Vec<String>,
    /// The agent's model setter (outside ACP v1's schema; Kiro and Gemini
    /// both answer `session/set_model`).
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
    /// Shown labels by native option id, for options that would otherwise
    /// render alike (two `allow_once` options both shown as "Allow once"):
    /// the label replaces the one of the option's kind, and a reply may
    /// name it.
    #[serde(default)]
    pub option_labels: BTreeMap<String, OptionLabel>,
}

/// The shown label of one native option, in English and Chinese.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OptionLabel {
    pub label: String,
    pub label_zh: String,
}

/// The quirk sets oneworks ships: `none` and one per module in
/// `src/acp/quirks/` (listed by `build.rs`); an adapter file naming another
/// is refused when it is loaded. A test of the quirk modules keeps this
/// list and their dispatch the same.
pub const QUIRK_SETS: &[&str] = include!(concat!(env!("OUT_DIR"), "/quirk_sets.rs"));

fn no_quirks() -> String {
    "none".to_owned()
}

/// The ACP argv of an adapter: the same for every version, or by version.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum AcpArgv {
    Fixed(Vec<String>),
    /// Newest first: the first entry whose `since` is at most the agent's
    /// version (or has no `since`) is used.
    ByVersion(Vec<VersionedArgv>),
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VersionedArgv {
    /// The first version that takes `args`; none for "every version".
    #[serde(default)]
    pub since: Option<String>,
    /// Another executable of the same install to run instead of the
    /// adapter's binary (a bare file name, looked up in the binary's
    /// folder): the entry is skipped when that folder has none.
    #[serde(default)]
    pub program: Option<String>,
    pub args: Vec<String>,
}

/// The placeholder for the session's agent name in `acp.command`.
pub const AGENT_NAME: &str = "{agentName}";

impl AcpData {
    /// The arguments for an agent of `version` (as its `--version` printed
    /// it; unparsable or empty means "the newest"), with [`AGENT_NAME`]
    /// replaced by `agent_name`.
    pub fn argv_for(&self, version: &str, agent_name: &str) -> Vec<String> {
        let args: &[String] = match &self.command {
            AcpArgv::Fixed(args) => args,
            AcpArgv::ByVersion(entries) => {
                let version = parse_version(version);
                entries
                    .iter()
                    .find(|entry| match (&entry.since, &version) {
                        (None, _) | (_, None) => true,
                        (Some(since), Some(version)) => {
                            parse_version(since).is_none_or(|since| *version >= since)
                        }
                    })
                    .map(|entry| entry.args.as_slice())
                    .unwrap_or_default()
            }
        };
        substitute(args, agent_name)
    }

    /// The program and arguments for an agent of `version` whose binary is
    /// `binary`: like [`AcpData::argv_for`], but an entry naming a
    /// `program` is taken only when that program is an executable file
    /// beside `binary` (else the next entry that fits the version).
    pub fn command_for(
        &self,
        version: &str,
        agent_name: &str,
        binary: &std::path::Path,
    ) -> (std::path::PathBuf, Vec<String>) {
        let AcpArgv::ByVersion(entries) = &self.command else {
            return (binary.to_owned(), self.argv_for(version, agent_name));
        };
        let parsed = parse_version(version);
        let fits = |entry: &&VersionedArgv| match (&entry.since, &parsed) {
            (None, _) | (_, None) => true,
            (Some(since), Some(version)) => {
                parse_version(since).is_none_or(|since| *version >= since)
            }
        };
        let beside = |program: &str| {
            let valid =
                !program.is_empty() && !program.contains('/') && program != "." && program != "..";
            let path = binary.parent()?.join(program);
            let executable = fs_err::metadata(&path).is_ok_and(|metadata| {
                use std::os::unix::fs::PermissionsExt;
                metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
            });
            (valid && executable).then_some(path)
        };
        for entry in entries.iter().filter(fits) {
            let program = match &entry.program {
                None => binary.to_owned(),
                Some(program) => match beside(program) {
                    Some(path) => path,
                    None => continue,
                },
            };
            return (program, substitute(&entry.args, agent_name));
        }
        (binary.to_owned(), Vec::new())
    }

    /// The extra environment of the agent's ACP child.
    pub fn env(&self) -> &BTreeMap<String, String> {
        &self.env
    }

    /// Whether `method` needs a person at a terminal and so is never sent
    /// over ACP.
    pub fn is_interactive_auth(&self, method: &str) -> bool {
        self.interactive_auth_methods
            .iter()
            .any(|known| known == method)
    }
}

/// `args` with [`AGENT_NAME`] replaced by `agent_name`.
fn substitute(args: &[String], agent_name: &str) -> Vec<String> {
    args.iter()
        .map(|arg| {
            if arg == AGENT_NAME {
                agent_name.to_owned()
            } else {
                arg.clone()
            }
        })
        .collect()
}

/// `0.33.0`, `v0.33.0` or `0.33.0-nightly.1` as a version; anything else
/// is `None`.
fn parse_version(text: &str) -> Option<semver::Version> {
    let text = text.trim();
    semver::Version::parse(text.strip_prefix('v').unwrap_or(text)).ok()
}

#[cfg(test)]
#[path = "acp_data_tests.rs"]
mod tests;
