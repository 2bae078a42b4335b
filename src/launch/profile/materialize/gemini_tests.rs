//! Gemini's world from its data file: `settings.json` with
//! forced keys, the login method, MCP servers and hooks, `GEMINI.md`,
//! skills gated by version, folder trust — and hostile input.

#![allow(clippy::disallowed_methods)]

use std::path::Path;

use serde_json::{json, Value};

use super::mcp::Target;
use super::*;
use crate::adapter::data::AdapterData;
use crate::config::AdapterConfig;
use crate::env_options::environment::Environment;

const GEMINI: &str = include_str!("../../../../manifests/gemini.yaml");
const API_KEY: &str = "AIzaSy-test-gemini-key-0123456789";

/// Gemini's data: its `session:` and `credentials:` sections over the
/// built-in data (the rest of gemini.yaml is filled in by other changes;
/// switch to `AdapterData::parse_named` once the registry lists gemini).
fn gemini_data() -> AdapterData {
    let document: serde_yaml_ng::Value = serde_yaml_ng::from_str(GEMINI).expect("gemini.yaml");
    let mut data = AdapterData::builtin().expect("data");
    data.id = document["id"].as_str().expect("id").to_owned();
    data.display_name = document["displayName"].as_str().expect("name").to_owned();
    data.session =
        serde_yaml_ng::from_value(document["session"].clone()).expect("gemini session data");
    let mut credentials = document["credentials"].clone();
    if let serde_yaml_ng::Value::Mapping(map) = &mut credentials {
        map.remove("passThrough");
    }
    data.credentials = serde_yaml_ng::from_value(credentials).expect("gemini credentials");
    data
}

fn config(yaml: &str) -> AdapterConfig {
    serde_yaml_ng::from_str(yaml).expect("config")
}

fn file(plan: &[RenderedFile], name: &str) -> String {
    plan.iter()
        .find(|file| file.relative == Path::new(name))
        .map(|file| file.text.clone())
        .unwrap_or_else(|| panic!("{name} planned: {plan:?}"))
}

fn json_file(plan: &[RenderedFile], name: &str) -> Value {
    serde_json::from_str(&file(plan, name)).expect("json")
}

fn scrubber(data: &AdapterData) -> Scrubber {
    Scrubber::new(
        vec![("GEMINI_API_KEY".to_owned(), API_KEY.to_owned())],
        &data.credentials,
    )
}

