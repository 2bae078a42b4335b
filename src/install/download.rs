//! Fetching manifests and artifacts over `http(s)` (reqwest + rustls, with
//! the proxy and CA variables honoured) or from `file://` mirrors, with
//! retries and backoff for transient failures. The artifact body is handed
//! out as a reader: nothing is buffered whole.

use std::io::Read;
use std::sync::OnceLock;
use std::time::Duration;

use url::Url;

use crate::error::{Classify, ErrorKind};

/// How long a request may wait for headers or for the next body bytes.
const IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// The most a manifest may weigh.
const MANIFEST_LIMIT: u64 = 16 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum NetworkError {
    #[error("`{url}` answered HTTP {status}")]
    Status { url: String, status: u16 },
    #[error("request to `{url}` failed")]
    Request {
        url: String,
        #[source]
        source: reqwest::Error,
    },
    #[error("reading `{url}` failed")]
    Io {
        url: String,
        #[source]
        source: std::io::Error,
    },
    #[error("`{url}` ended after {received} of {expected} bytes")]
    Truncated {
        url: String,
        received: u64,
        expected: u64,
    },
    #[error("`{url}` announces {announced} bytes but the manifest says {expected}")]
    SizeMismatch {
        url: String,
        announced: u64,
        expected: u64,
    },
    #[error("`{url}` is larger than {limit} bytes")]
    TooLarge { url: String, limit: u64 },
    #[error("`{url}` sent more than the {expected} bytes the manifest announces")]
    Oversized { url: String, expected: u64 },
    #[error("unsupported URL `{url}`: use http, https or file")]
    Scheme { url: String },
    #[error("invalid URL `{url}`")]
    Url {
        url: String,
        #[source]
        source: url::ParseError,
    },
    #[error("failed to set up the HTTP client")]
    Client(#[source] reqwest::Error),
}

impl NetworkError {
    /// Whether trying again may help.
    pub fn is_transient(&self) -> bool {
        match self {
            NetworkError::Status { status, .. } => {
                matches!(status, 408 | 429) || (500..600).contains(status)
            }
            NetworkError::Request { source, .. } => {
                source.is_connect()
                    || source.is_timeout()
                    || source.is_body()
                    || source.is_request()
            }
            NetworkError::Io { .. } | NetworkError::Truncated { .. } => true,
            _ => false,
        }
    }
}

impl Classify for NetworkError {
    fn kind(&self) -> ErrorKind {
        match self {
            NetworkError::Client(_) => ErrorKind::Internal,
            NetworkError::Scheme { .. } | NetworkError::Url { .. } => ErrorKind::Config,
            _ => ErrorKind::Network,
        }
    }
    fn hint(&self) -> Option<String> {
        match self {
            NetworkError::Status { status: 404, .. } => Some(
                "check ONEWORKS_KIRO_MANIFEST_URL / ONEWORKS_KIRO_DOWNLOAD_BASE, or the mirror's contents".to_owned(),
            ),
            NetworkError::Request { .. } => {
                Some("check the network, HTTPS_PROXY/NO_PROXY and SSL_CERT_FILE".to_owned())
            }
            _ => None,
        }
    }
}

/// How often and how patiently to retry.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    pub attempts: u32,
    pub base_delay: Duration,
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            attempts: 4,
            base_delay: Duration::from_millis(250),
            max_delay: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// The wait before attempt `attempt + 1` (0-based), honouring a server's
    /// `Retry-After` seconds within `max_delay`.
    pub fn delay(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        let backoff = self.base_delay.saturating_mul(1 << attempt.min(10));
        retry_after.unwrap_or(backoff).min(self.max_delay)
    }

    /// Runs `operation` until it succeeds, fails for good, or runs out of
    /// attempts. `operation` returns an optional `Retry-After` with errors.
    pub fn run<T>(
        &self,
        mut operation: impl FnMut() -> Result<T, (NetworkError, Option<Duration>)>,
    ) -> Result<T, NetworkError> {
        let mut attempt = 0;
        loop {
            match operation() {
                Ok(value) => return Ok(value),
                Err((error, retry_after))
                    if error.is_transient() && attempt + 1 < self.attempts =>
                {
                    let delay = self.delay(attempt, retry_after);
                    tracing::warn!("{error}; retrying in {}ms", delay.as_millis());
                    std::thread::sleep(delay);
                    attempt += 1;
                }
                Err((error, _)) => return Err(error),
            }
        }
    }
}

/// A body being read, with the length the server announced.
pub struct Body {
    pub reader: Box<dyn Read + Send>,
    pub length: Option<u64>,
}

/// The network seam: HTTP(S) through one lazily built client, or files.
#[derive(Default)]
pub struct Fetcher {
    /// With the system's CA roots, for `https`.
    tls_client: OnceLock<reqwest::blocking::Client>,
    /// Without them, for plain `http`.
    plain_client: OnceLock<reqwest::blocking::Client>,
    pub retry: RetryPolicy,
}

pub fn parse_url(text: &str) -> Result<Url, NetworkError> {
    let url = Url::parse(text).map_err(|source| NetworkError::Url {
        url: text.to_owned(),
        source,
    })?;
    match url.scheme() {
        "http" | "https" | "file" => Ok(url),
        _ => Err(NetworkError::Scheme {
            url: text.to_owned(),
        }),
    }
}

