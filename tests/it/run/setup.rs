//! Setting up a session: the protocol version, the prompt as
//! the agent expects it and prompt files, `--model` and `--effort` set
//! natively (within the handshake deadline), `--resume` gated on
//! `loadSession`, MCP servers and extra folders gated on the advertised
//! capabilities, requests oneworks does not serve, a login the agent needs,
//! setup errors naming the agent (not Kiro), and the fake agent's own
//! strictness about its script.

use serde_json::{json, Value};

use super::{args, text_of};
use crate::run::acp_env::{events, gone, AcpEnv, SetupError};

#[test]
fn the_fake_rejects_a_prompt_sent_as_content_like_kiro() {
    use std::io::Write;
    let acp = AcpEnv::new(json!({}));
    let mut child = std::process::Command::new(acp.env.bin.join("kiro-cli"))
        .args(["acp", "--agent", "oneworks"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn fake");
    let mut stdin = child.stdin.take().expect("stdin");
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "session/prompt",
        "params": {"sessionId": "fake-session-1", "content": [{"type": "text", "text": "hi"}]}});
    writeln!(stdin, "{request}").expect("write");
    drop(stdin);
    let output = child.wait_with_output().expect("wait");
    let answer: Value = serde_json::from_slice(&output.stdout).expect("one JSON answer");
    assert_eq!(
        answer["error"]["message"],
        "Invalid params: missing field `prompt`"
    );
}

#[test]
fn protocol_version_0_is_refused_before_any_session() {
    let acp = AcpEnv::new(json!({"protocolVersion": 0}));
    let outcome = acp.run(&args(&["--json"]));
    let message = outcome.assert_setup_error(9, "agent_failed");
    assert!(message.contains("protocol version 0"), "{message}");
    assert!(acp.sent("session/new").is_empty());
    assert!(gone(acp.agent_pid()));
}

#[test]
fn prompt_files_and_their_refusal_with_json() {
    let acp = AcpEnv::new(json!({}));
    let outcome = acp.run(&["--prompt-file", "-", "--json"]);
    outcome.assert_error(2, "usage");
    assert!(acp.acp_invocations().is_empty(), "nothing started");
    let file = acp.env.outside.join("prompt.txt");
    std::fs::write(&file, "from a file\n").expect("write prompt");
    acp.run(&["--prompt-file", file.to_str().expect("utf-8"), "--json"])
        .assert_success();
    assert_eq!(
        acp.sent("session/prompt")[0]["params"]["prompt"][0]["text"],
        "from a file\n"
    );
    acp.run(&["--json"]).assert_code(2);

    // `-` reads the prompt from stdin (human mode).
    acp.oneworks(&["--prompt-file", "-"])
        .stdin("from stdin")
        .run()
        .assert_success();
    let prompts = acp.sent("session/prompt");
    assert_eq!(
        prompts.last().expect("prompt")["params"]["prompt"][0]["text"],
        "from stdin"
    );
}

#[test]
fn a_model_must_be_advertised_and_is_set_natively_before_the_prompt() {
    let models = json!({"models": {"availableModels": [{"modelId": "claude-a", "name": "A"}], "currentModelId": "claude-a"}});
    let acp = AcpEnv::new(json!({"sessionResult": models}));
    let message = acp
        .run(&args(&["--json", "--model", "gpt-x"]))
        .assert_setup_error(2, "usage");
    assert!(message.contains("gpt-x"), "{message}");
    assert!(acp.sent("session/prompt").is_empty());
    assert!(acp.sent("session/set_model").is_empty());

    std::fs::remove_file(&acp.wire).expect("reset");
    let outcome = acp.run(&args(&["--json", "--model", "claude-a"]));
    outcome.assert_success();
    assert_eq!(events(&outcome)[0]["model"], "claude-a");
    let received = acp.received();
    let set = received
        .iter()
        .position(|m| m["method"] == "session/set_model")
        .expect("set_model");
    let prompt = received
        .iter()
        .position(|m| m["method"] == "session/prompt")
        .expect("prompt");
    assert!(set < prompt);
    assert_eq!(received[set]["params"]["modelId"], "claude-a");

    // Nothing advertised: only Kiro's `Default`, without a setter call.
    acp.script(json!({}));
    std::fs::remove_file(&acp.wire).expect("reset");
    acp.run(&args(&["--json", "--model", "Default"]))
        .assert_success();
    assert!(acp.sent("session/set_model").is_empty());
    acp.run(&args(&["--json", "--model", "claude-a"]))
        .assert_setup_error(2, "usage");
    acp.run(&args(&["--json", "--effort", "high"]))
        .assert_setup_error(2, "usage");
}

