//! Who may talk to the server (SPEC §8.5). Every response carries the
//! security headers. Before anything else: the `Host` header must name this
//! server (421 otherwise: DNS rebinding). Then a `?token=` is exchanged for
//! an `HttpOnly; SameSite=Strict` cookie and a redirect to the clean path;
//! every other request needs that cookie or `Authorization: Bearer` (401,
//! no detail). Every POST needs an `Origin` equal to the page's own (403).
//! Answer links (`/a/…`) carry their own capability instead of the token;
//! a POST to one may come without `Origin` (a push service), but never
//! with a foreign one.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::secret::{random_hex, same_secret};

pub struct Guard {
    token: String,
    cookie: String,
    hosts: Vec<String>,
    origins: Vec<String>,
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
            token: random_hex()?,
            cookie: format!("oneworks_serve_{port}"),
            hosts,
            origins,
        })
    }

    pub fn token(&self) -> &str {
        &self.token
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

    fn authenticated(&self, headers: &HeaderMap) -> bool {
        let bearer = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        if bearer.is_some_and(|given| same_secret(given.trim(), &self.token)) {
            return true;
        }
        let prefix = format!("{}=", self.cookie);
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| pair.trim().strip_prefix(prefix.as_str()))
            .any(|given| same_secret(given, &self.token))
    }

    /// The `Set-Cookie` value that carries the token.
    fn cookie_header(&self) -> String {
        format!(
            "{}={}; HttpOnly; SameSite=Strict; Path=/",
            self.cookie, self.token
        )
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

/// The `token` query parameter, if any.
fn query_token(query: Option<&str>) -> Option<String> {
    url::form_urlencoded::parse(query?.as_bytes())
        .find(|(name, _)| name == "token")
        .map(|(_, value)| value.into_owned())
}

fn bare(status: StatusCode) -> Response {
    let text = status.canonical_reason().unwrap_or("refused");
    (status, text.to_owned()).into_response()
}

/// The middleware in front of every route.
pub async fn guard(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    let mut response = check(&guard, request, next).await;
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

async fn check(guard: &Guard, request: Request, next: Next) -> Response {
    let headers = request.headers();
    if !guard.host_allowed(headers) {
        return bare(StatusCode::MISDIRECTED_REQUEST);
    }
    let link = request.uri().path().starts_with("/a/");
    if let Some(given) = query_token(request.uri().query()) {
        if link || !same_secret(&given, guard.token()) {
            return bare(StatusCode::UNAUTHORIZED);
        }
        let path = request.uri().path().to_owned();
        let mut response = (StatusCode::SEE_OTHER, "").into_response();
        let headers = response.headers_mut();
        if let Ok(cookie) = HeaderValue::from_str(&guard.cookie_header()) {
            headers.insert(header::SET_COOKIE, cookie);
        }
        if let Ok(location) = HeaderValue::from_str(&path) {
            headers.insert(header::LOCATION, location);
        }
        return response;
    }
    if !link && !guard.authenticated(headers) {
        return bare(StatusCode::UNAUTHORIZED);
    }
    if request.method() == Method::POST {
        match guard.origin_ours(headers) {
            Some(true) => {}
            None if link => {}
            _ => return bare(StatusCode::FORBIDDEN),
        }
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
    fn the_cookie_or_bearer_must_hold_the_token() {
        let guard = guard();
        let mut headers = HeaderMap::new();
        assert!(!guard.authenticated(&headers));
        let cookie = format!("a=b; oneworks_serve_4000={}", guard.token());
        headers.insert(header::COOKIE, HeaderValue::from_str(&cookie).expect("v"));
        assert!(guard.authenticated(&headers));
        let mut headers = HeaderMap::new();
        headers.insert(
            header::COOKIE,
            HeaderValue::from_static("oneworks_serve_4000=x"),
        );
        assert!(!guard.authenticated(&headers));
        let bearer = format!("Bearer {}", guard.token());
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_str(&bearer).expect("v"),
        );
        assert!(guard.authenticated(&headers));
    }
}
