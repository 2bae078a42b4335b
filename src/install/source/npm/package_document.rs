//! The registry's package document (`GET <registry>/<name>`): `dist-tags`
//! and `versions`, each version with its `dist` (tarball, integrity), `bin`
//! and `engines`. Only what the installer needs is read: `dist.unpackedSize`
//! bounds the extraction when given (mirrors omit it), everything else
//! is ignored. One malformed version does not spoil the others.

use std::collections::HashMap;

use serde::Deserialize;

use crate::config::VersionRequest;
use crate::output::sanitize::sanitize_line;

#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    #[error("the package document is not valid JSON")]
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
    #[serde(default)]
    dependencies: Option<serde_json::Value>,
    #[serde(default, rename = "optionalDependencies")]
    optional_dependencies: Option<serde_json::Value>,
    #[serde(default, rename = "peerDependencies")]
    peer_dependencies: Option<serde_json::Value>,
    #[serde(default, rename = "bundleDependencies")]
    bundle_dependencies: Option<serde_json::Value>,
    #[serde(default, rename = "bundledDependencies")]
    bundled_dependencies: Option<serde_json::Value>,
    #[serde(default)]
    os: Option<serde_json::Value>,
    #[serde(default)]
    cpu: Option<serde_json::Value>,
    #[serde(default)]
    libc: Option<serde_json::Value>,
}

/// The package document, parsed.
pub struct PackageDocument {
    latest: Option<String>,
    tags: HashMap<String, String>,
    versions: HashMap<String, RawVersion>,
}

/// What a version needs besides itself: its edges to other packages
/// (`name → specifier`, sorted) and the platform it declares.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Edges {
    pub dependencies: Vec<(String, String)>,
    pub optional: Vec<(String, String)>,
    pub peers: Vec<(String, String)>,
    /// Dependencies shipped inside the tarball (`bundleDependencies`).
    pub bundled: Bundled,
    pub os: Vec<String>,
    pub cpu: Vec<String>,
    pub libc: Vec<String>,
}

/// `bundleDependencies`: none, all (`true`), or these names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Bundled {
    #[default]
    None,
    All,
    Names(Vec<String>),
}

impl Bundled {
    pub fn contains(&self, name: &str) -> bool {
        match self {
            Bundled::None => false,
            Bundled::All => true,
            Bundled::Names(names) => names.iter().any(|bundled| bundled == name),
        }
    }
}

impl Edges {
    /// Whether the version declares a platform (`os`, `cpu` or `libc`):
    /// such an optional dependency is a platform package.
    pub fn is_platform(&self) -> bool {
        !(self.os.is_empty() && self.cpu.is_empty() && self.libc.is_empty())
    }
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
    /// `dist.unpackedSize`: what the tarball's files weigh unpacked.
    pub unpacked_size: Option<u64>,
    /// The `bin` entry for the command, as the document says it.
    pub bin: Option<String>,
    pub engines_node: Option<String>,
    pub edges: Edges,
}

impl PackageDocument {
    pub fn parse(bytes: &[u8]) -> Result<Self, PackageError> {
        let raw: RawDocument = serde_json::from_slice(bytes).map_err(PackageError::Json)?;
        let tags: HashMap<String, String> = raw
            .dist_tags
            .iter()
            .filter_map(|(tag, value)| Some((tag.clone(), value.as_str()?.to_owned())))
            .collect();
        Ok(Self {
            latest: tags.get("latest").cloned(),
            tags,
            versions: raw.versions,
        })
    }

    /// The version a dependency's npm range (or dist-tag) picks, as npm
    /// does: `dist-tags.latest` when it satisfies the range, else the
    /// highest version that does. `Ok(None)` when none does; `Err` when the
    /// range is not one oneworks reads.
    pub fn best(&self, range: &str) -> Result<Option<String>, super::node::RangeError> {
        let range = range.trim();
        if let Some(tagged) = self.tags.get(range) {
            return Ok(self.versions.contains_key(tagged).then(|| tagged.clone()));
        }
        let requirement = super::node::translate_range(if range.is_empty() { "*" } else { range })?;
        let fits = |version: &semver::Version| requirement.iter().any(|alt| alt.matches(version));
        if let Some(latest) = &self.latest {
            if let Ok(version) = semver::Version::parse(latest) {
                if self.versions.contains_key(latest) && fits(&version) {
                    return Ok(Some(latest.clone()));
                }
            }
        }
        Ok(self
            .versions
            .keys()
            .filter_map(|key| Some((semver::Version::parse(key).ok()?, key)))
            .filter(|(version, _)| fits(version))
            .max_by(|a, b| a.0.cmp(&b.0))
            .map(|(_, key)| key.clone()))
    }

