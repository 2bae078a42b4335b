//! The written policy (`policy:` in the person's config)
//! judging one request: the first rule whose fields all match decides,
//! else `otherwise`.
//!
//! What a rule reads: `kind` is the tool call's ACP kind; `title`,
//! `command` and `path` are globs over what the request carries — the card
//! text a person is shown and what the agent sent. An `allow`
//! must hold for both, and for every path, on a complete card: a glob
//! cannot vouch for text the card cut short, and a rule cannot allow what
//! a person would not have been shown. A `deny` or `ask` holds when either
//! matches, and for any one path: a command padded past the card's bound
//! is still denied. So a request is never allowed by more than it shows,
//! and never escapes a deny by being long.
//!
//! Paths are placed relative to the project (the agent's working folder):
//! a relative one is joined to it, `..` is applied without touching the
//! disk, and one that ends outside the project matches only globs that
//! start with `/` (absolute ones).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::acp::permissions::PermissionAsk;
use crate::config::policy::{PathGlob, Policy, PolicyRule, PolicyVerdict, TextGlob};

/// A policy ready to judge a run's requests.
#[derive(Debug, Clone)]
pub struct WrittenPolicy {
    policy: Policy,
    /// Its key path in the config: `policy` or `adapters.<name>.policy`.
    source: String,
    /// The project, as the agent was started in it and as its real path.
    project: Vec<PathBuf>,
}

/// What the policy said about one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Ruling {
    pub verdict: PolicyVerdict,
    /// The deciding rule's index; `None` when `otherwise` decided.
    pub index: Option<usize>,
    /// The policy's key path (`adapters.kiro.policy`).
    pub source: String,
    /// The rule as events and the record show it: `{"index": N, …its own
    /// fields}`, or `{"otherwise": "deny"}`.
    pub rule: Value,
}

impl Ruling {
    /// The rule's key path, for messages: `policy.rules[1]`, `policy.otherwise`.
    pub fn key(&self) -> String {
        match self.index {
            Some(index) => format!("{}.rules[{index}]", self.source),
            None => format!("{}.otherwise", self.source),
        }
    }
}

impl WrittenPolicy {
    /// `policy` (found at `source`) for runs in `project`.
    pub fn new(source: String, policy: Policy, project: &Path) -> Self {
        let mut places = vec![project.to_owned()];
        if let Ok(real) = fs_err::canonicalize(project) {
            if real != project {
                places.push(real);
            }
        }
        Self {
            policy,
            source,
            project: places,
        }
    }

    /// The first matching rule's ruling, else `otherwise`'s.
    pub fn judge(&self, request: &PermissionAsk) -> Ruling {
        let found = self
            .policy
            .rules
            .iter()
            .enumerate()
            .find(|(_, rule)| self.matches(rule, request));
        match found {
            Some((index, rule)) => {
                let mut shown = Map::new();
                shown.insert("index".to_owned(), Value::from(index));
                if let Ok(Value::Object(fields)) = serde_json::to_value(rule) {
                    shown.extend(fields);
                }
                Ruling {
                    verdict: rule.decide,
                    index: Some(index),
                    source: self.source.clone(),
                    rule: Value::Object(shown),
                }
            }
            None => {
                let otherwise = self.policy.otherwise;
                Ruling {
                    verdict: otherwise,
                    index: None,
                    source: self.source.clone(),
                    rule: serde_json::json!({"otherwise": otherwise.as_str()}),
                }
            }
        }
    }

    fn matches(&self, rule: &PolicyRule, request: &PermissionAsk) -> bool {
        let strict = rule.decide == PolicyVerdict::Allow;
        if strict && rule.has_globs() && !request.shown.complete {
            return false;
        }
        let both = |shown: bool, sent: bool| if strict { shown && sent } else { shown || sent };
        if let Some(kinds) = &rule.kind {
            let kind = request.tool.kind.as_deref();
            if !kinds.items().iter().any(|k| Some(k.as_str()) == kind) {
                return false;
            }
        }
        if let Some(globs) = &rule.command {
            let fits = |text: Option<&str>| text.is_some_and(|text| any_text(globs.items(), text));
            if !both(
                fits(request.shown.command.as_deref()),
                fits(request.detail.command.as_deref()),
            ) {
                return false;
            }
        }
        if let Some(glob) = &rule.title {
            let globs = std::slice::from_ref(glob);
            if !both(
                any_text(globs, &request.shown.title),
                any_text(globs, &request.tool.title),
            ) {
                return false;
            }
        }
        if let Some(globs) = &rule.path {
            let fits = |paths: &[String]| {
                let mut each = paths.iter().map(|path| self.path_fits(globs.items(), path));
                if strict {
                    !paths.is_empty() && each.all(|fits| fits)
                } else {
                    each.any(|fits| fits)
                }
            };
            if !both(fits(&request.shown.paths), fits(&request.detail.paths)) {
                return false;
            }
        }
        true
    }

    /// Whether `path` matches one of `globs`: relative globs against the
    /// path relative to the project (none when it lies outside), absolute
    /// ones against the absolute path.
    fn path_fits(&self, globs: &[PathGlob], path: &str) -> bool {
        let absolute = crate::fs_safety::lexical_normalize(&self.project[0].join(path));
        let relative = self
            .project
            .iter()
            .find_map(|root| {
                absolute
                    .strip_prefix(crate::fs_safety::lexical_normalize(root))
                    .ok()
            })
            .and_then(Path::to_str);
        globs.iter().any(|PathGlob(glob)| {
            if glob.as_str().starts_with('/') {
                absolute.to_str().is_some_and(|text| glob.is_match(text))
            } else {
                relative.is_some_and(|text| glob.is_match(text))
            }
        })
    }
}

fn any_text(globs: &[TextGlob], text: &str) -> bool {
    globs.iter().any(|TextGlob(glob)| glob.is_match(text))
}

#[cfg(test)]
#[path = "written_tests.rs"]
mod tests;
