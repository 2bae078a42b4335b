//! Reusing a managed install: the published binary's size,
//! modification time and sha256 are recorded at install; before reuse the
//! binary is compared with that record (size and time first, the digest
//! only when those differ) and probed again when it no longer matches. A
//! broken install is reported, never reused silently.

use super::fingerprint::Integrity;
use super::Installed;
use crate::install::error::InstallError;
use crate::install::probe::{self, ProbeReport, ProbeSettings};

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
pub enum ReuseVerdict {
    /// Unchanged since install: reused without running it.
    Intact,
    /// Changed, but it passes its probes again.
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
pub fn check(installed: &Installed, settings: &ProbeSettings) -> ReuseVerdict {
    match installed.integrity() {
        Integrity::Intact => ReuseVerdict::Intact,
        Integrity::Changed(change) => {
            let report = probe::probe(&installed.executable, settings);
            if report.version_ok && report.acp_ok {
                ReuseVerdict::Reprobed { change, report }
            } else {
                ReuseVerdict::Broken { change, report }
            }
        }
    }
}

/// [`check`], as the error a command reports for a broken install of the
/// binary `name`.
pub fn verify(
    installed: &Installed,
    settings: &ProbeSettings,
    name: &str,
) -> Result<(), InstallError> {
    match check(installed, settings) {
        ReuseVerdict::Intact => Ok(()),
        ReuseVerdict::Reprobed { change, .. } => {
            tracing::warn!(
                "`{}`: {change}, but it passes its probes: reusing it",
                installed.executable.display()
            );
            Ok(())
        }
        ReuseVerdict::Broken { change, report } => Err(InstallError::Broken {
            name: name.to_owned(),
            version: installed.version.to_string(),
            path: installed.executable.clone(),
            change,
            problem: report
                .explained()
                .unwrap_or_else(|| "no usable output".to_owned()),
        }),
    }
}
