//! Gemini's folder trust and login method through the binary with the
//! built-in adapter: trust comes from the user's own config
//! file, never from a project's; a login that needs a person never reaches
//! an ACP run, not even through `configContent`.

use serde_json::Value;

use crate::support::TestEnv;

fn trusted_folders(env: &TestEnv) -> Value {
    let path = env
        .project
        .join(".oneworks/sessions/default/gemini-home/.gemini/trustedFolders.json");
    serde_json::from_str(&std::fs::read_to_string(&path).expect("trustedFolders.json"))
        .expect("trustedFolders json")
}

fn project_key(env: &TestEnv) -> String {
    env.project.display().to_string()
}

#[test]
fn a_project_cannot_trust_itself_but_the_user_can() {
    let env = TestEnv::new();
    // The project's own file says trust: ignored.
    env.write_config("adapters:\n  gemini:\n    trustWorkspace: true\n");
    let outcome = env.run(&["config", "render", "gemini"]);
    outcome.assert_success();
    assert_eq!(trusted_folders(&env)[project_key(&env)], "DO_NOT_TRUST");
    assert!(
        outcome.all_text().contains("untrusted"),
        "the user is told what Gemini will skip: {}",
        outcome.all_text()
    );

    // The user's own file says trust: honoured.
    let user = env.config_home.join("oneworks");
    std::fs::create_dir_all(&user).expect("user config folder");
    std::fs::write(
        user.join("config.yaml"),
        "adapters:\n  gemini:\n    trustWorkspace: true\n",
    )
    .expect("user config");
    env.write_config("adapters:\n  gemini:\n    systemPrompt: hi\n");
    env.run(&["config", "render", "gemini"]).assert_success();
    assert_eq!(trusted_folders(&env)[project_key(&env)], "TRUST_FOLDER");
}

#[test]
fn an_interactive_login_set_through_config_content_never_reaches_acp() {
    let env = TestEnv::new();
    for content in [
        "      security.auth.selectedType: oauth-personal\n",
        "      security:\n        auth:\n          selectedType: oauth-personal\n",
    ] {
        env.write_config(&format!(
            "adapters:\n  gemini:\n    configContent:\n{content}"
        ));
        let outcome = env.run(&["run", "gemini", "--prompt", "hi", "--json"]);
        let message = outcome.assert_error(3, "config");
        assert!(
            message.contains("security.auth.selectedType") && message.contains("oauth-personal"),
            "{message}"
        );
        // Refused before anything was resolved or written.
        assert!(
            !env.project
                .join(".oneworks/sessions/default/gemini-home")
                .exists(),
            "a world was entered"
        );
    }
}
