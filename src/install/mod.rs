//! The managed installer (SPEC §4): manifest → platform selection → one
//! streaming pass (network → SHA-256 → decompress → extract into staging)
//! → verify → probe → atomic publish, all under the install lock, with the
//! version policy and `kiro.lock` pin of §4.4.

pub mod download;
pub mod extract;
pub mod lock;
pub mod manifest;
pub mod pin;
pub mod pipeline;
pub mod platform;
pub mod store;

use std::path::{Path, PathBuf};
use std::time::Duration;

use url::Url;

use self::download::{Fetcher, NetworkError};
use self::extract::{guard::Staging, Compression, ExtractError};
use self::manifest::{ArtifactEntry, Manifest, ManifestError};
use self::pin::{Pin, PinError};
use self::platform::{Host, NoPackage};
use self::store::{InstallRecord, Installed, Store};
use crate::adapter::data::AdapterData;
use crate::adapter::probe::{self, ProbeSettings};
use crate::config::VersionRequest;
use crate::error::{Classify, ErrorKind};
use crate::fs_safety::UnsafePath;

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error(transparent)]
    Network(#[from] NetworkError),
    #[error("failed to read the Kiro manifest `{url}`")]
    Manifest {
        url: String,
        #[source]
        source: ManifestError,
    },
    #[error("the manifest's download path `{download}` leaves the download base `{base}`")]
    OutsideBase { download: String, base: String },
    #[error(transparent)]
    NoPackage(#[from] NoPackage),
    #[error("failed to verify `kiro-cli` {version}: expected sha256 {expected}, computed {computed} (from `{url}`)")]
    Checksum {
        version: String,
        expected: String,
        computed: String,
        url: String,
    },
    #[error("refused the `kiro-cli` {version} archive from `{url}`")]
    Extract {
        version: String,
        url: String,
        #[source]
        source: ExtractError,
    },
    #[error(transparent)]
    Unsafe(#[from] UnsafePath),
    #[error(transparent)]
    Lock(#[from] lock::LockError),
    #[error(transparent)]
    Pin(#[from] PinError),
    #[error("`kiro-cli` {requested} is not available: the stable manifest offers only {latest}, and no kiro.lock records {requested}")]
    VersionPolicy { requested: String, latest: String },
    #[error("`kiro-cli` {requested} is configured but `{pin}` records {locked}")]
    PinConflict {
        requested: String,
        locked: String,
        pin: PathBuf,
    },
    #[error("--offline: no installed `kiro-cli` {wanted} under `{root}`")]
    Offline { wanted: String, root: PathBuf },
    #[error("--locked needs `{path}`, which does not exist")]
    LockedWithoutPin { path: PathBuf },
    #[error("--locked needs a project: no `.oneworks/` folder at or above the working directory")]
    LockedWithoutProject,
    #[error("installing a `{file_type}` package is not supported on this host yet (selected `{download}`)")]
    UnsupportedHost { file_type: String, download: String },
    #[error("the `kiro-cli` {version} archive holds none of {candidates}")]
    NoBinary { version: String, candidates: String },
    #[error("the downloaded `kiro-cli` {version} failed its probe: {problem}")]
    ProbeFailed { version: String, problem: String },
    #[error("failed to {action} `{path}`")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl Classify for InstallError {
    fn kind(&self) -> ErrorKind {
        match self {
            InstallError::Network(error) => error.kind(),
            InstallError::Manifest { .. } | InstallError::OutsideBase { .. } => ErrorKind::Network,
            InstallError::Checksum { .. } => ErrorKind::ChecksumMismatch,
            InstallError::Extract { source, .. } => match source {
                ExtractError::Write { .. } => ErrorKind::Internal,
                _ => ErrorKind::UnsafeArchive,
            },
            InstallError::Unsafe(error) => error.kind(),
            InstallError::Lock(error) => error.kind(),
            InstallError::Pin(error) => error.kind(),
            InstallError::LockedWithoutPin { .. }
            | InstallError::LockedWithoutProject
            | InstallError::PinConflict { .. } => ErrorKind::Config,
            InstallError::NoPackage(_)
            | InstallError::VersionPolicy { .. }
            | InstallError::Offline { .. }
            | InstallError::UnsupportedHost { .. }
            | InstallError::NoBinary { .. }
            | InstallError::ProbeFailed { .. } => ErrorKind::NoUsableCli,
            InstallError::Io { .. } => ErrorKind::Internal,
        }
    }

    fn hint(&self) -> Option<String> {
        match self {
            InstallError::Network(error) => error.hint(),
            InstallError::Unsafe(error) => error.hint(),
            InstallError::Lock(error) => error.hint(),
            InstallError::Checksum { .. } => Some(
                "the download was corrupted or the mirror serves another file; nothing was installed".to_owned(),
            ),
            InstallError::VersionPolicy { latest, .. } => Some(format!(
                "set `adapters.kiro.cli.version` to `latest` or `{latest}`, or run `--locked` with a kiro.lock that records the version"
            )),
            InstallError::LockedWithoutPin { .. } | InstallError::LockedWithoutProject => {
                Some("run `oneworks adapter prepare kiro` once inside the project to write kiro.lock".to_owned())
            }
            InstallError::Offline { .. } => {
                Some("run `oneworks adapter prepare kiro` without --offline first".to_owned())
            }
            InstallError::UnsupportedHost { .. } => {
                Some("install Kiro with its own installer and use `source: system`".to_owned())
            }
            _ => None,
        }
    }
}

/// Everything the installer needs, resolved from settings.
pub struct Installer<'a> {
    pub data: &'a AdapterData,
    pub store: Store,
    pub cache_dir: PathBuf,
    pub manifest_url: Url,
    pub download_base: Url,
    pub lock_timeout: Duration,
    pub formats: Vec<String>,
    pub host: Host,
    pub probe: ProbeSettings,
    pub fetcher: Fetcher,
    pub progress: bool,
    pub quiet: bool,
    /// Credential variables present, for scrubbing the install record and
    /// `kiro.lock` (a mirror URL may carry a credential).
    pub credentials: Vec<(String, String)>,
    /// Built on first write only: the warm reuse path never pays for it.
    pub scrubber: std::sync::OnceLock<crate::redact::Scrubber>,
}

/// What `prepare` was asked for.
#[derive(Debug, Clone)]
pub struct Request {
    pub version: VersionRequest,
    /// `.oneworks/kiro.lock` when inside a project.
    pub pin_path: Option<PathBuf>,
    pub offline: bool,
    pub force: bool,
    pub locked: bool,
}

/// A ready managed `kiro-cli`.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub version: String,
    pub executable: PathBuf,
    pub sha256: String,
    pub reused: bool,
}

impl From<Installed> for Prepared {
    fn from(installed: Installed) -> Self {
        Self {
            version: installed.version.to_string(),
            executable: installed.executable,
            sha256: installed.record.sha256,
            reused: true,
        }
    }
}

/// Which artifact to install and what its digest must be.
struct Target {
    version: semver::Version,
    entry: ArtifactEntry,
}

fn io<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> InstallError + 'a {
    move |source| InstallError::Io {
        action,
        path: path.to_owned(),
        source,
    }
}

impl Installer<'_> {
    fn scrubber(&self) -> &crate::redact::Scrubber {
        self.scrubber.get_or_init(|| {
            crate::redact::Scrubber::new(self.credentials.clone(), &self.data.credentials)
        })
    }

    pub fn prepare(&self, request: &Request) -> Result<Prepared, InstallError> {
        self.store.prepare_dirs()?;
        let pin = match &request.pin_path {
            Some(path) => Pin::read(path)?.map(|pin| (pin, path.clone())),
            None => None,
        };
        if request.locked && pin.is_none() {
            return Err(match &request.pin_path {
                Some(path) => InstallError::LockedWithoutPin { path: path.clone() },
                None => InstallError::LockedWithoutProject,
            });
        }
        if request.offline {
            return self.prepare_offline(request, pin.as_ref());
        }
        if request.locked {
            let (pin, path) = match (&pin, &request.pin_path) {
                (Some(found), _) => found,
                (None, Some(path)) => {
                    return Err(InstallError::LockedWithoutPin { path: path.clone() })
                }
                (None, None) => return Err(InstallError::LockedWithoutProject),
            };
            let version = pin.semver(path)?;
            if let VersionRequest::Exact(requested) = &request.version {
                if *requested != version {
                    return Err(InstallError::PinConflict {
                        requested: requested.to_string(),
                        locked: version.to_string(),
                        pin: path.clone(),
                    });
                }
            }
            return self.install_from_pin(pin, version, request.force);
        }
        // An exact version the pin records installs from the pin, without
        // asking the manifest (which only vouches for its latest).
        if let (VersionRequest::Exact(requested), Some((pin, path))) = (&request.version, &pin) {
            if pin.semver(path)? == *requested {
                return self.install_from_pin(pin, requested.clone(), request.force);
            }
        }
        let manifest = self.fetch_manifest()?;
        if let VersionRequest::Exact(requested) = &request.version {
            if *requested != manifest.version {
                return Err(InstallError::VersionPolicy {
                    requested: requested.to_string(),
                    latest: manifest.version.to_string(),
                });
            }
        }
        let entry = platform::select(
            &manifest.packages,
            &self.host,
            &self.data.platforms,
            &self.formats,
        )?;
        let target = Target {
            version: manifest.version.clone(),
            entry: entry.clone(),
        };
        let prepared = self.install_or_reuse(&target, request.force)?;
        if let Some(path) = &request.pin_path {
            Pin::from_manifest(&manifest).write(path, self.scrubber())?;
        }
        Ok(prepared)
    }

    /// Installs (or reuses) this host's artifact as `kiro.lock` records it,
    /// verified against the recorded sha256; the manifest is not consulted.
    fn install_from_pin(
        &self,
        pin: &Pin,
        version: semver::Version,
        force: bool,
    ) -> Result<Prepared, InstallError> {
        let entry = platform::select(
            &pin.packages,
            &self.host,
            &self.data.platforms,
            &self.formats,
        )?;
        let target = Target {
            version,
            entry: entry.clone(),
        };
        self.install_or_reuse(&target, force)
    }

    fn prepare_offline(
        &self,
        request: &Request,
        pin: Option<&(Pin, PathBuf)>,
    ) -> Result<Prepared, InstallError> {
        let _lock = self.lock()?;
        let wanted = match (&request.version, pin) {
            (VersionRequest::Exact(version), _) => Some(version.clone()),
            (VersionRequest::Latest, Some((pin, path))) => Some(pin.semver(path)?),
            (VersionRequest::Latest, None) => None,
        };
        let found = match &wanted {
            Some(version) => self.store.installed(version)?,
            None => self.store.list()?.into_iter().next(),
        };
        found
            .map(Prepared::from)
            .ok_or_else(|| InstallError::Offline {
                wanted: wanted
                    .map_or_else(|| "(any version)".to_owned(), |version| version.to_string()),
                root: self.store.versions_dir(),
            })
    }

    fn lock(&self) -> Result<lock::InstallLock, InstallError> {
        Ok(lock::acquire_announced(
            &self.store.lock_path(),
            self.lock_timeout,
            self.quiet,
        )?)
    }

    fn fetch_manifest(&self) -> Result<Manifest, InstallError> {
        let bytes = self.fetcher.get_small(&self.manifest_url)?;
        Manifest::parse(&bytes).map_err(|source| InstallError::Manifest {
            url: self.manifest_url.to_string(),
            source,
        })
    }

    fn artifact_url(&self, entry: &ArtifactEntry) -> Result<Url, InstallError> {
        let url = self.download_base.join(&entry.download).map_err(|source| {
            InstallError::Network(NetworkError::Url {
                url: format!("{}{}", self.download_base, entry.download),
                source,
            })
        })?;
        // A mirror stays a mirror: nothing the manifest says leaves the base.
        if !url.as_str().starts_with(self.download_base.as_str()) {
            return Err(InstallError::OutsideBase {
                download: entry.download.clone(),
                base: self.download_base.to_string(),
            });
        }
        Ok(url)
    }

    fn install_or_reuse(&self, target: &Target, force: bool) -> Result<Prepared, InstallError> {
        let entry = &target.entry;
        let compression = match entry.file_type.as_str() {
            "tarGz" => Some(Compression::Gzip),
            "tarXz" => Some(Compression::Xz),
            "tarZst" => Some(Compression::Zstd),
            "zip" => None,
            _ => {
                return Err(InstallError::UnsupportedHost {
                    file_type: entry.file_type.clone(),
                    download: entry.download.clone(),
                })
            }
        };
        let url = self.artifact_url(entry)?;
        let _lock = self.lock()?;
        // Under the lock: anything in staging or the spool was left by a
        // killed install.
        self.store.sweep_staging();
        sweep_spools(&self.cache_dir);
        crate::fs_safety::check_dir_chain(
            &self.store.home,
            &self.store.version_dir(&target.version),
        )?;
        if !force {
            if let Some(installed) = self.store.installed(&target.version)? {
                if installed.record.sha256.eq_ignore_ascii_case(&entry.sha256) {
                    return Ok(installed.into());
                }
                tracing::info!(
                    "installed {} has sha256 {}, the source says {}: reinstalling",
                    target.version,
                    installed.record.sha256,
                    entry.sha256
                );
            }
        }
        let staging = tempfile::Builder::new()
            .prefix(&format!("{}-", target.version))
            .tempdir_in(self.store.staging_dir())
            .map_err(io("create a staging folder in", &self.store.staging_dir()))?;
        let limit = entry
            .size
            .saturating_mul(self.data.archive.max_expansion)
            .max(1 << 20);
        let mut attempt = 0;
        let sha256 = loop {
            let result = self.fetch_into(target, &url, compression, staging.path(), limit);
            match result {
                // `open` already retried the request itself; here only a
                // body that broke off mid-stream is tried again.
                Err(InstallError::Network(error))
                    if matches!(
                        error,
                        NetworkError::Io { .. } | NetworkError::Truncated { .. }
                    ) && attempt + 1 < self.fetcher.retry.attempts =>
                {
                    let delay = self.fetcher.retry.delay(attempt, None);
                    tracing::warn!("{error}; retrying in {}ms", delay.as_millis());
                    std::thread::sleep(delay);
                    attempt += 1;
                    crate::fs_safety::empty_dir(staging.path())
                        .map_err(io("clear", staging.path()))?;
                }
                other => break other?,
            }
        };
        let binary = self
            .data
            .archive
            .binary_paths
            .iter()
            .find(|candidate| std::fs::symlink_metadata(staging.path().join(candidate)).is_ok())
            .ok_or_else(|| InstallError::NoBinary {
                version: target.version.to_string(),
                candidates: self.data.archive.binary_paths.join(", "),
            })?;
        let executable = staging.path().join(binary);
        crate::fs_safety::check_executable(staging.path(), &executable)?;
        let report = probe::probe(&executable, &self.probe);
        if !(report.version_ok && report.acp_ok) {
            return Err(InstallError::ProbeFailed {
                version: target.version.to_string(),
                problem: report
                    .problem
                    .unwrap_or_else(|| "no usable output".to_owned()),
            });
        }
        let record = InstallRecord {
            version: target.version.to_string(),
            sha256: sha256.clone(),
            // Only the URL can carry a credential (a mirror's userinfo or
            // query); the other fields are ours and must stay intact.
            url: self.scrubber().scrub_str(url.as_str()).into_owned(),
            size: entry.size,
            file_type: entry.file_type.clone(),
            target_triple: entry.target_triple.clone(),
            binary: binary.clone(),
            installed_at: crate::output::now_rfc3339(),
        };
        let record_path = staging.path().join(store::RECORD_FILE);
        let record_json =
            serde_json::to_string_pretty(&record).map_err(|error| InstallError::Io {
                action: "encode",
                path: record_path.clone(),
                source: error.into(),
            })?;
        crate::fs_safety::atomic_write(&record_path, record_json.as_bytes(), 0o644)
            .map_err(io("write", &record_path))?;
        let staged = staging.keep();
        self.store
            .publish(&staged, &target.version)
            .map_err(io("publish", &staged))?;
        let installed = self
            .store
            .installed(&target.version)?
            .ok_or_else(|| InstallError::Io {
                action: "find the published version in",
                path: self.store.version_dir(&target.version),
                source: std::io::ErrorKind::NotFound.into(),
            })?;
        Ok(Prepared {
            reused: false,
            ..installed.into()
        })
    }

    fn progress_bar(&self, size: u64) -> indicatif::ProgressBar {
        if !self.progress {
            return indicatif::ProgressBar::hidden();
        }
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(size),
            indicatif::ProgressDrawTarget::stderr(),
        );
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{msg} {bar:30} {bytes}/{total_bytes} {binary_bytes_per_sec} eta {eta}",
        ) {
            bar.set_style(style);
        }
        bar.set_message("downloading kiro-cli");
        bar
    }

    /// Downloads, hashes and extracts one artifact into `staging_dir`;
    /// returns the verified digest.
    fn fetch_into(
        &self,
        target: &Target,
        url: &Url,
        compression: Option<Compression>,
        staging_dir: &Path,
        limit: u64,
    ) -> Result<String, InstallError> {
        let entry = &target.entry;
        let body = self.fetcher.open(url)?;
        if let Some(announced) = body.length {
            if announced != entry.size {
                return Err(NetworkError::SizeMismatch {
                    url: url.to_string(),
                    announced,
                    expected: entry.size,
                }
                .into());
            }
        }
        let bar = self.progress_bar(entry.size);
        let mut staging = Staging::new(staging_dir.to_owned(), limit);
        // Never read more than one byte past what the manifest announces.
        let body = download::Body {
            reader: Box::new(std::io::Read::take(
                body.reader,
                entry.size.saturating_add(1),
            )),
            length: body.length,
        };
        let (digest, extracted) = match compression {
            Some(compression) => {
                let counter = bar.clone();
                let (mut reader, hasher) =
                    pipeline::hashing_pipe(body.reader, move |bytes| counter.inc(bytes));
                let extracted = extract::extract_tar(&mut reader, compression, &mut staging);
                reader.drain();
                drop(reader);
                let digest = hasher
                    .join()
                    .map_err(|_| InstallError::Io {
                        action: "hash",
                        path: staging_dir.to_owned(),
                        source: std::io::Error::other("hashing thread panicked"),
                    })?
                    .map_err(|source| NetworkError::Io {
                        url: url.to_string(),
                        source,
                    })?;
                (SpooledDigest::from(digest), Some(extracted))
            }
            None => (self.spool(body, url, &bar)?, None),
        };
        bar.finish_and_clear();
        if digest.bytes > entry.size {
            return Err(NetworkError::Oversized {
                url: url.to_string(),
                expected: entry.size,
            }
            .into());
        }
        if digest.bytes != entry.size {
            return Err(NetworkError::Truncated {
                url: url.to_string(),
                received: digest.bytes,
                expected: entry.size,
            }
            .into());
        }
        if !digest.sha256.eq_ignore_ascii_case(&entry.sha256) {
            return Err(InstallError::Checksum {
                version: target.version.to_string(),
                expected: entry.sha256.to_ascii_lowercase(),
                computed: digest.sha256,
                url: url.to_string(),
            });
        }
        let extract_error = |source| InstallError::Extract {
            version: target.version.to_string(),
            url: url.to_string(),
            source,
        };
        match extracted {
            Some(result) => result.map_err(extract_error)?,
            None => {
                let spool = digest.spool.ok_or_else(|| InstallError::Io {
                    action: "reopen the spool for",
                    path: staging_dir.to_owned(),
                    source: std::io::ErrorKind::NotFound.into(),
                })?;
                let file = spool.reopen().map_err(io("reopen", spool.path()))?;
                extract::extract_zip(file, &mut staging).map_err(extract_error)?;
            }
        }
        Ok(digest.sha256)
    }

    /// Zip: spool to `ONEWORKS_CACHE_DIR` while hashing (deleted on drop).
    fn spool(
        &self,
        mut body: download::Body,
        url: &Url,
        bar: &indicatif::ProgressBar,
    ) -> Result<SpooledDigest, InstallError> {
        use sha2::Digest as _;
        crate::fs_safety::create_dir_chain(&self.cache_dir, &self.cache_dir, 0o700)?;
        let mut spool = tempfile::Builder::new()
            .prefix(SPOOL_PREFIX)
            .suffix(".zip")
            .tempfile_in(&self.cache_dir)
            .map_err(io("create a spool file in", &self.cache_dir))?;
        let mut hasher = sha2::Sha256::new();
        let mut bytes = 0u64;
        let mut reader = bar.wrap_read(pipeline::HashingSink(
            &mut body.reader,
            &mut hasher,
            &mut bytes,
        ));
        // Read errors are the network's; write errors (a full disk) are ours.
        let mut buffer = vec![0u8; 256 * 1024];
        loop {
            let read = match std::io::Read::read(&mut reader, &mut buffer) {
                Ok(0) => break,
                Ok(read) => read,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(source) => {
                    return Err(NetworkError::Io {
                        url: url.to_string(),
                        source,
                    }
                    .into())
                }
            };
            std::io::Write::write_all(spool.as_file_mut(), &buffer[..read])
                .map_err(io("write the download spool", spool.path()))?;
        }
        drop(reader);
        Ok(SpooledDigest {
            sha256: hex::encode(hasher.finalize()),
            bytes,
            spool: Some(spool),
        })
    }
}

/// A digest, and for zips the spool it was computed over.
struct SpooledDigest {
    sha256: String,
    bytes: u64,
    spool: Option<tempfile::NamedTempFile>,
}

impl From<pipeline::Digest> for SpooledDigest {
    fn from(digest: pipeline::Digest) -> Self {
        Self {
            sha256: digest.sha256,
            bytes: digest.bytes,
            spool: None,
        }
    }
}

const SPOOL_PREFIX: &str = ".kiro-spool-";

/// Removes zip spools left by killed installs. Call under the install lock.
fn sweep_spools(cache_dir: &Path) {
    let Ok(entries) = std::fs::read_dir(cache_dir) else {
        return;
    };
    for entry in entries.flatten() {
        let is_spool = entry
            .file_name()
            .to_str()
            .is_some_and(|name| name.starts_with(SPOOL_PREFIX));
        if is_spool && entry.file_type().is_ok_and(|kind| kind.is_file()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
