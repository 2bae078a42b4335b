//! A session's `decisions.jsonl`: one line per permission
//! request a run answered — by the written policy, by `--mode`, by a
//! remembered rule, by a person, by a cancel or by a refusal — in the
//! session's folder beside the agent-session cache. The file is appended
//! privately (0600, never through a link, never a FIFO to wait on), and
//! every string of a line passes the run's scrubber first.
//!
//! A line: `{"time", "adapter", "id", "title", "decision":
//! "allow"|"deny"|"cancelled"|…, "by": "policy"|"mode"|"remembered"|
//! "person"|"cancel"|"refused", "rule"? (the policy's rule with
//! `"policy"`, its key path), "mode"?, "scope"?, "reason"?, "optionId",
//! "optionKind"}`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::decide::{Mode, Ruling, WrittenPolicy};
use super::remembered::RuleScope;
use crate::redact::Scrubber;

pub const FILE: &str = "decisions.jsonl";

/// How a run decides beyond `--mode` and remembered rules, and where it
/// records what was decided (the command builds it; a default plan has no
/// policy and records nothing).
#[derive(Debug, Clone, Default)]
pub struct DecisionPlan {
    pub policy: Option<Arc<WrittenPolicy>>,
    pub log: Option<DecisionLog>,
}

/// Who answered a request, as the record names it.
#[derive(Debug, Clone, PartialEq)]
pub enum DecidedBy {
    Policy(Ruling),
    Mode(Mode),
    Remembered(RuleScope),
    Person,
    Cancel,
    /// Failed closed; the ruling that wanted to answer, if one did.
    Refused {
        reason: Option<String>,
        ruling: Option<Ruling>,
    },
}

/// One answered request.
#[derive(Debug, Clone, PartialEq)]
pub struct Decided<'a> {
    /// The request's key (as events name it).
    pub id: &'a str,
    /// Card text.
    pub title: &'a str,
    pub by: DecidedBy,
    /// The native option sent and its kind; `None`: answered `cancelled`.
    pub option: Option<(&'a str, &'a str)>,
}

/// The session's decision record.
#[derive(Debug, Clone)]
pub struct DecisionLog {
    path: PathBuf,
    adapter: String,
}

