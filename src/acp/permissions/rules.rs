//! Remembered permission rules: "allow/deny this tool for this session"
//! (in memory, for this run) or "for this project" (in
//! `<project>/.oneworks/permissions.json`). A tool is the request's
//! `toolCall.kind` and title together, so a rule never covers more than the
//! call the user saw. The project file is written atomically, scrubbed, and
//! never through a symlink; a broken file is reported and ignored (rules
//! only ever narrow what is asked, so ignoring them fails safe).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::ToolKey;
use crate::redact::Scrubber;

pub const PROJECT_FILE: &str = "permissions.json";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleScope {
    Session,
    Project,
}

impl RuleScope {
    pub fn name(self) -> &'static str {
        match self {
            RuleScope::Session => "session",
            RuleScope::Project => "project",
        }
    }
}

/// A rule that matched a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Remembered {
    pub allow: bool,
    pub scope: RuleScope,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rule {
    tool: ToolKey,
    allow: bool,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProjectFile {
    version: u32,
    rules: Vec<Rule>,
}

#[derive(Debug, Default)]
pub struct Rules {
    session: Vec<Rule>,
    project: Vec<Rule>,
    /// `<project>/.oneworks/`, when the project has one.
    dot_dir: Option<PathBuf>,
}

impl Rules {
    /// Loads the project's rules. Returns notes for the user when the file
    /// could not be used.
    pub fn load(dot_dir: Option<PathBuf>) -> (Self, Vec<String>) {
        let mut notes = Vec::new();
        let mut project = Vec::new();
        if let Some(dir) = &dot_dir {
            let path = dir.join(PROJECT_FILE);
            match read(&path) {
                Ok(Some(file)) => project = file.rules,
                Ok(None) => {}
                Err(message) => notes.push(message),
            }
        }
        (
            Self {
                session: Vec::new(),
                project,
                dot_dir,
            },
            notes,
        )
    }

    pub fn lookup(&self, tool: &ToolKey) -> Option<Remembered> {
        let found = |rules: &[Rule], scope| {
            rules
                .iter()
                .rev()
                .find(|rule| &rule.tool == tool)
                .map(|rule| Remembered {
                    allow: rule.allow,
                    scope,
                })
        };
        found(&self.session, RuleScope::Session)
            .or_else(|| found(&self.project, RuleScope::Project))
    }

    /// Remembers a rule; a project rule is also saved. Returns a note when
    /// it could only be kept for this run.
    pub fn remember(
        &mut self,
        tool: ToolKey,
        allow: bool,
        scope: RuleScope,
        scrubber: &Scrubber,
    ) -> Option<String> {
        let rule = Rule { tool, allow };
        self.session.retain(|old| old.tool != rule.tool);
        if scope == RuleScope::Session {
            self.session.push(rule);
            return None;
        }
        self.project.retain(|old| old.tool != rule.tool);
        self.project.push(rule.clone());
        let Some(dir) = &self.dot_dir else {
            self.session.push(rule);
            return Some(
                "this folder has no `.oneworks/`: the project rule is kept for this run only"
                    .to_owned(),
            );
        };
        let file = ProjectFile {
            version: 1,
            rules: self.project.clone(),
        };
        match write(&dir.join(PROJECT_FILE), &file, scrubber) {
            Ok(()) => None,
            Err(message) => {
                self.session.push(rule);
                Some(format!("{message}; the rule is kept for this run only"))
            }
        }
    }
}

fn refuse_link(path: &Path) -> Result<(), String> {
    match fs_err::symlink_metadata(path) {
        Ok(metadata) if !metadata.file_type().is_file() => Err(format!(
            "`{}` is not a regular file; permission rules there are ignored",
            path.display()
        )),
        _ => Ok(()),
    }
}

fn read(path: &Path) -> Result<Option<ProjectFile>, String> {
    if fs_err::symlink_metadata(path).is_err() {
        return Ok(None);
    }
    refuse_link(path)?;
    let text = fs_err::read_to_string(path).map_err(|error| error.to_string())?;
    serde_json::from_str(&text).map(Some).map_err(|error| {
        format!(
            "`{}` is not a valid rules file ({error}); its rules are ignored",
            path.display()
        )
    })
}

fn write(path: &Path, file: &ProjectFile, scrubber: &Scrubber) -> Result<(), String> {
    refuse_link(path)?;
    if let Some(dir) = path.parent() {
        if fs_err::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(format!("`{}` is a symbolic link", dir.display()));
        }
    }
    let mut value = serde_json::to_value(file).map_err(|error| error.to_string())?;
    scrubber.scrub_json(&mut value);
    let mut text = serde_json::to_string_pretty(&value).map_err(|error| error.to_string())?;
    text.push('\n');
    crate::fs_safety::atomic_write(path, text.as_bytes(), 0o644)
        .map_err(|error| format!("failed to write `{}`: {error}", path.display()))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    fn key(title: &str) -> ToolKey {
        ToolKey {
            kind: Some("edit".into()),
            title: title.into(),
        }
    }

    #[test]
    fn project_rules_survive_a_reload_and_session_rules_do_not() {
        let dir = tempfile::tempdir().expect("temp");
        let scrubber = Scrubber::new(
            Vec::new(),
            &crate::adapter::data::AdapterData::builtin()
                .expect("data")
                .credentials,
        );
        let (mut rules, notes) = Rules::load(Some(dir.path().to_owned()));
        assert!(notes.is_empty());
        assert_eq!(
            rules.remember(key("a"), true, RuleScope::Project, &scrubber),
            None
        );
        assert_eq!(
            rules.remember(key("b"), false, RuleScope::Session, &scrubber),
            None
        );
        assert_eq!(
            rules.lookup(&key("b")),
            Some(Remembered {
                allow: false,
                scope: RuleScope::Session
            })
        );
        let (reloaded, _) = Rules::load(Some(dir.path().to_owned()));
        assert_eq!(
            reloaded.lookup(&key("a")),
            Some(Remembered {
                allow: true,
                scope: RuleScope::Project
            })
        );
        assert_eq!(reloaded.lookup(&key("b")), None);
        assert_eq!(reloaded.lookup(&key("c")), None);
    }

    #[test]
    fn a_symlinked_rules_file_is_neither_read_nor_written() {
        let dir = tempfile::tempdir().expect("temp");
        let target = dir.path().join("elsewhere.json");
        std::fs::write(
            &target,
            r#"{"version":1,"rules":[{"tool":{"kind":"edit","title":"a"},"allow":true}]}"#,
        )
        .expect("write");
        std::os::unix::fs::symlink(&target, dir.path().join(PROJECT_FILE)).expect("link");
        let (mut rules, notes) = Rules::load(Some(dir.path().to_owned()));
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert_eq!(rules.lookup(&key("a")), None);
        let scrubber = Scrubber::new(
            Vec::new(),
            &crate::adapter::data::AdapterData::builtin()
                .expect("data")
                .credentials,
        );
        assert!(rules
            .remember(key("x"), true, RuleScope::Project, &scrubber)
            .is_some());
        assert!(std::fs::read_to_string(&target)
            .expect("read")
            .contains("\"a\""));
        assert!(!std::fs::read_to_string(&target)
            .expect("read")
            .contains("\"x\""));
    }
}
