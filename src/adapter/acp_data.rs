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

/// `0.33.0`, `v0.33.0` or `0.33.0-nightly.1` as a version; anything else
/// is `None`.
fn parse_version(text: &str) -> Option<semver::Version> {
    let text = text.trim();
    semver::Version::parse(text.strip_prefix('v').unwrap_or(text)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `acp:` section of a built-in data file, parsed on its own (the
    /// Gemini file is read whole by the adapter registry).
    fn section(text: &str) -> AcpData {
        let document: serde_yaml_ng::Value = serde_yaml_ng::from_str(text).expect("yaml");
        serde_yaml_ng::from_value(document["acp"].clone()).expect("acp section")
    }

    const KIRO: &str = include_str!("../../manifests/kiro.yaml");
    const GEMINI: &str = include_str!("../../manifests/gemini.yaml");

    #[test]
    fn kiro_names_its_agent_in_its_argv() {
        let data = section(KIRO);
        assert_eq!(data.quirks, "kiro");
        assert_eq!(
            data.argv_for("1.2.3", "oneworks"),
            ["acp", "--agent", "oneworks"]
        );
        assert_eq!(data.argv_for("", "x"), ["acp", "--agent", "x"]);
        assert!(data.env().is_empty());
    }

    #[test]
    fn gemini_argv_follows_its_version() {
        let data = section(GEMINI);
        assert_eq!(data.quirks, "gemini");
        for (version, argv) in [
            ("0.61.0", "--acp"),
            ("0.33.0", "--acp"),
            ("0.33.0-nightly.20250101", "--experimental-acp"),
            ("0.32.9", "--experimental-acp"),
            ("0.10.0", "--experimental-acp"),
            // Unknown: the newest spelling.
            ("", "--acp"),
            ("unknown", "--acp"),
        ] {
            assert_eq!(data.argv_for(version, "oneworks"), [argv], "{version}");
        }
        assert_eq!(
            data.env().get("GEMINI_CLI_NO_RELAUNCH").map(String::as_str),
            Some("true")
        );
        assert!(data.is_interactive_auth("oauth-personal"));
        assert!(!data.is_interactive_auth("gemini-api-key"));
    }

    #[test]
    fn qwen_gives_its_alike_allow_once_options_labels_of_their_own() {
        let data = section(include_str!("../../manifests/qwen.yaml"));
        let switch = &data.option_labels["proceed_once_and_switch_to_default"];
        assert_eq!(switch.label, "Allow once and switch to default mode");
        assert!(!switch.label_zh.is_empty());
        assert!(data.option_labels.contains_key("restore_previous"));
        assert!(!data.option_labels.contains_key("proceed_once"));
        assert_eq!(data.argv_for("0.24.4", "x"), ["--acp"]);
        let copilot = section(include_str!("../../manifests/copilot.yaml"));
        assert_eq!(copilot.argv_for("1.0.102", "x"), ["--acp", "--stdio"]);
        assert!(copilot.option_labels.is_empty());
    }

    #[test]
    fn a_section_without_quirks_uses_none_and_unknown_keys_are_refused() {
        let minimal = "command: [acp]\nsetModelMethod: m\nsetConfigOptionMethod: c\n\
            defaultModel: D\neffortCategory: e\neffortConfigIds: []\ncancelGraceSeconds: 1\n\
            stopGraceMs: 1\nmaxMessageBytes: 10\n";
        let data: AcpData = serde_yaml_ng::from_str(minimal).expect("minimal");
        assert_eq!(data.quirks, "none");
        assert!(data.interactive_auth_methods.is_empty());
        let typo = format!("{minimal}quirk: kiro\n");
        assert!(serde_yaml_ng::from_str::<AcpData>(&typo).is_err());
    }
}
