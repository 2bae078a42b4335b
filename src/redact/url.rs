//! Credentials in URLs: wherever a URL is printed or recorded,
//! its userinfo is shown as `***`, and so are the values of query
//! parameters whose names contain `token`, `key`, `secret`, `password`,
//! `signature`, `credential` or `auth` (any case). Works on the text, not a
//! parsed URL, so malformed `%` fragments and `${VAR}` references are kept
//! as they are.

use std::ops::Range;

const SENSITIVE: &[&str] = &[
    "token",
    "key",
    "secret",
    "password",
    "signature",
    "credential",
    "auth",
];

/// Whether a query parameter so named carries a credential.
pub fn is_sensitive_parameter(name: &str) -> bool {
    let decoded = percent_encoding::percent_decode_str(name).decode_utf8_lossy();
    let lower = decoded.to_ascii_lowercase();
    SENSITIVE.iter().any(|word| lower.contains(word))
}

/// The parts of a URL that hold credentials.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct UrlSecrets {
    /// The whole userinfo (`user:password`), without the `@`.
    pub userinfo: Option<Range<usize>>,
    /// The password part of the userinfo, if any.
    pub password: Option<Range<usize>>,
    /// The values of sensitive query parameters.
    pub values: Vec<Range<usize>>,
}

pub(crate) fn url_secrets(url: &str) -> UrlSecrets {
    let mut found = UrlSecrets::default();
    if let Some(authority_start) = url.find("://").map(|index| index + 3) {
        let rest = &url[authority_start..];
        let authority_len = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        if let Some(at) = rest[..authority_len].rfind('@') {
            found.userinfo = Some(authority_start..authority_start + at);
            if let Some(colon) = rest[..at].find(':') {
                found.password = Some(authority_start + colon + 1..authority_start + at);
            }
        }
    }
    let Some(query_start) = url.find('?').map(|index| index + 1) else {
        return found;
    };
    let query_end = url[query_start..]
        .find('#')
        .map_or(url.len(), |index| query_start + index);
    let mut position = query_start;
    for pair in url[query_start..query_end].split('&') {
        if let Some(equals) = pair.find('=') {
            if is_sensitive_parameter(&pair[..equals]) && equals + 1 < pair.len() {
                found
                    .values
                    .push(position + equals + 1..position + pair.len());
            }
        }
        position += pair.len() + 1;
    }
    found
}

/// `url` with its userinfo and sensitive query values shown as `***`.
pub fn redact_url(url: &str) -> String {
    let found = url_secrets(url);
    let mut spans: Vec<Range<usize>> = found.userinfo.into_iter().chain(found.values).collect();
    if spans.is_empty() {
        return url.to_owned();
    }
    spans.sort_by_key(|span| span.start);
    let mut out = String::with_capacity(url.len());
    let mut kept = 0;
    for span in spans {
        out.push_str(&url[kept..span.start]);
        out.push_str("***");
        kept = span.end;
    }
    out.push_str(&url[kept..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn userinfo_and_sensitive_parameters_are_masked() {
        for (url, expected) in [
            (
                "https://user:pass@mirror.example/a?token=t1&x=1&API_Key=k#frag",
                "https://***@mirror.example/a?token=***&x=1&API_Key=***#frag",
            ),
            (
                "http://example.com/mcp?k=v&authorization=%zz&sig=1",
                "http://example.com/mcp?k=v&authorization=***&sig=1",
            ),
            (
                "https://example.com/p@th?x-amz-signature=abc&empty=&secret",
                "https://example.com/p@th?x-amz-signature=***&empty=&secret",
            ),
            ("not a url ?token=abc", "not a url ?token=***"),
            ("https://example.com/%zz", "https://example.com/%zz"),
            ("https://a%40b:c@h/", "https://***@h/"),
        ] {
            assert_eq!(redact_url(url), expected, "{url}");
        }
    }

    #[test]
    fn the_password_is_found_apart_from_the_user() {
        let url = "https://me:${PASS}@h/";
        let found = url_secrets(url);
        assert_eq!(&url[found.password.expect("password")], "${PASS}");
        assert_eq!(&url[found.userinfo.expect("userinfo")], "me:${PASS}");
    }

    proptest::proptest! {
        #[test]
        fn no_password_or_token_survives(
            user in "[a-z]{1,8}",
            password in "[A-Za-z0-9%._~-]{1,16}",
            token in "[A-Za-z0-9%._~-]{1,16}",
            name in "(token|api_key|X-Amz-Signature|client_secret|password|auth)",
            path in "(/[a-z@]{0,6}){0,3}",
        ) {
            let url = format!("https://{user}:{password}@host.example{path}?a=1&{name}={token}#f");
            let shown = redact_url(&url);
            proptest::prop_assert_eq!(
                shown,
                format!("https://***@host.example{path}?a=1&{name}=***#f")
            );
        }
    }
}
