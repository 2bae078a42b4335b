//! Credentials in a run: scrubbed from what the agent sends,
//! in every encoding (percent once to three times, form, base64 and
//! base64url with and without padding), across stdout, stderr, logs and
//! every file a run writes; a secret split around other events is not
//! rebuilt on stdout; an MCP variable reaches the agent on the wire and is
//! written nowhere.

use base64::Engine as _;
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use serde_json::json;

use super::{args, PROMPT};
use crate::run::acp_env::{events, AcpEnv};

#[test]
fn secrets_in_agent_messages_are_scrubbed_from_output_and_files() {
    const SECRET: &str = "kiro-run-secret-31415926";
    let encoded = base64_standard(SECRET);
    let mut acp = AcpEnv::new(json!({
        "sessionId": format!("sess-{SECRET}"),
        "turn": [
            {"text": format!("the key is {SECRET} ")},
            {"toolCall": {"id": "t1", "title": format!("curl -H {encoded}"), "kind": "fetch"}},
            {"text": "done"}
        ]
    }));
    acp.env.set_env("KIRO_API_KEY", SECRET);
    for extra in [&["--json"][..], &[][..]] {
        let outcome = acp.run(&args(extra));
        outcome.assert_success();
        outcome.assert_text_lacks(SECRET);
        outcome.assert_text_lacks(&encoded);
        outcome.assert_text_contains("the key is");
    }
    // The secret reached Kiro (pass-through) but no file oneworks wrote.
    let invocation = &acp.acp_invocations()[0];
    assert_eq!(invocation["env"]["KIRO_API_KEY"], SECRET);
    for path in crate::support::walk(&acp.env.project.join(".oneworks")) {
        let bytes = std::fs::read(&path).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(SECRET),
            "{} holds the secret",
            path.display()
        );
    }
}

fn base64_standard(text: &str) -> String {
    const TABLE: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes = text.as_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(TABLE[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Item 1 in human mode: stdout carries only the agent's text, so a secret
/// whose pieces come around a thought or a tool call (which go to stderr)
/// is still one string on stdout and must not come out whole.
#[test]
fn a_secret_split_around_other_events_is_not_rebuilt_on_stdout() {
    const SECRET: &str = "AkiaSecretValueXyz0123456";
    let (head, tail) = SECRET.split_at(10);
    for between in [
        json!({"thought": "hmm"}),
        json!({"toolCall": {"id": "t1", "title": "Read a.rs", "kind": "read"}}),
    ] {
        let mut acp = AcpEnv::new(json!({
            "turn": [{"text": format!("key {head}")}, between, {"text": format!("{tail} end")}]
        }));
        acp.env.set_env("KIRO_API_KEY", SECRET);
        let outcome = acp.run(PROMPT);
        outcome.assert_success();
        outcome.assert_stdout_lacks(SECRET);
        // `jq -r 'select(.type=="agent_message_chunk").text'` rebuilds
        // nothing either.
        let outcome = acp.run(&["--prompt", "Say hello", "--json"]);
        outcome.assert_success();
        let text: String = crate::run::acp_env::events(&outcome)
            .iter()
            .filter(|event| event["type"] == "agent_message_chunk")
            .filter_map(|event| event["text"].as_str().map(str::to_owned))
            .collect();
        assert_eq!(text, "key [redacted] end", "{}", outcome.describe());
    }
}

/// Every scrubbed encoding of `secret`, named.
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
        outcome.assert_text_contains("[base64url]");
        outcome.assert_stderr_contains("skipped a line");
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
        outcome.assert_stderr_contains("panic [");
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
        outcome.assert_text_contains("echo");
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