    /// Whether `version` is what `range` (an npm range or a dist-tag)
    /// admits: for a tag, the version it points at.
    pub fn fits(&self, range: &str, version: &str) -> bool {
        let range = range.trim();
        if let Some(tagged) = self.tags.get(range) {
            return tagged == version;
        }
        let Ok(version) = semver::Version::parse(version) else {
            return false;
        };
        super::node::translate_range(if range.is_empty() { "*" } else { range })
            .is_ok_and(|requirement| requirement.iter().any(|alt| alt.matches(&version)))
    }

    /// The version document of `key` (a key of `versions`).
    pub fn version(
        &self,
        key: &str,
        package: &str,
        command: &str,
    ) -> Result<Option<VersionDoc>, PackageError> {
        match self.versions.get(key) {
            Some(raw) => version_doc(key, raw, package, command).map(Some),
            None => Ok(None),
        }
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
    // Only a bound: a value of another shape is as good as none.
    let unpacked_size = dist.get("unpackedSize").and_then(serde_json::Value::as_u64);
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
        unpacked_size,
        bin,
        engines_node,
        edges: edges(raw).map_err(|malformed| problem(&malformed.to_string()))?,
    })
}

/// A field of a version document that is not the shape npm gives it.
#[derive(Debug, thiserror::Error)]
#[error("`{0}` is malformed")]
struct MalformedField(&'static str);

/// The edges and platform of a version; `Err` names a malformed field.
fn edges(raw: &RawVersion) -> Result<Edges, MalformedField> {
    fn map(
        value: Option<&serde_json::Value>,
        field: &'static str,
    ) -> Result<Vec<(String, String)>, MalformedField> {
        let Some(value) = value.filter(|value| !value.is_null()) else {
            return Ok(Vec::new());
        };
        let object = value.as_object().ok_or(MalformedField(field))?;
        let mut edges = Vec::new();
        for (name, spec) in object {
            let spec = spec.as_str().ok_or(MalformedField(field))?;
            if name.chars().chain(spec.chars()).any(char::is_control) {
                return Err(MalformedField(field));
            }
            edges.push((name.clone(), spec.to_owned()));
        }
        edges.sort();
        Ok(edges)
    }
    fn list(
        value: Option<&serde_json::Value>,
        field: &'static str,
    ) -> Result<Vec<String>, MalformedField> {
        match value {
            None | Some(serde_json::Value::Null) => Ok(Vec::new()),
            Some(serde_json::Value::String(one)) => Ok(vec![one.clone()]),
            Some(serde_json::Value::Array(items)) => items
                .iter()
                .map(|item| {
                    item.as_str()
                        .map(str::to_owned)
                        .ok_or(MalformedField(field))
                })
                .collect(),
            Some(_) => Err(MalformedField(field)),
        }
    }
    let bundled = match raw
        .bundle_dependencies
        .as_ref()
        .or(raw.bundled_dependencies.as_ref())
    {
        None | Some(serde_json::Value::Null) | Some(serde_json::Value::Bool(false)) => {
            Bundled::None
        }
        Some(serde_json::Value::Bool(true)) => Bundled::All,
        value => Bundled::Names(list(value, "bundleDependencies")?),
    };
    Ok(Edges {
        dependencies: map(raw.dependencies.as_ref(), "dependencies")?,
        optional: map(raw.optional_dependencies.as_ref(), "optionalDependencies")?,
        peers: map(raw.peer_dependencies.as_ref(), "peerDependencies")?,
        bundled,
        os: list(raw.os.as_ref(), "os")?,
        cpu: list(raw.cpu.as_ref(), "cpu")?,
        libc: list(raw.libc.as_ref(), "libc")?,
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
