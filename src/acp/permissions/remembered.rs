//! Remembered permission rules: "allow/deny this tool for this session"
//! (in memory, for this run) or "for this project" (in oneworks' own data
//! folder, `$ONEWORKS_HOME/projects/<sha256 of the project's real
//! path>/permissions.json`). A tool is the request's
//! `toolCall.kind` and title together, so a rule never covers more than the
//! call the user saw. Project rules never live in the project tree: a
//! cloned repository could otherwise pre-approve tool calls, so a
//! `.oneworks/permissions.json` found there is ignored with a notice and
//! never imported. The rules file is written atomically, privately,
//! scrubbed, and never through a symlink; a broken file is reported and
//! ignored (rules only ever narrow what is asked, so ignoring them fails
//! safe).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::ToolKey;
use crate::fs_safety::{self, ReadRefusal};
use crate::redact::Scrubber;

pub const PROJECT_FILE: &str = "permissions.json";
/// The folder under `$ONEWORKS_HOME` that holds one folder per project.
pub const PROJECTS_DIR: &str = "projects";
/// Larger rules files are refused, not read.
const MAX_RULES_BYTES: u64 = 1 << 20;

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

/// Where a project's rules are kept: `<data_home>/projects/<hex>/`.
#[derive(Debug, Clone)]
struct RuleStore {
    data_home: PathBuf,
    dir: PathBuf,
}

impl RuleStore {
    fn file(&self) -> PathBuf {
        self.dir.join(PROJECT_FILE)
    }
}

#[derive(Debug, Default)]
pub struct Rules {
    session: Vec<Rule>,
    project: Vec<Rule>,
    store: Option<RuleStore>,
}

/// The folder of a project's rules under `data_home`, keyed by the hex
/// SHA-256 of the project's real path.
pub fn project_dir(data_home: &Path, real_project: &Path) -> PathBuf {
    let digest = Sha256::digest(real_project.as_os_str().as_encoded_bytes());
    data_home.join(PROJECTS_DIR).join(hex::encode(digest))
}

