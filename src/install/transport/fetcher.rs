//! Fetching manifests and artifacts over `http(s)` (reqwest + rustls, with
//! the proxy and CA variables honoured) or from `file://` mirrors, with
//! retries and backoff for transient failures. The artifact body is handed
//! out as a reader: nothing is buffered whole.

use std::io::Read;
use std::sync::OnceLock;
use std::time::Duration;

use url::Url;

use super::network_error::{is_timeout, without_url, BodyFailure};
use super::network_error::{shown, NetworkError};
use super::retry::RetryPolicy;

/// How long a request may wait for headers or for the next body bytes,
/// unless `ONEWORKS_HTTP_TIMEOUT` says otherwise.
pub const DEFAULT_IDLE_TIMEOUT: Duration = crate::env_options::DEFAULT_HTTP_TIMEOUT;

/// The most a manifest may weigh.
const MANIFEST_LIMIT: u64 = 16 * 1024 * 1024;

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

/// A body being read, with the length the server announced.
pub struct Body {
    pub reader: Box<dyn Read + Send>,
    pub length: Option<u64>,
}

impl Body {
    /// The most bytes to read of this body: its announced length, refused
    /// when over `limit`, else `limit`. Read at most one byte more, so that
    /// [`check_received`] sees a body longer than announced.
    pub fn cap(&self, url: &Url, limit: u64) -> Result<u64, NetworkError> {
        match self.length {
            Some(length) if length > limit => Err(NetworkError::TooLarge {
                url: shown(url),
                limit,
            }),
            Some(length) => Ok(length),
            None => Ok(limit),
        }
    }
}

/// After reading `received` bytes of a body that announced `length`,
/// through [`Body::cap`]: more than the cap, or fewer than announced, is an
/// error.
pub fn check_received(
    url: &Url,
    length: Option<u64>,
    received: u64,
    limit: u64,
) -> Result<(), NetworkError> {
    if received > length.unwrap_or(limit) {
        return Err(match length {
            Some(expected) => NetworkError::Oversized {
                url: shown(url),
                expected,
            },
            None => NetworkError::TooLarge {
                url: shown(url),
                limit,
            },
        });
    }
    match length {
        Some(expected) if received < expected => Err(NetworkError::Truncated {
            url: shown(url),
            received,
            expected,
        }),
        _ => Ok(()),
    }
}

/// Where a redirect points: its `Location`, resolved against `from`; only
/// `http` and `https`.
fn redirect_target(
    from: &Url,
    response: &reqwest::blocking::Response,
) -> Result<Url, (NetworkError, Option<Duration>)> {
    let location = response
        .headers()
        .get(reqwest::header::LOCATION)
        .and_then(|value| value.to_str().ok());
    let target = location.and_then(|location| from.join(location).ok());
    match target {
        Some(target) if matches!(target.scheme(), "http" | "https") => Ok(target),
        _ => Err((
            NetworkError::Status {
                url: shown(from),
                status: response.status().as_u16(),
            },
            None,
        )),
    }
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
    /// Proxies and CA roots.
    pub transport: super::Transport,
    /// A source with credential settings (an npm registry): what is sent
    /// where, and what a 401/403 says. `None`: nothing is sent, and a
    /// refusal is a plain HTTP status.
    pub credentials: Option<super::scoped_credentials::Credentials>,
}

/// The most redirects one request follows.
const MAX_REDIRECTS: usize = 10;

impl Default for Fetcher {
    fn default() -> Self {
        Self::new(RetryPolicy::default(), DEFAULT_IDLE_TIMEOUT)
    }
}

