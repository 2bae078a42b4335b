//! Issue 8's acceptance list, checked where the other run tests leave a
//! gap: every mode against every option set on the wire, credentials in
//! every SPEC §6.2 encoding across everything a run prints or writes, and
//! the exact environment the agent sees. Every run through
//! [`AcpEnv::run`]/[`AcpEnv::live`] also checks by pid that no agent is
//! left behind.

use base64::Engine as _;
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use serde_json::{json, Value};

use crate::acp_support::{events, AcpEnv};

const PROMPT: &[&str] = &["--prompt", "Say hello"];

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut all: Vec<&str> = PROMPT.to_vec();
    all.extend_from_slice(extra);
    all
}

fn wire_answer(acp: &AcpEnv, id: &Value) -> Value {
    acp.received()
        .into_iter()
        .find(|message| message.get("method").is_none() && &message["id"] == id)
        .map(|message| message["result"]["outcome"].clone())
        .unwrap_or_else(|| panic!("no answer to {id} on the wire"))
}

/// What SPEC §7 prescribes for one question with no person to ask (stdin
/// at EOF): the native option id oneworks must select, or `None` for
/// `cancelled` (and exit 10).
fn prescribed(mode: &str, edit: bool, options: &Value) -> Option<&'static str> {
    let automatic = match mode {
        "dontAsk" | "bypassPermissions" => true,
        "acceptEdits" => edit,
        _ => false,
    };
    let has_allow_once = options
        .as_array()
        .expect("options")
        .iter()
        .any(|option| option["kind"] == "allow_once");
    (automatic && has_allow_once).then_some("proceed_once")
}

#[test]
fn every_mode_meets_every_option_set_as_the_spec_says_on_the_wire() {
    let option_sets = [
        ("once, always, reject", crate::acp_support::options_full()),
        (
            "always and reject, no once",
            json!([
                {"optionId": "proceed_always", "name": "Yes, always", "kind": "allow_always"},
                {"optionId": "cancel", "name": "No", "kind": "reject_once"}
            ]),
        ),
        (
            "only always",
            json!([{"optionId": "proceed_always", "name": "Yes, always", "kind": "allow_always"}]),
        ),
        (
            "unknown kinds",
            json!([
                {"optionId": "forever", "name": "Trust forever", "kind": "allow_forever"},
                {"optionId": "maybe", "name": "Perhaps", "kind": "ask_later"}
            ]),
        ),
    ];
    // (mode, toolCall.kind, title, whether SPEC §7 calls it an edit)
    let requests = [
        ("default", Some("edit"), "Edit a.rs", true),
        ("plan", Some("edit"), "Edit a.rs", true),
        ("acceptEdits", Some("edit"), "Edit a.rs", true),
        ("acceptEdits", Some("delete"), "Remove a.rs", true),
        ("acceptEdits", None, "Write notes.md", true),
        ("acceptEdits", Some("execute"), "Run make", false),
        ("acceptEdits", None, "Run make", false),
        ("dontAsk", Some("execute"), "Run make", false),
        ("bypassPermissions", Some("execute"), "Run make", false),
    ];
    for (mode, kind, title, edit) in requests {
        for (set_name, options) in &option_sets {
            let expected = prescribed(mode, edit, options);
            let id = json!(format!("q-{mode}"));
            let after = if expected.is_some() {
                json!({"text": "after"})
            } else {
                json!("waitForCancel")
            };
            let acp = AcpEnv::new(json!({
                "turn": [
                    {"permission": {"id": id, "title": title, "kind": kind, "options": options}},
                    after
                ]
            }));
            let case = format!("{mode} × {set_name} × {kind:?} `{title}`");
            let outcome = acp.run(&args(&["--json", "--mode", mode]));
            let answer = wire_answer(&acp, &id);
            let events = events(&outcome);
            match expected {
                Some(option) => {
                    assert_eq!(outcome.code, Some(0), "{case}\n{}", outcome.describe());
                    assert_eq!(
                        answer,
                        json!({"outcome": "selected", "optionId": option}),
                        "{case}"
                    );
                    assert!(acp.sent("session/cancel").is_empty(), "{case}");
                }
                None => {
                    assert_eq!(outcome.code, Some(10), "{case}\n{}", outcome.describe());
                    assert_eq!(answer, json!({"outcome": "cancelled"}), "{case}");
                    let resolved = events
                        .iter()
                        .find(|event| event["type"] == "permission_resolved")
                        .unwrap_or_else(|| panic!("{case}: no permission_resolved"));
                    assert_eq!(resolved["optionId"], Value::Null, "{case}");
                    assert_eq!(acp.sent("session/cancel").len(), 1, "{case}");
                }
            }
            // oneworks' policy never reaches Kiro's own mode setter.
            assert!(acp.sent("session/set_mode").is_empty(), "{case}");
        }
    }
}

