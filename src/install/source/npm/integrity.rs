//! Subresource Integrity strings (`dist.integrity`): one or more
//! `<algorithm>-<base64>[?options]` separated by whitespace. oneworks
//! verifies the sha512 one and refuses a package that has none: sha1 (the
//! old `shasum`) is not a check worth making.

use base64::Engine as _;

/// The sha512 a tarball must have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sha512Integrity {
    pub digest: Vec<u8>,
}

/// Why an `integrity` cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unusable {
    Missing,
    /// Only other algorithms (`sha1`, …), named.
    NoSha512(Vec<String>),
    Malformed,
}

impl Unusable {
    /// Why, for the refusal message.
    pub fn reason(&self, shasum: bool) -> String {
        match self {
            Unusable::Missing if shasum => "the registry records only a sha1 `shasum` for it, no sha512 `integrity`; sha1 is not accepted as a check".to_owned(),
            Unusable::Missing => "the registry records no `integrity` for it, so the download cannot be verified".to_owned(),
            Unusable::NoSha512(algorithms) => format!(
                "its `integrity` has no sha512 hash, only {}; these are not accepted as a check",
                algorithms.join(", ")
            ),
            Unusable::Malformed => "its `integrity` sha512 hash is not valid base64 of 64 bytes".to_owned(),
        }
    }
}

impl Sha512Integrity {
    /// The sha512 hash of an SRI string (the first, when several).
    pub fn parse(sri: Option<&str>) -> Result<Self, Unusable> {
        let Some(sri) = sri.filter(|sri| !sri.trim().is_empty()) else {
            return Err(Unusable::Missing);
        };
        let mut others = Vec::new();
        for token in sri.split_whitespace() {
            let Some((algorithm, rest)) = token.split_once('-') else {
                continue;
            };
            if !algorithm.eq_ignore_ascii_case("sha512") {
                let shown = crate::output::sanitize::sanitize_line(algorithm).into_owned();
                if !others.contains(&shown) {
                    others.push(shown);
                }
                continue;
            }
            // `?opt` suffixes carry no meaning for the hash.
            let encoded = rest.split('?').next().unwrap_or_default();
            let digest = base64::engine::general_purpose::STANDARD
                .decode(encoded)
                .map_err(|_| Unusable::Malformed)?;
            if digest.len() != 64 {
                return Err(Unusable::Malformed);
            }
            return Ok(Self { digest });
        }
        if others.is_empty() {
            Err(Unusable::Malformed)
        } else {
            Err(Unusable::NoSha512(others))
        }
    }

    /// `sha512-<base64>`, as npm writes it.
    pub fn to_sri(&self) -> String {
        sri_of(&self.digest)
    }
}

/// The SRI form of a sha512 digest.
pub fn sri_of(digest: &[u8]) -> String {
    format!(
        "sha512-{}",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

#[cfg(test)]
mod tests {
    use sha2::Digest as _;

    use super::*;

    #[test]
    fn picks_the_sha512_among_several_hashes() {
        let digest = sha2::Sha512::digest(b"tarball").to_vec();
        let sri = sri_of(&digest);
        let several = format!("sha1-deadbeef {sri}?foo sha384-abc");
        let parsed = Sha512Integrity::parse(Some(&several)).expect("sha512");
        assert_eq!(parsed.digest, digest);
        assert_eq!(parsed.to_sri(), sri);
    }

    #[test]
    fn refuses_missing_sha1_only_and_malformed() {
        assert_eq!(Sha512Integrity::parse(None), Err(Unusable::Missing));
        assert_eq!(Sha512Integrity::parse(Some(" ")), Err(Unusable::Missing));
        assert_eq!(
            Sha512Integrity::parse(Some("sha1-2jmj7l5rSw0yVb/vlWAYkK/YBwk=")),
            Err(Unusable::NoSha512(vec!["sha1".to_owned()]))
        );
        assert_eq!(
            Sha512Integrity::parse(Some("sha512-bm90IDY0IGJ5dGVz")),
            Err(Unusable::Malformed)
        );
        assert_eq!(
            Sha512Integrity::parse(Some("sha512-!!!")),
            Err(Unusable::Malformed)
        );
        assert!(Unusable::Missing.reason(true).contains("sha1"));
    }
}
