//! Profile worlds (SPEC §5, §6): `config render`, `adapter login` with the
//! fake Kiro, the canary real HOME, the fresh temp HOME, the child
//! environment, skill sources read without following links, symlink
//! refusals and scrubbing of what is written.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::support::fake::{install_fake, kiro_script, with};
use crate::support::wait::{wait_for, DEADLINE};
use crate::support::TestEnv;

const SECRET: &str = "kiro-secret-value-4242";

fn session_root(env: &TestEnv, name: &str) -> PathBuf {
    env.project.join(".oneworks/sessions").join(name)
}

fn agent_home(env: &TestEnv, name: &str) -> PathBuf {
    session_root(env, name).join("kiro-home")
}

/// Every file below `root` with its bytes (links recorded as their target).
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let kind = entry.file_type().expect("file type");
            let relative = path.strip_prefix(root).expect("under root").to_owned();
            if kind.is_dir() {
                files.insert(relative, b"<dir>".to_vec());
                stack.push(path);
            } else if kind.is_symlink() {
                let target = std::fs::read_link(&path).expect("readlink");
                files.insert(relative, target.to_string_lossy().as_bytes().to_vec());
            } else {
                files.insert(relative, std::fs::read(&path).expect("read"));
            }
        }
    }
    files
}

/// A canary real HOME with Kiro and Amazon Q state that must stay untouched.
fn plant_canary(env: &TestEnv) -> BTreeMap<PathBuf, Vec<u8>> {
    for (relative, contents) in [
        (
            ".kiro/settings/cli.json",
            "{\"canary\": \"kiro-settings\"}\n",
        ),
        (".kiro/agents/mine.json", "{\"name\": \"canary-agent\"}\n"),
        (".aws/amazonq/cache.json", "{\"canary\": \"amazonq\"}\n"),
        (
            ".aws/credentials",
            "[default]\naws_secret_access_key = canary-aws\n",
        ),
    ] {
        let path = env.home.join(relative);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, contents).expect("write canary");
    }
    snapshot(&env.home)
}

/// A fake `kiro-cli` on PATH logging each invocation, and `source: system`.
fn fake_kiro(env: &TestEnv, extra: &[(&str, Value)]) -> PathBuf {
    let log = env.outside.join("fake-kiro.log");
    let mut script = with(&kiro_script("2.15.1"), "log", json!(log));
    for (field, value) in extra {
        script = with(&script, field, value.clone());
    }
    install_fake(&env.bin, "kiro-cli", &script);
    log
}

fn invocations(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).expect("log line is JSON"))
        .collect()
}

fn login_invocations(log: &Path) -> Vec<Value> {
    invocations(log)
        .into_iter()
        .filter(|entry| entry["argv"] == json!(["login"]))
        .collect()
}

