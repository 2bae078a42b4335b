//! Materializing a session's Kiro world from `config.yaml` (SPEC §5):
//! `settings/cli.json`, `agents/oneworks.json`, the always-included steering
//! file, staged skills (read by `skill_source` without following links),
//! MCP servers and hooks. A [`Plan`] is computed first (reading skill
//! sources, writing nothing), then written — every file scrubbed and
//! written atomically — or printed for `--dry-run`. ACP runs get their MCP
//! servers from [`acp_mcp::acp_mcp_servers`] after `initialize`, not from
//! the plan.

pub mod acp_mcp;
pub mod agent;
pub mod cli_json;
pub mod mcp;
pub mod skill_source;
pub mod skills;

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use self::mcp::Target;
use super::layout::ProfileLayout;
use super::{io_error, ProfileError};
use crate::adapter::data::AdapterData;
use crate::config::AdapterConfig;
use crate::fs_safety;
use crate::redact::Scrubber;

/// One file to write, relative to `KIRO_HOME`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedFile {
    pub relative: PathBuf,
    pub contents: String,
}

/// Everything a session gets, before it is written.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub files: Vec<PlannedFile>,
    /// Skill folder names under `skills/` (the folder is oneworks-owned).
    pub skill_dirs: Vec<String>,
    pub diagnostics: Vec<String>,
    /// What oneworks itself generates, which scrubbing never takes away
    /// (SPEC §6.2): the agent file, its name and resource URIs, and the
    /// steering file whose front matter is ours.
    pub generated: Generated,
}

#[derive(Debug, Clone, Default)]
pub struct Generated {
    pub agent_file: PathBuf,
    pub agent_name: String,
    pub resources: Vec<String>,
    pub steering_file: Option<PathBuf>,
}

/// The steering file's front matter (oneworks-generated).
const STEERING_FRONT_MATTER: &str = "---\ninclusion: always\n---\n\n";

/// The steering file's exact bytes for a system prompt.
pub fn steering_text(prompt: &str) -> String {
    let mut text = format!("{STEERING_FRONT_MATTER}{}", prompt.trim_end_matches('\n'));
    text.push('\n');
    text
}

fn to_json(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_else(|_| "{}".to_owned());
    text.push('\n');
    text
}

/// Computes what `agent_home` should hold for `target`.
pub fn plan(
    kiro: &AdapterConfig,
    data: &AdapterData,
    agent_home: &Path,
    target: Target,
) -> Result<Plan, ProfileError> {
    let session = &data.session;
    let mut plan = Plan::default();

    let settings = match &kiro.config_content {
        Some(content) => cli_json::flatten(content)?,
        None => Map::new(),
    };
    plan.files.push(PlannedFile {
        relative: PathBuf::from(&session.settings_file),
        contents: to_json(&Value::Object(settings)),
    });

    let mut resources = Vec::new();
    if let Some(prompt) = kiro
        .system_prompt
        .as_deref()
        .filter(|prompt| !prompt.trim().is_empty())
    {
        let relative = Path::new(&session.steering_dir).join(&session.steering_file);
        resources.push(format!("file://{}", agent_home.join(&relative).display()));
        plan.generated.steering_file = Some(relative.clone());
        plan.files.push(PlannedFile {
            relative,
            contents: steering_text(prompt),
        });
    }

    let names = skills::assign_dir_names(kiro.skills.iter().map(|skill| skill.name.as_str()));
    for (index, (skill, dir)) in kiro.skills.iter().zip(&names).enumerate() {
        let relative = Path::new(&session.skills_dir).join(dir).join("SKILL.md");
        resources.push(format!("skill://{}", agent_home.join(&relative).display()));
        plan.files.push(PlannedFile {
            relative,
            contents: skill_source::read_skill(index, skill, &data.credentials)?,
        });
    }
    plan.skill_dirs = names;

    let mut hooks = Map::new();
    for (trigger, entries) in &kiro.hooks {
        let entries = serde_json::to_value(entries).unwrap_or(Value::Array(Vec::new()));
        hooks.insert(trigger.clone(), entries);
    }

    let placement = mcp::place(&kiro.mcp_servers, target);
    plan.diagnostics.extend(placement.diagnostics);

    let agent = agent::build(agent::AgentInputs {
        name: &session.agent_name,
        resources: resources.clone(),
        hooks,
        mcp_servers: placement.agent,
        agent_config: kiro.agent_config.as_ref(),
    });
    let agent_file = Path::new(&session.agents_dir).join(format!("{}.json", session.agent_name));
    plan.files.push(PlannedFile {
        relative: agent_file.clone(),
        contents: to_json(&agent),
    });
    plan.generated = Generated {
        agent_file,
        agent_name: session.agent_name.clone(),
        resources,
        steering_file: plan.generated.steering_file.take(),
    };
    Ok(plan)
}

impl Plan {
    /// Each file's contents as it will be written (scrubbed). JSON files
    /// are scrubbed as documents; Markdown and other text line by line, so
    /// a short secret that takes its whole string with it takes one line,
    /// never the steering file's front matter.
    pub fn scrubbed(&self, scrubber: &Scrubber) -> Vec<PlannedFile> {
        self.files
            .iter()
            .map(|file| {
                let is_json = file
                    .relative
                    .extension()
                    .is_some_and(|extension| extension == "json");
                let generated = &self.generated;
                let contents = if file.relative == generated.agent_file {
                    scrub_agent(scrubber, &file.contents, generated)
                } else if is_json {
                    let mut text = scrubber.scrub_json_text(&file.contents);
                    if !text.ends_with('\n') {
                        text.push('\n');
                    }
                    text
                } else if Some(&file.relative) == generated.steering_file.as_ref() {
                    match file.contents.strip_prefix(STEERING_FRONT_MATTER) {
                        Some(body) => {
                            format!("{STEERING_FRONT_MATTER}{}", scrub_lines(scrubber, body))
                        }
                        None => scrub_lines(scrubber, &file.contents),
                    }
                } else {
                    scrub_lines(scrubber, &file.contents)
                };
                PlannedFile {
                    relative: file.relative.clone(),
                    contents,
                }
            })
            .collect()
    }

