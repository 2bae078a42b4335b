//! What the adapter's data decides for a run: its quirk set (an unknown
//! one is a config error before the agent starts; the named one rewrites
//! the dialect), and the agent's `acp.env` and argv.

use super::*;

#[test]
fn an_unknown_quirk_set_is_a_config_error_before_the_agent_starts() {
    let mut acp = AcpEnv::new(json!({"turn": [{"text": "never"}]}));
    with_acp_data(&mut acp, |data| {
        data.set("acp.quirks", "acme");
    });
    // Refused when the adapter file is loaded (tests/it/adapter_files.rs),
    // before the run begins.
    let outcome = acp.run(&args(&["--json"]));
    let message = outcome.assert_error(3, "config");
    assert!(message.contains("`acme`"), "{message}");
    assert!(message.contains("`kiro`"), "{message}");
    assert!(acp.acp_invocations().is_empty(), "no agent was started");
}

/// The dialect is the quirk set's business: with `quirks: none`, Kiro's
/// `session/notification` and PascalCase updates are not read as updates;
/// with `quirks: kiro` the same script streams its events.
#[test]
fn the_quirk_set_named_in_the_data_rewrites_the_dialect() {
    let script = json!({
        "dialect": "kiro",
        "turn": [
            {"text": "hello"},
            {"toolCall": {"id": "t1", "title": "Edit a.rs", "kind": "Edit"}}
        ]
    });
    let mut acp = AcpEnv::new(script);
    let outcome = acp.run(&args(&["--json"]));
    outcome.assert_success();
    let kiro = events(&outcome);
    assert_eq!(
        types(&kiro),
        [
            "session_started",
            "agent_message_chunk",
            "tool_call",
            "turn_end"
        ]
    );
    assert_eq!(kiro[2]["kind"], "edit");

    with_acp_data(&mut acp, |data| {
        data.set("acp.quirks", "none");
    });
    let outcome = acp.run(&args(&["--json"]));
    outcome.assert_success();
    assert_eq!(
        types(&events(&outcome)),
        ["session_started", "turn_end"],
        "{}",
        outcome.describe()
    );
}

/// `acp.env` reaches the agent's environment (Gemini's
/// `GEMINI_CLI_NO_RELAUNCH=true`), and `acp.command` is its argv.
#[test]
fn the_acp_environment_and_argv_come_from_the_data() {
    let mut acp = AcpEnv::new(json!({"turn": [{"text": "hi"}]}));
    with_acp_data(&mut acp, |data| {
        data.insert("acp.env", yaml("ONEWORKS_TEST_RELAUNCH: \"off\""));
    });
    acp.run(&args(&["--json"])).assert_success();
    let invocations = acp.acp_invocations();
    assert_eq!(invocations.len(), 1, "{invocations:?}");
    assert_eq!(invocations[0]["env"]["ONEWORKS_TEST_RELAUNCH"], "off");
    assert_eq!(
        invocations[0]["argv"],
        json!(["acp", "--agent", "oneworks"])
    );
}