fn full_config(env: &TestEnv) -> String {
    let skill = env.project.join("skills/code-review");
    std::fs::create_dir_all(&skill).expect("mkdir skill");
    std::fs::write(skill.join("SKILL.md"), "# Code review\nLook closely.\n").expect("skill");
    let evil = env.project.join("skills/evil");
    std::fs::create_dir_all(&evil).expect("mkdir skill");
    std::fs::write(evil.join("SKILL.md"), "# Evil\n").expect("skill");
    "adapters:
  kiro:
    cli:
      source: system
    configContent:
      telemetry:
        enabled: false
      chat.defaultModel: claude
    agentConfig:
      name: not-oneworks
      includeMcpJson: true
      description: Team agent
      tools: [read, write]
    systemPrompt: |
      Be brief.
    skills:
      - name: Code Review
        path: ./../skills/code-review
      - name: ../evil
        path: ./../skills/evil
    mcpServers:
      github:
        command: /usr/local/bin/github-mcp
        args: [--stdio]
        env: { GITHUB_TOKEN: \"${GITHUB_TOKEN}\" }
      docs:
        url: https://example.com/mcp
        transport: http
    hooks:
      preToolUse:
        - command: ./hooks/check.sh
          matcher: shell
    passEnv: [MY_TOOL_HOME]
"
    .to_owned()
}

#[test]
fn render_writes_the_session_world() {
    let env = TestEnv::new();
    env.write_config(&full_config(&env));
    let outcome = env.run(&["config", "render", "kiro", "--session", "s1"]);
    outcome.assert_success();
    assert!(
        outcome.stderr.contains("`docs`") && outcome.stderr.contains("pending capability check"),
        "remote MCP server is reported pending: {}",
        outcome.describe()
    );

    let root = session_root(&env, "s1");
    let mode = std::fs::metadata(&root)
        .expect("session root")
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o700, "session profile is private");
    let gitignore =
        std::fs::read_to_string(env.project.join(".oneworks/.gitignore")).expect(".gitignore");
    assert!(
        gitignore.lines().any(|line| line.trim() == "sessions/"),
        "{gitignore}"
    );

    let home = agent_home(&env, "s1");
    let settings: Value =
        serde_json::from_slice(&std::fs::read(home.join("settings/cli.json")).expect("cli.json"))
            .expect("json");
    assert_eq!(
        settings,
        json!({"telemetry.enabled": false, "chat.defaultModel": "claude"})
    );

    let steering =
        std::fs::read_to_string(home.join("steering/oneworks-system.md")).expect("steering");
    assert_eq!(steering, "---\ninclusion: always\n---\n\nBe brief.\n");

    let agent: Value =
        serde_json::from_slice(&std::fs::read(home.join("agents/oneworks.json")).expect("agent"))
            .expect("json");
    assert_eq!(agent["name"], "oneworks", "name is forced back");
    assert_eq!(
        agent["includeMcpJson"], false,
        "includeMcpJson is forced back"
    );
    assert_eq!(agent["description"], "Team agent", "user fields survive");
    assert_eq!(agent["tools"], json!(["read", "write"]));
    assert_eq!(
        agent["hooks"],
        json!({"preToolUse": [{"command": "./hooks/check.sh", "matcher": "shell"}]})
    );
    let servers = agent["mcpServers"].as_object().expect("mcpServers");
    assert_eq!(
        servers.keys().collect::<Vec<_>>(),
        ["github"],
        "remote server not enabled"
    );
    assert_eq!(servers["github"]["env"]["GITHUB_TOKEN"], "${GITHUB_TOKEN}");
    let steering_resource = format!(
        "file://{}",
        home.join("steering/oneworks-system.md").display()
    );
    assert!(
        agent["resources"]
            .as_array()
            .expect("resources")
            .contains(&json!(steering_resource)),
        "{agent}"
    );

    assert_eq!(
        std::fs::read_to_string(home.join("skills/Code Review/SKILL.md")).expect("skill"),
        "# Code review\nLook closely.\n"
    );
    assert_eq!(
        std::fs::read_to_string(home.join("skills/evil/SKILL.md")).expect("skill"),
        "# Evil\n"
    );
    let skill_dirs: Vec<_> = std::fs::read_dir(home.join("skills"))
        .expect("skills")
        .map(|entry| entry.expect("entry").file_name())
        .collect();
    assert_eq!(skill_dirs.len(), 2, "{skill_dirs:?}");
    assert!(!env.project.join(".oneworks/sessions/evil").exists());
    assert!(!home.join("evil").exists());
}

#[test]
fn render_dry_run_prints_and_writes_nothing() {
    let env = TestEnv::new();
    env.write_config("adapters:\n  kiro:\n    configContent:\n      telemetry.enabled: false\n");
    let outcome = env.run(&["config", "render", "kiro", "--session", "dry", "--dry-run"]);
    outcome.assert_success();
    assert!(
        outcome.stdout.contains("--- settings/cli.json"),
        "{}",
        outcome.describe()
    );
    assert!(
        outcome.stdout.contains("\"telemetry.enabled\": false"),
        "{}",
        outcome.describe()
    );
    assert!(
        outcome.stdout.contains("--- agents/oneworks.json"),
        "{}",
        outcome.describe()
    );
    assert!(
        !env.project.join(".oneworks/sessions").exists(),
        "dry run wrote nothing"
    );
}