/// Every SPEC §6.2 encoding of `secret`, named.
fn encodings(secret: &str) -> Vec<(&'static str, String)> {
    let upper = utf8_percent_encode(secret, NON_ALPHANUMERIC).to_string();
    let lower = lower_hex_escapes(&upper);
    let form = upper.replace("%20", "+");
    let twice = utf8_percent_encode(&upper, NON_ALPHANUMERIC).to_string();
    let thrice = utf8_percent_encode(&twice, NON_ALPHANUMERIC).to_string();
    let b64 = base64::engine::general_purpose::STANDARD;
    let b64_bare = base64::engine::general_purpose::STANDARD_NO_PAD;
    let url = base64::engine::general_purpose::URL_SAFE;
    let url_bare = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let encoded = vec![
        ("raw", secret.to_owned()),
        ("percent, upper-case hex", upper),
        ("percent, lower-case hex", lower),
        ("form", form),
        ("percent, twice", twice),
        ("percent, three times", thrice),
        ("base64", b64.encode(secret)),
        ("base64 without padding", b64_bare.encode(secret)),
        ("base64url", url.encode(secret)),
        ("base64url without padding", url_bare.encode(secret)),
    ];
    let distinct: std::collections::BTreeSet<&String> =
        encoded.iter().map(|(_, text)| text).collect();
    assert_eq!(
        distinct.len(),
        encoded.len(),
        "pick a secret whose encodings differ"
    );
    encoded
}

fn lower_hex_escapes(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let escape = rest.get(at..at + 3).unwrap_or(&rest[at..]);
        out.push_str(&escape.to_ascii_lowercase());
        rest = &rest[at + escape.len()..];
    }
    out.push_str(rest);
    out
}

/// Fails when any encoding of the secret is in `text`.
#[track_caller]
fn assert_clean(what: &str, text: &str, encoded: &[(&str, String)]) {
    for (name, value) in encoded {
        assert!(
            !text.contains(value.as_str()),
            "{what} holds the secret ({name}: {value}):\n{text}"
        );
    }
}

/// Every file under the test world that oneworks could have written (the
/// test's own `bin/` and `outside/`, which hold the fake's script and wire
/// log, are not oneworks').
fn written_files(acp: &AcpEnv) -> Vec<std::path::PathBuf> {
    let skip = [acp.env.bin.clone(), acp.env.outside.clone()];
    crate::support::walk(&acp.env.base())
        .into_iter()
        .filter(|path| !skip.iter().any(|dir| path.starts_with(dir)))
        .collect()
}