fn retry_after(response: &reqwest::blocking::Response) -> Option<Duration> {
    let value = response.headers().get(reqwest::header::RETRY_AFTER)?;
    value
        .to_str()
        .ok()?
        .trim()
        .parse::<u64>()
        .ok()
        .map(Duration::from_secs)
}

impl Fetcher {
    fn client(&self, url: &Url) -> Result<&reqwest::blocking::Client, NetworkError> {
        // Loading the system's CA roots costs milliseconds per process;
        // plain-HTTP mirrors (loopback, air-gapped) never need them.
        let https = url.scheme() == "https";
        let slot = if https {
            &self.tls_client
        } else {
            &self.plain_client
        };
        if let Some(client) = slot.get() {
            return Ok(client);
        }
        let client = reqwest::blocking::Client::builder()
            .tls_built_in_root_certs(https)
            .user_agent(concat!("oneworks/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(30))
            // Blocking reqwest applies this to the wait for headers and to
            // each body read: an idle timeout, not a cap on the download.
            .timeout(IDLE_TIMEOUT)
            .build()
            .map_err(NetworkError::Client)?;
        Ok(slot.get_or_init(|| client))
    }

    /// Opens `url` for reading, retrying transient failures before the body.
    pub fn open(&self, url: &Url) -> Result<Body, NetworkError> {
        self.retry.run(|| self.open_once(url))
    }

    /// One attempt, with the server's `Retry-After` on failure.
    fn open_once(&self, url: &Url) -> Result<Body, (NetworkError, Option<Duration>)> {
        if url.scheme() == "file" {
            let path = url.to_file_path().map_err(|()| {
                (
                    NetworkError::Scheme {
                        url: url.to_string(),
                    },
                    None,
                )
            })?;
            let file = std::fs::File::open(&path).map_err(|source| {
                (
                    NetworkError::Io {
                        url: url.to_string(),
                        source,
                    },
                    None,
                )
            })?;
            let length = file.metadata().ok().map(|metadata| metadata.len());
            return Ok(Body {
                reader: Box::new(file),
                length,
            });
        }
        let client = self.client(url).map_err(|error| (error, None))?;
        let response = client.get(url.clone()).send().map_err(|source| {
            (
                NetworkError::Request {
                    url: url.to_string(),
                    source,
                },
                None,
            )
        })?;
        let status = response.status();
        if !status.is_success() {
            let wait = retry_after(&response);
            return Err((
                NetworkError::Status {
                    url: url.to_string(),
                    status: status.as_u16(),
                },
                wait,
            ));
        }
        let length = response.content_length();
        Ok(Body {
            reader: Box::new(response),
            length,
        })
    }

    /// Fetches a small document (the manifest) whole, with retries.
    pub fn get_small(&self, url: &Url) -> Result<Vec<u8>, NetworkError> {
        // One retry loop around request and body: a failing manifest is
        // asked for `attempts` times, not attempts².
        self.retry.run(|| {
            let body = self.open_once(url)?;
            let mut bytes = Vec::new();
            body.reader
                .take(MANIFEST_LIMIT + 1)
                .read_to_end(&mut bytes)
                .map_err(|source| {
                    (
                        NetworkError::Io {
                            url: url.to_string(),
                            source,
                        },
                        None,
                    )
                })?;
            if bytes.len() as u64 > MANIFEST_LIMIT {
                return Err((
                    NetworkError::TooLarge {
                        url: url.to_string(),
                        limit: MANIFEST_LIMIT,
                    },
                    None,
                ));
            }
            if let Some(length) = body.length {
                if (bytes.len() as u64) < length {
                    return Err((
                        NetworkError::Truncated {
                            url: url.to_string(),
                            received: bytes.len() as u64,
                            expected: length,
                        },
                        None,
                    ));
                }
            }
            Ok(bytes)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_honours_retry_after() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.delay(0, None), Duration::from_millis(250));
        assert_eq!(policy.delay(2, None), Duration::from_millis(1000));
        assert_eq!(
            policy.delay(0, Some(Duration::from_secs(3))),
            Duration::from_secs(3)
        );
        assert_eq!(
            policy.delay(0, Some(Duration::from_secs(3600))),
            policy.max_delay
        );
    }

    #[test]
    fn only_transient_failures_are_retried() {
        let policy = RetryPolicy {
            attempts: 3,
            base_delay: Duration::ZERO,
            max_delay: Duration::ZERO,
        };
        let mut calls = 0;
        let result: Result<(), _> = policy.run(|| {
            calls += 1;
            Err((
                NetworkError::Status {
                    url: "u".into(),
                    status: 503,
                },
                None,
            ))
        });
        assert!(result.is_err());
        assert_eq!(calls, 3);
        let mut calls = 0;
        let result: Result<(), _> = policy.run(|| {
            calls += 1;
            Err((
                NetworkError::Status {
                    url: "u".into(),
                    status: 404,
                },
                None,
            ))
        });
        assert!(result.is_err());
        assert_eq!(calls, 1);
    }

    #[test]
    fn urls() {
        assert!(parse_url("file:///tmp/manifest.json").is_ok());
        assert!(matches!(
            parse_url("ftp://example.com/x"),
            Err(NetworkError::Scheme { .. })
        ));
        assert!(matches!(
            parse_url("not a url"),
            Err(NetworkError::Url { .. })
        ));
    }
}
