//! The URLs of the npm registry protocol: a package's document, and the
//! tarball a version document names (fetched from the configured registry).

use url::Url;

use super::registry_choice;
use crate::install::error::InstallError;
use crate::install::transport::fetcher::parse_url;
use crate::install::transport::network_error::{shown, NetworkError};

/// `<registry>/<name with / as %2f>`, as npm asks for a package. Only an
/// npm package name becomes a URL: a name from a document (`\\host\x`,
/// `..`, `%2e`) could otherwise point the request at another host or path.
pub fn package_url(registry: &Url, package: &str) -> Result<Url, InstallError> {
    if !super::specifier::valid_name(package) {
        return Err(InstallError::NotAPackageName {
            name: package.escape_debug().to_string(),
        });
    }
    let encoded = package.replace('/', "%2f");
    registry.join(&encoded).map_err(|source| {
        NetworkError::Url {
            url: crate::redact::redact_url(&format!("{registry}{encoded}")),
            source,
        }
        .into()
    })
}

/// The tarball URL a version document names, as npm would fetch it: an
/// `http(s)` URL, and one on the public registry is fetched from the
/// configured registry instead (npm's `replace-registry-host` default), so a
/// mirror that copies the public documents verbatim serves its own copies.
pub(super) fn tarball_url(text: &str, registry: &Url) -> Result<Url, InstallError> {
    let url = parse_url(text)?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(NetworkError::Scheme { url: shown(&url) }.into());
    }
    let url = match url.as_str().strip_prefix(registry_choice::PUBLIC_REGISTRY) {
        Some(rest) if registry.as_str() != registry_choice::PUBLIC_REGISTRY => {
            registry.join(rest).map_err(|source| NetworkError::Url {
                url: crate::redact::redact_url(text),
                source,
            })?
        }
        _ => url,
    };
    // A tarball comes from the registry the document came from: a
    // document (or a lock file) cannot send the download, and the
    // registry's credential, to a host of its choosing.
    if url.origin() != registry.origin() {
        return Err(InstallError::OutsideBase {
            download: shown(&url),
            base: shown(registry),
        });
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_urls_encode_the_scope_slash() {
        let registry = Url::parse("http://mirror.test/npm/").expect("url");
        assert_eq!(
            package_url(&registry, "@google/gemini-cli")
                .expect("url")
                .as_str(),
            "http://mirror.test/npm/@google%2fgemini-cli"
        );
    }

    #[test]
    fn public_tarballs_come_from_the_configured_registry() {
        let mirror = Url::parse("http://mirror.test/npm/").expect("url");
        let public = "https://registry.npmjs.org/@google/gemini-cli/-/gemini-cli-0.61.0.tgz";
        assert_eq!(
            tarball_url(public, &mirror).expect("url").as_str(),
            "http://mirror.test/npm/@google/gemini-cli/-/gemini-cli-0.61.0.tgz"
        );
        let own = Url::parse(registry_choice::PUBLIC_REGISTRY).expect("url");
        assert_eq!(tarball_url(public, &own).expect("url").as_str(), public);
        assert!(tarball_url("file:///etc/passwd", &mirror).is_err());
        for elsewhere in [
            "http://other.test/npm/a.tgz",
            "https://mirror.test/npm/a.tgz",
            "http://mirror.test:8080/npm/a.tgz",
        ] {
            assert!(
                matches!(
                    tarball_url(elsewhere, &mirror),
                    Err(InstallError::OutsideBase { .. })
                ),
                "{elsewhere}"
            );
        }
    }

    #[test]
    fn only_package_names_become_document_urls() {
        let registry = Url::parse("http://mirror.test/npm/").expect("url");
        for bad in ["\\\\127.0.0.1:9\\beacon", "../admin", "%2e%2e", "a/b"] {
            assert!(package_url(&registry, bad).is_err(), "{bad}");
        }
    }
}
