//! What a published executable looked like: size, modification time and
//! sha256, recorded at install and compared before every reuse (size and
//! time first, the digest only when those differ).

use std::io::Read;
use std::path::Path;
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};
use sha2::Digest as _;

/// The published executable as it was installed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BinaryFingerprint {
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

impl BinaryFingerprint {
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
        let metadata = match fs_err::metadata(path).map_err(crate::fs_error::os_cause) {
            Ok(metadata) => metadata,
            Err(error) => return Integrity::Changed(format!("it cannot be inspected: {error}")),
        };
        if metadata.len() == self.size && modified_ns(&metadata) == Some(self.modified_ns) {
            return Integrity::Intact;
        }
        match sha256_file(path).map_err(crate::fs_error::os_cause) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fingerprint_notices_a_replaced_binary_and_forgives_a_touch() {
        let temp = tempfile::tempdir().expect("tempdir");
        let path = temp.path().join("agent-cli");
        fs_err::write(&path, b"#!/bin/sh\necho agent-cli 1.0.0\n").expect("write");
        let fingerprint = BinaryFingerprint::of(&path).expect("fingerprint");
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
