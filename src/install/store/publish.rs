//! Making a verified staging folder visible: check the binary the source
//! found is a regular executable file inside the folder, probe it (a binary
//! that fails, or that says another version than the one it would be filed
//! under, is not published), record what was installed, and rename into
//! `versions/`.

use std::path::Path;

use super::fingerprint::BinaryFingerprint;
use super::{InstallRecord, Installed, RECORD_FILE};
use crate::install::error::{io, Authority, InstallError};
use crate::install::probe;
use crate::install::{Installer, Staged};

impl Installer<'_> {
    /// Probes, records and publishes the extracted `staging` folder.
    pub(crate) fn publish(
        &self,
        version: &semver::Version,
        staged: Staged,
        staging: tempfile::TempDir,
    ) -> Result<Installed, InstallError> {
        let executable = staging.path().join(&staged.binary);
        crate::fs_safety::check_executable(staging.path(), &executable)?;
        // Hash the binary for later reuse checks while the probes run.
        let must_probe = self.data.probes.at_install || !staged.version_checked;
        let (report, fingerprint) = std::thread::scope(|scope| {
            let fingerprint = scope.spawn(|| BinaryFingerprint::of(&executable));
            let report =
                must_probe.then(|| probe::probe(&executable, &self.probe_for(&staged.record)));
            (report, fingerprint.join())
        });
        if let Some(report) = &report {
            self.check_probe(version, report)?;
        }
        let fingerprint = fingerprint
            .map_err(|_| InstallError::Io {
                action: "hash",
                path: executable.clone(),
                source: std::io::Error::other("hashing thread panicked"),
            })?
            .map_err(crate::fs_error::os_cause)
            .map_err(io("hash", &executable))?;
        let record = InstallRecord {
            binary: staged.binary,
            installed_at: crate::output::now_rfc3339(),
            binary_fingerprint: Some(fingerprint),
            ..staged.record
        };
        write_record(staging.path(), &record)?;
        let staged = staging.keep();
        self.store
            .publish(&staged, version)
            .map_err(io("publish", &staged))?;
        self.store
            .installed(version)?
            .ok_or_else(|| InstallError::Io {
                action: "find the published version in",
                path: self.store.version_dir(version),
                source: std::io::ErrorKind::NotFound.into(),
            })
    }

    /// A probe that failed stops the install; so does one that prints
    /// another version than the one the install would be filed under
    /// (what the artifact says, never only what a lock says).
    fn check_probe(
        &self,
        version: &semver::Version,
        report: &probe::ProbeReport,
    ) -> Result<(), InstallError> {
        if !(report.version_ok && report.acp_ok) {
            return Err(InstallError::ProbeFailed {
                name: self.data.binary.name.clone(),
                version: version.to_string(),
                problem: report
                    .explained()
                    .unwrap_or_else(|| "no usable output".to_owned()),
                cause_hint: report.cause_hint(),
            });
        }
        let said = report.version.as_deref().unwrap_or_default();
        if crate::config::schema::parse_version(said).as_ref() != Some(version) {
            return Err(InstallError::Disagrees {
                subject: format!("the downloaded `{}` {version}", self.data.binary.name),
                authority: Authority::VersionProbe,
                field: "version",
                expected: version.to_string(),
                found: said.to_owned(),
            });
        }
        Ok(())
    }
}

pub(crate) fn write_record(dir: &Path, record: &InstallRecord) -> Result<(), InstallError> {
    let path = dir.join(RECORD_FILE);
    let json = serde_json::to_string_pretty(record).map_err(|error| InstallError::Io {
        action: "encode",
        path: path.clone(),
        source: error.into(),
    })?;
    crate::fs_safety::atomic_write(&path, json.as_bytes(), 0o644).map_err(io("write", &path))
}
