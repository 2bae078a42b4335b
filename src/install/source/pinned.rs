//! Archives by version checked against reviewed pins: the
//! vendor publishes no checksum, so a version is installed only against a
//! sha256 oneworks can check — the adapter's reviewed pins for this host,
//! or the `cli.sha256` a trusted config gives beside `cli.version`. A
//! version without one is refused before any request is made. The lock
//! file binds to the pins: its entry must name the pinned digest and the
//! version's own download path.

use std::path::Path;

use super::manifest::ArtifactEntry;
use super::ManagedSource;
use crate::adapter::pinned_data::PinnedData;
use crate::config::VersionRequest;
use crate::install::error::{Authority, InstallError};
use crate::install::pin::Pin;
use crate::install::{Artifact, InstallRequest, Prepared, ReadPin};

/// One version installable on this host and the sha256 it must have.
#[derive(Debug, Clone)]
struct HostPin {
    version: semver::Version,
    sha256: String,
}

impl crate::install::Installer<'_> {
    /// `prepared` with its version as the vendor writes it (a pinned
    /// source's dated versions keep their leading zeros).
    pub(crate) fn written(&self, prepared: Prepared) -> Prepared {
        let Some(pinned) = &self.data.pinned else {
            return prepared;
        };
        match crate::config::schema::parse_version(&prepared.version) {
            Some(version) => Prepared {
                version: pinned.write_version(&version),
                ..prepared
            },
            None => prepared,
        }
    }

    fn pinned_data(&self) -> Result<&PinnedData, InstallError> {
        self.data
            .pinned
            .as_ref()
            .ok_or_else(|| self.missing_section("pinned"))
    }

    /// This host as the vendor spells it (`linux`, `x64`), if it has one.
    fn vendor_platform<'p>(&self, pinned: &'p PinnedData) -> Option<(&'p str, &'p str)> {
        Some((
            pinned.os.get(&self.host.os)?.as_str(),
            pinned.arch.get(&self.host.arch)?.as_str(),
        ))
    }

    /// The versions installable here, newest first: the data's pins for
    /// this host and the trusted config's. A trusted `cli.sha256` that
    /// contradicts a reviewed pin of the same version is refused.
    fn host_pins(&self) -> Result<Vec<HostPin>, InstallError> {
        let pinned = self.pinned_data()?;
        let mut pins = Vec::new();
        if let Some((os, arch)) = self.vendor_platform(pinned) {
            let key = format!("{os}/{arch}");
            for pin in &pinned.pins {
                let (Some(version), Some(sha256)) = (
                    crate::config::schema::parse_version(&pin.version),
                    pin.sha256.get(&key),
                ) else {
                    continue;
                };
                pins.push(HostPin {
                    version,
                    sha256: sha256.to_ascii_lowercase(),
                });
            }
        }
        if let ManagedSource::Pinned {
            trusted: Some((version, sha256)),
            ..
        } = &self.source
        {
            match pins.iter().find(|pin| pin.version == *version) {
                Some(reviewed) if reviewed.sha256 != *sha256 => {
                    return Err(InstallError::Disagrees {
                        subject: format!(
                            "`adapters.{}.cli.sha256` of {}",
                            self.data.id,
                            pinned.write_version(version)
                        ),
                        authority: Authority::ReviewedPin,
                        field: "sha256",
                        expected: reviewed.sha256.clone(),
                        found: sha256.clone(),
                    });
                }
                Some(_) => {}
                None => pins.push(HostPin {
                    version: version.clone(),
                    sha256: sha256.clone(),
                }),
            }
        }
        pins.sort_by(|a, b| b.version.cmp(&a.version));
        Ok(pins)
    }

    /// The pin of `version` for this host, or the refusal naming
    /// `cli.sha256` (exit 3), before any request.
    fn pin_of(&self, wanted: Option<&semver::Version>) -> Result<HostPin, InstallError> {
        let pinned = self.pinned_data()?;
        let pins = self.host_pins()?;
        let found = match wanted {
            Some(version) => pins.iter().find(|pin| pin.version == *version),
            None => pins.first(),
        };
        found.cloned().ok_or_else(|| InstallError::Unpinned {
            name: self.data.binary.name.clone(),
            requested: wanted.map_or_else(
                || "latest".to_owned(),
                |version| pinned.write_version(version),
            ),
            host: format!("{}/{}", self.host.os, self.host.arch),
            pinned: pins
                .iter()
                .map(|pin| pinned.write_version(&pin.version))
                .collect(),
        })
    }

    /// The archive entry of `pin` for this host.
    fn pinned_entry(&self, pin: &HostPin) -> Result<ArtifactEntry, InstallError> {
        let pinned = self.pinned_data()?;
        let (os, arch) = self
            .vendor_platform(pinned)
            .ok_or_else(|| InstallError::Unpinned {
                name: self.data.binary.name.clone(),
                requested: pinned.write_version(&pin.version),
                host: format!("{}/{}", self.host.os, self.host.arch),
                pinned: Vec::new(),
            })?;
        Ok(ArtifactEntry {
            target_triple: String::new(),
            os: self.host.os.clone(),
            file_type: pinned.file_type.clone(),
            architecture: self.host.arch.clone(),
            variant: None,
            download: pinned.download_path(&pin.version, os, arch),
            sha256: pin.sha256.clone(),
            size: pinned.max_bytes,
            cli_path: None,
        })
    }

    fn install_pin(&self, pin: &HostPin, force: bool) -> Result<Prepared, InstallError> {
        let target = Artifact {
            version: pin.version.clone(),
            entry: self.pinned_entry(pin)?,
            exact_size: false,
        };
        self.install_or_reuse(&target, force)
    }

    /// `prepare` of a pinned source: the requested version (or the newest
    /// pinned one) when it has a pin for this host; the lock file then
    /// records it.
    pub(crate) fn install_pinned_latest(
        &self,
        request: &InstallRequest,
    ) -> Result<Prepared, InstallError> {
        let wanted = match &request.version {
            VersionRequest::Exact(version) => Some(version),
            VersionRequest::Latest => None,
        };
        let pin = self.pin_of(wanted)?;
        let prepared = self.install_pin(&pin, request.force)?;
        if let Some(path) = &request.pin_path {
            Pin {
                version: self.pinned_data()?.write_version(&pin.version),
                packages: vec![self.pinned_entry(&pin)?],
                npm: None,
            }
            .write(path, self.scrubber())?;
        }
        Ok(prepared)
    }

    /// The version a lock file records, bound to the pins: it
    /// must be pinned for this host, and its entry for this host must name
    /// the pinned sha256 and the version's own download path.
    pub(crate) fn install_pinned_lock(
        &self,
        read: &ReadPin,
        version: semver::Version,
        force: bool,
    ) -> Result<Prepared, InstallError> {
        let pin = self.pin_of(Some(&version))?;
        let expected = self.pinned_entry(&pin)?;
        let entry = read
            .pin
            .packages
            .iter()
            .find(|entry| entry.os == self.host.os && entry.architecture == self.host.arch);
        if let Some(entry) = entry {
            self.bind(&read.path, &version, entry, &expected)?;
        }
        self.install_pin(&pin, force)
    }

    fn bind(
        &self,
        path: &Path,
        version: &semver::Version,
        entry: &ArtifactEntry,
        expected: &ArtifactEntry,
    ) -> Result<(), InstallError> {
        let subject = || {
            format!(
                "`{}`'s `{}` {}",
                path.display(),
                self.data.binary.name,
                self.pinned_data()
                    .map_or_else(|_| version.to_string(), |data| data.write_version(version))
            )
        };
        if !entry.sha256.eq_ignore_ascii_case(&expected.sha256) {
            return Err(InstallError::Disagrees {
                subject: subject(),
                authority: Authority::ReviewedPin,
                field: "sha256",
                expected: expected.sha256.clone(),
                found: entry.sha256.clone(),
            });
        }
        if entry.download != expected.download {
            return Err(InstallError::Disagrees {
                subject: subject(),
                authority: Authority::DownloadLayout,
                field: "download",
                expected: expected.download.clone(),
                found: entry.download.clone(),
            });
        }
        Ok(())
    }
}