    /// Writes the plan into the session's `KIRO_HOME`: folders created
    /// without following links, files scrubbed and written atomically,
    /// skill folders no longer configured removed.
    pub fn write(
        &self,
        layout: &ProfileLayout,
        data: &AdapterData,
        scrubber: &Scrubber,
    ) -> Result<(), ProfileError> {
        layout.ensure()?;
        let home = &layout.agent_home;
        for file in self.scrubbed(scrubber) {
            let target = home.join(&file.relative);
            // One no-follow walk from the project down to the file: a
            // folder swapped for a link after a check cannot redirect it.
            fs_safety::write_beneath(
                &layout.project,
                &target,
                file.contents.as_bytes(),
                0o600,
                0o700,
            )?;
        }
        self.remove_stale_skills(layout, &home.join(&data.session.skills_dir))
    }

    /// Removes the entries of `skills` (oneworks-owned) that no configured
    /// skill uses. The folder is checked (and created) without following
    /// links first: listing a linked `skills` would delete whatever it
    /// points at. Only plain folders and files are removed; a link or
    /// special entry inside is refused, not followed or deleted.
    fn remove_stale_skills(
        &self,
        layout: &ProfileLayout,
        skills: &Path,
    ) -> Result<(), ProfileError> {
        // Listed and removed relative to the folder opened without
        // following links: a `skills` swapped for a link after the open
        // cannot point the removal elsewhere.
        let dir = fs_safety::open_dir_path_beneath(&layout.project, skills, 0o700)?;
        let mut stale = Vec::new();
        for (name, kind) in fs_safety::list_dir(&dir).map_err(io_error("list", skills))? {
            if self.skill_dirs.iter().any(|kept| name == kept.as_str()) {
                continue;
            }
            let path = skills.join(&name);
            match kind {
                "directory" | "regular file" => stale.push((name, path)),
                "symbolic link" => {
                    return Err(ProfileError::Unsafe(fs_safety::UnsafePath::Symlink {
                        path,
                    }))
                }
                found => {
                    return Err(ProfileError::Unsafe(fs_safety::UnsafePath::WrongType {
                        path,
                        found,
                        expected: "skill folder",
                    }))
                }
            }
        }
        for (name, path) in stale {
            fs_safety::remove_tree_at(&dir, &name, &path)?;
        }
        Ok(())
    }
}

/// The agent file scrubbed as JSON, then what oneworks generated put back:
/// `name`, `includeMcpJson` and its own resource URIs are never scrubbed
/// away (a short credential equal to a word must not rename the agent).
fn scrub_agent(scrubber: &Scrubber, text: &str, generated: &Generated) -> String {
    let Ok(original) = serde_json::from_str::<Value>(text) else {
        return scrubber.scrub_json_text(text);
    };
    let mut agent = original.clone();
    scrubber.scrub_json(&mut agent);
    if let Value::Object(map) = &mut agent {
        map.insert(
            "name".to_owned(),
            Value::String(generated.agent_name.clone()),
        );
        map.insert("includeMcpJson".to_owned(), Value::Bool(false));
        if let (Some(Value::Array(before)), Some(Value::Array(after))) =
            (original.get("resources"), map.get_mut("resources"))
        {
            // Scrubbing replaces strings, never removes array items.
            for (kept, scrubbed) in before.iter().zip(after.iter_mut()) {
                if kept
                    .as_str()
                    .is_some_and(|uri| generated.resources.iter().any(|own| own == uri))
                {
                    *scrubbed = kept.clone();
                }
            }
        }
    }
    to_json(&agent)
}

/// `text` scrubbed one line at a time, line endings kept. A secret that
/// spans lines (a multi-line value) is not seen line by line: then the
/// text is scrubbed as a whole.
fn scrub_lines(scrubber: &Scrubber, text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        out.push_str(&scrubber.scrub_str(body));
        out.push_str(&line[body.len()..]);
    }
    if scrubber.contains_secret(&out) {
        return scrubber.scrub_str(text).into_owned();
    }
    out
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn steering_file_bytes() {
        assert_eq!(
            steering_text("Be brief.\n\n"),
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
                .map(|file| file.contents.clone())
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
        let plan = Plan {
            files: vec![
                PlannedFile {
                    relative: PathBuf::from("steering/x.md"),
                    contents: steering_text("Intro.\r\nhunter2\nUse long-secret-value.\nOutro."),
                },
                PlannedFile {
                    relative: PathBuf::from("settings/cli.json"),
                    contents: "{\"description\": \"hunter2\"}".to_owned(),
                },
            ],
            ..Plan::default()
        };
        let scrubbed = plan.scrubbed(&scrubber);
        assert_eq!(
            scrubbed[0].contents,
            "---\ninclusion: always\n---\n\nIntro.\r\n[redacted]\nUse [redacted].\nOutro.\n"
        );
        assert_eq!(scrubbed[1].contents, "{\"description\":\"[redacted]\"}\n");
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
            let files = plan.scrubbed(&scrubber);
            let file = |name: &str| {
                files
                    .iter()
                    .find(|file| file.relative == Path::new(name))
                    .map(|file| file.contents.clone())
                    .unwrap_or_else(|| panic!("{name} planned"))
            };
            let agent: Value =
                serde_json::from_str(&file("agents/oneworks.json")).expect("agent json");
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
}

#[cfg(test)]
mod world_tests;