#[test]
fn rerender_removes_skills_no_longer_configured() {
    let env = TestEnv::new();
    env.write_config(&full_config(&env));
    env.run(&["config", "render", "kiro"]).assert_success();
    let skills = agent_home(&env, "default").join("skills");
    assert!(skills.join("evil").is_dir());
    env.write_config("adapters:\n  kiro:\n    cli:\n      source: system\n");
    env.run(&["config", "render", "kiro"]).assert_success();
    assert_eq!(std::fs::read_dir(&skills).expect("skills").count(), 0);
}

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
        assert!(outcome.stderr.contains("credential"), "{}", outcome.describe());
        assert!(outcome.stderr.contains("${VAR}"), "the hint names `${{VAR}}`\n{}", outcome.describe());
        assert!(!env.project.join(".oneworks/sessions").exists(), "nothing written for {yaml}");
    }
}

#[test]
fn symlinked_session_or_agent_home_is_refused() {
    let env = TestEnv::new();
    env.write_config("adapters:\n  kiro:\n    systemPrompt: hi\n");
    let target = env.outside.join("elsewhere");
    std::fs::create_dir_all(&target).expect("mkdir");

    let sessions = env.project.join(".oneworks/sessions");
    std::fs::create_dir_all(&sessions).expect("mkdir");
    std::os::unix::fs::symlink(&target, sessions.join("linked")).expect("symlink");
    let outcome = env.run(&["config", "render", "kiro", "--session", "linked"]);
    outcome.assert_code(6);
    assert!(
        outcome.stderr.contains("symbolic link"),
        "{}",
        outcome.describe()
    );

    let root = sessions.join("home-linked");
    std::fs::create_dir_all(&root).expect("mkdir");
    std::os::unix::fs::symlink(&target, root.join("kiro-home")).expect("symlink");
    let outcome = env.run(&["config", "render", "kiro", "--session", "home-linked"]);
    outcome.assert_code(6);
    assert!(
        outcome.stderr.contains("kiro-home"),
        "{}",
        outcome.describe()
    );
    assert!(
        snapshot(&target).is_empty(),
        "nothing was written through a link"
    );
}

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
fn symlinked_skills_folder_is_refused_and_its_target_survives() {
    let env = TestEnv::new();
    // No skills configured: rendering would clear `skills/` of stale ones.
    env.write_config("adapters:\n  kiro:\n    systemPrompt: hi\n");
    let target = env.outside.join("skills-elsewhere");
    std::fs::create_dir_all(target.join("a-folder")).expect("mkdir");
    std::fs::write(target.join("a-folder/keep"), "keep\n").expect("write");
    std::fs::write(target.join("a-file"), "keep\n").expect("write");
    let before = snapshot(&env.outside);
    let home = agent_home(&env, "default");
    std::fs::create_dir_all(&home).expect("mkdir kiro-home");
    std::os::unix::fs::symlink(&target, home.join("skills")).expect("symlink");

    let outcome = env.run(&["config", "render", "kiro"]);
    outcome.assert_code(6);
    assert!(
        outcome.stderr.contains("symbolic link") && outcome.stderr.contains("skills"),
        "{}",
        outcome.describe()
    );
    assert_eq!(
        snapshot(&env.outside),
        before,
        "nothing outside the project was removed"
    );
}

#[test]
fn links_inside_the_skills_folder_are_refused_not_followed() {
    let env = TestEnv::new();
    env.write_config("adapters:\n  kiro:\n    systemPrompt: hi\n");
    env.run(&["config", "render", "kiro"]).assert_success();
    let skills = agent_home(&env, "default").join("skills");
    assert!(skills.is_dir(), "render creates the skills folder");
    std::os::unix::fs::symlink(&env.outside, skills.join("linked")).expect("symlink");
    std::fs::create_dir(skills.join("stale")).expect("mkdir");
    let before = snapshot(&env.outside);
    let outcome = env.run(&["config", "render", "kiro"]);
    outcome.assert_code(6);
    assert!(outcome.stderr.contains("linked"), "{}", outcome.describe());
    assert_eq!(snapshot(&env.outside), before);
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

/// A config naming one skill at `.oneworks/skills/review`, whose files the
/// caller arranges; returns the config file's text.
fn skill_config() -> &'static str {
    "adapters:\n  kiro:\n    systemPrompt: hi\n    skills:\n      - name: Review\n        path: ./skills/review\n"
}

