//! The one builder of the installer's HTTP clients:
//! the company CA and proxy as the ecosystem sets them. Every source (the
//! Kiro manifest, the npm registry, the Node.js mirror) gets
//! `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY`, `SSL_CERT_FILE`/`SSL_CERT_DIR`
//! (the system's roots replaced, read by rustls-native-certs) and
//! `NODE_EXTRA_CA_CERTS` (roots added). An npm adapter's installer also
//! takes the user's npm settings: `proxy`, `https-proxy`, `noproxy`,
//! `cafile` (its roots replace the system's, as `ca` does in Node) and
//! `strict-ssl=false`. Redirects are followed by the fetcher itself, so it
//! decides where a credential may go.
//!
//! The folder holds getting bytes for the installer: [`fetcher`] (one
//! request or document over `http(s)` or `file://`),
//! [`scoped_credentials`] (a credential only to its origin), [`retry`]
//! (backoff and `Retry-After`), [`network_error`] (what went wrong on the
//! network), and the download of one artifact into staging (`download`,
//! with the hashing thread in [`pipeline`] and the zip spool in `spool`).

pub(super) mod download;
pub mod fetcher;
pub mod network_error;
pub mod pipeline;
pub mod retry;
pub mod scoped_credentials;
pub(super) mod spool;

use std::path::PathBuf;

use self::network_error::NetworkError;

/// A PEM file of CA certificates and the setting that named it.
#[derive(Debug, Clone)]
pub struct CaFile {
    pub path: PathBuf,
    pub origin: String,
}

/// Proxies set by npm's settings, with the environment's where npm's say
/// nothing (setting one turns off reqwest's own reading of the variables).
#[derive(Debug, Clone, Default)]
pub struct Proxies {
    pub http: Option<String>,
    pub https: Option<String>,
    pub no_proxy: Option<String>,
}

/// How the installer's clients reach a host.
#[derive(Debug, Clone, Default)]
pub struct Transport {
    /// `NODE_EXTRA_CA_CERTS`: trusted besides the system's roots.
    pub extra_roots: Vec<CaFile>,
    /// npm's `cafile`: trusted instead of the system's roots.
    pub only_roots: Option<CaFile>,
    /// npm's `strict-ssl=false`: certificates are not checked.
    pub insecure: bool,
    pub proxies: Option<Proxies>,
}

/// The most a CA file may weigh (a full system bundle is ~250 KB).
const MAX_CA_BYTES: u64 = 8 * 1024 * 1024;

impl Transport {
    /// The environment's part: `NODE_EXTRA_CA_CERTS` (`SSL_CERT_FILE`,
    /// `SSL_CERT_DIR` and the proxy variables are read where the client
    /// loads its roots and proxies).
    pub fn from_env(env: &crate::env_options::environment::Environment) -> Self {
        use crate::env_options::names::EnvVars;
        Self {
            extra_roots: env
                .path(EnvVars::NODE_EXTRA_CA_CERTS)
                .map(|path| CaFile {
                    path,
                    origin: EnvVars::NODE_EXTRA_CA_CERTS.to_owned(),
                })
                .into_iter()
                .collect(),
            ..Self::default()
        }
    }

    /// A client for `https` or plain `http` URLs.
    pub fn client(
        &self,
        https: bool,
        idle_timeout: std::time::Duration,
    ) -> Result<reqwest::blocking::Client, NetworkError> {
        let mut builder = reqwest::blocking::Client::builder()
            // Loading the system's CA roots costs milliseconds per
            // process; plain-HTTP mirrors (loopback, air-gapped) never
            // need them.
            .tls_built_in_root_certs(https && self.only_roots.is_none())
            .user_agent(concat!("oneworks/", env!("CARGO_PKG_VERSION")))
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(idle_timeout)
            // Blocking reqwest applies this to the wait for headers and to
            // each body read: an idle timeout, not a cap on the download.
            .timeout(idle_timeout);
        if https {
            for file in self.only_roots.iter().chain(&self.extra_roots) {
                for certificate in read_roots(file)? {
                    builder = builder.add_root_certificate(certificate);
                }
            }
            builder = builder.danger_accept_invalid_certs(self.insecure);
        }
        if let Some(proxies) = &self.proxies {
            builder = with_proxies(builder, proxies)?;
        }
        builder.build().map_err(NetworkError::Client)
    }
}

fn with_proxies(
    mut builder: reqwest::blocking::ClientBuilder,
    proxies: &Proxies,
) -> Result<reqwest::blocking::ClientBuilder, NetworkError> {
    let no_proxy = proxies
        .no_proxy
        .as_deref()
        .and_then(reqwest::NoProxy::from_string);
    let proxy_error = |url: &str| NetworkError::Proxy {
        url: crate::redact::redact_url(url),
    };
    if let Some(url) = &proxies.https {
        let proxy = reqwest::Proxy::https(url.as_str()).map_err(|_| proxy_error(url))?;
        builder = builder.proxy(proxy.no_proxy(no_proxy.clone()));
    }
    if let Some(url) = &proxies.http {
        let proxy = reqwest::Proxy::http(url.as_str()).map_err(|_| proxy_error(url))?;
        builder = builder.proxy(proxy.no_proxy(no_proxy));
    }
    if proxies.https.is_none() && proxies.http.is_none() {
        builder = builder.no_proxy();
    }
    Ok(builder)
}

/// The certificates of a PEM file; none, or an unreadable file, is an
/// error naming the setting.
fn read_roots(file: &CaFile) -> Result<Vec<reqwest::Certificate>, NetworkError> {
    let refused = |reason: String| NetworkError::CaFile {
        path: file.path.clone(),
        origin: file.origin.clone(),
        reason,
    };
    let bytes =
        crate::fs_safety::read_regular_file(&file.path, MAX_CA_BYTES, true).map_err(|refusal| {
            use crate::fs_safety::ReadRefusal;
            refused(match refusal {
                ReadRefusal::Missing | ReadRefusal::Symlink => "it does not exist".to_owned(),
                ReadRefusal::NotRegular(found) => format!("it is a {found}, not a regular file"),
                ReadRefusal::TooLarge => format!("it is larger than {MAX_CA_BYTES} bytes"),
                ReadRefusal::Io(error) => error.to_string(),
            })
        })?;
    let certificates = reqwest::Certificate::from_pem_bundle(&bytes)
        .map_err(|_| refused("it is not a PEM bundle of certificates".to_owned()))?;
    if certificates.is_empty() {
        return Err(refused("it holds no PEM certificate".to_owned()));
    }
    Ok(certificates)
}
