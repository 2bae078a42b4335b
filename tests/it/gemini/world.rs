//! Gemini's profile world through the real binary. Until the
//! registry lists gemini, a Kiro data file whose `session:` and
//! `credentials:` sections are Gemini's (`ONEWORKS_KIRO_ADAPTER_FILE`)
//! renders Gemini's files: the world is data, and no code knows which
//! agent it writes for.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::support::adapter_yaml::AdapterYaml;
use crate::support::TestEnv;

const SECRET: &str = "gemini-secret-value-4242";

/// Kiro's data with Gemini's profile world and credentials (all but
/// `passThrough`: the variables these tests give the agent are the
/// credentials).
fn gemini_world_data(env: &mut TestEnv) -> PathBuf {
    let gemini = AdapterYaml::builtin("gemini");
    let path = env.outside.join("gemini-world.yaml");
    AdapterYaml::builtin("kiro")
        .set("session", gemini.get("session").clone())
        .set("credentials", gemini.get("credentials").clone())
        .remove("credentials.passThrough")
        .write(&path);
    env.set_env("ONEWORKS_KIRO_ADAPTER_FILE", path.to_str().expect("utf-8"));
    path
}

fn home(env: &TestEnv) -> PathBuf {
    env.project.join(".oneworks/sessions/default/kiro-home")
}

/// Every file below `root` with its bytes (links as their target).
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

fn config(env: &TestEnv) -> String {
    let skill = env.project.join(".oneworks/skills/review");
    std::fs::create_dir_all(&skill).expect("mkdir skill");
    std::fs::write(skill.join("SKILL.md"), "# Review\nLook closely.\n").expect("skill");
    "adapters:
  kiro:
    configContent:
      general:
        enableAutoUpdate: true
      ui.theme: Dracula
    systemPrompt: |
      Be brief.
    skills:
      - name: Code Review
        path: ./skills/review
    mcpServers:
      github:
        command: /usr/local/bin/github-mcp
        args: [--stdio]
        env: { GITHUB_TOKEN: \"${GITHUB_TOKEN}\" }
    hooks:
      BeforeTool:
        - command: ./hooks/check.sh
          matcher: run_shell_command
"
    .to_owned()
}

#[test]
fn render_writes_gemini_files_from_data() {
    let mut env = TestEnv::new();
    gemini_world_data(&mut env);
    env.write_config(&config(&env));
    let outcome = env.run(&["config", "render", "kiro"]);
    outcome.assert_success();
    let home = home(&env);
    let read = |name: &str| std::fs::read_to_string(home.join(name)).expect(name);
    assert_eq!(
        read(".gemini/settings.json"),
        r#"{
  "general": {
    "enableAutoUpdate": false,
    "enableAutoUpdateNotification": false,
    "sessionRetention": {
      "enabled": false
    }
  },
  "ui": {
    "theme": "Dracula"
  },
  "security": {
    "folderTrust": {
      "enabled": true
    }
  },
  "hooksConfig": {
    "enabled": true
  },
  "hooks": {
    "BeforeTool": [
      {
        "matcher": "run_shell_command",
        "hooks": [
          {
            "type": "command",
            "command": "./hooks/check.sh"
          }
        ]
      }
    ]
  },
  "mcpServers": {
    "github": {
      "command": "/usr/local/bin/github-mcp",
      "args": [
        "--stdio"
      ],
      "env": {
        "GITHUB_TOKEN": "${GITHUB_TOKEN}"
      }
    }
  }
}
"#
    );
    assert_eq!(read(".gemini/GEMINI.md"), "Be brief.\n");
    assert_eq!(
        read(".gemini/skills/Code Review/SKILL.md"),
        "# Review\nLook closely.\n"
    );
    // Not trusted by the user: the project is marked so (Gemini asks
    // nothing and skips what it would skip in an untrusted folder).
    assert_eq!(
        read(".gemini/trustedFolders.json"),
        format!(
            "{{\n  \"{}\": \"DO_NOT_TRUST\"\n}}\n",
            env.project.display()
        )
    );
    assert!(
        !home.join("agents").exists(),
        "no agent file for this world"
    );
    assert_eq!(
        outcome.stderr.matches("as untrusted").count(),
        1,
        "warned once: {}",
        outcome.describe()
    );
    assert!(
        outcome
            .stderr
            .contains("`adapters.kiro.configContent.general.enableAutoUpdate` is set by oneworks"),
        "{}",
        outcome.describe()
    );

    // Without the prompt, GEMINI.md is emptied (Gemini reads it by itself);
    // without the skill, its folder goes.
    env.write_config("adapters:\n  kiro:\n    cli:\n      source: system\n");
    env.run(&["config", "render", "kiro"]).assert_success();
    assert_eq!(read(".gemini/GEMINI.md"), "");
    assert!(!home.join(".gemini/skills/Code Review").exists());
}

