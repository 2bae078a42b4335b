//! Tests of `acp_data.rs` against the built-in adapter files.

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
