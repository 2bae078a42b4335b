//! `adapter login` in its profile world: the canary real HOME left
//! untouched, a fresh private HOME and an allowlisted environment, a home
//! removed after a crashed login, and the homes of dead or killed owners
//! swept by the next start.

use super::*;

#[test]
fn canary_home_is_untouched_by_render_and_login() {
    let env = TestEnv::new();
    let canary = plant_canary(&env);
    let log = fake_kiro(&env, &[]);
    env.write_config(&full_config(&env));
    env.run(&["config", "render", "kiro"]).assert_success();
    env.run_on_terminal(&["adapter", "login", "kiro"])
        .assert_success();
    assert_eq!(login_invocations(&log).len(), 1, "the fake ran login");
    assert_eq!(
        snapshot(&env.home),
        canary,
        "the real HOME is byte-for-byte untouched"
    );

    let session = snapshot(&session_root(&env, "default"));
    for contents in session.values() {
        let text = String::from_utf8_lossy(contents);
        assert!(
            !text.contains("canary"),
            "nothing copied from the real HOME: {text}"
        );
    }
    // The login's files persist in the profile's XDG data folder.
    let login_db = session
        .keys()
        .find(|path| path.ends_with("kiro-cli/fake-login.db"))
        .expect("login state kept in the profile");
    assert!(login_db.starts_with("data"), "{}", login_db.display());
}

#[test]
fn login_gets_a_fresh_private_home_and_an_allowlisted_environment() {
    let mut env = TestEnv::new();
    let log = fake_kiro(&env, &[]);
    env.set_env("GITHUB_TOKEN", "ghp_parent_token_should_not_pass");
    env.set_env("OPENAI_API_KEY", "sk-parent-should-not-pass");
    env.set_env("KIRO_API_KEY", SECRET);
    env.set_env("AWS_SESSION_TOKEN", "aws-session-token-value");
    env.set_env("MY_TOOL_HOME", "/opt/tool");
    env.set_env("UNRELATED", "x");
    env.set_env("KIRO_HOME", "/should/not/leak");
    env.write_config(
        "adapters:\n  kiro:\n    cli:\n      source: system\n    passEnv: [MY_TOOL_HOME]\n",
    );
    env.run_on_terminal(&["adapter", "login", "kiro"])
        .assert_success();
    env.run_on_terminal(&["adapter", "login", "kiro", "--session", "other"])
        .assert_success();
    env.run_on_terminal(&["adapter", "login", "kiro"])
        .assert_success();

    let logins = login_invocations(&log);
    assert_eq!(logins.len(), 3);
    let mut homes = Vec::new();
    for login in &logins {
        let child_env = login["env"].as_object().expect("env");
        let home = PathBuf::from(child_env["HOME"].as_str().expect("HOME"));
        assert!(
            home.starts_with(&env.runtime_dir),
            "HOME under the runtime folder: {}",
            home.display()
        );
        assert_eq!(login["homeMode"], 0o700, "HOME is 0700");
        assert!(
            !home.exists(),
            "HOME removed after the process ended: {}",
            home.display()
        );
        assert_eq!(
            PathBuf::from(child_env["TMPDIR"].as_str().expect("TMPDIR")),
            home.join("tmp"),
            "the agent's temporary folder is inside its HOME, removed with it"
        );
        homes.push(home);

        assert!(
            child_env.get("GITHUB_TOKEN").is_none(),
            "GITHUB_TOKEN must not pass"
        );
        assert!(
            child_env.get("OPENAI_API_KEY").is_none(),
            "OPENAI_API_KEY must not pass"
        );
        assert!(child_env.get("UNRELATED").is_none());
        assert!(child_env.get("ONEWORKS_HOME").is_none());
        assert_eq!(
            child_env["KIRO_API_KEY"], SECRET,
            "credentials pass through"
        );
        assert_eq!(child_env["AWS_SESSION_TOKEN"], "aws-session-token-value");
        assert_eq!(child_env["MY_TOOL_HOME"], "/opt/tool", "passEnv passes");
        let agent_home = child_env["KIRO_HOME"].as_str().expect("KIRO_HOME");
        assert!(agent_home.starts_with(
            env.project
                .join(".oneworks/sessions")
                .to_str()
                .expect("utf8")
        ));
        // The fake's `/bin/sh` wrapper exports PWD/SHLVL itself.
        for name in child_env
            .keys()
            .filter(|name| !["PWD", "SHLVL", "_"].contains(&name.as_str()))
        {
            let allowed = [
                "PATH",
                "LANG",
                "HOME",
                "TMPDIR",
                "NODE_COMPILE_CACHE",
                "KIRO_HOME",
                "XDG_DATA_HOME",
                "XDG_STATE_HOME",
                "XDG_CONFIG_HOME",
                "XDG_CACHE_HOME",
                "KIRO_API_KEY",
                "AWS_SESSION_TOKEN",
                "MY_TOOL_HOME",
            ];
            assert!(
                allowed.contains(&name.as_str()),
                "unexpected variable `{name}` reached Kiro"
            );
        }
        assert_eq!(
            PathBuf::from(login["cwd"].as_str().expect("cwd")),
            env.project
        );
    }
    homes.sort();
    homes.dedup();
    assert_eq!(homes.len(), 3, "every process gets its own HOME");
}

