//! Reusing a managed install (SPEC §3, §4.3): the published binary's size,
//! modification time and sha256 are recorded at install; before reuse the
//! binary is compared with that record (size and time first, the digest
//! only when those differ) and probed again when it no longer matches. A
//! broken install is reported, never reused silently.

use std::io::Read;
use std::path::Path;
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};
use sha2::Digest as _;

use super::error::InstallError;
use super::store::Installed;
use crate::adapter::probe::{self, ProbeReport, ProbeSettings};

/// The published executable as it was installed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fingerprint {
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub modified_ns: u128,
    pub sha256: String,
}

/// Whether the binary still is what was installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Integrity {
    Intact,
    /// It changed (or cannot be compared); why, for messages.
    Changed(String),
}

fn modified_ns(metadata: &std::fs::Metadata) -> Option<u128> {
    metadata
        .modified()
        .ok()?
        .duration_since(UNIX_EPOCH)
        .ok()
        .map(|since| since.as_nanos())
}

fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut file = fs_err::File::open(path)?;
    let mut hasher = sha2::Sha256::new();
    let mut buffer = vec![0u8; 256 * 1024];
    loop {
        let read = file.read(&mut buffer)?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Ok(hex::encode(hasher.finalize()))
}

impl Fingerprint {
    /// Takes the fingerprint of `path` (a regular file).
    pub fn of(path: &Path) -> std::io::Result<Self> {
        let metadata = fs_err::metadata(path)?;
        Ok(Self {
            size: metadata.len(),
            modified_ns: modified_ns(&metadata).unwrap_or_default(),
            sha256: sha256_file(path)?,
        })
    }

    /// Compares `path` with this fingerprint, hashing only when size or
    /// time differ.
    pub fn check(&self, path: &Path) -> Integrity {
        let metadata = match fs_err::metadata(path) {
            Ok(metadata) => metadata,
            Err(error) => return Integrity::Changed(format!("it cannot be inspected: {error}")),
        };
        if metadata.len() == self.size && modified_ns(&metadata) == Some(self.modified_ns) {
            return Integrity::Intact;
        }
        match sha256_file(path) {
            Ok(digest) if digest.eq_ignore_ascii_case(&self.sha256) => Integrity::Intact,
            Ok(_) => Integrity::Changed(format!(
                "its binary changed since it was installed ({} bytes, recorded {})",
                metadata.len(),
                self.size
            )),
            Err(error) => Integrity::Changed(format!("it cannot be read: {error}")),
        }
    }
}

impl Installed {
    /// Whether the executable still matches the install record.
    pub fn integrity(&self) -> Integrity {
        match &self.record.binary_fingerprint {
            Some(fingerprint) => fingerprint.check(&self.executable),
            None => {
                Integrity::Changed("its install record has no fingerprint of the binary".to_owned())
            }
        }
    }
}

/// What the reuse check found.
#[derive(Debug)]
pub enum Verdict {
    /// Unchanged since install: reused without running it.
    Intact,
    /// Changed, but it passes both probes again.
    Reprobed {
        change: String,
        report: ProbeReport,
    },
    Broken {
        change: String,
        report: ProbeReport,
    },
}

/// Checks `installed` before reuse, probing it when it changed.
pub fn check(installed: &Installed, settings: &ProbeSettings) -> Verdict {
    match installed.integrity() {
        Integrity::Intact => Verdict::Intact,
        Integrity::Changed(change) => {
            let report = probe::probe(&installed.executable, settings);
            if report.version_ok && report.acp_ok {
                Verdict::Reprobed { change, report }
            } else {
                Verdict::Broken { change, report }
            }
        }
    }
}

/// [`check`], as the error a command reports for a broken install.
pub fn verify(installed: &Installed, settings: &ProbeSettings) -> Result<(), InstallError> {
    match check(installed, settings) {
        Verdict::Intact => Ok(()),
        Verdict::Reprobed { change, .. } => {
            tracing::warn!(
                "`{}`: {change}, but it passes its probes: reusing it",
                installed.executable.display()
            );
            Ok(())
        }
        Verdict::Broken { change, report } => Err(InstallError::Broken {
            version: installed.version.to_string(),
            path: installed.executable.clone(),
            change,
            problem: crate::adapter::display::outside_line(
                report.problem.as_deref().unwrap_or("no usable output"),
            )
            .into_owned(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fingerprint_notices_a_replaced_binary_and_forgives_a_touch() {
        let temp = tempfile::tempdir().expect("tempdir");
        let path = temp.path().join("kiro-cli");
        fs_err::write(&path, b"#!/bin/sh\necho kiro-cli 1.0.0\n").expect("write");
        let fingerprint = Fingerprint::of(&path).expect("fingerprint");
        assert_eq!(fingerprint.check(&path), Integrity::Intact);
        // Same bytes, new time: the digest says it is the same binary.
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(60);
        fs_err::File::options()
            .write(true)
            .open(&path)
            .expect("open")
            .set_modified(later)
            .expect("touch");
        assert_eq!(fingerprint.check(&path), Integrity::Intact);
        fs_err::write(&path, b"#!/bin/sh\nexit 1\n").expect("replace");
        assert!(matches!(fingerprint.check(&path), Integrity::Changed(_)));
        fs_err::remove_file(&path).expect("remove");
        assert!(matches!(fingerprint.check(&path), Integrity::Changed(_)));
    }
}