#[test]
fn no_credential_in_any_encoding_reaches_output_logs_or_files() {
    // Space, `/`, `+` and `=` make the percent encodings differ, its
    // base64 holds `+` and padding: every encoding differs from the others.
    const SECRET: &str = "Zq8/vL mN3+pX7=tR2wK>~";
    let encoded = encodings(SECRET);
    let mut turn = Vec::new();
    for (name, value) in &encoded {
        turn.push(json!({"text": format!("[{name}] {value} ")}));
        turn.push(json!({"thought": format!("thinking {value}")}));
        turn.push(json!({"toolCall": {"id": format!("t-{value}"), "title": format!("curl {value}"), "kind": "fetch"}}));
        turn.push(json!({"update": {"sessionUpdate": "plan", "entries": [{"content": format!("use {value}"), "status": "pending", "priority": "high"}]}}));
        turn.push(json!({"update": {"sessionUpdate": "brand_new_kind", "note": value, "KIRO_API_KEY": "a-name-not-a-value"}}));
        turn.push(json!({"notify": {"method": "_kiro.dev/metadata", "params": {"token": value}}}));
        // A garbage line is logged cut short: the cut must not keep a
        // piece of the secret the scrubber no longer recognises.
        turn.push(json!({"garbage": format!("{}{value} tail", "x".repeat(195))}));
        turn.push(json!({"request": {"id": format!("fs-{name}"), "method": value, "params": {}}}));
    }
    let stderr: String = encoded
        .iter()
        .map(|(name, value)| format!("agent log [{name}]: {value}\n"))
        .collect();
    let mut acp = AcpEnv::new(json!({
        "sessionId": format!("sess {SECRET}"),
        "agentCapabilities": {"loadSession": true},
        "stderr": stderr,
        "turn": turn
    }));
    acp.env.set_env("KIRO_API_KEY", SECRET);
    acp.env.set_env("RUST_LOG", "debug");
    let mut printed = Vec::new();
    for extra in [
        &["--json", "--session", "work"][..],
        &["--session", "work"][..],
    ] {
        let outcome = acp.run(&args(extra));
        outcome.assert_success();
        assert!(
            outcome.all_text().contains("[base64url]"),
            "{}",
            outcome.describe()
        );
        assert!(
            outcome.stderr.contains("skipped a line"),
            "{}",
            outcome.describe()
        );
        printed.push(outcome);
    }
    let json_events = events(&printed[0]);
    let unknown = json_events
        .iter()
        .find(|event| event["type"] == "unknown_update")
        .expect("an unknown_update event");
    assert!(
        unknown["raw"].get("KIRO_API_KEY").is_none(),
        "a credential variable's name is dropped: {unknown}"
    );

    // The cached session cannot be loaded and the agent then dies, with
    // the secret in the load error and in its stderr tail.
    let load_error: String = encoded
        .iter()
        .map(|(_, value)| format!("{value} "))
        .collect();
    let crash: String = encoded
        .iter()
        .map(|(name, value)| format!("panic [{name}] {value}\n"))
        .collect();
    acp.script(json!({
        "sessionId": format!("sess {SECRET}"),
        "agentCapabilities": {"loadSession": true},
        "loadError": load_error,
        "turn": [{"text": "working"}, {"crash": {"stderr": crash, "code": 3}}]
    }));
    for extra in [&["--json"][..], &[][..]] {
        let mut all = vec!["--session", "work", "--resume"];
        all.extend_from_slice(extra);
        let outcome = acp.run(&args(&all));
        outcome.assert_code(9);
        assert!(outcome.stderr.contains("panic ["), "{}", outcome.describe());
        assert_eq!(acp.sent("session/load").len(), 1);
        printed.push(outcome);
        std::fs::remove_file(&acp.wire).expect("reset the wire log");
    }

    for outcome in &printed {
        assert_clean("stdout", &outcome.stdout, &encoded);
        assert_clean("stderr", &outcome.stderr, &encoded);
    }
    // Nor a piece of one where a logged garbage line is cut short.
    for (name, value) in &encoded {
        let cut = format!("{}{}", "x".repeat(195), &value[..5]);
        assert!(
            !printed[0].stderr.contains(&cut),
            "a cut garbage line keeps the start of the secret ({name})\n{}",
            printed[0].stderr
        );
    }
    let files = written_files(&acp);
    assert!(
        files.iter().any(|path| path.ends_with("acp-session.json")),
        "the session cache was written: {files:#?}"
    );
    for path in files {
        assert_clean(
            &format!("the name {}", path.display()),
            &path.to_string_lossy(),
            &encoded,
        );
        if path.is_file() {
            let text =
                String::from_utf8_lossy(&std::fs::read(&path).unwrap_or_default()).into_owned();
            assert_clean(&path.display().to_string(), &text, &encoded);
        }
    }
    // Pass-through: the agent itself still got the real value.
    assert_eq!(acp.acp_invocations()[0]["env"]["KIRO_API_KEY"], SECRET);
}