fn full_config(skills: &Path) -> AdapterConfig {
    std::fs::create_dir_all(skills.join("review")).expect("mkdir");
    std::fs::write(skills.join("review/SKILL.md"), "# Review\n").expect("write");
    config(&format!(
        "configContent:
  general:
    enableAutoUpdate: true
    vimMode: true
  ui.theme: Dracula
  model:
    name: gemini-2.5-flash
systemPrompt: Be brief.
skills:
  - name: Code Review
    path: {}
mcpServers:
  github:
    command: /usr/local/bin/github-mcp
    args: [--stdio]
    env: {{ GITHUB_TOKEN: \"${{GITHUB_TOKEN}}\" }}
  docs:
    url: https://example.com/mcp
    transport: http
    headers: {{ X-Team: core }}
  stream:
    url: https://example.com/sse
    transport: sse
hooks:
  BeforeTool:
    - command: ./hooks/check.sh
      matcher: run_shell_command
trustWorkspace: true
",
        skills.join("review").display()
    ))
}

#[test]
fn gemini_world_from_its_data() {
    let temp = tempfile::tempdir().expect("tempdir");
    let data = gemini_data();
    let env = Environment::from_pairs([("GEMINI_API_KEY", API_KEY)]);
    let context = Context::new(
        Path::new("/p/.oneworks/sessions/s/gemini-home"),
        Target::Tui {
            remote_supported: true,
        },
    )
    .version("0.61.0")
    .project(Path::new("/p"))
    .env(&env);
    let plan = plan_in(&full_config(temp.path()), &data, &context).expect("plan");
    let files = plan.scrubbed(&scrubber(&data)).expect("scrubbed");
    let names: Vec<_> = files.iter().map(|file| file.relative.clone()).collect();
    assert_eq!(
        names,
        [
            ".gemini/settings.json",
            ".gemini/GEMINI.md",
            ".gemini/skills/Code Review/SKILL.md",
            ".gemini/trustedFolders.json"
        ]
        .map(std::path::PathBuf::from)
    );
    assert_eq!(
        json_file(&files, ".gemini/settings.json"),
        json!({
            "general": {
                "enableAutoUpdate": false,
                "vimMode": true,
                "enableAutoUpdateNotification": false,
                "sessionRetention": {"enabled": false},
            },
            "ui": {"theme": "Dracula"},
            "model": {"name": "gemini-2.5-flash"},
            "security": {"folderTrust": {"enabled": true}, "auth": {"selectedType": "gemini-api-key"}},
            "hooksConfig": {"enabled": true},
            "hooks": {
                "BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "./hooks/check.sh"}]}],
            },
            "mcpServers": {
                "docs": {"httpUrl": "https://example.com/mcp", "headers": {"X-Team": "core"}},
                "github": {"command": "/usr/local/bin/github-mcp", "args": ["--stdio"], "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}},
                "stream": {"url": "https://example.com/sse", "headers": {}},
            },
        })
    );
    assert_eq!(file(&files, ".gemini/GEMINI.md"), "Be brief.\n");
    assert_eq!(
        file(&files, ".gemini/skills/Code Review/SKILL.md"),
        "# Review\n"
    );
    assert_eq!(
        json_file(&files, ".gemini/trustedFolders.json"),
        json!({"/p": "TRUST_FOLDER"})
    );
    assert_eq!(
        plan.diagnostics,
        ["`adapters.gemini.configContent.general.enableAutoUpdate` is set by oneworks to `false`; the config's value is not used"]
    );
    for file in &files {
        assert!(!file.text.contains(API_KEY), "{file:?}");
    }
}

#[test]
fn the_method_is_written_never_the_key_and_auth_method_wins() {
    let data = gemini_data();
    let home = Path::new("/h");
    let vertex = Environment::from_pairs([
        ("GOOGLE_GENAI_USE_VERTEXAI", "true"),
        ("GEMINI_API_KEY", API_KEY),
    ]);
    let selected = |yaml: &str, env: Option<&Environment>| {
        let mut context = Context::new(home, Target::Acp);
        context.env = env;
        let plan = plan_in(&config(yaml), &data, &context).expect("plan");
        let settings = json_file(
            &plan.scrubbed(&scrubber(&data)).expect("scrubbed"),
            ".gemini/settings.json",
        );
        (
            settings["security"]["auth"]["selectedType"].clone(),
            plan.diagnostics,
        )
    };
    assert_eq!(selected("{}", Some(&vertex)).0, "vertex-ai");
    assert_eq!(selected("{}", None).0, Value::Null);
    let (method, notes) = selected(
        "auth:\n  method: oauth-personal\nconfigContent:\n  security.auth.selectedType: gemini-api-key\n",
        Some(&vertex),
    );
    assert_eq!(method, "oauth-personal");
    assert!(
        notes.iter().any(|note| note.contains("auth.method")),
        "{notes:?}"
    );
    // The config's own choice beats a variable's implication.
    let (method, notes) = selected(
        "configContent:\n  security:\n    auth:\n      selectedType: oauth-personal\n",
        Some(&vertex),
    );
    assert_eq!(method, "oauth-personal");
    assert!(
        notes.iter().all(|note| !note.contains("selectedType")),
        "{notes:?}"
    );
}

#[test]
fn without_trust_the_file_is_empty_and_the_warning_names_what_is_skipped() {
    let data = gemini_data();
    // `trustWorkspace` from a project's file never reaches here (the
    // loader keeps it from the user's file only); a configContent that
    // switches the check off is overruled.
    let yaml = "configContent:\n  security:\n    folderTrust:\n      enabled: false\n";
    let context = Context::new(Path::new("/h"), Target::Acp).project(Path::new("/p"));
    let plan = plan_in(&config(yaml), &data, &context).expect("plan");
    let files = plan.scrubbed(&scrubber(&data)).expect("scrubbed");
    assert_eq!(
        json_file(&files, ".gemini/trustedFolders.json"),
        json!({"/p": "DO_NOT_TRUST"})
    );
    assert_eq!(
        json_file(&files, ".gemini/settings.json")["security"]["folderTrust"]["enabled"],
        true
    );
    let warnings: Vec<_> = plan
        .diagnostics
        .iter()
        .filter(|note| note.contains("untrusted"))
        .collect();
    assert_eq!(warnings.len(), 1, "{:?}", plan.diagnostics);
    for skipped in ["MCP servers", "yolo and autoEdit", ".gemini/ files", "`/p`"] {
        assert!(warnings[0].contains(skipped), "{}", warnings[0]);
    }
    assert!(
        plan.diagnostics
            .iter()
            .any(|note| note.contains("security.folderTrust.enabled")),
        "{:?}",
        plan.diagnostics
    );
}

#[test]
fn an_old_version_gets_no_skills_and_a_note() {
    let temp = tempfile::tempdir().expect("tempdir");
    let data = gemini_data();
    let context = Context::new(Path::new("/h"), Target::Acp).version("0.20.1");
    let plan = plan_in(&full_config(temp.path()), &data, &context).expect("plan");
    assert!(
        plan.files
            .iter()
            .all(|file| !file.relative.starts_with(".gemini/skills")),
        "{:?}",
        plan.files
    );
    assert!(plan.skill_dirs.is_empty());
    assert!(
        plan.diagnostics
            .iter()
            .any(|note| note.contains("skills skipped") && note.contains("0.23.0")),
        "{:?}",
        plan.diagnostics
    );
}

#[test]
fn an_acp_plan_keeps_mcp_servers_out_of_settings_and_an_empty_prompt_is_written() {
    let temp = tempfile::tempdir().expect("tempdir");
    let data = gemini_data();
    let mut config = full_config(temp.path());
    config.system_prompt = None;
    let plan = plan_in(&config, &data, &Context::new(Path::new("/h"), Target::Acp)).expect("plan");
    let files = plan.scrubbed(&scrubber(&data)).expect("scrubbed");
    assert_eq!(
        json_file(&files, ".gemini/settings.json")["mcpServers"],
        Value::Null
    );
    // An earlier prompt must not linger: Gemini reads the file by itself.
    assert_eq!(file(&files, ".gemini/GEMINI.md"), "");
}

#[test]
fn the_config_cannot_plant_hooks_or_servers_through_config_content() {
    let data = gemini_data();
    let yaml = "agentConfig:\n  tools: [\"*\"]\nconfigContent:\n  hooks:\n    BeforeTool:\n      - hooks: [{type: command, command: rm -rf /}]\n  mcpServers:\n    evil: {command: /bin/evil}\n";
    let plan = plan_in(
        &config(yaml),
        &data,
        &Context::new(Path::new("/h"), Target::Acp),
    )
    .expect("plan");
    let settings = json_file(
        &plan.scrubbed(&scrubber(&data)).expect("scrubbed"),
        ".gemini/settings.json",
    );
    assert_eq!(settings["hooks"], Value::Null, "{settings}");
    assert_eq!(settings["mcpServers"], Value::Null, "{settings}");
    let unused = plan
        .diagnostics
        .iter()
        .filter(|note| note.contains("is not used"))
        .count();
    assert_eq!(unused, 3, "{:?}", plan.diagnostics);
    assert!(
        plan.diagnostics
            .iter()
            .any(|note| note.contains("`adapters.gemini.agentConfig` is not used")),
        "{:?}",
        plan.diagnostics
    );
}

#[test]
fn a_symlinked_skill_folder_is_refused() {
    let temp = tempfile::tempdir().expect("tempdir");
    let outside = temp.path().join("outside");
    std::fs::create_dir(&outside).expect("mkdir");
    std::fs::write(outside.join("SKILL.md"), "[default]\nsecret\n").expect("write");
    let project = temp.path().join("project");
    std::fs::create_dir(&project).expect("mkdir");
    std::os::unix::fs::symlink(&outside, project.join("skill")).expect("symlink");
    let mut config = config(&format!(
        "skills:\n  - name: linked\n    path: {}\n",
        project.join("skill").display()
    ));
    config.skills[0].config_dir = project.clone();
    let error = plan_in(
        &config,
        &gemini_data(),
        &Context::new(Path::new("/h"), Target::Acp),
    )
    .expect_err("a linked skill folder is refused");
    assert!(
        matches!(error, crate::launch::profile::ProfileError::Unsafe(_)),
        "{error}"
    );
}

#[test]
fn a_short_credential_never_scrubs_what_oneworks_decided() {
    let data = gemini_data();
    let env = Environment::from_pairs([("GOOGLE_GENAI_USE_VERTEXAI", "true")]);
    let context = Context::new(Path::new("/h"), Target::Acp)
        .env(&env)
        .project(Path::new("/p"));
    let mut config = config("{}");
    config.trust_workspace = true;
    let plan = plan_in(&config, &data, &context).expect("plan");
    for value in ["vertex-ai", "TRUST_FOLDER"] {
        let scrubber = Scrubber::new(
            vec![("GOOGLE_API_KEY".to_owned(), value.to_owned())],
            &data.credentials,
        );
        let files = plan.scrubbed(&scrubber).expect("scrubbed");
        let settings = json_file(&files, ".gemini/settings.json");
        assert_eq!(settings["security"]["auth"]["selectedType"], "vertex-ai");
        assert_eq!(
            json_file(&files, ".gemini/trustedFolders.json"),
            json!({"/p": "TRUST_FOLDER"})
        );
    }
}

#[test]
fn data_paths_must_stay_inside_the_home() {
    let mut data = gemini_data();
    data.session.settings.path = "../escape.json".to_owned();
    let error = plan_in(
        &config("{}"),
        &data,
        &Context::new(Path::new("/h"), Target::Acp),
    )
    .expect_err("an escaping data path is refused");
    assert!(
        error.to_string().contains("session.settings.path"),
        "{error}"
    );
}

#[test]
fn extra_files_are_written_as_they_are_and_stay_inside_the_home() {
    let mut data = gemini_data();
    data.session.extra_files = vec![crate::adapter::session_data::ExtraFile {
        path: ".gemini/.oneworks-note".to_owned(),
        contents: "written by oneworks\n".to_owned(),
    }];
    let plan = plan_in(
        &config("{}"),
        &data,
        &Context::new(Path::new("/h"), Target::Acp),
    )
    .expect("plan");
    assert_eq!(
        file(
            &plan.scrubbed(&scrubber(&data)).expect("scrubbed"),
            ".gemini/.oneworks-note"
        ),
        "written by oneworks\n"
    );
    for hostile in ["/etc/passwd", ".gemini/../../x", ""] {
        data.session.extra_files[0].path = hostile.to_owned();
        let error = plan_in(
            &config("{}"),
            &data,
            &Context::new(Path::new("/h"), Target::Acp),
        )
        .expect_err("refused");
        assert!(error.to_string().contains("extraFiles[0].path"), "{error}");
    }
}

#[test]
fn an_agent_name_that_is_a_path_is_refused() {
    let mut data = AdapterData::builtin().expect("data");
    for hostile in ["../../escape", ""] {
        data.session.agent_name = hostile.to_owned();
        let error = plan_in(
            &config("{}"),
            &data,
            &Context::new(Path::new("/h"), Target::Acp),
        )
        .expect_err("refused");
        assert!(error.to_string().contains("agentName"), "{error}");
    }
}