#[test]
fn secrets_never_reach_gemini_files() {
    let mut env = TestEnv::new();
    gemini_world_data(&mut env);
    env.set_env("GEMINI_API_KEY", SECRET);
    env.write_config(&format!(
        "adapters:\n  kiro:\n    systemPrompt: \"Never say {SECRET}.\"\n    hooks:\n      BeforeTool:\n        - command: echo {SECRET}\n"
    ));
    env.run(&["config", "render", "kiro"]).assert_success();
    let files = snapshot(&home(&env));
    assert!(files.contains_key(Path::new(".gemini/settings.json")));
    for (relative, contents) in files {
        let text = String::from_utf8_lossy(&contents);
        assert!(!text.contains(SECRET), "{}: {text}", relative.display());
    }
}

#[test]
fn a_gemini_key_in_config_content_is_refused_and_nothing_is_written() {
    let mut env = TestEnv::new();
    gemini_world_data(&mut env);
    env.write_config(
        "adapters:\n  kiro:\n    configContent:\n      model:\n        apiKey: AIzaSyA1234567890abcdefghijklmnopqrstuv\n",
    );
    let outcome = env.run(&["config", "render", "kiro"]);
    outcome.assert_code(3);
    outcome.assert_text_lacks("AIzaSyA1234567890");
    assert!(
        !env.project.join(".oneworks/sessions").exists(),
        "nothing written"
    );
}

#[test]
fn a_symlinked_gemini_folder_is_refused_and_its_target_survives() {
    let mut env = TestEnv::new();
    gemini_world_data(&mut env);
    env.write_config("adapters:\n  kiro:\n    systemPrompt: hi\n");
    let target = env.outside.join("real-gemini");
    std::fs::create_dir_all(&target).expect("mkdir");
    std::fs::write(target.join("settings.json"), "{\"mine\": true}\n").expect("write");
    let before = snapshot(&env.outside);
    std::fs::create_dir_all(home(&env)).expect("mkdir home");
    std::os::unix::fs::symlink(&target, home(&env).join(".gemini")).expect("symlink");
    let outcome = env.run(&["config", "render", "kiro"]);
    outcome.assert_code(6);
    outcome.assert_stderr_contains("symbolic link");
    assert_eq!(
        snapshot(&env.outside),
        before,
        "the link's target is untouched"
    );
}

#[test]
fn a_login_method_gemini_wrote_survives_the_next_render() {
    let mut env = TestEnv::new();
    gemini_world_data(&mut env);
    env.write_config("adapters:\n  kiro:\n    systemPrompt: hi\n");
    env.run(&["config", "render", "kiro"]).assert_success();
    let settings = home(&env).join(".gemini/settings.json");
    // What Gemini's sign-in dialog does to the file.
    let mut document: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&settings).expect("settings")).expect("json");
    document["security"]["auth"] = serde_json::json!({"selectedType": "oauth-personal"});
    document["ui"] = serde_json::json!({"theme": "agent-chose-this"});
    std::fs::write(&settings, document.to_string()).expect("write");

    env.run(&["config", "render", "kiro"]).assert_success();
    let after: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&settings).expect("settings")).expect("json");
    assert_eq!(after["security"]["auth"]["selectedType"], "oauth-personal");
    assert_eq!(
        after["ui"],
        serde_json::Value::Null,
        "only the login is kept"
    );

    // The config's own method decides over the agent's.
    env.write_config("adapters:\n  kiro:\n    auth:\n      method: gemini-api-key\n");
    env.run(&["config", "render", "kiro"]).assert_success();
    let after: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&settings).expect("settings")).expect("json");
    assert_eq!(after["security"]["auth"]["selectedType"], "gemini-api-key");
}

#[test]
fn a_linked_settings_file_is_neither_read_nor_written_through() {
    let mut env = TestEnv::new();
    gemini_world_data(&mut env);
    env.write_config("adapters:\n  kiro:\n    systemPrompt: hi\n");
    let target = env.outside.join("user-settings.json");
    std::fs::write(
        &target,
        "{\"security\": {\"auth\": {\"selectedType\": \"from-outside\"}}}\n",
    )
    .expect("write");
    let before = snapshot(&env.outside);
    let gemini = home(&env).join(".gemini");
    std::fs::create_dir_all(&gemini).expect("mkdir");
    std::os::unix::fs::symlink(&target, gemini.join("settings.json")).expect("symlink");
    let outcome = env.run(&["config", "render", "kiro"]);
    outcome.assert_code(6);
    assert_eq!(
        snapshot(&env.outside),
        before,
        "the link's target is untouched"
    );
}