/// Asserts `render` and `config check` both refuse with `code`, and that
/// the session world got nothing: no copied file, no `skill://` resource.
#[track_caller]
fn assert_refused_and_nothing_written(env: &TestEnv, code: i32, needle: &str) {
    for args in [&["config", "check"][..], &["config", "render", "kiro"][..]] {
        let outcome = env.run(args);
        outcome.assert_code(code);
        assert!(
            outcome.stderr.contains(needle),
            "{args:?}: {}",
            outcome.describe()
        );
        assert!(
            !outcome.all_text().contains("canary-aws"),
            "{}",
            outcome.describe()
        );
    }
    let root = session_root(env, "default");
    let files = snapshot(&root);
    assert!(
        files.values().all(|contents| {
            let text = String::from_utf8_lossy(contents);
            !text.contains("canary-aws") && !text.contains("skill://")
        }),
        "{files:?}"
    );
    assert!(
        !agent_home(env, "default").join("skills/Review").exists(),
        "nothing staged"
    );
    assert!(
        !agent_home(env, "default")
            .join("agents/oneworks.json")
            .exists(),
        "no agent file listing the skill"
    );
}

#[test]
fn a_symlinked_skill_md_is_refused_and_nothing_is_written() {
    let env = TestEnv::new();
    plant_canary(&env);
    let folder = env.project.join(".oneworks/skills/review");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::os::unix::fs::symlink(env.home.join(".aws/credentials"), folder.join("SKILL.md"))
        .expect("symlink");
    env.write_config(skill_config());
    assert_refused_and_nothing_written(&env, 6, "symbolic link");
}

#[test]
fn a_symlinked_skill_folder_is_refused_and_nothing_is_written() {
    let env = TestEnv::new();
    plant_canary(&env);
    std::fs::write(env.home.join(".aws/SKILL.md"), "[default]\ncanary-aws\n").expect("write");
    let skills = env.project.join(".oneworks/skills");
    std::fs::create_dir_all(&skills).expect("mkdir");
    std::os::unix::fs::symlink(env.home.join(".aws"), skills.join("review")).expect("symlink");
    env.write_config(skill_config());
    assert_refused_and_nothing_written(&env, 6, "symbolic link");
}

#[test]
fn a_symlink_between_the_config_and_the_skill_is_refused() {
    let env = TestEnv::new();
    plant_canary(&env);
    let elsewhere = env.home.join("elsewhere/review");
    std::fs::create_dir_all(&elsewhere).expect("mkdir");
    std::fs::write(elsewhere.join("SKILL.md"), "canary-aws\n").expect("write");
    std::os::unix::fs::symlink(
        env.home.join("elsewhere"),
        env.project.join(".oneworks/skills"),
    )
    .expect("symlink");
    env.write_config(skill_config());
    assert_refused_and_nothing_written(&env, 6, "symbolic link");
}

#[test]
fn a_credential_in_a_skill_body_is_refused() {
    let env = TestEnv::new();
    let folder = env.project.join(".oneworks/skills/review");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::fs::write(
        folder.join("SKILL.md"),
        "# Review\nUse key AKIAABCDEFGHIJKLMNOP.\n",
    )
    .expect("write");
    env.write_config(skill_config());
    assert_refused_and_nothing_written(&env, 3, "skills[0]");
}

#[test]
fn a_missing_skill_folder_fails_check_as_well_as_render() {
    let env = TestEnv::new();
    env.write_config(skill_config());
    assert_refused_and_nothing_written(&env, 3, "does not exist");
}

