//! Whole-world tests of [`super::plan`]: Kiro's files byte for byte (the
//! snapshot was taken before the world became data, and must not move),
//! Gemini's world from its data file, and hostile input.

#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};

use super::mcp::Target;
use super::scrub::scrub_lines;
use super::sections::front_matter;
use super::*;
use crate::adapter::data::AdapterData;
use crate::config::AdapterConfig;
use serde_json::Value;

/// A config touching every part of Kiro's world.
fn kiro_config(skills: &Path) -> AdapterConfig {
    for (dir, body) in [
        ("review", "# Review\nLook closely.\n"),
        ("evil", "# Evil\n"),
    ] {
        std::fs::create_dir_all(skills.join(dir)).expect("mkdir skill");
        std::fs::write(skills.join(dir).join("SKILL.md"), body).expect("write skill");
    }
    let yaml = format!(
        "configContent:
  telemetry:
    enabled: false
  chat.defaultModel: claude
  chat:
    defaultAgent: oneworks
agentConfig:
  name: not-oneworks
  includeMcpJson: true
  description: Team agent
  tools: [read, write]
  resources: [\"file://docs/a.md\"]
  mcpServers: {{ evil: {{ command: x }} }}
systemPrompt: |
  Be brief.

  Use the long-secret-value never.
skills:
  - name: Code Review
    path: {review}
  - name: ../evil
    path: {evil}
mcpServers:
  github:
    command: /usr/local/bin/github-mcp
    args: [--stdio]
    env: {{ GITHUB_TOKEN: \"${{GITHUB_TOKEN}}\" }}
  docs:
    url: https://example.com/mcp
    transport: http
    headers: {{ X-Team: core }}
hooks:
  preToolUse:
    - command: ./hooks/check.sh
      matcher: shell
  stop:
    - command: notify
",
        review = skills.join("review").display(),
        evil = skills.join("evil").display(),
    );
    serde_yaml_ng::from_str(&yaml).expect("config")
}

/// Every file of `plan` as written (scrubbed), its skill folders and notes.
fn describe(plan: &WorldPlan, scrubber: &Scrubber) -> String {
    let mut text = String::new();
    for file in plan.scrubbed(scrubber).expect("scrubbed") {
        text.push_str(&format!("--- {}\n{}", file.relative.display(), file.text));
    }
    text.push_str(&format!("skill dirs: {:?}\n", plan.skill_dirs));
    for note in &plan.diagnostics {
        text.push_str(&format!("note: {note}\n"));
    }
    text
}

#[test]
fn kiro_world_is_byte_identical() {
    let temp = tempfile::tempdir().expect("tempdir");
    let config = kiro_config(temp.path());
    let data = AdapterData::builtin().expect("data");
    let scrubber = Scrubber::new(
        vec![(
            "AWS_SECRET_ACCESS_KEY".to_owned(),
            "long-secret-value".to_owned(),
        )],
        &data.credentials,
    );
    let mut all = String::new();
    for (label, target) in [
        ("render", Target::Render),
        (
            "tui",
            Target::Tui {
                remote_supported: false,
            },
        ),
        (
            "tui with remote",
            Target::Tui {
                remote_supported: true,
            },
        ),
        ("acp", Target::Acp),
    ] {
        let plan = plan(&config, &data, Path::new("/k"), target).expect("plan");
        all.push_str(&format!("=== {label}\n{}", describe(&plan, &scrubber)));
    }
    insta::assert_snapshot!(all);
}

#[test]
fn steering_file_bytes() {
    assert_eq!(
        prompt_text(&front_matter(Some("inclusion: always")), "Be brief.\n\n"),
        "---\ninclusion: always\n---\n\nBe brief.\n"
    );
}

#[test]
fn plan_has_settings_agent_steering_and_skills() {
    let temp = tempfile::tempdir().expect("tempdir");
    let skill = temp.path().join("review");
    std::fs::create_dir(&skill).expect("mkdir");
    std::fs::write(skill.join("SKILL.md"), "# Review\n").expect("write");
    let yaml = format!(
        "configContent:\n  telemetry:\n    enabled: false\nsystemPrompt: Be brief.\nskills:\n  - name: Code Review\n    path: {}\nhooks:\n  preToolUse:\n    - command: ./hooks/check.sh\n      matcher: shell\n",
        skill.display()
    );
    let kiro: AdapterConfig = serde_yaml_ng::from_str(&yaml).expect("config");
    let data = AdapterData::builtin().expect("data");
    let plan = plan(&kiro, &data, Path::new("/k"), Target::Render).expect("plan");
    let file = |name: &str| {
        plan.files
            .iter()
            .find(|file| file.relative == Path::new(name))
            .map(|file| file.contents.render().expect("rendered"))
            .unwrap_or_else(|| panic!("{name} planned"))
    };
    assert_eq!(
        file("settings/cli.json"),
        "{\n  \"telemetry.enabled\": false\n}\n"
    );
    assert_eq!(
        file("steering/oneworks-system.md"),
        "---\ninclusion: always\n---\n\nBe brief.\n"
    );
    assert_eq!(file("skills/Code Review/SKILL.md"), "# Review\n");
    let agent: Value = serde_json::from_str(&file("agents/oneworks.json")).expect("agent json");
    assert_eq!(agent["name"], "oneworks");
    assert_eq!(agent["includeMcpJson"], false);
    assert_eq!(
        agent["resources"][0],
        "file:///k/steering/oneworks-system.md"
    );
    assert_eq!(
        agent["resources"][1],
        "skill:///k/skills/Code Review/SKILL.md"
    );
    assert_eq!(agent["hooks"]["preToolUse"][0]["matcher"], "shell");
}

#[test]
fn text_files_are_scrubbed_line_by_line() {
    let data = AdapterData::builtin().expect("data");
    // A short secret takes a string equal to it: here, one line.
    let scrubber = Scrubber::new(
        vec![
            ("KIRO_API_KEY".to_owned(), "hunter2".to_owned()),
            (
                "AWS_SECRET_ACCESS_KEY".to_owned(),
                "long-secret-value".to_owned(),
            ),
        ],
        &data.credentials,
    );
    let plan = WorldPlan {
        generated: Generated {
            steering_file: Some(PathBuf::from("steering/x.md")),
            front_matter: front_matter(Some("inclusion: always")),
            ..Generated::default()
        },
        files: vec![
            PlannedFile {
                relative: PathBuf::from("steering/x.md"),
                contents: Contents::Text(prompt_text(
                    &front_matter(Some("inclusion: always")),
                    "Intro.\r\nhunter2\nUse long-secret-value.\nOutro.",
                )),
            },
            PlannedFile {
                relative: PathBuf::from("settings/cli.json"),
                contents: Contents::Text("{\"description\": \"hunter2\"}".to_owned()),
            },
        ],
        ..WorldPlan::default()
    };
    let scrubbed = plan.scrubbed(&scrubber).expect("scrubbed");
    assert_eq!(
        scrubbed[0].text,
        "---\ninclusion: always\n---\n\nIntro.\r\n[redacted]\nUse [redacted].\nOutro.\n"
    );
    assert_eq!(scrubbed[1].text, "{\"description\":\"[redacted]\"}\n");
}

#[test]
fn short_credentials_never_scrub_what_oneworks_generates() {
    let temp = tempfile::tempdir().expect("tempdir");
    let skill = temp.path().join("e");
    std::fs::create_dir(&skill).expect("mkdir");
    std::fs::write(skill.join("SKILL.md"), "e\n").expect("write");
    let yaml = format!(
        "systemPrompt: \"on\"\nagentConfig:\n  description: on\nskills:\n  - name: e\n    path: {}\n",
        skill.display()
    );
    let kiro: AdapterConfig = serde_yaml_ng::from_str(&yaml).expect("config");
    let data = AdapterData::builtin().expect("data");
    let home = Path::new("/e");
    let plan = plan(&kiro, &data, home, Target::Render).expect("plan");
    for value in ["on", "e"] {
        let scrubber = Scrubber::new(
            vec![("AWS_SESSION_TOKEN".to_owned(), value.to_owned())],
            &data.credentials,
        );
        let files = plan.scrubbed(&scrubber).expect("scrubbed");
        let file = |name: &str| {
            files
                .iter()
                .find(|file| file.relative == Path::new(name))
                .map(|file| file.text.clone())
                .unwrap_or_else(|| panic!("{name} planned"))
        };
        let agent: Value = serde_json::from_str(&file("agents/oneworks.json")).expect("agent json");
        assert_eq!(agent["name"], "oneworks", "{value}");
        assert_eq!(agent["includeMcpJson"], false, "{value}");
        assert_eq!(
            agent["resources"],
            serde_json::json!([
                "file:///e/steering/oneworks-system.md",
                "skill:///e/skills/e/SKILL.md"
            ]),
            "{value}"
        );
        let steering = file("steering/oneworks-system.md");
        assert!(
            steering.starts_with("---\ninclusion: always\n---\n\n"),
            "{steering}"
        );
        let expected_description = if value == "on" { "[redacted]" } else { "on" };
        assert_eq!(agent["description"], expected_description, "{value}");
    }
}

#[test]
fn a_secret_spanning_lines_is_still_removed() {
    let data = AdapterData::builtin().expect("data");
    let scrubber = Scrubber::new(
        vec![(
            "KIRO_API_KEY".to_owned(),
            "first-half\nsecond-half".to_owned(),
        )],
        &data.credentials,
    );
    let text = scrub_lines(&scrubber, "a\nkey first-half\nsecond-half end\nb\n");
    assert!(!scrubber.contains_secret(&text), "{text}");
    assert_eq!(text, "a\nkey [redacted] end\nb\n");
}

#[test]
fn missing_skill_file_is_a_config_error() {
    let kiro: AdapterConfig =
        serde_yaml_ng::from_str("skills:\n  - name: x\n    path: /nonexistent/skill\n")
            .expect("config");
    let data = AdapterData::builtin().expect("data");
    let error = plan(&kiro, &data, Path::new("/k"), Target::Render).unwrap_err();
    assert!(error.to_string().contains("skills[0].path"), "{error}");
}
