//! What can go wrong between oneworks and the download host, each with the
//! URL as it may be shown (credentials hidden) and a hint where the user
//! can act. A stalled read is named as a stall, a body that broke off as a
//! truncation, never as "error decoding response body".

use std::time::Duration;

use url::Url;

use crate::error::{Classify, ErrorKind};

/// A URL as it may be printed or recorded.
pub fn shown(url: &Url) -> String {
    crate::redact::redact_url(url.as_str())
}

#[derive(Debug, thiserror::Error)]
pub enum NetworkError {
    #[error("`{url}` answered HTTP {status}")]
    Status { url: String, status: u16 },
    /// A 401 or 403 from a source with credentials settings (an npm
    /// registry): which registry, and which setting was or was not used.
    #[error("the registry `{}` refused `{}` (HTTP {}): {}", .0.registry, .0.url, .0.status, .0.account)]
    Refused(Box<RegistryRefusal>),
    #[error("the CA file `{}` (from {origin}) cannot be used: {reason}", .path.display())]
    CaFile {
        path: std::path::PathBuf,
        origin: String,
        reason: String,
    },
    #[error("`{url}` redirected more than {limit} times")]
    Redirects { url: String, limit: usize },
    #[error("the proxy `{url}` is not a usable URL")]
    Proxy { url: String },
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

/// A 401 or 403 from a registry, with what can be said about it.
#[derive(Debug)]
pub struct RegistryRefusal {
    pub url: String,
    pub status: u16,
    pub registry: String,
    /// Which setting was sent, or why none was.
    pub account: String,
    /// The prefix a credential line for the registry is written with.
    pub expected: String,
    pub read_from: String,
    pub sent: bool,
}

/// Whether a read failed because the idle timeout passed. Blocking reqwest
/// reports it as "error decoding response body" wrapping a timeout.
pub(crate) fn is_timeout(error: &std::io::Error) -> bool {
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
    pub(crate) fn request(url: &Url, source: reqwest::Error, idle: Duration) -> Self {
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

impl NetworkError {
    /// The hint, where `sources` names the variables that point at another
    /// source (`ONEWORKS_KIRO_MANIFEST_URL / …`, `ONEWORKS_NPM_REGISTRY`)
    /// and `primary` the one asked first.
    pub fn hint_with(&self, primary: &str, sources: &str) -> Option<String> {
        Some(match self {
            NetworkError::Status { status: 404, .. } => {
                format!("check {sources}, or the mirror's contents")
            }
            NetworkError::Status {
                status: 401 | 403, ..
            } => format!("the server refused access: check the mirror's credentials and {sources}"),
            NetworkError::Refused(refusal) if refusal.sent => format!(
                "the registry does not accept that credential: replace the token (`npm login --registry=<registry>` writes a fresh `{}:_authToken` line in {}), or check that the account may read the package",
                refusal.expected, refusal.read_from
            ),
            NetworkError::Refused(refusal) => format!(
                "write `{}:_authToken=${{NPM_TOKEN}}` in {} (or the file NPM_CONFIG_USERCONFIG names) and set NPM_TOKEN; a project's `.npmrc` is not read",
                refusal.expected, refusal.read_from
            ),
            NetworkError::CaFile { origin, .. } => {
                format!("point {origin} at a PEM file of the company's CA certificates")
            }
            NetworkError::Redirects { .. } => format!("check {sources}: the server redirects in a loop"),
            NetworkError::Proxy { .. } => {
                "set the proxy as `http://host:port` (npm's `proxy`/`https-proxy`, or HTTPS_PROXY)"
                    .to_owned()
            }
            NetworkError::Status { .. } => {
                format!("the download host is failing: try again later, or set {sources} to a mirror")
            }
            NetworkError::Request { .. } => format!(
                "check the network and HTTPS_PROXY/NO_PROXY/SSL_CERT_FILE, point {primary} at a reachable mirror, or use `--offline` with an installed version"
            ),
            NetworkError::Stalled { .. } => "the server stopped sending: try again, raise ONEWORKS_HTTP_TIMEOUT (seconds) on a slow link, or use a mirror".to_owned(),
            NetworkError::Io { .. } | NetworkError::Truncated { .. } => {
                "the connection broke off; nothing was installed: try again, or use a mirror".to_owned()
            }
            NetworkError::SizeMismatch { .. }
            | NetworkError::Oversized { .. }
            | NetworkError::TooLarge { .. } => {
                "the server sends another file than the manifest describes: check the mirror's contents".to_owned()
            }
            NetworkError::Scheme { .. } | NetworkError::Url { .. } => format!("check {sources}"),
            NetworkError::Client(_) => return None,
        })
    }
}

impl Classify for NetworkError {
    fn kind(&self) -> ErrorKind {
        match self {
            NetworkError::Client(_) => ErrorKind::Internal,
            NetworkError::Scheme { .. }
            | NetworkError::Url { .. }
            | NetworkError::CaFile { .. }
            | NetworkError::Proxy { .. } => ErrorKind::Config,
            _ => ErrorKind::Network,
        }
    }
    fn hint(&self) -> Option<String> {
        self.hint_with(
            "the adapter's source URL variable",
            "the adapter's source URL variables",
        )
    }
}

/// Why an HTTP body read failed, carried inside the `io::Error` so the
/// message can say what happened instead of "error decoding response body".
#[derive(Debug, thiserror::Error)]
pub(crate) enum BodyFailure {
    #[error("no data within the idle timeout")]
    Stalled,
    #[error("the body ended after {received} of {expected} bytes")]
    Ended { received: u64, expected: u64 },
}

/// `error` without the URL a wrapped reqwest error would print.
pub(crate) fn without_url(error: std::io::Error) -> std::io::Error {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn url() -> Url {
        Url::parse("http://user:secret@mirror.test/k.tar.gz?token=t0k").expect("url")
    }

    const SHOWN: &str = "http://***@mirror.test/k.tar.gz?token=***";

    #[test]
    fn a_timed_out_read_is_a_stall_naming_the_url() {
        let idle = Duration::from_secs(30);
        let error = NetworkError::read(
            &url(),
            std::io::Error::new(std::io::ErrorKind::TimedOut, BodyFailure::Stalled),
            idle,
        );
        assert_eq!(
            error.to_string(),
            format!("`{SHOWN}` stalled: no data for 30s")
        );
        assert!(error.is_transient());
        let error = NetworkError::read(
            &url(),
            std::io::Error::other(std::io::Error::from(std::io::ErrorKind::TimedOut)),
            idle,
        );
        assert!(matches!(error, NetworkError::Stalled { .. }), "{error}");
    }

    #[test]
    fn a_body_that_broke_off_is_a_truncation() {
        let error = NetworkError::read(
            &url(),
            std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                BodyFailure::Ended {
                    received: 5,
                    expected: 9,
                },
            ),
            Duration::from_secs(30),
        );
        assert_eq!(
            error.to_string(),
            format!("`{SHOWN}` ended after 5 of 9 bytes")
        );
        let error = NetworkError::read(
            &url(),
            std::io::Error::from(std::io::ErrorKind::ConnectionReset),
            Duration::from_secs(30),
        );
        assert_eq!(error.to_string(), format!("reading `{SHOWN}` failed"));
    }

    #[test]
    fn every_network_failure_a_user_can_act_on_has_a_hint() {
        let shown = SHOWN.to_owned();
        for error in [
            NetworkError::Status {
                url: shown.clone(),
                status: 503,
            },
            NetworkError::Status {
                url: shown.clone(),
                status: 403,
            },
            NetworkError::Status {
                url: shown.clone(),
                status: 404,
            },
            NetworkError::Stalled {
                url: shown.clone(),
                idle: Duration::from_secs(1),
            },
            NetworkError::Truncated {
                url: shown.clone(),
                received: 1,
                expected: 2,
            },
            NetworkError::SizeMismatch {
                url: shown.clone(),
                announced: 1,
                expected: 2,
            },
            NetworkError::Oversized {
                url: shown.clone(),
                expected: 2,
            },
            NetworkError::TooLarge {
                url: shown.clone(),
                limit: 2,
            },
            NetworkError::Scheme { url: shown },
        ] {
            assert!(error.hint().is_some(), "{error}");
        }
    }
}