impl DecisionLog {
    /// The record of the session whose folder is `session_root`.
    pub fn new(session_root: &Path, adapter: &str) -> Self {
        Self {
            path: session_root.join(FILE),
            adapter: adapter.to_owned(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `decided` as one line, scrubbed.
    pub fn append(&self, decided: &Decided<'_>, scrubber: &Scrubber) -> std::io::Result<()> {
        use std::io::Write;
        let mut line = self.line(decided);
        scrubber.scrub_json(&mut line);
        let mut text = serde_json::to_string(&line).map_err(std::io::Error::other)?;
        text.push('\n');
        // A FIFO or a device in its place would block or swallow the
        // record: only a regular file (or none yet) is opened.
        if let Ok(found) = fs_err::symlink_metadata(&self.path) {
            if !found.file_type().is_file() {
                return Err(std::io::Error::other("it is not a regular file"));
            }
        }
        let mut file =
            crate::fs_safety::open_private(&self.path, crate::fs_safety::PrivateOpen::Append)?;
        file.write_all(text.as_bytes())
    }

    fn line(&self, decided: &Decided<'_>) -> Value {
        let (option_id, option_kind) = match decided.option {
            Some((id, kind)) => (json!(id), json!(kind)),
            None => (Value::Null, Value::Null),
        };
        let decision = match decided.option.map(|(_, kind)| kind) {
            None => "cancelled",
            Some(kind) if kind.starts_with("allow") => "allow",
            Some(kind) if kind.starts_with("reject") => "deny",
            Some(kind) => kind,
        };
        let mut line = Map::new();
        line.insert("time".into(), json!(crate::output::now_rfc3339()));
        line.insert("adapter".into(), json!(self.adapter));
        line.insert("id".into(), json!(decided.id));
        line.insert("title".into(), json!(decided.title));
        line.insert("decision".into(), json!(decision));
        let (by, extra) = match &decided.by {
            DecidedBy::Policy(ruling) => ("policy", Some(("rule", rule_of(ruling)))),
            DecidedBy::Mode(mode) => ("mode", Some(("mode", json!(mode.name())))),
            DecidedBy::Remembered(scope) => ("remembered", Some(("scope", json!(scope.name())))),
            DecidedBy::Person => ("person", None),
            DecidedBy::Cancel => ("cancel", None),
            DecidedBy::Refused { reason, ruling } => {
                if let Some(ruling) = ruling {
                    line.insert("rule".into(), rule_of(ruling));
                }
                (
                    "refused",
                    reason.as_ref().map(|reason| ("reason", json!(reason))),
                )
            }
        };
        line.insert("by".into(), json!(by));
        if let Some((key, value)) = extra {
            line.insert(key.into(), value);
        }
        line.insert("optionId".into(), option_id);
        line.insert("optionKind".into(), option_kind);
        Value::Object(line)
    }
}

/// The ruling's rule with the key path of its policy.
fn rule_of(ruling: &Ruling) -> Value {
    let mut rule = Map::new();
    rule.insert("policy".into(), json!(ruling.source));
    if let Value::Object(fields) = &ruling.rule {
        rule.extend(fields.clone());
    }
    Value::Object(rule)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // fixtures use std::fs directly

    use std::os::unix::fs::PermissionsExt;

    use super::*;
    use crate::config::policy::PolicyVerdict;

    fn scrubber() -> Scrubber {
        let rules = crate::adapter::data::AdapterData::builtin()
            .expect("adapter data")
            .credentials;
        Scrubber::new(
            vec![("KIRO_API_KEY".into(), "sekrit-value-27182818".into())],
            &rules,
        )
    }

    #[test]
    fn each_decision_is_one_private_scrubbed_line() {
        let dir = tempfile::tempdir().expect("tempdir");
        let log = DecisionLog::new(dir.path(), "kiro");
        let ruling = Ruling {
            verdict: PolicyVerdict::Deny,
            index: Some(1),
            source: "policy".into(),
            rule: json!({"index": 1, "decide": "deny", "command": "rm *"}),
        };
        let scrubber = scrubber();
        for decided in [
            Decided {
                id: "p1",
                title: "Run rm sekrit-value-27182818",
                by: DecidedBy::Policy(ruling),
                option: Some(("no-sekrit-value-27182818", "reject_once")),
            },
            Decided {
                id: "p2",
                title: "Edit a",
                by: DecidedBy::Mode(Mode::AcceptEdits),
                option: Some(("yes", "allow_once")),
            },
            Decided {
                id: "p3",
                title: "ls",
                by: DecidedBy::Refused {
                    reason: Some("no channel".into()),
                    ruling: None,
                },
                option: None,
            },
        ] {
            log.append(&decided, &scrubber).expect("appended");
        }
        let text = std::fs::read_to_string(log.path()).expect("the record");
        assert!(!text.contains("sekrit-value-27182818"), "{text}");
        let lines: Vec<Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).expect("a JSON line"))
            .collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0]["decision"], "deny");
        assert_eq!(lines[0]["by"], "policy");
        assert_eq!(
            lines[0]["rule"],
            json!({"policy": "policy", "index": 1, "decide": "deny", "command": "rm *"})
        );
        assert_eq!(lines[0]["optionKind"], "reject_once");
        assert_eq!(lines[1]["by"], "mode");
        assert_eq!(lines[1]["mode"], "acceptEdits");
        assert_eq!(lines[1]["decision"], "allow");
        assert_eq!(lines[2]["decision"], "cancelled");
        assert_eq!(lines[2]["reason"], "no channel");
        assert_eq!(lines[2]["optionId"], Value::Null);
        assert_eq!(lines[2]["adapter"], "kiro");
        let mode = std::fs::metadata(log.path())
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn a_link_or_a_fifo_in_its_place_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let log = DecisionLog::new(dir.path(), "kiro");
        let target = dir.path().join("target");
        std::fs::write(&target, "keep").expect("write");
        std::os::unix::fs::symlink(&target, log.path()).expect("link");
        let decided = Decided {
            id: "p1",
            title: "ls",
            by: DecidedBy::Person,
            option: Some(("yes", "allow_once")),
        };
        assert!(log.append(&decided, &scrubber()).is_err());
        assert_eq!(std::fs::read_to_string(&target).expect("target"), "keep");
        std::fs::remove_file(log.path()).expect("unlink");
        let made = std::process::Command::new("mkfifo")
            .arg(log.path())
            .status()
            .expect("mkfifo");
        assert!(made.success());
        assert!(
            log.append(&decided, &scrubber()).is_err(),
            "no wait on a FIFO"
        );
    }
}
