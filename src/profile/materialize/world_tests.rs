//! Whole-world tests of [`super::plan`]: Kiro's files byte for byte (the
//! snapshot was taken before the world became data, and must not move),
//! Gemini's world from its data file, and hostile input.

#![allow(clippy::disallowed_methods)]

use std::path::Path;

use super::mcp::Target;
use super::*;

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
fn describe(plan: &Plan, scrubber: &Scrubber) -> String {
    let mut text = String::new();
    for file in plan.scrubbed(scrubber) {
        text.push_str(&format!(
            "--- {}\n{}",
            file.relative.display(),
            file.contents
        ));
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
