//! Fetching manifests and artifacts over `http(s)` (reqwest + rustls, with
//! the proxy and CA variables honoured) or from `file://` mirrors, with
//! retries and backoff for transient failures. The artifact body is handed
//! out as a reader: nothing is buffered whole.

use std::io::Read;
use std::sync::OnceLock;
use std::time::Duration;

use url::Url;

use crate::error::{Classify, ErrorKind};

/// How long a request may wait for headers or for the next body bytes,
/// unless `ONEWORKS_HTTP_TIMEOUT` says otherwise.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// The most a manifest may weigh.
const MANIFEST_LIMIT: u64 = 16 * 1024 * 1024;

/// A URL as it may be printed or recorded (SPEC §6.2 URLs).
pub fn shown(url: &Url) -> String {
    crate::adapter::display::redact_url(url.as_str())
}

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
    #[error("`{url}` stalled: no data for {}s", .idle.as_secs())]
    Stalled { url: String, idle: Duration },
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

/// Whether a read failed because the idle timeout passed. Blocking reqwest
/// reports it as "error decoding response body" wrapping a timeout.
fn is_timeout(error: &std::io::Error) -> bool {
    if error.kind() == std::io::ErrorKind::TimedOut {
        return true;
    }
    let mut source = error
        .get_ref()
        .map(|inner| inner as &(dyn std::error::Error + 'static));
    while let Some(inner) = source {
        if let Some(reqwest_error) = inner.downcast_ref::<reqwest::Error>() {
            if reqwest_error.is_timeout() {
                return true;
            }
        }
        if let Some(io_error) = inner.downcast_ref::<std::io::Error>() {
            if io_error.kind() == std::io::ErrorKind::TimedOut {
                return true;
            }
        }
        source = inner.source();
    }
    false
}

impl NetworkError {
    /// A failed body read: a stall when the idle timeout passed, a
    /// truncation when an HTTP body broke off before its length.
    pub fn read(url: &Url, source: std::io::Error, idle: Duration) -> Self {
        match source
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<BodyFailure>())
        {
            Some(BodyFailure::Stalled) => {
                return NetworkError::Stalled {
                    url: shown(url),
                    idle,
                }
            }
            Some(BodyFailure::Ended { received, expected }) => {
                return NetworkError::Truncated {
                    url: shown(url),
                    received: *received,
                    expected: *expected,
                }
            }
            None => {}
        }
        if is_timeout(&source) {
            NetworkError::Stalled {
                url: shown(url),
                idle,
            }
        } else {
            NetworkError::Io {
                url: shown(url),
                source: without_url(source),
            }
        }
    }

    /// A failed request: a stall when no answer came within the timeout.
    fn request(url: &Url, source: reqwest::Error, idle: Duration) -> Self {
        if source.is_timeout() {
            NetworkError::Stalled {
                url: shown(url),
                idle,
            }
        } else {
            NetworkError::Request {
                url: shown(url),
                // Its message would repeat the URL, credentials and all.
                source: source.without_url(),
            }
        }
    }

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
            NetworkError::Io { .. }
            | NetworkError::Truncated { .. }
            | NetworkError::Stalled { .. } => true,
            _ => false,
        }
    }
}

/// Where to send a user whose download host cannot be reached.
const UNREACHABLE_HINT: &str = "check the network and HTTPS_PROXY/NO_PROXY/SSL_CERT_FILE, point ONEWORKS_KIRO_MANIFEST_URL at a reachable mirror, or use `--offline` with an installed version";

impl Classify for NetworkError {
    fn kind(&self) -> ErrorKind {
        match self {
            NetworkError::Client(_) => ErrorKind::Internal,
            NetworkError::Scheme { .. } | NetworkError::Url { .. } => ErrorKind::Config,
            _ => ErrorKind::Network,
        }
    }
    fn hint(&self) -> Option<String> {
        Some(match self {
            NetworkError::Status { status: 404, .. } => {
                "check ONEWORKS_KIRO_MANIFEST_URL / ONEWORKS_KIRO_DOWNLOAD_BASE, or the mirror's contents".to_owned()
            }
            NetworkError::Status {
                status: 401 | 403, ..
            } => "the server refused access: check the mirror's credentials and ONEWORKS_KIRO_MANIFEST_URL / ONEWORKS_KIRO_DOWNLOAD_BASE".to_owned(),
            NetworkError::Status { .. } => {
                "the download host is failing: try again later, or set ONEWORKS_KIRO_MANIFEST_URL / ONEWORKS_KIRO_DOWNLOAD_BASE to a mirror".to_owned()
            }
            NetworkError::Request { .. } => UNREACHABLE_HINT.to_owned(),
            NetworkError::Stalled { .. } => "the server stopped sending: try again, raise ONEWORKS_HTTP_TIMEOUT (seconds) on a slow link, or use a mirror".to_owned(),
            NetworkError::Io { .. } | NetworkError::Truncated { .. } => {
                "the connection broke off; nothing was installed: try again, or use a mirror".to_owned()
            }
            NetworkError::SizeMismatch { .. }
            | NetworkError::Oversized { .. }
            | NetworkError::TooLarge { .. } => {
                "the server sends another file than the manifest describes: check the mirror's contents".to_owned()
            }
            NetworkError::Scheme { .. } | NetworkError::Url { .. } => {
                "check ONEWORKS_KIRO_MANIFEST_URL and ONEWORKS_KIRO_DOWNLOAD_BASE".to_owned()
            }
            NetworkError::Client(_) => return None,
        })
    }
}

