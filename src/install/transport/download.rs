//! Downloading one artifact into a staging folder: the streaming pass for
//! the tar formats (network → SHA-256 → decompress → extract), the spool
//! for zips, the size and digest checks, and one retry loop around request
//! and body together (at most `attempts` requests in all).

use std::path::Path;

use url::Url;

use super::fetcher;
use super::network_error::{shown, NetworkError};
use super::pipeline;
use super::spool::spool_prefix;
use crate::install::error::{io, InstallError};
use crate::install::extract::format::Unpack;
use crate::install::extract::{self, guard::Staging};
use crate::install::{Artifact, Installer};

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

impl Installer<'_> {
    /// Downloads, verifies and extracts `target` into `staging_dir`,
    /// trying a body that broke off again; returns the verified digest.
    pub(crate) fn download(
        &self,
        target: &Artifact,
        url: &Url,
        unpack: Unpack,
        staging_dir: &Path,
    ) -> Result<String, InstallError> {
        let expansion = self
            .data
            .archive
            .as_ref()
            .map_or(8, |archive| archive.max_expansion);
        let limit = target.entry.size.saturating_mul(expansion).max(1 << 20);
        self.with_retries(url, staging_dir, |body| {
            self.fetch_into(body, target, url, unpack, staging_dir, limit)
        })
    }

    /// One loop around request and body, for every download: a server
    /// that fails either way is asked at most `attempts` times in all, and
    /// `staging_dir` is emptied before each new attempt.
    pub(crate) fn with_retries<T>(
        &self,
        url: &Url,
        staging_dir: &Path,
        mut fetch: impl FnMut(super::fetcher::Body) -> Result<T, InstallError>,
    ) -> Result<T, InstallError> {
        let mut attempt = 0;
        loop {
            let outcome = match self.fetcher.open_once(url) {
                Ok(body) => fetch(body).map_err(|error| (error, None)),
                Err((error, retry_after)) => Err((InstallError::Network(error), retry_after)),
            };
            match outcome {
                Ok(done) => return Ok(done),
                Err((InstallError::Network(error), retry_after))
                    if error.is_transient() && attempt + 1 < self.fetcher.retry.attempts =>
                {
                    self.fetcher.retry.pause(attempt, retry_after, &error);
                    attempt += 1;
                    crate::fs_safety::empty_dir(staging_dir).map_err(io("clear", staging_dir))?;
                }
                Err((error, _)) => return Err(error),
            }
        }
    }

    pub(crate) fn progress_bar(&self, size: Option<u64>) -> indicatif::ProgressBar {
        if !self.progress {
            return indicatif::ProgressBar::hidden();
        }
        let bar =
            indicatif::ProgressBar::with_draw_target(size, indicatif::ProgressDrawTarget::stderr());
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{msg} {bar:30} {bytes}/{total_bytes} {binary_bytes_per_sec} eta {eta}",
        ) {
            bar.set_style(style);
        }
        bar.set_message(format!("downloading {}", self.data.binary.name));
        bar
    }

    /// One attempt: downloads, hashes and extracts one artifact.
    fn fetch_into(
        &self,
        body: fetcher::Body,
        target: &Artifact,
        url: &Url,
        unpack: Unpack,
        staging_dir: &Path,
        limit: u64,
    ) -> Result<String, InstallError> {
        let entry = &target.entry;
        check_announced_size(body.length, entry.size, target.exact_size, url)?;
        let bar = self.progress_bar(if target.exact_size {
            Some(entry.size)
        } else {
            body.length
        });
        let mut staging = Staging::new(staging_dir.to_owned(), limit);
        let (digest, extracted) =
            self.receive(body, entry.size, url, unpack, &mut staging, &bar)?;
        bar.finish_and_clear();
        self.verify(&digest, target, url)?;
        let extract_error = |source| InstallError::Extract {
            name: self.data.binary.name.clone(),
            version: target.version.to_string(),
            url: shown(url),
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

    /// Reads the body (never more than one byte past the announced `size`):
    /// a tar streams through the hash into `staging` (the extraction's
    /// outcome comes back to judge after the digest); a zip is spooled
    /// while hashing, to extract once verified.
    fn receive(
        &self,
        body: fetcher::Body,
        size: u64,
        url: &Url,
        unpack: Unpack,
        staging: &mut Staging,
        bar: &indicatif::ProgressBar,
    ) -> Result<(SpooledDigest, Option<Result<(), extract::ExtractError>>), InstallError> {
        // Never read more than one byte past what the manifest announces.
        let body = fetcher::Body {
            reader: Box::new(std::io::Read::take(body.reader, size.saturating_add(1))),
            length: body.length,
        };
        let idle = self.fetcher.idle_timeout;
        Ok(match unpack {
            Unpack::Tar(compression) => {
                let (digest, extracted) =
                    hash_and_extract(body.reader, false, compression, staging, (url, idle), bar)?;
                (SpooledDigest::from(digest), Some(extracted))
            }
            Unpack::Zip => (self.spool(body, url, bar)?, None),
        })
    }

    /// The received bytes against the manifest: not more, not fewer, and
    /// the announced SHA-256.
    fn verify(
        &self,
        digest: &SpooledDigest,
        target: &Artifact,
        url: &Url,
    ) -> Result<(), InstallError> {
        let entry = &target.entry;
        if digest.bytes > entry.size {
            return Err(NetworkError::Oversized {
                url: shown(url),
                expected: entry.size,
            }
            .into());
        }
        if target.exact_size && digest.bytes != entry.size {
            return Err(NetworkError::Truncated {
                url: shown(url),
                received: digest.bytes,
                expected: entry.size,
            }
            .into());
        }
        if !digest.sha256.eq_ignore_ascii_case(&entry.sha256) {
            return Err(InstallError::Checksum {
                subject: format!("`{}` {}", self.data.binary.name, target.version),
                algorithm: "sha256",
                expected: entry.sha256.to_ascii_lowercase(),
                computed: digest.sha256.clone(),
                url: shown(url),
            });
        }
        Ok(())
    }

    /// Zip: spool to `ONEWORKS_CACHE_DIR` while hashing (deleted on drop).
    fn spool(
        &self,
        mut body: fetcher::Body,
        url: &Url,
        bar: &indicatif::ProgressBar,
    ) -> Result<SpooledDigest, InstallError> {
        use sha2::Digest as _;
        crate::fs_safety::create_dir_chain(&self.cache_dir, &self.cache_dir, 0o700)?;
        let mut spool = tempfile::Builder::new()
            .prefix(&spool_prefix(&self.data.id))
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
                    return Err(NetworkError::read(url, source, self.fetcher.idle_timeout).into())
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

/// Streams `reader` through the hashing thread (sha256, and sha512 when
/// asked) into the tar extractor: the one pass every tar download makes.
/// Returns the digest and the extraction's outcome; the caller judges the
/// digest first (a broken download is named as such, not as bad content).
pub(crate) fn hash_and_extract(
    reader: Box<dyn std::io::Read + Send>,
    sha512: bool,
    compression: extract::Compression,
    staging: &mut Staging,
    (url, idle): (&Url, std::time::Duration),
    bar: &indicatif::ProgressBar,
) -> Result<(pipeline::Digest, Result<(), extract::ExtractError>), InstallError> {
    let counter = bar.clone();
    let (mut reader, hasher) =
        pipeline::hashing_pipe(reader, sha512, move |bytes| counter.inc(bytes));
    let extracted = extract::extract_tar(&mut reader, compression, staging);
    reader.drain();
    drop(reader);
    let digest = hasher
        .join()
        .map_err(|_| InstallError::Io {
            action: "hash",
            path: staging.root().to_owned(),
            source: std::io::Error::other("hashing thread panicked"),
        })?
        .map_err(|source| NetworkError::read(url, source, idle))?;
    Ok((digest, extracted))
}

/// A length the server announces that is not the manifest's size (or,
/// when `size` is only a bound, above it) fails before anything is read.
fn check_announced_size(
    length: Option<u64>,
    size: u64,
    exact: bool,
    url: &Url,
) -> Result<(), InstallError> {
    if let Some(announced) = length {
        if announced != size && (exact || announced > size) {
            return Err(NetworkError::SizeMismatch {
                url: shown(url),
                announced,
                expected: size,
            }
            .into());
        }
    }
    Ok(())
}