impl Rules {
    /// Loads the project's rules from oneworks' data folder. `dot_dir` is
    /// the project's `.oneworks/`, when it has one: a rules file there is
    /// only reported. Returns notes for the user (a file that could not be
    /// used, an ignored file in the project).
    pub fn load(
        data_home: &Path,
        project_root: &Path,
        dot_dir: Option<&Path>,
    ) -> (Self, Vec<String>) {
        let mut notes = Vec::new();
        if let Some(dot_dir) = dot_dir {
            let committed = dot_dir.join(PROJECT_FILE);
            if fs_err::symlink_metadata(&committed).is_ok() {
                notes.push(format!(
                    "`{}` is ignored: permission rules are never read from the project tree, where a cloned repository could pre-approve tool calls; to keep a rule, answer \"… for this project\" when asked (it is stored in oneworks' own data folder)",
                    committed.display()
                ));
            }
        }
        let store = match fs_err::canonicalize(project_root) {
            Ok(real) => Some(RuleStore {
                data_home: data_home.to_owned(),
                dir: project_dir(data_home, &real),
            }),
            Err(error) => {
                notes.push(format!(
                    "cannot tell the real path of the project ({error}); project rules are not used in this run"
                ));
                None
            }
        };
        let mut project = Vec::new();
        if let Some(store) = &store {
            match read(store) {
                Ok(Some(file)) => project = file.rules,
                Ok(None) => {}
                Err(error) => notes.push(error.to_string()),
            }
        }
        (
            Self {
                session: Vec::new(),
                project,
                store,
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
        let Some(store) = &self.store else {
            self.session.push(rule);
            return Some("the project rule is kept for this run only".to_owned());
        };
        let file = ProjectFile {
            version: 1,
            rules: self.project.clone(),
        };
        match write(store, &file, scrubber) {
            Ok(()) => None,
            Err(error) => {
                self.session.push(rule);
                Some(format!(
                    "{}; the rule is kept for this run only",
                    crate::error::message(&error)
                ))
            }
        }
    }
}

/// Why the project's rules file could not be read or written (each read
/// refusal says the rules are ignored: ignoring them fails safe).
#[derive(Debug, thiserror::Error)]
pub enum RulesFileError {
    #[error("{0}; project permission rules are ignored")]
    UnsafeFolder(#[source] fs_safety::UnsafePath),
    #[error("`{}` is a symbolic link; permission rules there are ignored", .0.display())]
    Symlink(PathBuf),
    #[error("`{}` is a {found}, not a regular file; permission rules there are ignored", .path.display())]
    NotRegular { path: PathBuf, found: &'static str },
    #[error("`{}` is larger than {MAX_RULES_BYTES} bytes; permission rules there are ignored", .0.display())]
    TooLarge(PathBuf),
    #[error("failed to read `{}` ({source}); permission rules there are ignored", .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("`{}` is not a valid rules file ({source}); its rules are ignored", .path.display())]
    Invalid {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error(transparent)]
    Folder(fs_safety::UnsafePath),
    #[error("`{}` is a {found}, not a regular file", .path.display())]
    NotAFile { path: PathBuf, found: &'static str },
    #[error("the rules could not be written as JSON")]
    Json(#[source] serde_json::Error),
    #[error("failed to write `{}`", .path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn read(store: &RuleStore) -> Result<Option<ProjectFile>, RulesFileError> {
    let path = store.file();
    fs_safety::check_dir_chain(&store.data_home, &store.dir)
        .map_err(RulesFileError::UnsafeFolder)?;
    let bytes = match fs_safety::read_regular_file(&path, MAX_RULES_BYTES, false) {
        Ok(bytes) => bytes,
        Err(ReadRefusal::Missing) => return Ok(None),
        Err(ReadRefusal::Symlink) => return Err(RulesFileError::Symlink(path)),
        Err(ReadRefusal::NotRegular(found)) => {
            return Err(RulesFileError::NotRegular { path, found })
        }
        Err(ReadRefusal::TooLarge) => return Err(RulesFileError::TooLarge(path)),
        Err(ReadRefusal::Io(source)) => return Err(RulesFileError::Read { path, source }),
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|source| RulesFileError::Invalid { path, source })
}

fn write(store: &RuleStore, file: &ProjectFile, scrubber: &Scrubber) -> Result<(), RulesFileError> {
    fs_safety::create_dir_chain(&store.data_home, &store.dir, 0o700)
        .and_then(|()| fs_safety::check_private_dir(&store.dir))
        .map_err(RulesFileError::Folder)?;
    let path = store.file();
    match fs_err::symlink_metadata(&path) {
        Ok(metadata) if !metadata.file_type().is_file() => {
            return Err(RulesFileError::NotAFile {
                path,
                found: fs_safety::describe(metadata.file_type()),
            })
        }
        _ => {}
    }
    let mut value = serde_json::to_value(file).map_err(RulesFileError::Json)?;
    scrubber.scrub_json(&mut value);
    let mut text = serde_json::to_string_pretty(&value).map_err(RulesFileError::Json)?;
    text.push('\n');
    fs_safety::atomic_write(&path, text.as_bytes(), 0o600)
        .map_err(|source| RulesFileError::Write { path, source })
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

    fn scrubber() -> Scrubber {
        Scrubber::new(
            Vec::new(),
            &crate::adapter::data::AdapterData::builtin()
                .expect("data")
                .credentials,
        )
    }

    struct World {
        _temp: tempfile::TempDir,
        home: PathBuf,
        project: PathBuf,
    }

    fn world() -> World {
        let temp = tempfile::tempdir().expect("temp");
        let base = temp.path().canonicalize().expect("canonical");
        let project = base.join("project");
        std::fs::create_dir_all(project.join(".oneworks")).expect("mkdir");
        World {
            home: base.join("home"),
            project,
            _temp: temp,
        }
    }

    impl World {
        fn load(&self) -> (Rules, Vec<String>) {
            Rules::load(
                &self.home,
                &self.project,
                Some(&self.project.join(".oneworks")),
            )
        }
    }

    #[test]
    fn project_rules_survive_a_reload_and_session_rules_do_not() {
        let world = world();
        let scrubber = scrubber();
        let (mut rules, notes) = world.load();
        assert!(notes.is_empty(), "{notes:?}");
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
        assert!(project_dir(&world.home, &world.project)
            .join(PROJECT_FILE)
            .is_file());
        assert!(!world.project.join(".oneworks").join(PROJECT_FILE).exists());
        let (reloaded, _) = world.load();
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
    fn a_rules_file_in_the_project_is_reported_and_not_used() {
        let world = world();
        std::fs::write(
            world.project.join(".oneworks").join(PROJECT_FILE),
            r#"{"version":1,"rules":[{"tool":{"kind":"edit","title":"a"},"allow":true}]}"#,
        )
        .expect("write");
        let (rules, notes) = world.load();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("ignored"), "{notes:?}");
        assert_eq!(rules.lookup(&key("a")), None);
    }

    #[test]
    fn a_symlinked_rules_file_is_neither_read_nor_written() {
        let world = world();
        let dir = project_dir(&world.home, &world.project);
        std::fs::create_dir_all(&dir).expect("mkdir");
        let target = world.home.join("elsewhere.json");
        std::fs::write(
            &target,
            r#"{"version":1,"rules":[{"tool":{"kind":"edit","title":"a"},"allow":true}]}"#,
        )
        .expect("write");
        std::os::unix::fs::symlink(&target, dir.join(PROJECT_FILE)).expect("link");
        let (mut rules, notes) = world.load();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert_eq!(rules.lookup(&key("a")), None);
        assert!(rules
            .remember(key("x"), true, RuleScope::Project, &scrubber())
            .is_some());
        let text = std::fs::read_to_string(&target).expect("read");
        assert!(text.contains("\"a\"") && !text.contains("\"x\""), "{text}");
    }
}
