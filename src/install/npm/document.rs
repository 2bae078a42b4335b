//! The registry's package document (`GET <registry>/<name>`): `dist-tags`
//! and `versions`, each version with its `dist` (tarball, integrity), `bin`
//! and `engines`. Only what the installer needs is read; everything else,
//! `dist.unpackedSize`/`fileCount` included (mirrors omit them), is
//! ignored. One malformed version does not spoil the others.

use std::collections::HashMap;

use serde::Deserialize;

use crate::config::VersionRequest;
use crate::output::sanitize::sanitize_line;

#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    #[error("the package document is not valid JSON: {0}")]
    Json(#[source] serde_json::Error),
    #[error("the package document has no `dist-tags.latest`")]
    NoLatest,
    #[error("`dist-tags.latest` `{}` is not a version the document lists", sanitize_line(.0))]
    LatestMissing(String),
    #[error("version `{}` is malformed: {problem}", sanitize_line(.version))]
    Version { version: String, problem: String },
}

/// The whole document, versions kept raw until one is chosen.
#[derive(Debug, Deserialize)]
struct RawDocument {
    #[serde(default, rename = "dist-tags")]
    dist_tags: HashMap<String, serde_json::Value>,
    #[serde(default)]
    versions: HashMap<String, RawVersion>,
}

/// One version, leniently: a field of the wrong type is a problem only for
/// the version that is chosen.
#[derive(Debug, Deserialize)]
struct RawVersion {
    #[serde(default)]
    dist: Option<serde_json::Value>,
    #[serde(default)]
    bin: Option<serde_json::Value>,
    #[serde(default)]
    engines: Option<serde_json::Value>,
}

/// The package document, parsed.
pub struct PackageDocument {
    latest: Option<String>,
    versions: HashMap<String, RawVersion>,
}

/// A version as the installer uses it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionDoc {
    pub version: semver::Version,
    pub tarball: String,
    /// The raw SRI string, when the registry records one.
    pub integrity: Option<String>,
    /// Whether the registry records a (sha1) `shasum`.
    pub shasum: bool,
    /// The `bin` entry for the command, as the document says it.
    pub bin: Option<String>,
    pub engines_node: Option<String>,
}

impl PackageDocument {
    pub fn parse(bytes: &[u8]) -> Result<Self, PackageError> {
        let raw: RawDocument = serde_json::from_slice(bytes).map_err(PackageError::Json)?;
        Ok(Self {
            latest: raw
                .dist_tags
                .get("latest")
                .and_then(|latest| latest.as_str())
                .map(str::to_owned),
            versions: raw.versions,
        })
    }

    /// The version `request` names: `latest` is `dist-tags.latest`, an
    /// exact one a key of `versions`. `Ok(None)` when an exact version is
    /// not listed.
    pub fn pick(
        &self,
        request: &VersionRequest,
        package: &str,
        command: &str,
    ) -> Result<Option<VersionDoc>, PackageError> {
        let key = match request {
            VersionRequest::Latest => {
                let latest = self.latest.as_ref().ok_or(PackageError::NoLatest)?;
                if !self.versions.contains_key(latest) {
                    return Err(PackageError::LatestMissing(latest.clone()));
                }
                latest.clone()
            }
            VersionRequest::Exact(version) => version.to_string(),
        };
        let Some(raw) = self.versions.get(&key) else {
            return Ok(None);
        };
        version_doc(&key, raw, package, command).map(Some)
    }

    /// The listed versions, newest first, for messages (at most `limit`).
    pub fn newest(&self, limit: usize) -> Vec<String> {
        let mut versions: Vec<semver::Version> = self
            .versions
            .keys()
            .filter_map(|key| semver::Version::parse(key).ok())
            .collect();
        versions.sort_by(|a, b| b.cmp(a));
        versions
            .into_iter()
            .take(limit)
            .map(|version| version.to_string())
            .collect()
    }
}

fn version_doc(
    key: &str,
    raw: &RawVersion,
    package: &str,
    command: &str,
) -> Result<VersionDoc, PackageError> {
    let problem = |problem: &str| PackageError::Version {
        version: key.to_owned(),
        problem: problem.to_owned(),
    };
    let version = semver::Version::parse(key).map_err(|_| problem("not a semantic version"))?;
    let dist = raw
        .dist
        .as_ref()
        .and_then(|dist| dist.as_object())
        .ok_or_else(|| problem("it has no `dist`"))?;
    let text =
        |value: Option<&serde_json::Value>, field: &str| -> Result<Option<String>, PackageError> {
            match value {
                None | Some(serde_json::Value::Null) => Ok(None),
                Some(serde_json::Value::String(text)) if text.chars().any(char::is_control) => {
                    Err(problem(&format!("`{field}` contains control characters")))
                }
                Some(serde_json::Value::String(text)) => Ok(Some(text.clone())),
                Some(_) => Err(problem(&format!("`{field}` is not a string"))),
            }
        };
    let tarball = text(dist.get("tarball"), "dist.tarball")?
        .ok_or_else(|| problem("it has no `dist.tarball`"))?;
    let integrity = text(dist.get("integrity"), "dist.integrity")?;
    let shasum = text(dist.get("shasum"), "dist.shasum")?.is_some();
    // `bin` is a path (the command is the package name without its scope)
    // or a map of command → path.
    let bin = match &raw.bin {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(path)) => {
            let own = package.rsplit('/').next().unwrap_or(package);
            (own == command).then(|| path.clone())
        }
        Some(serde_json::Value::Object(map)) => text(map.get(command), "bin")?,
        Some(_) => return Err(problem("`bin` is neither a path nor a map")),
    };
    if bin
        .as_deref()
        .is_some_and(|path| path.chars().any(char::is_control))
    {
        return Err(problem("`bin` contains control characters"));
    }
    let engines_node = match &raw.engines {
        Some(serde_json::Value::Object(engines)) => text(engines.get("node"), "engines.node")?,
        _ => None,
    };
    Ok(VersionDoc {
        version,
        tarball,
        integrity,
        shasum,
        bin,
        engines_node,
    })
}

