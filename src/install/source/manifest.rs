//! A vendor release manifest (Kiro's shape): `{"version", "packages": [entry…]}`.
//! Unknown fields are ignored; missing or malformed required fields are
//! clear errors naming the entry.

use serde::{Deserialize, Serialize};

use crate::adapter::file_type::FileType;
use crate::output::sanitize::sanitize_line;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactEntry {
    pub target_triple: String,
    pub os: String,
    pub file_type: FileType,
    pub architecture: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    pub download: String,
    pub sha256: String,
    pub size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cli_path: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Manifest {
    pub version: semver::Version,
    pub packages: Vec<ArtifactEntry>,
}

#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("the manifest is not valid JSON")]
    Json(#[source] serde_json::Error),
    #[error("the manifest has no `{0}` field")]
    Missing(&'static str),
    #[error("the manifest `version` `{}` is not a semantic version", sanitize_line(.0))]
    Version(String),
    #[error("manifest package #{index} is malformed")]
    Entry {
        index: usize,
        #[source]
        source: serde_json::Error,
    },
    #[error("manifest package #{index}: `{field}` {problem}")]
    Field {
        index: usize,
        field: &'static str,
        problem: String,
    },
    #[error("manifest package #{index} (`{}`): `sha256` is not 64 hex digits", sanitize_line(.download))]
    Digest { index: usize, download: String },
    #[error(
        "manifest package #{index} (`{}`): `download` must be a relative path without `..` or control characters", sanitize_line(.download)
    )]
    Download { index: usize, download: String },
}

/// Whether `text` is a SHA-256 digest in hex (either case).
pub fn is_sha256(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|byte| byte.is_ascii_hexdigit())
}

/// Whether a `download` path is safe to join to the download base.
pub fn is_safe_download(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with('/')
        && !path.contains(':')
        && !path.contains('?')
        && !path.contains('#')
        && !path.contains('\\')
        && path.split('/').all(|part| part != ".." && !part.is_empty())
        && !path.chars().any(char::is_control)
}

const STRING_FIELDS: [&str; 6] = [
    "targetTriple",
    "os",
    "fileType",
    "architecture",
    "download",
    "sha256",
];

/// Names the first required field that is missing or of the wrong type.
fn check_fields(index: usize, entry: &serde_json::Value) -> Result<(), ManifestError> {
    let Some(object) = entry.as_object() else {
        return Err(ManifestError::Field {
            index,
            field: "(entry)",
            problem: "is not an object".to_owned(),
        });
    };
    let field_error = |field: &'static str, problem: &str| ManifestError::Field {
        index,
        field,
        problem: problem.to_owned(),
    };
    for field in STRING_FIELDS {
        match object.get(field) {
            None | Some(serde_json::Value::Null) => return Err(field_error(field, "is missing")),
            Some(serde_json::Value::String(_)) => {}
            Some(other) => {
                return Err(field_error(
                    field,
                    &format!("must be a string, found `{other}`"),
                ))
            }
        }
    }
    match object.get("size") {
        None | Some(serde_json::Value::Null) => Err(field_error("size", "is missing")),
        Some(size) if size.as_u64().is_some() => Ok(()),
        Some(other) => Err(field_error(
            "size",
            &format!("must be a whole number of bytes, found `{other}`"),
        )),
    }
}