/// How often and how patiently to retry.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    pub attempts: u32,
    pub base_delay: Duration,
    pub max_delay: Duration,
    /// Print one line on stderr before each retry.
    pub announce: bool,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            attempts: 3,
            base_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(30),
            announce: false,
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

    /// Waits before retrying after `error`, saying why unless quiet.
    pub fn pause(&self, attempt: u32, retry_after: Option<Duration>, error: &NetworkError) {
        let delay = self.delay(attempt, retry_after);
        let line = format!(
            "{error}; retrying in {:.1}s (attempt {} of {})",
            delay.as_secs_f64(),
            attempt + 2,
            self.attempts,
        );
        tracing::warn!("{line}");
        if self.announce {
            eprintln!("{line}");
        }
        std::thread::sleep(delay);
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
                    self.pause(attempt, retry_after, &error);
                    attempt += 1;
                }
                Err((error, _)) => return Err(error),
            }
        }
    }
}

/// Why an HTTP body read failed, carried inside the `io::Error` so the
/// message can say what happened instead of "error decoding response body".
#[derive(Debug, thiserror::Error)]
enum BodyFailure {
    #[error("no data within the idle timeout")]
    Stalled,
    #[error("the body ended after {received} of {expected} bytes")]
    Ended { received: u64, expected: u64 },
}

/// An HTTP response body that counts what it received.
struct HttpBody {
    response: reqwest::blocking::Response,
    received: u64,
    expected: Option<u64>,
}

impl Read for HttpBody {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        match self.response.read(buffer) {
            Ok(read) => {
                self.received += read as u64;
                Ok(read)
            }
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => Err(error),
            Err(error) if is_timeout(&error) => Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                BodyFailure::Stalled,
            )),
            Err(error) => match self.expected {
                Some(expected) if self.received < expected => Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    BodyFailure::Ended {
                        received: self.received,
                        expected,
                    },
                )),
                _ => Err(without_url(error)),
            },
        }
    }
}

/// `error` without the URL a wrapped reqwest error would print.
fn without_url(error: std::io::Error) -> std::io::Error {
    let kind = error.kind();
    if !error
        .get_ref()
        .is_some_and(|inner| inner.is::<reqwest::Error>())
    {
        return error;
    }
    match error
        .into_inner()
        .map(|inner| inner.downcast::<reqwest::Error>())
    {
        Some(Ok(reqwest_error)) => std::io::Error::new(kind, reqwest_error.without_url()),
        Some(Err(other)) => std::io::Error::new(kind, other),
        None => std::io::Error::from(kind),
    }
}

/// A body being read, with the length the server announced.
pub struct Body {
    pub reader: Box<dyn Read + Send>,
    pub length: Option<u64>,
}

/// The network seam: HTTP(S) through one lazily built client, or files.
pub struct Fetcher {
    /// With the system's CA roots, for `https`.
    tls_client: OnceLock<reqwest::blocking::Client>,
    /// Without them, for plain `http`.
    plain_client: OnceLock<reqwest::blocking::Client>,
    pub retry: RetryPolicy,
    /// The longest wait for headers or for the next body bytes.
    pub idle_timeout: Duration,
}

impl Default for Fetcher {
    fn default() -> Self {
        Self::new(RetryPolicy::default(), DEFAULT_IDLE_TIMEOUT)
    }
}

pub fn parse_url(text: &str) -> Result<Url, NetworkError> {
    let url = Url::parse(text).map_err(|source| NetworkError::Url {
        url: crate::adapter::display::redact_url(text),
        source,
    })?;
    match url.scheme() {
        "http" | "https" | "file" => Ok(url),
        _ => Err(NetworkError::Scheme {
            url: crate::adapter::display::redact_url(text),
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
    pub fn new(retry: RetryPolicy, idle_timeout: Duration) -> Self {
        Self {
            tls_client: OnceLock::new(),
            plain_client: OnceLock::new(),
            retry,
            idle_timeout,
        }
    }

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
            .connect_timeout(self.idle_timeout)
            // Blocking reqwest applies this to the wait for headers and to
            // each body read: an idle timeout, not a cap on the download.
            .timeout(self.idle_timeout)
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
            let path = url
                .to_file_path()
                .map_err(|()| (NetworkError::Scheme { url: shown(url) }, None))?;
            let file = std::fs::File::open(&path).map_err(|source| {
                (
                    NetworkError::Io {
                        url: shown(url),
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
        let response = client
            .get(url.clone())
            .send()
            .map_err(|source| (NetworkError::request(url, source, self.idle_timeout), None))?;
        let status = response.status();
        if !status.is_success() {
            let wait = retry_after(&response);
            return Err((
                NetworkError::Status {
                    url: shown(url),
                    status: status.as_u16(),
                },
                wait,
            ));
        }
        let length = response.content_length();
        Ok(Body {
            reader: Box::new(HttpBody {
                response,
                received: 0,
                expected: length,
            }),
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
                .map_err(|source| (NetworkError::read(url, source, self.idle_timeout), None))?;
            if bytes.len() as u64 > MANIFEST_LIMIT {
                return Err((
                    NetworkError::TooLarge {
                        url: shown(url),
                        limit: MANIFEST_LIMIT,
                    },
                    None,
                ));
            }
            if let Some(length) = body.length {
                if (bytes.len() as u64) < length {
                    return Err((
                        NetworkError::Truncated {
                            url: shown(url),
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
        assert_eq!(policy.attempts, 3);
        assert_eq!(policy.delay(0, None), Duration::from_secs(1));
        assert_eq!(policy.delay(1, None), Duration::from_secs(2));
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
            announce: false,
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
