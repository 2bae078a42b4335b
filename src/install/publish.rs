//! Making a verified staging folder visible: find the binary, check it is
//! a regular file inside the folder, probe it (a binary that fails is not
//! published), record what was installed, and rename into `versions/`.

use std::path::Path;

use url::Url;

use super::download::shown;
use super::error::{io, InstallError};
use super::reuse::Fingerprint;
use super::store::{self, InstallRecord, Installed};
use super::{Installer, Target};
use crate::install::probe;

impl Installer<'_> {
    /// Probes, records and publishes the extracted `staging` folder.
    pub(super) fn publish(
        &self,
        target: &Target,
        url: &Url,
        sha256: String,
        staging: tempfile::TempDir,
    ) -> Result<Installed, InstallError> {
        let binary = self
            .data
            .archive
            .binary_paths
            .iter()
            .find(|candidate| fs_err::symlink_metadata(staging.path().join(candidate)).is_ok())
            .ok_or_else(|| InstallError::NoBinary {
                version: target.version.to_string(),
                candidates: self.data.archive.binary_paths.join(", "),
            })?;
        let executable = staging.path().join(binary);
        crate::fs_safety::check_executable(staging.path(), &executable)?;
        // Hash the binary for later reuse checks while the probes run.
        let (report, fingerprint) = std::thread::scope(|scope| {
            let fingerprint = scope.spawn(|| Fingerprint::of(&executable));
            let report = probe::probe(&executable, &self.probe);
            (report, fingerprint.join())
        });
        if !(report.version_ok && report.acp_ok) {
            return Err(InstallError::ProbeFailed {
                version: target.version.to_string(),
                problem: crate::output::sanitize::sanitize_line(
                    report.problem.as_deref().unwrap_or("no usable output"),
                )
                .into_owned(),
            });
        }
        let fingerprint = fingerprint
            .map_err(|_| InstallError::Io {
                action: "hash",
                path: executable.clone(),
                source: std::io::Error::other("hashing thread panicked"),
            })?
            .map_err(crate::fs_error::os_cause)
            .map_err(io("hash", &executable))?;
        let entry = &target.entry;
        let record = InstallRecord {
            version: target.version.to_string(),
            sha256,
            // Shown and scrubbed, so a mirror's userinfo, token or a
            // credential value in its path never reaches the disk.
            url: self.scrubber().scrub_str(&shown(url)).into_owned(),
            size: entry.size,
            file_type: entry.file_type.clone(),
            target_triple: entry.target_triple.clone(),
            binary: binary.clone(),
            installed_at: crate::output::now_rfc3339(),
            binary_fingerprint: Some(fingerprint),
        };
        write_record(staging.path(), &record)?;
        let staged = staging.keep();
        self.store
            .publish(&staged, &target.version)
            .map_err(io("publish", &staged))?;
        self.store
            .installed(&target.version)?
            .ok_or_else(|| InstallError::Io {
                action: "find the published version in",
                path: self.store.version_dir(&target.version),
                source: std::io::ErrorKind::NotFound.into(),
            })
    }
}

fn write_record(dir: &Path, record: &InstallRecord) -> Result<(), InstallError> {
    let path = dir.join(store::RECORD_FILE);
    let json = serde_json::to_string_pretty(record).map_err(|error| InstallError::Io {
        action: "encode",
        path: path.clone(),
        source: error.into(),
    })?;
    crate::fs_safety::atomic_write(&path, json.as_bytes(), 0o644).map_err(io("write", &path))
}
