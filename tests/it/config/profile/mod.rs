//! Profile worlds: what `config render` writes (and
//! `--dry-run` shows, outside text without terminal controls), a rerender
//! that removes what is no longer configured and keeps what the agent
//! wrote, and folder trust; with the helpers the files below share:
//! `login_home` (the canary real HOME and the fresh temp HOME of `adapter
//! login`), `secrets` (scrubbing what is written) and `skills` (skill
//! sources read without following links, symlink refusals).

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::support::fake::{install_fake, kiro_script, with};
use crate::support::wait::{wait_for, DEADLINE};
use crate::support::TestEnv;

mod login_home;
mod secrets;
mod shapes;
mod skills;

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
    outcome.assert_stdout_contains("--- settings/cli.json");
    outcome.assert_stdout_contains("\"telemetry.enabled\": false");
    outcome.assert_stdout_contains("--- agents/oneworks.json");
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
        outcome.assert_text_lacks("canary-aws");
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
