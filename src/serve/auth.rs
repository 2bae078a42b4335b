//! Who may talk to the server. Every response carries the
//! security headers. Before anything else: the `Host` header must name this
//! server (421 otherwise: DNS rebinding). The credential is bound to the
//! page's origin, never to a cookie: a browser sends a cookie of 127.0.0.1
//! to every port of 127.0.0.1, so any local listener it visits would get
//! it. The printed URL carries the token in its fragment (`/#token=…`),
//! which no browser puts in a request line, a `Referer` or a log; the page's
//! script sends it back as `Authorization: Bearer` on every call.
//!
//! So only the page's shell (`GET /`, no data) and its assets are open;
//! every other request needs the bearer token (401, no detail). Every POST
//! needs an `Origin` equal to the page's own (403). `--open` never hands the
//! token, or anything that leads to it, to another process (its argv is
//! readable by every user): the opener gets the path of a private file
//! ([`super::open_file`]), which the guard holds and removes once the
//! page's first call (`/view`) comes with the token. Answer links (`/a/…`)
//! carry their own capability instead of the token; a POST to one may come
//! without `Origin` (a push service), but never with a foreign one.
//! Nothing here ever redirects.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::open_file::OpenFile;
use crate::session::secret::{random_hex, same_secret};

pub struct Guard {
    address: SocketAddr,
    token: String,
    hosts: Vec<String>,
    origins: Vec<String>,
    /// `--open`'s file while its page has not loaded yet.
    open_file: Mutex<Option<OpenFile>>,
}

impl Guard {
    pub fn new(address: SocketAddr, public: Option<&url::Url>) -> std::io::Result<Self> {
        let port = address.port();
        let mut hosts = vec![
            address.to_string(),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
        ];
        if let Some(host) = public.and_then(public_host) {
            hosts.push(host);
        }
        let mut origins: Vec<String> = hosts.iter().map(|host| format!("http://{host}")).collect();
        if let Some(public) = public {
            origins.push(public.origin().ascii_serialization());
        }
        Ok(Self {
            address,
            token: random_hex()?,
            hosts,
            origins,
            open_file: Mutex::new(None),
        })
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    /// The URL to print: the token in the fragment, which leaves the
    /// browser only through the page's script.
    pub fn page_url(&self) -> String {
        format!("http://{}/#token={}", self.address, self.token)
    }

    /// Keeps `--open`'s file until [`Guard::remove_open_file`].
    pub fn hold_open_file(&self, file: OpenFile) {
        *self
            .open_file
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(file);
    }

    /// Removes `--open`'s file, if it is still there: its page loaded (it
    /// fetched `/view` with the token), its lifetime ended, or serve stops.
    pub fn remove_open_file(&self) {
        let file = self
            .open_file
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        drop(file);
    }

    fn host_allowed(&self, headers: &HeaderMap) -> bool {
        let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
        host.is_some_and(|host| self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host)))
    }

    /// `None`: no `Origin` header; `Some(ok)`: whether it is ours.
    fn origin_ours(&self, headers: &HeaderMap) -> Option<bool> {
        let origin = headers.get(header::ORIGIN)?;
        let origin = origin.to_str().unwrap_or_default();
        Some(self.origins.iter().any(|o| o.eq_ignore_ascii_case(origin)))
    }

    /// `Authorization: Bearer TOKEN` (the scheme's case does not matter):
    /// the only credential. A cookie is never looked at.
    fn authenticated(&self, headers: &HeaderMap) -> bool {
        headers
            .get_all(header::AUTHORIZATION)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .filter_map(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .any(|(_, given)| same_secret(given.trim(), &self.token))
    }
}

/// The host (and port) of the public URL, as a `Host` header carries it.
fn public_host(url: &url::Url) -> Option<String> {
    let host = url.host_str()?;
    Some(match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    })
}

/// What anyone may fetch: the page's shell (it holds no data) and its two
/// assets.
fn open_to_all(method: &Method, path: &str) -> bool {
    matches!(*method, Method::GET | Method::HEAD)
        && matches!(path, "/" | "/assets/serve.css" | "/assets/serve.js")
}

fn bare(status: StatusCode) -> Response {
    let text = status.canonical_reason().unwrap_or("refused");
    (status, text.to_owned()).into_response()
}