/// SPEC §6.1: the child environment is an allowlist.
fn allowed(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "PATH",
        "LANG",
        "TERM",
        "TZ",
        "HOME",
        "KIRO_HOME",
        "HTTPS_PROXY",
        "HTTP_PROXY",
        "NO_PROXY",
        "https_proxy",
        "http_proxy",
        "no_proxy",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "KIRO_API_KEY",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_SECURITY_TOKEN",
        "AWS_BEARER_TOKEN_BEDROCK",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_CONTAINER_AUTHORIZATION_TOKEN",
        "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
        "AWS_SHARED_CREDENTIALS_FILE",
        "AWS_CONFIG_FILE",
    ];
    EXACT.contains(&name)
        || name.starts_with("LC_")
        || name.starts_with("XDG_")
        || (name.starts_with("KIRO_")
            && ["API_KEY", "TOKEN", "SECRET", "PASSWORD"]
                .iter()
                .any(|end| name.ends_with(end)))
}

#[test]
fn the_agent_environment_is_exactly_the_allowlist() {
    let mut acp = AcpEnv::new(json!({}));
    for (name, value) in [
        ("GITHUB_TOKEN", "ghp-not-for-kiro-123456"),
        ("OPENAI_API_KEY", "sk-not-for-kiro-123456"),
        ("SOME_RANDOM_SETTING", "1"),
        ("KIRO_LOG_LEVEL", "debug"),
        ("KIRO_EXTRA_TOKEN", "kiro-extra-token-123456"),
        ("AWS_SECRET_ACCESS_KEY", "aws-secret-for-kiro-123456"),
        ("LC_ALL", "C.UTF-8"),
        ("TZ", "UTC"),
        ("HTTPS_PROXY", "http://127.0.0.1:9"),
        ("NO_PROXY", "*"),
    ] {
        acp.env.set_env(name, value);
    }
    acp.run(&args(&["--json"])).assert_success();
    let invocation = &acp.acp_invocations()[0];
    let env = invocation["env"].as_object().expect("env");
    // `PWD` is set by the test's `/bin/sh` wrapper around the fake.
    let refused: Vec<&String> = env
        .keys()
        .filter(|name| !allowed(name) && *name != "PWD")
        .collect();
    assert!(
        refused.is_empty(),
        "not on the allowlist: {refused:?}\n{env:#?}"
    );
    for passed in [
        "KIRO_EXTRA_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "LC_ALL",
        "TZ",
        "HTTPS_PROXY",
        "NO_PROXY",
        "KIRO_HOME",
    ] {
        assert!(env.contains_key(passed), "{passed} missing: {env:#?}");
    }
    for kept_out in [
        "GITHUB_TOKEN",
        "OPENAI_API_KEY",
        "SOME_RANDOM_SETTING",
        "KIRO_LOG_LEVEL",
        "ONEWORKS_HOME",
    ] {
        assert!(!env.contains_key(kept_out), "{kept_out} reached the agent");
    }
    // A fresh HOME of its own, not the user's.
    assert_ne!(env["HOME"], json!(acp.env.home));
}