#[test]
fn crashed_login_fails_and_still_removes_its_home() {
    let env = TestEnv::new();
    let log = fake_kiro(&env, &[("loginCrash", json!(true))]);
    env.write_config("adapters:\n  kiro:\n    cli:\n      source: system\n");
    let outcome = env.run_on_terminal(&["adapter", "login", "kiro"]);
    outcome.assert_code(9);
    assert!(
        outcome
            .stdout
            .contains(" login` was killed by signal 6 (SIGABRT)"),
        "{}",
        outcome.describe()
    );
    let logins = login_invocations(&log);
    assert_eq!(logins.len(), 1);
    let home = PathBuf::from(logins[0]["env"]["HOME"].as_str().expect("HOME"));
    assert!(
        !home.exists(),
        "HOME removed after a crash: {}",
        home.display()
    );
}

#[test]
fn stale_homes_of_dead_owners_are_swept() {
    let env = TestEnv::new();
    let log = fake_kiro(&env, &[]);
    env.write_config("adapters:\n  kiro:\n    cli:\n      source: system\n");
    env.run_on_terminal(&["adapter", "login", "kiro"])
        .assert_success();
    let first = PathBuf::from(
        login_invocations(&log)[0]["env"]["HOME"]
            .as_str()
            .expect("HOME")
            .to_owned(),
    );
    let runtime = first.parent().expect("session runtime folder").to_owned();
    // What a SIGKILLed oneworks leaves: a HOME and an unlocked owner marker.
    let stale = runtime.join("home-stale1");
    std::fs::create_dir(&stale).expect("mkdir");
    std::fs::write(stale.join("leftover"), b"x").expect("write");
    std::fs::write(runtime.join("home-stale1.owner"), b"").expect("marker");
    env.run_on_terminal(&["adapter", "login", "kiro"])
        .assert_success();
    assert!(!stale.exists(), "stale HOME swept at the next start");
    assert!(!runtime.join("home-stale1.owner").exists());
}

#[test]
fn a_killed_oneworks_leaves_a_home_that_the_next_start_sweeps() {
    let env = TestEnv::new();
    let release = env.outside.join("release-login");
    let log = fake_kiro(&env, &[("loginWaitForFile", json!(release))]);
    env.write_config("adapters:\n  kiro:\n    cli:\n      source: system\n");
    let running = env
        .oneworks()
        .args(["adapter", "login", "kiro"])
        .terminal()
        .start();
    let home = wait_for("the fake ran login", DEADLINE, || {
        let login = login_invocations(&log)
            .into_iter()
            .next()
            .ok_or_else(String::new)?;
        Ok(PathBuf::from(login["env"]["HOME"].as_str().expect("HOME")))
    });
    running.kill();
    assert!(
        home.exists(),
        "SIGKILL leaves the HOME behind: {}",
        home.display()
    );
    std::fs::write(&release, b"").expect("let the orphaned fake finish");
    env.run_on_terminal(&["adapter", "login", "kiro"])
        .assert_success();
    assert!(!home.exists(), "the next start swept the dead owner's HOME");
}
