//! A Kiro release as the test server serves it: its artifacts (one per
//! archive format and libc) and the manifest naming them.

use serde_json::Value;

use super::archive::Format;
use super::manifest::{self, Libc};
use super::server::Server;

/// One served artifact.
#[derive(Debug, Clone)]
pub struct Artifact {
    pub format: Format,
    pub libc: Libc,
    pub bytes: Vec<u8>,
    pub sha256: String,
    /// Path on the server: `/stable/<download>`.
    pub server_path: String,
    pub entry: Value,
}

impl Artifact {
    pub fn new(version: &str, format: Format, libc: Libc, bytes: Vec<u8>) -> Artifact {
        let entry = manifest::entry(version, format, libc, &bytes);
        Artifact {
            format,
            libc,
            sha256: manifest::sha256_hex(&bytes),
            server_path: format!("/stable/{}", manifest::download_path(version, format, libc)),
            bytes,
            entry,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Release {
    pub version: String,
    pub artifacts: Vec<Artifact>,
}

impl Release {
    pub fn artifact(&self, format: Format, libc: Libc) -> &Artifact {
        self.artifacts
            .iter()
            .find(|artifact| artifact.format == format && artifact.libc == libc)
            .expect("artifact of this release")
    }

    /// The gnu artifact of `format` (what a glibc host installs).
    pub fn gnu(&self, format: Format) -> &Artifact {
        self.artifact(format, Libc::Gnu)
    }

    pub fn entries(&self) -> Vec<Value> {
        self.artifacts
            .iter()
            .map(|artifact| artifact.entry.clone())
            .collect()
    }

    /// The manifest document: this release's entries and foreign ones.
    pub fn manifest(&self) -> Vec<u8> {
        let mut packages = self.entries();
        packages.extend(manifest::foreign_entries(&self.version));
        manifest::document(&self.version, &packages)
    }

    /// Requests for any artifact of this release.
    pub fn artifact_hits(&self, server: &Server) -> usize {
        self.artifacts
            .iter()
            .map(|artifact| server.hits(&artifact.server_path))
            .sum()
    }
}
