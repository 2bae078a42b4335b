//! A vendor release manifest as a managed source: the
//! manifest, this host's entry, its URL under the download base, and the
//! staging fill (download, sha256, extract, find the binary) that the one
//! install path publishes.

use std::path::Path;

use url::Url;

use super::manifest::{ArtifactEntry, Manifest};
use super::{platform, ManagedSource};
use crate::install::error::{Authority, InstallError};
use crate::install::extract::format::Installable;
use crate::install::transport::network_error::{shown, NetworkError};
use crate::install::{store, Artifact, Installer, Prepared, Staged};

impl Installer<'_> {
    pub(crate) fn fetch_manifest(&self, manifest_url: &Url) -> Result<Manifest, InstallError> {
        let bytes = self.fetcher.get_small(manifest_url)?;
        Manifest::parse(&bytes).map_err(|source| InstallError::Manifest {
            display: self.data.display_name.clone(),
            url: shown(manifest_url),
            source,
        })
    }

    fn artifact_url(&self, entry: &ArtifactEntry) -> Result<Url, InstallError> {
        let download_base = match &self.source {
            ManagedSource::VendorManifest { download_base, .. }
            | ManagedSource::Pinned { download_base, .. } => download_base,
            ManagedSource::Npm { .. } => return Err(self.missing_section("manifest")),
        };
        let url = download_base.join(&entry.download).map_err(|source| {
            InstallError::Network(NetworkError::Url {
                url: crate::redact::redact_url(&format!("{}{}", download_base, entry.download)),
                source,
            })
        })?;
        // A mirror stays a mirror: nothing the manifest says leaves the base.
        if !url.as_str().starts_with(download_base.as_str()) {
            return Err(InstallError::OutsideBase {
                download: crate::output::sanitize::sanitize_line(&entry.download).into_owned(),
                base: shown(download_base),
            });
        }
        Ok(url)
    }

    /// Installs (or reuses) this host's artifact among `entries` as
    /// `version`, verified against the entry's sha256; `pin` is the lock
    /// file the entries come from, if they do.
    pub(crate) fn install_from(
        &self,
        entries: &[ArtifactEntry],
        version: semver::Version,
        force: bool,
        pin: Option<&Path>,
    ) -> Result<Prepared, InstallError> {
        let ManagedSource::VendorManifest { formats, .. } = &self.source else {
            return Err(self.missing_section("manifest"));
        };
        let platforms = self
            .data
            .platforms
            .as_ref()
            .ok_or_else(|| self.missing_section("platforms"))?;
        let entry = platform::select(entries, &self.host, platforms, formats)?;
        if let Some(pin) = pin {
            self.check_version_path(entry, &version, pin)?;
        }
        let target = Artifact {
            version,
            entry: entry.clone(),
            exact_size: true,
        };
        self.install_or_reuse(&target, force)
    }

    /// A lock file's entry binds to its version: its
    /// `download` lies in the pinned version's own folder under the
    /// download base, as the adapter's data lays releases out
    /// (`versionPath`), so an older release cannot be filed under a newer
    /// version's name. The joined URL is checked, so `..` and its encoded
    /// forms cannot step out of the folder.
    fn check_version_path(
        &self,
        entry: &ArtifactEntry,
        version: &semver::Version,
        pin: &Path,
    ) -> Result<(), InstallError> {
        let ManagedSource::VendorManifest { download_base, .. } = &self.source else {
            return Err(self.missing_section("manifest"));
        };
        let Some(template) = self
            .data
            .manifest
            .as_ref()
            .and_then(|manifest| manifest.version_path.as_deref())
        else {
            return Ok(());
        };
        let folder = template.replace("{version}", &version.to_string());
        let url = self.artifact_url(entry)?;
        let inside = download_base
            .join(&folder)
            .is_ok_and(|folder| url.as_str().starts_with(folder.as_str()));
        if inside {
            return Ok(());
        }
        Err(InstallError::Disagrees {
            subject: format!(
                "`{}`'s `{}` {version}",
                pin.display(),
                self.data.binary.name
            ),
            authority: Authority::DownloadLayout,
            field: "download",
            expected: format!("{folder}…"),
            found: entry.download.clone(),
        })
    }

    /// Installs (or reuses) one archive of an archive source (a vendor
    /// manifest's entry, a pinned version's download).
    pub(crate) fn install_or_reuse(
        &self,
        target: &Artifact,
        force: bool,
    ) -> Result<Prepared, InstallError> {
        let entry = &target.entry;
        let archive = self
            .data
            .archive
            .as_ref()
            .ok_or_else(|| self.missing_section("archive"))?;
        let unpack = entry
            .file_type
            .unpack()
            .ok_or_else(|| InstallError::UnsupportedHost {
                file_type: entry.file_type.clone(),
                download: crate::output::sanitize::sanitize_line(&entry.download).into_owned(),
            })?;
        let url = self.artifact_url(entry)?;
        let same =
            |record: &store::InstallRecord| record.sha256.eq_ignore_ascii_case(&entry.sha256);
        self.install_with(&target.version, force, &same, &mut |staging_dir| {
            let sha256 = self.download(target, &url, unpack, staging_dir)?;
            let binary = archive
                .binary_paths
                .iter()
                .find(|candidate| fs_err::symlink_metadata(staging_dir.join(candidate)).is_ok())
                .ok_or_else(|| InstallError::NoBinary {
                    name: self.data.binary.name.clone(),
                    version: target.version.to_string(),
                    candidates: archive.binary_paths.join(", "),
                })?
                .clone();
            Ok(Staged {
                record: store::InstallRecord {
                    version: target.version.to_string(),
                    sha256,
                    // Shown and scrubbed, so a mirror's userinfo, token or a
                    // credential value in its path never reaches the disk.
                    url: self.scrubber().scrub_str(&shown(&url)).into_owned(),
                    size: entry.size,
                    file_type: entry.file_type.clone(),
                    target_triple: entry.target_triple.clone(),
                    binary: binary.clone(),
                    installed_at: String::new(),
                    binary_fingerprint: None,
                    integrity: None,
                    package: None,
                    engines_node: None,
                    node: None,
                },
                binary,
                version_checked: false,
            })
        })
    }
}
