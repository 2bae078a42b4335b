//! Credentials in a profile world: scrubbed from the files
//! written, refused in the config with nothing written, short values that
//! are referenced not taken for secrets, and MCP credential references kept
//! through scrubbing.

use super::*;

#[test]
fn secrets_are_scrubbed_from_written_files() {
    let mut env = TestEnv::new();
    env.set_env("KIRO_API_KEY", SECRET);
    env.set_env("NOTIFY_URL", "https://hooks.example/notify-token-99");
    // Not credential-shaped, so config accepts them; the writer must still
    // keep the live values out of the files.
    let encoded = SECRET.replace('-', "%2D");
    env.write_config(&format!(
        "adapters:\n  kiro:\n    systemPrompt: \"Use key {SECRET} or {encoded}\"\n    agentConfig:\n      description: \"{SECRET}\"\n      notes:\n        \"{SECRET}\": x\n    hooks:\n      stop:\n        - command: curl https://hooks.example/notify-token-99 ${{NOTIFY_URL}}\n"
    ));
    env.run(&["config", "render", "kiro"]).assert_success();
    let home = agent_home(&env, "default");
    for (relative, contents) in snapshot(&home) {
        let text = String::from_utf8_lossy(&contents);
        assert!(
            !text.contains(SECRET),
            "{} leaks the raw secret: {text}",
            relative.display()
        );
        assert!(
            !text.contains(&encoded),
            "{} leaks the encoded secret: {text}",
            relative.display()
        );
        assert!(
            !text.contains("notify-token-99"),
            "{} leaks a referenced variable's value: {text}",
            relative.display()
        );
    }
    let agent: Value =
        serde_json::from_slice(&std::fs::read(home.join("agents/oneworks.json")).expect("agent"))
            .expect("agent json");
    assert_eq!(agent["description"], "[redacted]");
    assert!(
        agent["notes"].as_object().expect("notes").is_empty(),
        "secret-bearing key dropped: {agent}"
    );
    let steering =
        std::fs::read_to_string(home.join("steering/oneworks-system.md")).expect("steering");
    assert!(steering.contains("[redacted]"), "{steering}");
}

#[test]
fn credentials_in_config_are_refused_and_nothing_is_written() {
    let env = TestEnv::new();
    for yaml in [
        "adapters:\n  kiro:\n    configContent:\n      api.key: AKIAABCDEFGHIJKLMNOP\n",
        "adapters:\n  kiro:\n    agentConfig:\n      env:\n        KIRO_API_KEY: ksk_abcdefgh12345678\n",
        "adapters:\n  kiro:\n    mcpServers:\n      gh:\n        command: /bin/gh\n        env:\n          AWS_SECRET_ACCESS_KEY: plain-text-secret\n",
    ] {
        env.write_config(yaml);
        let outcome = env.run(&["config", "render", "kiro"]);
        outcome.assert_code(3);
        outcome.assert_stderr_contains("credential");
        assert!(outcome.stderr.contains("${VAR}"), "the hint names `${{VAR}}`\n{}", outcome.describe());
        assert!(!env.project.join(".oneworks/sessions").exists(), "nothing written for {yaml}");
    }
}

#[test]
fn short_referenced_values_are_not_secrets() {
    let mut env = TestEnv::new();
    // Referenced by a hook, but short: a user name, not a credential.
    env.set_env("USER_NAME", "proj");
    env.write_config(
        "adapters:\n  kiro:\n    systemPrompt: \"Hello proj team\"\n    agentConfig:\n      description: the proj agent\n    hooks:\n      stop:\n        - command: notify ${USER_NAME}\n",
    );
    env.run(&["config", "render", "kiro"]).assert_success();
    let home = agent_home(&env, "default");
    let steering =
        std::fs::read_to_string(home.join("steering/oneworks-system.md")).expect("steering");
    assert_eq!(steering, "---\ninclusion: always\n---\n\nHello proj team\n");
    let agent: Value =
        serde_json::from_slice(&std::fs::read(home.join("agents/oneworks.json")).expect("agent"))
            .expect("agent json");
    assert_eq!(agent["description"], "the proj agent");
    assert_eq!(
        agent["resources"][0],
        format!(
            "file://{}",
            home.join("steering/oneworks-system.md").display()
        )
    );
}

