//! Installing one managed Node: under the Node store's lock, `index.json`
//! → the release for the range → its line of `SHASUMS256.txt` → the
//! `tar.xz` streamed through the installer's hashing pipe into the guarded
//! extraction (sha256 checked before anything is kept) → the install
//! record → the atomic rename into `versions/`, as for every managed tool.

use std::path::Path;

use url::Url;

use super::release::{self, Release};
use super::{installed_node, Connectivity, ManagedNode, NodeUse};
use crate::adapter::file_type::FileType;
use crate::install::error::{io, InstallError};
use crate::install::extract::{guard::Staging, Compression};
use crate::install::source::npm::node::{self, IndexProblem, NodeError};
use crate::install::source::platform::Libc;
use crate::install::store::fingerprint::{BinaryFingerprint, Integrity};
use crate::install::store::install_lock;
use crate::install::store::InstallRecord;
use crate::install::transport::fetcher;
use crate::install::transport::network_error::{shown, NetworkError};
use crate::install::Installer;

/// The largest Node tarball downloaded (official ones are ~30 MB).
const TARBALL_LIMIT: u64 = 512 * 1024 * 1024;
/// Unpacked size bound, as a multiple of the tarball's size (xz packs the
/// node binary about 4×).
const MAX_EXPANSION: u64 = 10;
/// The largest `index.json` read (the official one is ~300 kB).
const INDEX_LIMIT: u64 = 16 * 1024 * 1024;

/// A failed request to the mirror, named as the mirror's (its hint points
/// at `ONEWORKS_NODE_MIRROR`, not at the npm registry).
fn mirror_error(url: &Url, error: NetworkError) -> InstallError {
    NodeError::Index {
        url: shown(url),
        source: IndexProblem::Fetch(Box::new(error)),
    }
    .into()
}