#[test]
fn effort_is_set_through_the_config_option_and_reported_only_when_confirmed() {
    let acp = AcpEnv::new(json!({
        "sessionResult": {"configOptions": [{
            "id": "reasoning", "name": "Effort", "category": "thought_level", "type": "select",
            "currentValue": "low", "options": [{"value": "low", "name": "Low"}, {"value": "high", "name": "High"}]
        }]}
    }));
    let outcome = acp.run(&args(&["--json", "--effort", "high"]));
    outcome.assert_success();
    assert_eq!(events(&outcome)[0]["effort"], "high");
    let received = acp.received();
    let set = received
        .iter()
        .position(|message| message["method"] == "session/set_config_option")
        .expect("set_config_option");
    let prompt = received
        .iter()
        .position(|message| message["method"] == "session/prompt")
        .expect("prompt");
    assert!(set < prompt);
    assert_eq!(received[set]["params"]["configId"], "reasoning");
    assert_eq!(received[set]["params"]["value"], "high");
    std::fs::remove_file(&acp.wire).expect("reset");
    let message = acp
        .run(&args(&["--json", "--effort", "max"]))
        .assert_setup_error(2, "usage");
    assert!(message.contains("max"), "{message}");
    assert!(acp.sent("session/prompt").is_empty());
}

/// Setting the model and the effort are setup steps too: an agent
/// that never answers them ends the run with exit 9 naming the step, within
/// the handshake deadline.
#[test]
fn set_model_and_set_config_option_have_the_handshake_deadline() {
    let session = json!({
        "models": {"currentModelId": "claude-a", "availableModels": [{"modelId": "claude-a"}]},
        "configOptions": [{
            "id": "reasoning", "name": "Effort", "category": "thought_level", "type": "select",
            "currentValue": "low", "options": [{"value": "low"}, {"value": "high"}]
        }]
    });
    for (method, flag, value) in [
        ("session/set_model", "--model", "claude-a"),
        ("session/set_config_option", "--effort", "high"),
    ] {
        let mut acp = AcpEnv::new(json!({"sessionResult": session, "neverAnswer": [method]}));
        acp.env.set_env("ONEWORKS_HANDSHAKE_TIMEOUT", "1s");
        let outcome = acp.run(&["--prompt", "Say hello", "--json", flag, value]);
        let message = outcome.assert_setup_error(9, "agent_failed");
        assert!(message.contains(&format!("`{method}`")), "{message}");
        assert!(message.contains("ONEWORKS_HANDSHAKE_TIMEOUT"), "{message}");
        assert!(acp.sent("session/prompt").is_empty());
    }
}

/// Item 8 ("hints never name Kiro for another agent"): the setup errors of
/// the generic ACP client speak of the agent, whichever it is.
#[test]
fn setup_errors_name_the_agent_not_kiro() {
    let session = json!({"models": {"availableModels": [{"modelId": "claude-a"}]}});
    let acp = AcpEnv::new(json!({"sessionResult": session}));
    for extra in [["--model", "gpt-x"], ["--effort", "high"]] {
        let mut all = vec!["--prompt", "Say hello", "--json"];
        all.extend_from_slice(&extra);
        let message = acp.run(&all).assert_setup_error(2, "usage");
        assert!(!message.contains("Kiro"), "{message}");
    }
}

#[test]
fn resume_loads_the_cached_session_only_when_advertised() {
    let acp = AcpEnv::new(json!({"agentCapabilities": {"loadSession": true}}));
    acp.run(&args(&["--json", "--session", "work"]))
        .assert_success();
    std::fs::remove_file(&acp.wire).expect("reset");
    let outcome = acp.run(&args(&["--json", "--session", "work", "--resume"]));
    outcome.assert_success();
    assert_eq!(events(&outcome)[0]["resumed"], true);
    let load = acp.sent("session/load");
    assert_eq!(load.len(), 1);
    assert_eq!(load[0]["params"]["sessionId"], "fake-session-1");
    assert!(acp.sent("session/new").is_empty());

    // Without `loadSession`: a new session, and the run says so.
    acp.script(json!({}));
    std::fs::remove_file(&acp.wire).expect("reset");
    let outcome = acp.run(&args(&["--json", "--session", "work", "--resume"]));
    outcome.assert_success();
    let events = events(&outcome);
    assert!(events.iter().any(|event| event["type"] == "diagnostic"
        && event["message"]
            .as_str()
            .unwrap_or("")
            .contains("loadSession")));
    assert_eq!(
        events
            .iter()
            .find(|e| e["type"] == "session_started")
            .expect("started")["resumed"],
        false
    );
    assert!(acp.sent("session/load").is_empty());
    assert_eq!(acp.sent("session/new").len(), 1);

    // A cached session Kiro cannot load any more: a new one, said aloud.
    acp.script(
        json!({"agentCapabilities": {"loadSession": true}, "loadError": "session not found"}),
    );
    std::fs::remove_file(&acp.wire).expect("reset");
    let outcome = acp.run(&args(&["--json", "--session", "work", "--resume"]));
    outcome.assert_success();
    outcome.assert_stdout_contains("could not load the cached session");
    assert_eq!(acp.sent("session/load").len(), 1);
    assert_eq!(acp.sent("session/new").len(), 1);
    assert!(acp.sent("session/new")[0]["params"]
        .get("sessionId")
        .is_none());
}