impl Manifest {
    pub fn parse(bytes: &[u8]) -> Result<Self, ManifestError> {
        let document: serde_json::Value =
            serde_json::from_slice(bytes).map_err(ManifestError::Json)?;
        let version = document
            .get("version")
            .and_then(|version| version.as_str())
            .ok_or(ManifestError::Missing("version"))?;
        let version = semver::Version::parse(version)
            .map_err(|_| ManifestError::Version(version.to_owned()))?;
        let packages = document
            .get("packages")
            .and_then(|packages| packages.as_array())
            .ok_or(ManifestError::Missing("packages"))?;
        let packages = packages
            .iter()
            .enumerate()
            .map(|(index, entry)| {
                check_fields(index, entry)?;
                let entry = ArtifactEntry::deserialize(entry)
                    .map_err(|source| ManifestError::Entry { index, source })?;
                entry.validate(index)?;
                Ok(entry)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { version, packages })
    }
}

impl ArtifactEntry {
    pub fn validate(&self, index: usize) -> Result<(), ManifestError> {
        // Manifest text reaches messages and records: a value with control
        // characters is malformed, not something to show.
        let texts = [
            ("targetTriple", Some(self.target_triple.as_str())),
            ("os", Some(self.os.as_str())),
            ("fileType", Some(self.file_type.as_str())),
            ("architecture", Some(self.architecture.as_str())),
            ("variant", self.variant.as_deref()),
            ("download", Some(self.download.as_str())),
            ("cliPath", self.cli_path.as_deref()),
        ];
        for (field, text) in texts {
            if text.is_some_and(|text| text.chars().any(char::is_control)) {
                return Err(ManifestError::Field {
                    index,
                    field,
                    problem: "contains control characters".to_owned(),
                });
            }
        }
        if !is_sha256(&self.sha256) {
            return Err(ManifestError::Digest {
                index,
                download: self.download.clone(),
            });
        }
        if !is_safe_download(&self.download) {
            return Err(ManifestError::Download {
                index,
                download: self.download.clone(),
            });
        }
        Ok(())
    }

    /// `os/architecture/variant fileType (targetTriple)`, for listings.
    pub fn describe(&self) -> String {
        let text = format!(
            "{}/{}/{} {} ({})",
            self.os,
            self.architecture,
            self.variant.as_deref().unwrap_or("-"),
            self.file_type.as_str(),
            self.target_triple
        );
        sanitize_line(&text).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENTRY: &str = r#"{"kind":"deb","targetTriple":"x86_64-unknown-linux-gnu","os":"linux",
        "fileType":"tarGz","architecture":"x86_64","variant":"headless",
        "download":"2.15.1/kirocli-x86_64-linux.tar.gz",
        "sha256":"ee7f00000000000000000000000000000000000000000000000000000000f648","size":554395785,
        "channel":"stable","somethingNew":1}"#;

    #[test]
    fn parses_entries_and_ignores_unknown_fields() {
        let text = format!(r#"{{"version":"2.15.1","packages":[{ENTRY}]}}"#);
        let manifest = Manifest::parse(text.as_bytes()).expect("parses");
        assert_eq!(manifest.version.to_string(), "2.15.1");
        assert_eq!(manifest.packages[0].file_type, FileType::TarGz);
        assert_eq!(manifest.packages[0].size, 554_395_785);
    }

    #[test]
    fn rejects_bad_fields() {
        let bad_digest = ENTRY.replace("ee7f0000", "zz7f0000");
        let text = format!(r#"{{"version":"2.15.1","packages":[{bad_digest}]}}"#);
        assert!(matches!(
            Manifest::parse(text.as_bytes()),
            Err(ManifestError::Digest { .. })
        ));
        let no_size = ENTRY.replace(r#""size":554395785,"#, "");
        let text = format!(r#"{{"version":"2.15.1","packages":[{no_size}]}}"#);
        let error = Manifest::parse(text.as_bytes()).unwrap_err();
        assert!(error.to_string().contains("size"), "{error}");
        let escaping = ENTRY.replace("2.15.1/kirocli", "../kirocli");
        let text = format!(r#"{{"version":"2.15.1","packages":[{escaping}]}}"#);
        assert!(matches!(
            Manifest::parse(text.as_bytes()),
            Err(ManifestError::Download { .. })
        ));
        assert!(matches!(
            Manifest::parse(b"{\"packages\":[]}"),
            Err(ManifestError::Missing("version"))
        ));
        let hostile = ENTRY.replace("x86_64-unknown-linux-gnu", "x86_64\\u001b[31m");
        let text = format!(r#"{{"version":"2.15.1","packages":[{hostile}]}}"#);
        assert_eq!(
            Manifest::parse(text.as_bytes()).unwrap_err().to_string(),
            "manifest package #0: `targetTriple` contains control characters"
        );
        assert!(matches!(
            Manifest::parse(b"not json"),
            Err(ManifestError::Json(_))
        ));
        assert!(matches!(
            Manifest::parse(br#"{"version":"two","packages":[]}"#),
            Err(ManifestError::Version(_))
        ));
    }
}
