//! The config files the person trusted, kept in oneworks' own
//! data folder and never in a project: one record per file,
//! `$ONEWORKS_HOME/trusted-configs/<sha256 of the file's real path>.json`,
//! holding that real path and the sha256 of the bytes that were trusted
//! (direnv's `allow` folder, mise's `trust`). A record matches only the same
//! real path with the same bytes: an edited file is untrusted again.
//! Records are written atomically and privately (0600 in a 0700 folder),
//! never through a link; an unreadable or broken record trusts nothing.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Classify, ErrorKind};
use crate::fs_safety::{self, UnsafePath};

/// The folder under `$ONEWORKS_HOME` that holds the records.
pub const TRUST_DIR: &str = "trusted-configs";
/// Larger records are not read (a record is a few hundred bytes).
const MAX_RECORD_BYTES: u64 = 64 * 1024;

/// What is recorded for one trusted file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TrustRecord {
    pub version: u32,
    /// The file's real path (links resolved) when it was trusted.
    pub path: PathBuf,
    /// The sha256 (hex) of the bytes that were trusted.
    pub sha256: String,
    /// When (RFC 3339, UTC).
    pub trusted_at: String,
}

#[derive(Debug, thiserror::Error)]
pub enum TrustStoreError {
    #[error(transparent)]
    Unsafe(#[from] UnsafePath),
    #[error("failed to write the trust record `{path}`")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("failed to remove the trust record `{path}`")]
    Remove {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl Classify for TrustStoreError {
    fn kind(&self) -> ErrorKind {
        match self {
            TrustStoreError::Unsafe(error) => error.kind(),
            _ => ErrorKind::Internal,
        }
    }
    fn hint(&self) -> Option<String> {
        match self {
            TrustStoreError::Unsafe(error) => error.hint(),
            _ => None,
        }
    }
}

/// The trust records under one data folder.
#[derive(Debug, Clone)]
pub struct TrustStore {
    data_home: PathBuf,
}

/// The sha256 (hex) of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

impl TrustStore {
    pub fn new(data_home: &Path) -> Self {
        Self {
            data_home: data_home.to_owned(),
        }
    }

    pub fn dir(&self) -> PathBuf {
        self.data_home.join(TRUST_DIR)
    }

    /// Where the record of the file whose real path is `real` lives.
    pub fn record_path(&self, real: &Path) -> PathBuf {
        self.dir().join(format!(
            "{}.json",
            sha256_hex(real.as_os_str().as_encoded_bytes())
        ))
    }

    /// The record of `real`, if there is a readable one for exactly that
    /// path (anything odd — a link, a broken file — is no record).
    pub fn record(&self, real: &Path) -> Option<TrustRecord> {
        fs_safety::check_dir_chain(&self.data_home, &self.dir()).ok()?;
        let bytes =
            fs_safety::read_regular_file(&self.record_path(real), MAX_RECORD_BYTES, false).ok()?;
        let record: TrustRecord = serde_json::from_slice(&bytes).ok()?;
        (record.version == 1 && record.path == real).then_some(record)
    }

    /// Whether the file at real path `real` whose bytes hash to `sha256` is
    /// trusted.
    pub fn is_trusted(&self, real: &Path, sha256: &str) -> bool {
        self.record(real)
            .is_some_and(|record| record.sha256.eq_ignore_ascii_case(sha256))
    }

    /// Records `real` with `sha256` as trusted (replacing an older record).
    pub fn trust(&self, real: &Path, sha256: &str) -> Result<TrustRecord, TrustStoreError> {
        let dir = self.dir();
        fs_safety::create_dir_chain(&self.data_home, &dir, 0o700)?;
        fs_safety::check_private_dir(&dir)?;
        let record = TrustRecord {
            version: 1,
            path: real.to_owned(),
            sha256: sha256.to_owned(),
            trusted_at: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        };
        let path = self.record_path(real);
        refuse_odd_entry(&path)?;
        let mut text =
            serde_json::to_string_pretty(&record).map_err(|error| TrustStoreError::Write {
                path: path.clone(),
                source: std::io::Error::other(error),
            })?;
        text.push('\n');
        fs_safety::atomic_write(&path, text.as_bytes(), 0o600).map_err(|source| {
            TrustStoreError::Write {
                path: path.clone(),
                source,
            }
        })?;
        Ok(record)
    }

    /// Removes the record of `real`; `false` when there was none.
    pub fn untrust(&self, real: &Path) -> Result<bool, TrustStoreError> {
        fs_safety::check_dir_chain(&self.data_home, &self.dir())?;
        let path = self.record_path(real);
        match fs_err::remove_file(&path).map_err(crate::fs_error::os_cause) {
            Ok(()) => Ok(true),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(source) => Err(TrustStoreError::Remove { path, source }),
        }
    }
}

/// Refuses to replace a record that is a link or not a regular file.
fn refuse_odd_entry(path: &Path) -> Result<(), UnsafePath> {
    match fs_err::symlink_metadata(path) {
        Ok(metadata) if metadata.file_type().is_symlink() => Err(UnsafePath::Symlink {
            path: path.to_owned(),
        }),
        Ok(metadata) if !metadata.is_file() => Err(UnsafePath::WrongType {
            path: path.to_owned(),
            found: fs_safety::describe(metadata.file_type()),
            expected: "regular file",
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn a_record_matches_its_path_and_bytes_only() {
        let temp = tempfile::tempdir().expect("tempdir");
        let store = TrustStore::new(&temp.path().join("data"));
        let file = Path::new("/project/.oneworks/config.yaml");
        let hash = sha256_hex(b"adapters: {}\n");
        assert!(!store.is_trusted(file, &hash));
        store.trust(file, &hash).expect("trust");
        assert!(store.is_trusted(file, &hash));
        assert!(!store.is_trusted(file, &sha256_hex(b"adapters: {} \n")));
        assert!(!store.is_trusted(Path::new("/other/config.yaml"), &hash));
        let mode = |path: &Path| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(path)
                .expect("metadata")
                .permissions()
                .mode()
                & 0o777
        };
        assert_eq!(mode(&store.dir()), 0o700);
        assert_eq!(mode(&store.record_path(file)), 0o600);
        assert!(store.untrust(file).expect("untrust"));
        assert!(!store.is_trusted(file, &hash));
        assert!(!store.untrust(file).expect("untrust again"));
    }

    #[test]
    fn a_linked_record_trusts_nothing_and_is_not_written_through() {
        let temp = tempfile::tempdir().expect("tempdir");
        let store = TrustStore::new(&temp.path().join("data"));
        let file = Path::new("/project/.oneworks/config.yaml");
        let hash = sha256_hex(b"x");
        store.trust(file, &hash).expect("trust");
        let target = temp.path().join("elsewhere.json");
        std::fs::rename(store.record_path(file), &target).expect("move");
        std::os::unix::fs::symlink(&target, store.record_path(file)).expect("link");
        assert!(!store.is_trusted(file, &hash), "a link is no record");
        assert!(store.trust(file, &hash).is_err(), "never written through");
    }
}