impl Installer<'_> {
    fn mirror_url(&self, relative: &str) -> Result<Url, InstallError> {
        let mirror = &self.node.mirror;
        mirror.join(relative).map_err(|source| {
            NetworkError::Url {
                url: crate::redact::redact_url(&format!("{mirror}{relative}")),
                source,
            }
            .into()
        })
    }

    /// The managed Node for `range` (exactly `pinned` when given):
    /// installed, or reused when the installed one is the artifact the
    /// mirror's checksums name and is unchanged.
    pub(super) fn managed_node(
        &self,
        range: Option<&str>,
        pinned: Option<&NodeUse>,
        fetch: Connectivity,
    ) -> Result<ManagedNode, InstallError> {
        let store = &self.node.store;
        let platform = release::platform(
            &self.host.os,
            &self.host.arch,
            matches!(self.host.libc, Libc::Musl),
        )
        .ok_or_else(|| NodeError::NoBuild {
            host: self.host.to_string(),
        })?;
        store.prepare_dirs()?;
        let _lock =
            install_lock::acquire_announced(&store.lock_path(), self.lock_timeout, self.quiet)?;
        // Under the lock: anything in staging was left by a killed install.
        store.sweep_staging();
        if fetch == Connectivity::Offline {
            return self.installed_managed_node(range, pinned);
        }
        let chosen = match pinned {
            Some(pinned) => self.pinned_release(pinned)?,
            None => self.choose_release(range, &platform)?,
        };
        let sha256 = self.mirror_sha256(&chosen, &platform, pinned)?;
        let used = NodeUse {
            version: chosen.version.to_string(),
            sha256: sha256.clone(),
        };
        if self.installed_is_reusable(&chosen.version, &sha256)? {
            return Ok(installed_node(store, &used)?);
        }
        crate::output::say(
            self.quiet,
            format!(
                "installing Node.js v{} for `{}` (engines.node {})",
                chosen.version,
                self.data.binary.name,
                range.map_or_else(
                    || "any".to_owned(),
                    |range| format!("`{}`", crate::output::sanitize::sanitize_line(range))
                ),
            ),
        );
        let tarball = self.mirror_url(&chosen.tarball(&platform))?;
        self.install_node(&chosen, &platform, &tarball, &sha256)?;
        Ok(installed_node(store, &used)?)
    }

    /// The release the lock file pins (its version must parse).
    fn pinned_release(&self, pinned: &NodeUse) -> Result<Release, InstallError> {
        let version =
            semver::Version::parse(&pinned.version).map_err(|_| NodeError::ManagedMissing {
                version: pinned.version.clone(),
                root: self.node.store.versions_dir(),
            })?;
        Ok(Release {
            version,
            lts: false,
        })
    }

    /// The sha256 the mirror's `SHASUMS256.txt` names for `chosen`'s
    /// tarball; with a pin, it must be the one the lock file records.
    fn mirror_sha256(
        &self,
        chosen: &Release,
        platform: &str,
        pinned: Option<&NodeUse>,
    ) -> Result<String, InstallError> {
        let shasums_url = self.mirror_url(&chosen.shasums())?;
        let shasums = self
            .fetcher
            .get_small(&shasums_url)
            .map_err(|error| mirror_error(&shasums_url, error))?;
        let file = format!("{}.tar.xz", chosen.stem(platform));
        let sha256 =
            release::sha256_for(&String::from_utf8_lossy(&shasums), &file).ok_or_else(|| {
                NodeError::NoChecksum {
                    file: file.clone(),
                    url: shown(&shasums_url),
                }
            })?;
        if let Some(pinned) = pinned.filter(|pinned| !pinned.sha256.eq_ignore_ascii_case(&sha256)) {
            return Err(InstallError::Checksum {
                subject: format!("Node.js v{} (as the lock file records it)", chosen.version),
                algorithm: "sha256",
                expected: pinned.sha256.to_ascii_lowercase(),
                computed: sha256,
                url: shown(&shasums_url),
            });
        }
        Ok(sha256)
    }

    /// Whether the installed `version` is the artifact the mirror names
    /// (`sha256`) and unchanged; one that is not gets reinstalled.
    fn installed_is_reusable(
        &self,
        version: &semver::Version,
        sha256: &str,
    ) -> Result<bool, InstallError> {
        let Some(installed) = self.node.store.installed(version)? else {
            return Ok(false);
        };
        if installed.record.sha256.eq_ignore_ascii_case(sha256)
            && installed.integrity() == Integrity::Intact
        {
            return Ok(true);
        }
        tracing::info!(
            "installed Node.js v{version} is not the artifact the mirror names (or changed): reinstalling"
        );
        Ok(false)
    }

    /// `--offline`: the installed Node the pin names, else the newest
    /// installed one that fits.
    fn installed_managed_node(
        &self,
        range: Option<&str>,
        pinned: Option<&NodeUse>,
    ) -> Result<ManagedNode, InstallError> {
        let store = &self.node.store;
        if let Some(pinned) = pinned {
            return Ok(installed_node(store, pinned)?);
        }
        for installed in store.list()? {
            let fits = match range {
                Some(range) => node::satisfies(range, &installed.version).unwrap_or(false),
                None => true,
            };
            if fits && installed.integrity() == Integrity::Intact {
                let used = NodeUse {
                    version: installed.version.to_string(),
                    sha256: installed.record.sha256.clone(),
                };
                return Ok(installed_node(store, &used)?);
            }
        }
        Err(NodeError::Offline {
            name: self.data.binary.name.clone(),
            range: range.map(str::to_owned),
            root: store.versions_dir(),
        }
        .into())
    }

    fn choose_release(&self, range: Option<&str>, platform: &str) -> Result<Release, InstallError> {
        let index_url = self.mirror_url("index.json")?;
        let index = self
            .fetcher
            .get_document(&index_url, Some("application/json"), INDEX_LIMIT)
            .map_err(|error| mirror_error(&index_url, error))?;
        let releases = release::releases(&index, platform).map_err(|error| NodeError::Index {
            url: shown(&index_url),
            source: IndexProblem::NotAList(error),
        })?;
        let name = &self.data.binary.name;
        let chosen = release::choose(&releases, range).map_err(|_| NodeError::Range {
            name: name.clone(),
            range: range.unwrap_or_default().to_owned(),
        })?;
        chosen.cloned().ok_or_else(|| {
            NodeError::NoRelease {
                name: name.clone(),
                range: range.map(str::to_owned),
                platform: platform.to_owned(),
                url: shown(&index_url),
                newest: match releases.first() {
                    Some(newest) => format!("v{}", newest.version),
                    None => "none".to_owned(),
                },
            }
            .into()
        })
    }

    /// Downloads, verifies, extracts and publishes `chosen`.
    fn install_node(
        &self,
        chosen: &Release,
        platform: &str,
        tarball: &Url,
        sha256: &str,
    ) -> Result<(), InstallError> {
        let store = &self.node.store;
        let version = &chosen.version;
        crate::fs_safety::check_dir_chain(&store.home, &store.version_dir(version))?;
        let staging = tempfile::Builder::new()
            .prefix(&format!("{version}-"))
            .tempdir_in(store.staging_dir())
            .map_err(io("create a staging folder in", &store.staging_dir()))?;
        let size = self.with_retries(tarball, staging.path(), |body| {
            self.fetch_node_into(body, chosen, tarball, sha256, staging.path())
        })?;
        let binary = format!("{}/bin/node", chosen.stem(platform));
        let executable = staging.path().join(&binary);
        crate::fs_safety::check_executable(staging.path(), &executable)?;
        let fingerprint = BinaryFingerprint::of(&executable)
            .map_err(crate::fs_error::os_cause)
            .map_err(io("hash", &executable))?;
        let record = InstallRecord {
            version: version.to_string(),
            sha256: sha256.to_owned(),
            url: self.scrubber().scrub_str(&shown(tarball)).into_owned(),
            size,
            file_type: FileType::TarXz,
            target_triple: platform.to_owned(),
            binary,
            installed_at: crate::output::now_rfc3339(),
            binary_fingerprint: Some(fingerprint),
            integrity: None,
            package: None,
            engines_node: None,
            node: None,
        };
        crate::install::store::publish::write_record(staging.path(), &record)?;
        let staged = staging.keep();
        store
            .publish(&staged, version)
            .map_err(io("publish", &staged))?;
        Ok(())
    }

    /// One attempt: network → sha256 → xz → guarded tar extraction, then
    /// the size and digest checks; returns the tarball's size.
    fn fetch_node_into(
        &self,
        body: fetcher::Body,
        chosen: &Release,
        url: &Url,
        sha256: &str,
        staging_dir: &Path,
    ) -> Result<u64, InstallError> {
        let cap = body.cap(url, TARBALL_LIMIT)?;
        let length = body.length;
        let bar = self.progress_bar(body.length);
        bar.set_message(format!("downloading Node.js v{}", chosen.version));
        let mut staging = Staging::new(
            staging_dir.to_owned(),
            cap.saturating_mul(MAX_EXPANSION).max(1 << 20),
        );
        let reader = Box::new(std::io::Read::take(body.reader, cap.saturating_add(1)));
        let (digest, extracted) = crate::install::transport::download::hash_and_extract(
            reader,
            false,
            Compression::Xz,
            &mut staging,
            (url, self.fetcher.idle_timeout),
            &bar,
        )?;
        bar.finish_and_clear();
        fetcher::check_received(url, length, digest.bytes, TARBALL_LIMIT)?;
        if !digest.sha256.eq_ignore_ascii_case(sha256) {
            return Err(InstallError::Checksum {
                subject: format!("Node.js v{}", chosen.version),
                algorithm: "sha256",
                expected: sha256.to_ascii_lowercase(),
                computed: digest.sha256,
                url: shown(url),
            });
        }
        extracted.map_err(|source| InstallError::Extract {
            name: "node".to_owned(),
            version: chosen.version.to_string(),
            url: shown(url),
            source,
        })?;
        Ok(digest.bytes)
    }
}