pub fn parse_url(text: &str) -> Result<Url, NetworkError> {
    let url = Url::parse(text).map_err(|source| NetworkError::Url {
        url: crate::redact::redact_url(text),
        source,
    })?;
    match url.scheme() {
        "http" | "https" | "file" => Ok(url),
        _ => Err(NetworkError::Scheme {
            url: crate::redact::redact_url(text),
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
            transport: super::Transport::default(),
            credentials: None,
        }
    }

    /// This fetcher with its proxies, CA roots and credentials.
    pub fn with_network(
        mut self,
        transport: super::Transport,
        credentials: Option<super::scoped_credentials::Credentials>,
    ) -> Self {
        self.transport = transport;
        self.credentials = credentials;
        self
    }

    fn client(&self, url: &Url) -> Result<&reqwest::blocking::Client, NetworkError> {
        let https = url.scheme() == "https";
        let slot = if https {
            &self.tls_client
        } else {
            &self.plain_client
        };
        if let Some(client) = slot.get() {
            return Ok(client);
        }
        let client = self.transport.client(https, self.idle_timeout)?;
        Ok(slot.get_or_init(|| client))
    }

    /// Opens `url` for reading: one attempt, with the server's
    /// `Retry-After` on failure. The caller's retry loop covers the request
    /// and the body together, so a failing server is asked at most
    /// `attempts` times in all.
    pub fn open_once(&self, url: &Url) -> Result<Body, (NetworkError, Option<Duration>)> {
        self.open_once_accepting(url, None)
    }

    /// [`Fetcher::open_once`] with an `Accept` header (an npm registry
    /// sends the small install document for
    /// `application/vnd.npm.install-v1+json`).
    pub fn open_once_accepting(
        &self,
        url: &Url,
        accept: Option<&str>,
    ) -> Result<Body, (NetworkError, Option<Duration>)> {
        if url.scheme() == "file" {
            let path = url
                .to_file_path()
                .map_err(|()| (NetworkError::Scheme { url: shown(url) }, None))?;
            let io_error = |source| {
                (
                    NetworkError::Io {
                        url: shown(url),
                        source,
                    },
                    None,
                )
            };
            // Never waits on a FIFO; only a regular file is read.
            let file = {
                use fs_err::os::unix::fs::OpenOptionsExt;
                fs_err::OpenOptions::new()
                    .read(true)
                    .custom_flags(libc::O_NONBLOCK)
                    .open(&path)
                    .map(fs_err::File::into_file)
                    .map_err(|error| io_error(crate::fs_error::os_cause(error)))?
            };
            let file_type = file.metadata().map_err(io_error)?.file_type();
            if !file_type.is_file() {
                let found = crate::fs_safety::describe(file_type);
                return Err(io_error(std::io::Error::other(format!(
                    "it is a {found}, not a regular file"
                ))));
            }
            let length = file.metadata().ok().map(|metadata| metadata.len());
            return Ok(Body {
                reader: Box::new(file),
                length,
            });
        }
        let response = self.follow(url, accept)?;
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

    /// One request and the redirects it meets, followed here rather than
    /// by reqwest: a credential goes with a hop only when the hop is on
    /// the first URL's origin (scheme, host and port) and under the
    /// credential's own prefix, so a redirect never carries it elsewhere.
    fn follow(
        &self,
        url: &Url,
        accept: Option<&str>,
    ) -> Result<reqwest::blocking::Response, (NetworkError, Option<Duration>)> {
        let mut hop = url.clone();
        for _ in 0..=MAX_REDIRECTS {
            let client = self.client(&hop).map_err(|error| (error, None))?;
            let mut request = client.get(hop.clone());
            if let Some(accept) = accept {
                request = request.header(reqwest::header::ACCEPT, accept);
            }
            let credential = self
                .credentials
                .as_ref()
                .filter(|_| hop.origin() == url.origin())
                .and_then(|credentials| credentials.for_url(&hop));
            if let Some(credential) = credential {
                request = request.header(reqwest::header::AUTHORIZATION, credential.header());
            }
            let response = request
                .send()
                .map_err(|source| (NetworkError::request(&hop, source, self.idle_timeout), None))?;
            let status = response.status();
            if status.is_redirection() {
                hop = redirect_target(&hop, &response)?;
                continue;
            }
            if status.is_success() {
                return Ok(response);
            }
            let wait = retry_after(&response);
            return Err((self.status_error(&hop, status.as_u16(), credential), wait));
        }
        Err((
            NetworkError::Redirects {
                url: shown(url),
                limit: MAX_REDIRECTS,
            },
            None,
        ))
    }

    /// A failed status; a 401/403 from a source with credential settings
    /// says which registry refused and which setting was or was not sent.
    fn status_error(
        &self,
        url: &Url,
        status: u16,
        sent: Option<&super::scoped_credentials::Credential>,
    ) -> NetworkError {
        match &self.credentials {
            Some(credentials) if matches!(status, 401 | 403) => {
                NetworkError::Refused(Box::new(super::network_error::RegistryRefusal {
                    url: shown(url),
                    status,
                    registry: credentials.registry_of(url),
                    account: credentials.account(url, sent),
                    expected: credentials.expected_prefix(url),
                    read_from: credentials.read_from.clone(),
                    sent: sent.is_some(),
                }))
            }
            _ => NetworkError::Status {
                url: shown(url),
                status,
            },
        }
    }

    /// Fetches a small document (the manifest) whole, with retries.
    pub fn get_small(&self, url: &Url) -> Result<Vec<u8>, NetworkError> {
        self.get_document(url, None, MANIFEST_LIMIT)
    }

    /// Fetches a document of at most `limit` bytes whole, with retries,
    /// asking for the `accept` media type.
    pub fn get_document(
        &self,
        url: &Url,
        accept: Option<&str>,
        limit: u64,
    ) -> Result<Vec<u8>, NetworkError> {
        // One retry loop around request and body: a failing manifest is
        // asked for `attempts` times, not attempts².
        self.retry.run(|| {
            let body = self.open_once_accepting(url, accept)?;
            let mut bytes = Vec::new();
            body.reader
                .take(limit + 1)
                .read_to_end(&mut bytes)
                .map_err(|source| (NetworkError::read(url, source, self.idle_timeout), None))?;
            if bytes.len() as u64 > limit {
                return Err((
                    NetworkError::TooLarge {
                        url: shown(url),
                        limit,
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
