//! Authentication in the handshake: an agent that needs
//! a login names its advertised methods and the adapter's login command, a
//! configured method authenticates before `session/new`, one the agent does
//! not advertise is refused, and an interactive-only method is never sent
//! over ACP.

use super::*;

#[test]
fn auth_required_names_the_advertised_methods_and_the_adapters_login() {
    let acp = AcpEnv::new(json!({"authRequired": true, "authMethods": auth_methods()}));
    let outcome = acp.run(&args(&["--json", "--session", "work"]));
    let errors = error_events(&outcome, 9, "agent_failed");
    let message = errors[0]["message"].as_str().expect("a message");
    assert!(message.contains("`browser-login`"), "{message}");
    assert!(message.contains("`api-key`"), "{message}");
    let hint = events(&outcome).last().expect("document")["error"]["hint"]
        .as_str()
        .expect("a hint")
        .to_owned();
    assert!(
        hint.contains("`oneworks adapter login kiro --session work`"),
        "{hint}"
    );
    assert!(!hint.contains("NAME"), "{hint}");
    assert!(acp.sent("authenticate").is_empty());
    assert!(acp.sent("session/prompt").is_empty());
}

#[test]
fn a_configured_auth_method_authenticates_before_session_new() {
    let acp = AcpEnv::new(json!({"authRequired": true, "authMethods": auth_methods()}));
    acp.env.write_config(
        "adapters:\n  kiro:\n    cli:\n      source: system\n    auth:\n      method: api-key\n",
    );
    let outcome = acp.run(&args(&["--json"]));
    outcome.assert_success();
    let received = acp.received();
    let position = |method: &str| {
        received
            .iter()
            .position(|message| message["method"] == method)
            .unwrap_or_else(|| panic!("no `{method}` sent"))
    };
    assert!(position("initialize") < position("authenticate"));
    assert!(position("authenticate") < position("session/new"));
    assert_eq!(
        received[position("authenticate")]["params"],
        json!({"methodId": "api-key"})
    );
}

#[test]
fn a_configured_auth_method_the_agent_does_not_advertise_is_refused() {
    let acp = AcpEnv::new(json!({"authMethods": auth_methods()}));
    acp.env.write_config(
        "adapters:\n  kiro:\n    cli:\n      source: system\n    auth:\n      method: password\n",
    );
    let outcome = acp.run(&args(&["--json"]));
    let errors = error_events(&outcome, 3, "config");
    let message = errors[0]["message"].as_str().expect("a message");
    assert!(message.contains("`password`"), "{message}");
    assert!(message.contains("`api-key`"), "{message}");
    assert!(acp.sent("authenticate").is_empty());
    assert!(acp.sent("session/new").is_empty());

    acp.env.write_config(
        "adapters:\n  kiro:\n    cli:\n      source: system\n    auth:\n      methd: api-key\n",
    );
    let outcome = acp.run(&args(&["--json"]));
    let message = outcome.assert_error(3, "config");
    assert!(message.contains("methd"), "{message}");
}

/// A method that needs a person at a terminal (Gemini's
/// `oauth-personal`) is never sent over ACP; the run fails like any other
/// login failure, with the adapter's login command as the hint.
#[test]
fn an_interactive_only_auth_method_is_never_sent_over_acp() {
    let mut acp = AcpEnv::new(json!({"authMethods": auth_methods()}));
    with_acp_data(&mut acp, |data| {
        data.set(
            "acp.interactiveAuthMethods",
            vec!["kiro-login", "browser-login"],
        );
    });
    acp.env.write_config(
        "adapters:\n  kiro:\n    cli:\n      source: system\n    auth:\n      method: browser-login\n",
    );
    let outcome = acp.run(&args(&["--json", "--session", "work"]));
    let errors = error_events(&outcome, 9, "agent_failed");
    let message = errors[0]["message"].as_str().expect("a message");
    assert!(message.contains("`browser-login`"), "{message}");
    assert!(message.contains("interactive login"), "{message}");
    let hint = events(&outcome).last().expect("document")["error"]["hint"]
        .as_str()
        .expect("a hint")
        .to_owned();
    assert!(
        hint.contains("`oneworks adapter login kiro --session work`"),
        "{hint}"
    );
    assert!(acp.sent("authenticate").is_empty());
    assert!(acp.sent("session/new").is_empty());
    assert!(acp.sent("session/prompt").is_empty());
}