#[test]
fn a_short_credential_redacts_only_equal_strings_and_never_what_oneworks_generates() {
    for value in ["on", "e"] {
        let mut env = TestEnv::new();
        env.set_env("AWS_SESSION_TOKEN", value);
        let skill = env.project.join(".oneworks/skills/e");
        std::fs::create_dir_all(&skill).expect("mkdir skill");
        std::fs::write(skill.join("SKILL.md"), "# Skill e\n").expect("skill");
        env.write_config(&format!(
            "adapters:\n  kiro:\n    systemPrompt: |\n      First line on e.\n      {value}\n      Last line.\n    agentConfig:\n      description: One Works agent\n      resources: [\"file://docs/e.md\"]\n    skills:\n      - name: e\n        path: ./skills/e\n"
        ));
        let outcome = env.run(&["config", "render", "kiro"]);
        outcome.assert_success();
        assert_eq!(
            outcome
                .stderr
                .matches("`AWS_SESSION_TOKEN` is shorter than 8 characters")
                .count(),
            1,
            "warned once\n{}",
            outcome.describe()
        );
        let home = agent_home(&env, "default");
        let agent: Value = serde_json::from_slice(
            &std::fs::read(home.join("agents/oneworks.json")).expect("agent"),
        )
        .expect("agent json");
        assert_eq!(agent["name"], "oneworks", "{value}: {agent}");
        assert_eq!(agent["includeMcpJson"], false, "{value}: {agent}");
        assert_eq!(agent["description"], "One Works agent", "{value}: {agent}");
        assert_eq!(
            agent["resources"],
            json!([
                "file://docs/e.md",
                format!(
                    "file://{}",
                    home.join("steering/oneworks-system.md").display()
                ),
                format!("skill://{}", home.join("skills/e/SKILL.md").display()),
            ]),
            "{value}"
        );
        let steering =
            std::fs::read_to_string(home.join("steering/oneworks-system.md")).expect("steering");
        assert_eq!(
            steering, "---\ninclusion: always\n---\n\nFirst line on e.\n[redacted]\nLast line.\n",
            "{value}"
        );
    }
}

#[test]
fn mcp_credential_references_survive_scrubbing() {
    let mut env = TestEnv::new();
    env.set_env("KIRO_API_KEY", SECRET);
    env.set_env("GITHUB_TOKEN", "ghp_live_token_value_123456");
    env.write_config(
        "adapters:\n  kiro:\n    mcpServers:\n      kiro-tools:\n        command: /usr/local/bin/kiro-mcp\n        env:\n          KIRO_API_KEY: \"${KIRO_API_KEY}\"\n          GITHUB_TOKEN: \"${GITHUB_TOKEN}\"\n",
    );
    env.run(&["config", "render", "kiro"]).assert_success();
    let home = agent_home(&env, "default");
    let agent: Value =
        serde_json::from_slice(&std::fs::read(home.join("agents/oneworks.json")).expect("agent"))
            .expect("agent json");
    assert_eq!(
        agent["mcpServers"]["kiro-tools"]["env"],
        json!({"KIRO_API_KEY": "${KIRO_API_KEY}", "GITHUB_TOKEN": "${GITHUB_TOKEN}"}),
        "{agent}"
    );
    for (relative, contents) in snapshot(&home) {
        let text = String::from_utf8_lossy(&contents);
        assert!(
            !text.contains(SECRET) && !text.contains("ghp_live_token_value_123456"),
            "{} leaks a secret: {text}",
            relative.display()
        );
    }
}