#[test]
fn an_mcp_variable_reaches_kiro_on_the_wire_and_is_written_nowhere() {
    const TOKEN: &str = "mcp/tok en+val=3141592>~x";
    let encoded = encodings(TOKEN);
    let mut acp = AcpEnv::new(json!({
        "agentCapabilities": {"mcpCapabilities": {"http": true}},
        "turn": [{"text": format!("echo {TOKEN}")}]
    }));
    acp.env.write_config(
        "adapters:\n  kiro:\n    cli:\n      source: system\n    mcpServers:\n      github:\n        command: /usr/bin/github-mcp\n        env: { GITHUB_TOKEN: \"${MY_MCP_TOKEN}\" }\n      docs:\n        url: https://example.com/mcp\n        transport: http\n        headers: { Authorization: \"Bearer ${MY_MCP_TOKEN}\" }\n",
    );
    acp.env.set_env("MY_MCP_TOKEN", TOKEN);
    acp.env.set_env("RUST_LOG", "debug");
    let mut printed = Vec::new();
    for extra in [
        &["--json", "--session", "mcp"][..],
        &["--session", "mcp"][..],
    ] {
        let outcome = acp.run(&args(extra));
        outcome.assert_success();
        printed.push(outcome);
    }
    // On the wire, resolved at the moment of the run.
    let new = &acp.sent("session/new")[0]["params"];
    let wire = new.to_string();
    assert!(
        wire.contains(&format!("\"value\":\"{TOKEN}\"")),
        "the variable reaches Kiro: {new}"
    );
    assert!(wire.contains(&format!("Bearer {TOKEN}")), "{new}");
    // Nowhere else: not printed (the agent's echo included), not in any file.
    for outcome in &printed {
        assert_clean("stdout", &outcome.stdout, &encoded);
        assert_clean("stderr", &outcome.stderr, &encoded);
        assert!(
            outcome.all_text().contains("echo"),
            "{}",
            outcome.describe()
        );
    }
    let files = written_files(&acp);
    assert!(
        files.iter().any(|path| path.ends_with("acp-session.json")),
        "{files:#?}"
    );
    for path in files.iter().filter(|path| path.is_file()) {
        let text = String::from_utf8_lossy(&std::fs::read(path).unwrap_or_default()).into_owned();
        assert_clean(&path.display().to_string(), &text, &encoded);
    }
}

#[test]
fn updates_of_another_session_or_a_replay_create_no_event() {
    let other = |method: &str, update: Value| json!({"notify": {"method": method, "params": {"sessionId": "other-session", "update": update}}});
    let acp = AcpEnv::new(json!({
        "agentCapabilities": {"loadSession": true},
        "turn": [
            // The standard shape (the streaming fast path) and Kiro's.
            other("session/update", json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "not mine"}})),
            other("session/update", json!({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "not mine"}})),
            other("session/notification", json!({"AgentMessageChunk": {"content": {"Text": {"text": "not mine"}}}})),
            other("session/update", json!({"sessionUpdate": "tool_call", "toolCallId": "x", "title": "not mine"})),
            {"text": "mine"}
        ]
    }));
    let outcome = acp.run(&args(&["--json", "--session", "s"]));
    outcome.assert_success();
    let seen = events(&outcome);
    assert_eq!(
        crate::acp_support::types(&seen),
        ["session_started", "agent_message_chunk", "turn_end"]
    );
    assert!(
        !outcome.stdout.contains("not mine"),
        "{}",
        outcome.describe()
    );

    // `session/load` replays the history as updates: none is an event.
    acp.script(json!({
        "agentCapabilities": {"loadSession": true},
        "loadReplay": [
            {"text": "replayed answer"},
            {"thought": "replayed thought"},
            {"update": {"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "replayed question"}}},
            {"toolCall": {"id": "old", "title": "replayed tool", "kind": "read"}}
        ],
        "turn": [{"text": "fresh"}]
    }));
    let outcome = acp.run(&args(&["--json", "--session", "s", "--resume"]));
    outcome.assert_success();
    let seen = events(&outcome);
    assert_eq!(acp.sent("session/load").len(), 1);
    assert_eq!(
        crate::acp_support::types(&seen),
        ["session_started", "agent_message_chunk", "turn_end"],
        "{seen:#?}"
    );
    assert_eq!(seen[1]["text"], "fresh");
    assert!(
        !outcome.stdout.contains("replayed"),
        "{}",
        outcome.describe()
    );
}

#[test]
fn each_streamed_chunk_reaches_a_pipe_at_once() {
    // The agent streams, then waits for a file the test creates only after
    // it has read the chunks: buffering them would hang the run.
    let acp = AcpEnv::new(json!({}));
    let release = acp.env.outside.join("release");
    acp.script(json!({
        "turn": [
            {"text": "first"},
            {"thought": "second"},
            {"waitForFile": release},
            {"text": "third"}
        ]
    }));
    let mut live = acp.live(&args(&["--json"]));
    assert_eq!(live.expect("agent_message_chunk")["text"], "first");
    assert_eq!(live.expect("agent_thought_chunk")["text"], "second");
    std::fs::write(&release, "").expect("release the agent");
    assert_eq!(live.expect("agent_message_chunk")["text"], "third");
    let (code, _, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");
}