/// The middleware in front of every route.
pub async fn guard(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let shown = logged_path(request.uri());
    let mut response = check(&guard, request, next).await;
    tracing::debug!("serve: {method} {shown} → {}", response.status().as_u16());
    let headers = response.headers_mut();
    let fixed = [
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'self'; frame-ancestors 'none'",
        ),
        (header::CACHE_CONTROL, "no-store"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
    ];
    for (name, value) in fixed {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// A request's path as the debug log shows it: an answer link's capability
/// and any query are withheld (they may be secrets); that a query came is
/// said.
fn logged_path(uri: &axum::http::Uri) -> String {
    let path = uri.path();
    let mut shown = match path
        .strip_prefix("/a/")
        .and_then(|rest| rest.split_once('/'))
    {
        Some((card, _)) => format!("/a/{card}/…"),
        None => path.to_owned(),
    };
    if uri.query().is_some() {
        shown.push_str("?… (query withheld)");
    }
    shown
}

/// Put on a request whose Bearer token the guard verified: the one thing
/// the connection bounds count as "authenticated" (a header merely present,
/// on an open route, proves nothing).
#[derive(Clone, Copy, Debug)]
pub struct TokenVerified;

async fn check(guard: &Guard, mut request: Request, next: Next) -> Response {
    let headers = request.headers();
    if !guard.host_allowed(headers) {
        return bare(StatusCode::MISDIRECTED_REQUEST);
    }
    let path = request.uri().path();
    let link = path.starts_with("/a/");
    let verified = !link && guard.authenticated(headers);
    if !link && !open_to_all(request.method(), path) && !verified {
        return bare(StatusCode::UNAUTHORIZED);
    }
    let headers = request.headers();
    if request.method() == Method::POST {
        match guard.origin_ours(headers) {
            Some(true) => {}
            None if link => {}
            _ => return bare(StatusCode::FORBIDDEN),
        }
    }
    if verified && path == "/view" {
        // The page's first call: it has loaded, its file has done its job.
        guard.remove_open_file();
    }
    if verified {
        request.extensions_mut().insert(TokenVerified);
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard() -> Guard {
        Guard::new("127.0.0.1:4000".parse().expect("address"), None).expect("guard")
    }

    #[test]
    fn hosts_are_the_listen_address_localhost_and_ipv6_loopback() {
        let guard = guard();
        for (host, ok) in [
            ("127.0.0.1:4000", true),
            ("localhost:4000", true),
            ("[::1]:4000", true),
            ("localhost:4001", false),
            ("evil.example:4000", false),
        ] {
            let mut headers = HeaderMap::new();
            headers.insert(header::HOST, HeaderValue::from_static(host));
            assert_eq!(guard.host_allowed(&headers), ok, "{host}");
        }
    }

    #[test]
    fn only_a_bearer_header_holds_the_token_never_a_cookie() {
        let guard = guard();
        let mut headers = HeaderMap::new();
        assert!(!guard.authenticated(&headers));
        let cookie = format!("oneworks_serve_4000={0}; token={0}", guard.token());
        headers.insert(header::COOKIE, HeaderValue::from_str(&cookie).expect("v"));
        assert!(!guard.authenticated(&headers), "a cookie was taken");
        for (given, ok) in [
            (format!("Bearer {}", guard.token()), true),
            (format!("bearer {}", guard.token()), true),
            (format!("Bearer {}x", guard.token()), false),
            (format!("Basic {}", guard.token()), false),
            (guard.token().to_owned(), false),
        ] {
            let mut headers = HeaderMap::new();
            headers.insert(
                header::AUTHORIZATION,
                HeaderValue::from_str(&given).expect("v"),
            );
            assert_eq!(guard.authenticated(&headers), ok, "{given}");
        }
    }

    #[test]
    fn the_printed_url_carries_the_token_in_the_fragment_only() {
        let guard = guard();
        let url = url::Url::parse(&guard.page_url()).expect("url");
        assert_eq!(url.path(), "/");
        assert_eq!(url.query(), None);
        assert_eq!(url.fragment(), Some(&*format!("token={}", guard.token())));
    }

    #[test]
    fn only_the_shell_and_its_assets_are_open() {
        for (method, path, open) in [
            (Method::GET, "/", true),
            (Method::HEAD, "/", true),
            (Method::GET, "/assets/serve.js", true),
            (Method::GET, "/assets/serve.css", true),
            (Method::POST, "/api/exchange", false),
            (Method::POST, "/", false),
            (Method::GET, "/view", false),
            (Method::GET, "/events", false),
            (Method::GET, "/api/cards", false),
            (Method::GET, "//evil.example/x", false),
            (Method::GET, "/assets/other.js", false),
        ] {
            assert_eq!(open_to_all(&method, path), open, "{method} {path}");
        }
    }

    #[test]
    fn the_log_withholds_queries_and_link_capabilities() {
        for (uri, shown) in [
            ("/view", "/view"),
            ("/?token=abc", "/?… (query withheld)"),
            ("/a/card-1/f00d", "/a/card-1/…"),
        ] {
            let uri: axum::http::Uri = uri.parse().expect("uri");
            assert_eq!(logged_path(&uri), shown);
        }
    }
}