#[test]
fn mcp_servers_and_additional_dirs_follow_the_advertised_capabilities() {
    const TOKEN: &str = "mcp-token-value-2718281828";
    let mut acp = AcpEnv::new(json!({}));
    let extra_dir = acp.env.outside.clone();
    acp.env.write_config(&format!(
        "adapters:\n  kiro:\n    cli:\n      source: system\n    additionalDirs: [{}]\n    mcpServers:\n      github:\n        command: /usr/bin/github-mcp\n        env: {{ GITHUB_TOKEN: \"${{MY_MCP_TOKEN}}\" }}\n      docs:\n        url: https://example.com/mcp\n        transport: http\n",
        extra_dir.display()
    ));
    acp.env.set_env("MY_MCP_TOKEN", TOKEN);
    let outcome = acp.run(&args(&["--json"]));
    outcome.assert_success();
    let new = &acp.sent("session/new")[0]["params"];
    let servers = new["mcpServers"].as_array().expect("servers");
    assert_eq!(servers.len(), 1, "{new}");
    assert_eq!(servers[0]["name"], "github");
    assert_eq!(
        servers[0]["env"],
        json!([{"name": "GITHUB_TOKEN", "value": TOKEN}])
    );
    assert!(new.get("additionalDirectories").is_none());
    let notes: Vec<String> = events(&outcome)
        .iter()
        .filter(|event| event["type"] == "diagnostic")
        .map(|event| event["message"].as_str().unwrap_or("").to_owned())
        .collect();
    assert!(notes.iter().any(|note| note.contains("docs")), "{notes:?}");
    assert!(
        notes.iter().any(|note| note.contains("additionalDirs")),
        "{notes:?}"
    );
    assert!(!outcome.all_text().contains(TOKEN));
    for path in crate::support::walk(&acp.env.project.join(".oneworks")) {
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap_or_default()).into_owned();
        assert!(!text.contains(TOKEN), "{} holds the token", path.display());
    }

    acp.script(json!({"agentCapabilities": {
        "mcpCapabilities": {"http": true},
        "sessionCapabilities": {"additionalDirectories": true}
    }}));
    std::fs::remove_file(&acp.wire).expect("reset");
    acp.run(&args(&["--json"])).assert_success();
    let new = &acp.sent("session/new")[0]["params"];
    let names: Vec<&str> = new["mcpServers"]
        .as_array()
        .expect("servers")
        .iter()
        .filter_map(|server| server["name"].as_str())
        .collect();
    assert_eq!(names, ["docs", "github"]);
    assert_eq!(new["additionalDirectories"], json!([extra_dir]));
}

#[test]
fn requests_we_do_not_serve_are_answered_method_not_found() {
    let acp = AcpEnv::new(json!({
        "turn": [
            {"request": {"id": "fs-1", "method": "fs/read_text_file", "params": {"path": "/etc/passwd"}}},
            {"request": {"id": 3, "method": "terminal/create", "params": {"command": "sh"}}},
            {"text": "ok"}
        ]
    }));
    let outcome = acp.run(&args(&["--json"]));
    outcome.assert_success();
    for id in [json!("fs-1"), json!(3)] {
        let answer = acp
            .received()
            .into_iter()
            .find(|message| message.get("method").is_none() && message["id"] == id)
            .expect("an answer");
        assert_eq!(answer["error"]["code"], -32601, "{answer}");
    }
    assert_eq!(text_of(&events(&outcome)), "ok");
}

#[test]
fn an_agent_that_needs_a_login_says_how_to_log_in() {
    let acp = AcpEnv::new(json!({"authRequired": true}));
    let outcome = acp.run(&args(&["--json"]));
    let message = outcome.assert_setup_error(9, "agent_failed");
    assert!(message.contains("login"), "{message}");
    outcome.assert_stderr_contains("oneworks adapter login kiro");
    assert!(acp.sent("session/prompt").is_empty());
}

#[test]
fn a_typo_in_the_fake_agents_script_fails_loudly() {
    let acp = AcpEnv::new(json!({"turnn": [{"text": "typo"}]}));
    let output = std::process::Command::new(acp.env.bin.join("kiro-cli"))
        .args(["acp", "--agent", "oneworks"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run fake");
    assert_eq!(output.status.code(), Some(70));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("unknown field `turnn`"), "{stderr}");
    // A run against it fails at once (the probe already trips), not a hang.
    let outcome = acp.run(&args(&["--json"]));
    outcome.assert_failure();
    outcome.assert_stderr_contains("turnn");
}