/// The executable's path inside the package folder, normalized (`./`
/// dropped); `None` when it could leave the package.
pub fn package_relative(bin: &str) -> Option<String> {
    let mut parts = Vec::new();
    for part in bin.split('/') {
        match part {
            "" | "." => {}
            ".." => return None,
            part if part.contains('\\') || part.chars().any(char::is_control) => return None,
            part => parts.push(part),
        }
    }
    if parts.is_empty() || bin.starts_with('/') {
        return None;
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOCUMENT: &str = r#"{
      "name": "@google/gemini-cli",
      "dist-tags": {"latest": "0.61.0", "nightly": "0.62.0-nightly.1"},
      "versions": {
        "0.60.0": {"bin": {"gemini": "bundle/gemini.js"}, "engines": {"node": ">=20"},
                   "dist": {"tarball": "http://r.test/a.tgz", "integrity": "sha512-x", "shasum": "ab"}},
        "0.61.0": {"bin": {"gemini": "./bundle/gemini.js"}, "engines": {"node": ">=20"},
                   "dist": {"tarball": "http://r.test/b.tgz", "integrity": "sha512-y"}},
        "0.62.0-nightly.1": {"bin": 7, "dist": {}},
        "0.1.0": {"bin": "cli.js", "dist": {"tarball": "http://r.test/c.tgz", "shasum": "ab"}}
      }
    }"#;

    #[test]
    fn picks_latest_and_exact_versions() {
        let document = PackageDocument::parse(DOCUMENT.as_bytes()).expect("parses");
        let latest = document
            .pick(&VersionRequest::Latest, "@google/gemini-cli", "gemini")
            .expect("ok")
            .expect("listed");
        assert_eq!(latest.version.to_string(), "0.61.0");
        assert_eq!(latest.bin.as_deref(), Some("./bundle/gemini.js"));
        assert_eq!(latest.engines_node.as_deref(), Some(">=20"));
        let exact = VersionRequest::Exact(semver::Version::new(0, 60, 0));
        let older = document
            .pick(&exact, "@google/gemini-cli", "gemini")
            .expect("ok")
            .expect("listed");
        assert_eq!(older.tarball, "http://r.test/a.tgz");
        assert!(older.shasum);
        let missing = VersionRequest::Exact(semver::Version::new(9, 9, 9));
        assert_eq!(
            document
                .pick(&missing, "@google/gemini-cli", "gemini")
                .expect("ok"),
            None
        );
        // A string `bin` is the command named like the package.
        let old = VersionRequest::Exact(semver::Version::new(0, 1, 0));
        let old = document
            .pick(&old, "@google/cli", "cli")
            .expect("ok")
            .expect("listed");
        assert_eq!(old.bin.as_deref(), Some("cli.js"));
        assert_eq!(old.integrity, None);
        assert_eq!(document.newest(2), ["0.62.0-nightly.1", "0.61.0"]);
    }

    #[test]
    fn malformed_documents_are_clear_errors() {
        assert!(matches!(
            PackageDocument::parse(b"<html>"),
            Err(PackageError::Json(_))
        ));
        let document = PackageDocument::parse(br#"{"versions":{}}"#).expect("parses");
        assert!(matches!(
            document.pick(&VersionRequest::Latest, "p", "p"),
            Err(PackageError::NoLatest)
        ));
        let document = PackageDocument::parse(br#"{"dist-tags":{"latest":"1.0.0"},"versions":{}}"#)
            .expect("parses");
        assert_eq!(
            document
                .pick(&VersionRequest::Latest, "p", "p")
                .err()
                .map(|error| error.to_string()),
            Some("`dist-tags.latest` `1.0.0` is not a version the document lists".to_owned())
        );
    }

    #[test]
    fn bin_paths_stay_inside_the_package() {
        assert_eq!(
            package_relative("./bundle/gemini.js").as_deref(),
            Some("bundle/gemini.js")
        );
        assert_eq!(package_relative("cli.js").as_deref(), Some("cli.js"));
        assert_eq!(package_relative("../evil"), None);
        assert_eq!(package_relative("/usr/bin/node"), None);
        assert_eq!(package_relative("."), None);
        assert_eq!(package_relative("bin/\u{1b}[2Jx.js"), None);
    }
}
