//! The Node.js runtime an npm package needs: its
//! `engines.node` range (npm's range syntax) checked against
//! `node --version` on the PATH given to the probes, before install and
//! before every launch, and the errors of the Node that runs a package,
//! the system's or a managed one (`install::node_runtime`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use semver::{Version, VersionReq};

use crate::error::{Classify, ErrorKind};
use crate::output::sanitize::sanitize_line;

#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    #[error("`{name}` needs Node.js {}, but no `node` was found on PATH", shown_range(.range))]
    Missing { name: String, range: Option<String> },
    #[error("`{name}` needs Node.js {}, but `{}` is {found}", shown_range(.range), .node.display())]
    TooOld {
        name: String,
        range: Option<String>,
        node: PathBuf,
        found: String,
    },
    #[error("`{name}` needs Node.js {}, but `{} --version` failed: {problem}", shown_range(.range), .node.display())]
    Unusable {
        name: String,
        range: Option<String>,
        node: PathBuf,
        problem: String,
    },
    #[error("`{name}` declares `engines.node` `{}`, which is not an npm version range", sanitize_line(.range))]
    Range { name: String, range: String },
    #[error("`{name}` needs Node.js {}, but `{url}` lists no {platform} release that fits (newest: {newest})", shown_range(.range))]
    NoRelease {
        name: String,
        range: Option<String>,
        platform: String,
        url: String,
        newest: String,
    },
    #[error("Node.js publishes no official build for this host ({host})")]
    NoBuild { host: String },
    #[error("the Node.js mirror's `{url}` cannot be read")]
    Index {
        url: String,
        #[source]
        source: IndexProblem,
    },
    #[error("refusing to install Node.js: `{url}` lists no sha256 for `{file}`")]
    NoChecksum { file: String, url: String },
    #[error("--offline: no installed Node.js {} for `{name}` under `{}`", shown_range(.range), .root.display())]
    Offline {
        name: String,
        range: Option<String>,
        root: PathBuf,
    },
    #[error("the managed Node.js v{version} is not installed under `{}`", .root.display())]
    ManagedMissing { version: String, root: PathBuf },
    #[error("the managed Node.js v{version} changed since it was installed: {change}")]
    ManagedChanged { version: String, change: String },
}