#[test]
fn relative_skill_paths_resolve_against_the_config_file_folder() {
    let env = TestEnv::new();
    // `./skills/review` in `.oneworks/config.yaml` is `.oneworks/skills/review`,
    // not `<project>/skills/review`.
    let decoy = env.project.join("skills/review");
    std::fs::create_dir_all(&decoy).expect("mkdir");
    std::fs::write(decoy.join("SKILL.md"), "# Decoy\n").expect("write");
    let folder = env.project.join(".oneworks/skills/review");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::fs::write(folder.join("SKILL.md"), "# Real\n").expect("write");
    env.write_config(skill_config());
    env.run(&["config", "check"]).assert_success();
    env.run(&["config", "render", "kiro"]).assert_success();
    let staged =
        std::fs::read_to_string(agent_home(&env, "default").join("skills/Review/SKILL.md"))
            .expect("staged");
    assert_eq!(staged, "# Real\n");
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

#[test]
fn a_killed_oneworks_leaves_a_home_that_the_next_start_sweeps() {
    let env = TestEnv::new();
    let release = env.outside.join("release-login");
    let log = fake_kiro(&env, &[("loginWaitForFile", json!(release))]);
    env.write_config("adapters:\n  kiro:\n    cli:\n      source: system\n");
    let running = crate::support::spawn(env.terminal_cmd(&["adapter", "login", "kiro"]));
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

#[test]
fn trust_workspace_means_nothing_to_an_agent_without_folder_trust() {
    let env = TestEnv::new();
    env.write_config("adapters:\n  kiro:\n    trustWorkspace: true\n    systemPrompt: hi\n");
    let outcome = env.run(&["config", "render", "kiro"]);
    outcome.assert_success();
    assert!(
        !outcome.stderr.contains("trust"),
        "no trust warning for Kiro: {}",
        outcome.describe()
    );
    let files = snapshot(&agent_home(&env, "default"));
    let names: Vec<_> = files
        .keys()
        .map(|path| path.display().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "agents",
            "agents/oneworks.json",
            "settings",
            "settings/cli.json",
            "skills",
            "steering",
            "steering/oneworks-system.md"
        ],
        "Kiro's world is the same files"
    );
}

#[test]
fn skills_the_agent_writes_itself_survive_a_rerender() {
    // Codex installs its own system skills into skills/.system at start
    // (manifests/codex.yaml `skills.agentOwned`); a skill oneworks wrote
    // and no config names any more is still removed.
    let env = TestEnv::new();
    env.write_config("adapters:\n  codex:\n    cli:\n      source: system\n");
    env.run(&["config", "render", "codex"]).assert_success();
    let skills = session_root(&env, "default")
        .join("codex-home")
        .join("skills");
    std::fs::create_dir_all(skills.join(".system/review")).expect("mkdir");
    std::fs::write(skills.join(".system/review/SKILL.md"), b"codex's own").expect("write");
    std::fs::create_dir_all(skills.join("old")).expect("mkdir");
    std::fs::write(skills.join("old/SKILL.md"), b"an earlier config's").expect("write");
    env.run(&["config", "render", "codex"]).assert_success();
    assert_eq!(
        std::fs::read(skills.join(".system/review/SKILL.md")).expect("kept"),
        b"codex's own"
    );
    assert!(!skills.join("old").exists(), "a stale skill is removed");
}

/// `config render --dry-run` shows what a (possibly hostile) project's
/// config and skills would write: terminal controls in them are replaced,
/// like any outside text, so they cannot set the title or clear the screen.
#[test]
fn render_dry_run_shows_outside_text_without_terminal_controls() {
    let env = TestEnv::new();
    let skill = env.project.join(".oneworks/skills/evil");
    std::fs::create_dir_all(&skill).expect("skill dir");
    std::fs::write(skill.join("SKILL.md"), "# Evil\u{1b}[2J\u{7}\n\tbody\n").expect("skill");
    env.write_config(
        "adapters:\n  kiro:\n    systemPrompt: \"a\\e]0;pwned\\ab\\r\"\n    \
         skills:\n      - name: Evil\n        path: ./skills/evil\n",
    );
    let outcome = env.run(&["config", "render", "kiro", "--dry-run"]);
    outcome.assert_success();
    for control in ['\u{1b}', '\u{7}', '\r'] {
        assert!(
            !outcome.stdout.contains(control),
            "{control:?} reached stdout\n{}",
            outcome.describe()
        );
    }
    assert!(
        outcome
            .stdout
            .contains("a\u{fffd}]0;pwned\u{fffd}b\u{fffd}\n"),
        "{}",
        outcome.describe()
    );
    assert!(
        outcome
            .stdout
            .contains("# Evil\u{fffd}[2J\u{fffd}\n\tbody\n"),
        "{}",
        outcome.describe()
    );
    assert!(!env.project.join(".oneworks/sessions").exists());
}
