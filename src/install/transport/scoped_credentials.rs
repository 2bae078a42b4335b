//! Credentials for the installer's requests: each belongs to
//! one `//host[:port]/path/` prefix (npm's "nerf dart": no scheme, the
//! port only when it is not the scheme's default) and goes only to a URL
//! under it — the longest prefix wins, as in npm. A value never appears in
//! `Debug`, a message or a URL; messages name the setting's key and where
//! it was read.

use reqwest::header::HeaderValue;
use url::Url;

/// One credential: the prefix it is written for, the `Authorization`
/// value, and the setting it came from.
#[derive(Clone)]
pub struct Credential {
    /// `//host[:port]/path/`, host in lower case, ending in `/`.
    pub prefix: String,
    header: HeaderValue,
    /// The setting's key and where it was read (never its value).
    pub origin: String,
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Credential")
            .field("prefix", &self.prefix)
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

impl Credential {
    /// `None` when `authorization` cannot be a header value (a newline in
    /// a token): such a credential is never sent.
    pub fn new(prefix: String, authorization: &str, origin: String) -> Option<Self> {
        let mut header = HeaderValue::from_str(authorization).ok()?;
        header.set_sensitive(true);
        Some(Self {
            prefix: normalized_prefix(&prefix),
            header,
            origin,
        })
    }

    pub fn header(&self) -> &HeaderValue {
        &self.header
    }
}

/// What the installer may authenticate with, and what it can say about a
/// refusal.
#[derive(Debug, Clone, Default)]
pub struct Credentials {
    pub entries: Vec<Credential>,
    /// Settings that were found but are never sent, each with why (a
    /// top-level `_authToken`, a line that expands to nothing).
    pub unused: Vec<String>,
    /// Where the credentials are read, for messages (`` `~/.npmrc` ``).
    pub read_from: String,
    /// The registries the settings name: a refusal names the one a URL
    /// lies under.
    pub registries: Vec<Url>,
}

/// `//host[:port]/path/` of `url`, as npm keys its credentials.
pub fn prefix_of(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
    match url.port() {
        Some(port) => format!("//{host}:{port}{}", url.path()),
        None => format!("//{host}{}", url.path()),
    }
}

/// A written prefix with its host in lower case and a trailing `/`.
pub fn normalized_prefix(prefix: &str) -> String {
    let rest = prefix.strip_prefix("//").unwrap_or(prefix);
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let mut normalized = format!("//{}/{path}", host.to_ascii_lowercase());
    if !normalized.ends_with('/') {
        normalized.push('/');
    }
    normalized
}

impl Credentials {
    /// The credential for `url`: the longest prefix it lies under.
    pub fn for_url(&self, url: &Url) -> Option<&Credential> {
        if !matches!(url.scheme(), "http" | "https") || !url.username().is_empty() {
            return None;
        }
        let target = prefix_of(url);
        self.entries
            .iter()
            .filter(|credential| target.starts_with(&credential.prefix))
            .max_by_key(|credential| credential.prefix.len())
    }

    /// The registry `url` lies under, as written in the settings (else
    /// its origin).
    pub fn registry_of(&self, url: &Url) -> String {
        self.registry_url(url).map_or_else(
            || url.origin().ascii_serialization() + "/",
            |registry| crate::redact::redact_url(registry.as_str()),
        )
    }

    fn registry_url(&self, url: &Url) -> Option<&Url> {
        let target = prefix_of(url);
        self.registries
            .iter()
            .filter(|registry| target.starts_with(&prefix_of(registry)))
            .max_by_key(|registry| registry.as_str().len())
    }

    /// The prefix a credential line for `url`'s registry is written with.
    pub fn expected_prefix(&self, url: &Url) -> String {
        match self.registry_url(url) {
            Some(registry) => prefix_of(registry),
            None => {
                let mut origin = url.clone();
                origin.set_path("/");
                prefix_of(&origin)
            }
        }
    }

    /// Why a request to `url` carried no credential, or which one it
    /// carried: the sentence a 401/403 message ends with.
    pub fn account(&self, url: &Url, sent: Option<&Credential>) -> String {
        if let Some(credential) = sent {
            return format!("it was sent the credential of {}", credential.origin);
        }
        let mut text = format!(
            "no credential line for `{}` was found in {}",
            self.expected_prefix(url),
            self.read_from
        );
        let others: Vec<&str> = self
            .entries
            .iter()
            .map(|credential| credential.origin.as_str())
            .collect();
        if !others.is_empty() {
            text.push_str(&format!(" (lines for other hosts: {})", others.join(", ")));
        }
        if !self.unused.is_empty() {
            text.push_str(&format!("; not used: {}", self.unused.join("; ")));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn credentials(prefixes: &[&str]) -> Credentials {
        Credentials {
            entries: prefixes
                .iter()
                .map(|prefix| {
                    Credential::new((*prefix).to_owned(), "Bearer x", (*prefix).to_owned())
                        .expect("credential")
                })
                .collect(),
            ..Credentials::default()
        }
    }

    #[test]
    fn a_credential_goes_only_below_its_host_port_and_path() {
        let all = credentials(&["//Reg.test:8443/npm", "//reg.test:8443/npm/private/"]);
        let used = |url: &str| {
            all.for_url(&Url::parse(url).expect("url"))
                .map(|credential| credential.prefix.clone())
        };
        assert_eq!(
            used("https://reg.test:8443/npm/pkg"),
            Some("//reg.test:8443/npm/".to_owned())
        );
        assert_eq!(
            used("https://reg.test:8443/npm/private/pkg/-/a.tgz"),
            Some("//reg.test:8443/npm/private/".to_owned())
        );
        for elsewhere in [
            "https://reg.test/npm/pkg",
            "https://reg.test:8443/npmx/pkg",
            "https://reg.test:8443/other/pkg",
            "https://reg.test.evil:8443/npm/pkg",
            "https://evil.test/npm/pkg",
            "https://user:pw@reg.test:8443/npm/pkg",
            "file:///npm/pkg",
        ] {
            assert_eq!(used(elsewhere), None, "{elsewhere}");
        }
        let default_port = credentials(&["//reg.test/"]);
        assert!(default_port
            .for_url(&Url::parse("https://reg.test:443/a").expect("url"))
            .is_some());
        assert!(default_port
            .for_url(&Url::parse("https://reg.test:444/a").expect("url"))
            .is_none());
    }

    #[test]
    fn debug_never_shows_the_header() {
        let credential =
            Credential::new("//r.test/".into(), "Bearer sekrit-value", "`k`".into()).expect("c");
        assert!(!format!("{credential:?}").contains("sekrit"));
        assert!(Credential::new("//r.test/".into(), "Bearer a\nb", "`k`".into()).is_none());
    }
}