/// Why the mirror's `index.json` cannot be read: the request failed, or
/// its body is not a list of releases.
#[derive(Debug, thiserror::Error)]
pub enum IndexProblem {
    #[error(transparent)]
    Fetch(Box<crate::install::transport::network_error::NetworkError>),
    #[error("not a JSON list of releases")]
    NotAList(#[source] serde_json::Error),
}

fn shown_range(range: &Option<String>) -> String {
    match range {
        Some(range) => format!("`{}`", sanitize_line(range)),
        None => "(any version)".to_owned(),
    }
}

impl Classify for NodeError {
    fn kind(&self) -> ErrorKind {
        match self {
            NodeError::Index { .. } => ErrorKind::Network,
            NodeError::NoChecksum { .. } => ErrorKind::ChecksumMismatch,
            _ => ErrorKind::NoUsableCli,
        }
    }
    fn hint(&self) -> Option<String> {
        Some(match self {
            NodeError::Missing { range, .. }
            | NodeError::TooOld { range, .. }
            | NodeError::Unusable { range, .. } => format!(
                "install Node.js {} and put it on PATH, or set `cli.runtime: managed` (or leave it unset) so oneworks installs a matching Node.js",
                shown_range(range)
            ),
            NodeError::Range { .. } => {
                "the package's own `engines.node` cannot be read: use another version, or `source: system`".to_owned()
            }
            NodeError::NoRelease { .. } | NodeError::Index { .. } => {
                "check that ONEWORKS_NODE_MIRROR points at Node.js's distribution (https://nodejs.org/dist/) or a faithful mirror, or set `cli.runtime: system` and install Node.js yourself".to_owned()
            }
            NodeError::NoBuild { .. } => {
                "install Node.js yourself and set `cli.runtime: system`".to_owned()
            }
            NodeError::NoChecksum { .. } => {
                "nothing was installed: the mirror's SHASUMS256.txt must list the tarball; check ONEWORKS_NODE_MIRROR".to_owned()
            }
            NodeError::Offline { .. } => {
                "run `oneworks adapter prepare` without --offline first, so the Node.js it needs is installed".to_owned()
            }
            NodeError::ManagedMissing { .. } | NodeError::ManagedChanged { .. } => {
                "run `oneworks adapter prepare` (with --force if the agent's version is installed) to install the Node.js it runs on".to_owned()
            }
        })
    }
}

/// Why an npm range is not one oneworks reads.
#[derive(Debug, thiserror::Error)]
pub enum RangeError {
    #[error("empty hyphen range")]
    EmptyHyphen,
    #[error("hyphen range without an end")]
    HyphenWithoutEnd,
    #[error("`{0}` is not a version")]
    NotAVersion(String),
    #[error("`<*` or `>*` matches nothing")]
    MatchesNothing,
    #[error("unknown operator `{0}`")]
    UnknownOperator(String),
    /// `semver` refused the translated requirement.
    #[error("`{requirement}` is not a requirement")]
    Requirement {
        requirement: String,
        #[source]
        source: semver::Error,
    },
}

/// The comparators of one `||` alternative of an npm range, as `semver`
/// requirements (all must hold); the whole range holds when any
/// alternative does.
pub fn translate_range(range: &str) -> Result<Vec<VersionReq>, RangeError> {
    let mut alternatives = Vec::new();
    for alternative in range.split("||") {
        let tokens = tokens(alternative);
        let mut comparators: Vec<String> = Vec::new();
        let mut index = 0;
        while index < tokens.len() {
            // Hyphen range: `A - B` means `>=A <=B`.
            if tokens.get(index + 1).map(String::as_str) == Some("-") {
                let low = tokens.get(index).ok_or(RangeError::EmptyHyphen)?;
                let high = tokens.get(index + 2).ok_or(RangeError::HyphenWithoutEnd)?;
                comparators.push(format!(">={}", partial(low)?));
                comparators.push(format!("<={}", partial(high)?));
                index += 3;
                continue;
            }
            comparators.push(comparator(&tokens[index])?);
            index += 1;
        }
        let text = if comparators.is_empty() {
            "*".to_owned()
        } else {
            comparators.join(", ")
        };
        let requirement = VersionReq::parse(&text).map_err(|source| RangeError::Requirement {
            source,
            requirement: text,
        })?;
        alternatives.push(requirement);
    }
    Ok(alternatives)
}

/// Whitespace-separated tokens, with an operator glued to its version
/// (`>= 20` is one comparator).
fn tokens(text: &str) -> Vec<String> {
    let mut tokens: Vec<String> = Vec::new();
    let mut pending_operator: Option<String> = None;
    for word in text.split_whitespace() {
        if word
            .chars()
            .all(|c| matches!(c, '<' | '>' | '=' | '~' | '^'))
        {
            pending_operator = Some(pending_operator.unwrap_or_default() + word);
            continue;
        }
        match pending_operator.take() {
            Some(operator) => tokens.push(operator + word),
            None => tokens.push(word.to_owned()),
        }
    }
    tokens
}

/// A partial version (`18`, `18.1`, `v18.x`) as `semver` writes it.
fn partial(text: &str) -> Result<String, RangeError> {
    let text = text.trim_start_matches(['v', '=']);
    if text.is_empty() || matches!(text, "*" | "x" | "X") {
        return Ok("*".to_owned());
    }
    let mut parts: Vec<&str> = text.split('.').collect();
    // `1.x.x` → `1.*`: everything after the first wildcard is wild.
    if let Some(wild) = parts
        .iter()
        .position(|part| matches!(*part, "*" | "x" | "X"))
    {
        parts.truncate(wild);
        parts.push("*");
    }
    let joined = parts.join(".");
    if joined
        .split(['.', '-', '+'])
        .next()
        .is_some_and(|major| major == "*" || major.chars().all(|c| c.is_ascii_digit()))
    {
        Ok(joined)
    } else {
        Err(RangeError::NotAVersion(text.to_owned()))
    }
}

/// One comparator: npm's bare version is an exact match (semver's is a
/// caret), wildcards and partial versions as `semver` writes them.
fn comparator(token: &str) -> Result<String, RangeError> {
    let split = token
        .find(|c: char| !matches!(c, '<' | '>' | '=' | '~' | '^'))
        .unwrap_or(token.len());
    let (operator, version) = token.split_at(split);
    let version = partial(version)?;
    if version.ends_with('*') {
        return match operator {
            "" | "=" | ">=" | "<=" | "~" | "^" => Ok(version),
            // `<1.x` is `<1.0.0`; `>1.x` is `>=2.0.0`: written as semver
            // reads partial versions (`<1`, `>1`).
            "<" | ">" => Ok(format!(
                "{operator}{}",
                version.trim_end_matches(".*").trim_end_matches('*')
            ))
            .and_then(|text| {
                if text.len() == operator.len() {
                    Err(RangeError::MatchesNothing)
                } else {
                    Ok(text)
                }
            }),
            other => Err(RangeError::UnknownOperator(other.to_owned())),
        };
    }
    match operator {
        "" | "=" => Ok(format!("={version}")),
        ">" | ">=" | "<" | "<=" | "~" | "^" => Ok(format!("{operator}{version}")),
        "~>" => Ok(format!("~{version}")),
        other => Err(RangeError::UnknownOperator(other.to_owned())),
    }
}

/// Whether `version` satisfies the npm `range`.
pub fn satisfies(range: &str, version: &Version) -> Result<bool, RangeError> {
    Ok(translate_range(range)?
        .iter()
        .any(|requirement| requirement.matches(version)))
}

/// The first executable `node` on `path_var`.
pub fn find_node(path_var: Option<&str>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    path_var?
        .split(':')
        .filter(|folder| !folder.is_empty())
        .map(|folder| Path::new(folder).join("node"))
        .find(|candidate| {
            fs_err::metadata(candidate).is_ok_and(|metadata| {
                metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
            })
        })
}

/// Checks that a `node` on `path_var` satisfies `range` (any version when
/// `None`); returns its version. `name` is the package's binary, for
/// messages.
pub fn check(
    name: &str,
    range: Option<&str>,
    path_var: Option<&str>,
    timeout: Duration,
) -> Result<Version, NodeError> {
    let owned_range = range.map(str::to_owned);
    let requirement = match range {
        Some(range) => Some(translate_range(range).map_err(|_| NodeError::Range {
            name: name.to_owned(),
            range: range.to_owned(),
        })?),
        None => None,
    };
    let Some(node) = find_node(path_var) else {
        return Err(NodeError::Missing {
            name: name.to_owned(),
            range: owned_range,
        });
    };
    let unusable = |problem: String| NodeError::Unusable {
        name: name.to_owned(),
        range: owned_range.clone(),
        node: node.clone(),
        problem,
    };
    let home = tempfile::Builder::new()
        .prefix("oneworks-node-")
        .tempdir()
        .map_err(|error| unusable(format!("could not create a probe HOME: {error}")))?;
    let outcome = crate::install::probe::run_command(
        &node,
        &["--version".to_owned()],
        timeout,
        path_var,
        home.path(),
    );
    if !outcome.success {
        return Err(unusable(
            outcome.failure.unwrap_or_else(|| "no output".to_owned()),
        ));
    }
    let printed = outcome.stdout.trim();
    let version = Version::parse(printed.trim_start_matches('v')).map_err(|_| {
        unusable(format!(
            "it printed `{}`, not a version",
            sanitize_line(printed)
        ))
    })?;
    if let Some(requirement) = requirement {
        if !requirement
            .iter()
            .any(|alternative| alternative.matches(&version))
        {
            return Err(NodeError::TooOld {
                name: name.to_owned(),
                range: owned_range,
                node,
                found: format!("v{version}"),
            });
        }
    }
    Ok(version)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holds(range: &str, version: &str) -> bool {
        satisfies(range, &Version::parse(version).expect("version")).expect("range")
    }

    #[test]
    fn translates_npm_ranges() {
        let shown = |range: &str| {
            translate_range(range)
                .expect("range")
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(shown(">=20"), [">=20"]);
        assert_eq!(shown(">= 20.0.0"), [">=20.0.0"]);
        assert_eq!(shown("^18 || >=20"), ["^18", ">=20"]);
        assert_eq!(shown(">=18.0.0 <21"), [">=18.0.0, <21"]);
        assert_eq!(shown("18.x"), ["18.*"]);
        assert_eq!(shown("1.2.3"), ["=1.2.3"]);
        assert_eq!(shown("*"), ["*"]);
        assert_eq!(shown(""), ["*"]);
        assert_eq!(shown("18 - 20"), [">=18, <=20"]);
        assert!(matches!(
            translate_range(">=banana"),
            Err(RangeError::NotAVersion(version)) if version == "banana"
        ));
        assert!(matches!(
            translate_range("<*"),
            Err(RangeError::MatchesNothing)
        ));
    }

    #[test]
    fn evaluates_npm_ranges() {
        assert!(holds(">=20", "20.0.0"));
        assert!(holds(">=20", "22.11.0"));
        assert!(!holds(">=20", "18.19.1"));
        assert!(holds("^18 || >=20", "18.2.0"));
        assert!(!holds("^18 || >=20", "19.9.0"));
        assert!(holds("^18 || >=20", "21.0.0"));
        assert!(holds(">=18.0.0 <21", "20.18.0"));
        assert!(!holds(">=18.0.0 <21", "21.0.0"));
        assert!(holds("18.x", "18.20.4"));
        assert!(!holds("18.x", "19.0.0"));
        assert!(holds("18 - 20", "20.5.0"));
        assert!(!holds("18 - 20", "21.0.0"));
        assert!(holds("~20.1", "20.1.9"));
        assert!(!holds("~20.1", "20.2.0"));
        assert!(holds(">=v16", "16.0.1"));
        assert!(!holds(">16", "16.0.1"));
        assert!(!holds("1.2.3", "1.3.0"));
    }

    #[test]
    fn a_missing_node_names_the_range() {
        let empty = tempfile::tempdir().expect("tempdir");
        let error = check(
            "gemini",
            Some(">=20"),
            empty.path().to_str(),
            Duration::from_secs(5),
        )
        .expect_err("no node");
        assert_eq!(
            error.to_string(),
            "`gemini` needs Node.js `>=20`, but no `node` was found on PATH"
        );
        assert_eq!(error.kind(), ErrorKind::NoUsableCli);
    }

    #[test]
    fn an_old_node_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let bin = tempfile::tempdir().expect("tempdir");
        let node = bin.path().join("node");
        fs_err::write(&node, "#!/bin/sh\necho v18.19.1\n").expect("write");
        fs_err::set_permissions(&node, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let path = format!("{}:/usr/bin:/bin", bin.path().display());
        let error = check("gemini", Some(">=20"), Some(&path), Duration::from_secs(10))
            .expect_err("too old");
        assert!(matches!(error, NodeError::TooOld { .. }), "{error}");
        assert!(error.to_string().ends_with("is v18.19.1"), "{error}");
        let found = check(
            "gemini",
            Some("^18 || >=20"),
            Some(&path),
            Duration::from_secs(10),
        )
        .expect("18 is fine");
        assert_eq!(found, Version::new(18, 19, 1));
    }
}
