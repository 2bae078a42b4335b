//! The encoded forms of a secret that the scrubber searches for,
//! and the URL/form decoding that uncovers secrets hidden under several
//! rounds of encoding.

use std::borrow::Cow;

use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use base64::Engine;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC};

/// Every byte except the RFC 3986 unreserved ones (`A-Za-z0-9-._~`).
const RESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// As [`RESERVED`] without the space, which form encoding writes as `+`.
const RESERVED_BUT_SPACE: &AsciiSet = &RESERVED.remove(b' ');

/// The shortest inner base64 fragment worth searching for: shorter ones
/// would match unrelated base64 text far too often.
const MIN_INNER_BASE64_LEN: usize = 4;

/// One of the encodings a credential is searched in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    Raw,
    /// Percent-encoding of every byte that is not unreserved, upper-case hex.
    PercentUpper,
    /// As [`Encoding::PercentUpper`] with lower-case hex.
    PercentLower,
    /// `application/x-www-form-urlencoded`: `+` for space, otherwise as
    /// [`Encoding::PercentUpper`].
    Form,
    Base64,
    Base64NoPad,
    Base64Url,
    Base64UrlNoPad,
}

impl Encoding {
    /// All encodings, in a stable order.
    pub const ALL: [Encoding; 8] = [
        Encoding::Raw,
        Encoding::PercentUpper,
        Encoding::PercentLower,
        Encoding::Form,
        Encoding::Base64,
        Encoding::Base64NoPad,
        Encoding::Base64Url,
        Encoding::Base64UrlNoPad,
    ];

    /// A short name, for reports.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Raw => "raw",
            Encoding::PercentUpper => "pct-upper",
            Encoding::PercentLower => "pct-lower",
            Encoding::Form => "form",
            Encoding::Base64 => "b64",
            Encoding::Base64NoPad => "b64-nopad",
            Encoding::Base64Url => "b64url",
            Encoding::Base64UrlNoPad => "b64url-nopad",
        }
    }

    /// `secret` in this encoding.
    pub fn encode(self, secret: &str) -> String {
        match self {
            Encoding::Raw => secret.to_owned(),
            Encoding::PercentUpper => percent_upper(secret),
            Encoding::PercentLower => lower_hex(&percent_upper(secret)),
            Encoding::Form => form_upper(secret),
            Encoding::Base64 => STANDARD.encode(secret),
            Encoding::Base64NoPad => STANDARD_NO_PAD.encode(secret),
            Encoding::Base64Url => URL_SAFE.encode(secret),
            Encoding::Base64UrlNoPad => URL_SAFE_NO_PAD.encode(secret),
        }
    }
}

fn percent_upper(secret: &str) -> String {
    percent_encoding::utf8_percent_encode(secret, RESERVED).to_string()
}

fn form_upper(secret: &str) -> String {
    // Spaces are the one byte form encoding writes differently; a literal
    // `+` in the secret has already become `%2B`, so the swap is unambiguous.
    percent_encoding::utf8_percent_encode(secret, RESERVED_BUT_SPACE)
        .to_string()
        .replace(' ', "+")
}

/// Lower-cases the two hex digits after each `%` of a percent-encoded text.
fn lower_hex(encoded: &str) -> String {
    let mut out = String::with_capacity(encoded.len());
    let mut after_percent = 0;
    for character in encoded.chars() {
        if after_percent > 0 {
            out.push(character.to_ascii_lowercase());
            after_percent -= 1;
        } else {
            if character == '%' {
                after_percent = 2;
            }
            out.push(character);
        }
    }
    out
}

/// A string the scrubber searches for, derived from one secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SecretPattern {
    pub text: String,
    /// The base64 character just before a match also carries bits of the
    /// secret (it straddles the secret's first byte), so it goes too.
    pub widen_start: bool,
    /// Likewise for the base64 character just after a match.
    pub widen_end: bool,
}

impl SecretPattern {
    fn exact(text: String) -> Self {
        SecretPattern {
            text,
            widen_start: false,
            widen_end: false,
        }
    }
}

/// Every pattern to search for to find `secret`: the eight encodings of
/// [`Encoding::ALL`], form encoding with lower-case hex, the JSON-escaped
/// form, and the inner parts of its base64 encoding inside a longer base64
/// text at each of the three byte alignments.
pub(crate) fn patterns(secret: &str) -> Vec<SecretPattern> {
    let mut out: Vec<SecretPattern> = Encoding::ALL
        .iter()
        .map(|encoding| SecretPattern::exact(encoding.encode(secret)))
        .collect();
    out.push(SecretPattern::exact(lower_hex(&form_upper(secret))));
    if let Ok(quoted) = serde_json::to_string(secret) {
        let escaped = quoted.trim_start_matches('"').trim_end_matches('"');
        if escaped.len() + 2 == quoted.len() && escaped != secret {
            out.push(SecretPattern::exact(escaped.to_owned()));
        }
    }
    for lead in 0..3 {
        for alphabet in [Alphabet::Standard, Alphabet::UrlSafe] {
            out.extend(base64_inner(secret.as_bytes(), lead, alphabet));
        }
    }
    let mut unique: Vec<SecretPattern> = Vec::with_capacity(out.len());
    for pattern in out {
        if pattern.text.is_empty() {
            continue;
        }
        match unique.iter_mut().find(|seen| seen.text == pattern.text) {
            Some(seen) => {
                seen.widen_start |= pattern.widen_start;
                seen.widen_end |= pattern.widen_end;
            }
            None => unique.push(pattern),
        }
    }
    unique
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum Alphabet {
    Standard,
    UrlSafe,
}

/// The part of the base64 encoding of `secret` that does not depend on its
/// neighbours when `secret` starts `lead` bytes past a 3-byte boundary of a
/// longer base64-encoded text (`lead` is 0, 1 or 2).
///
/// Base64 character `i` carries bits `6i..6i+6` of the input; the characters
/// whose six bits all fall inside the secret's bits `8·lead..8·(lead+len)`
/// are the same whatever bytes surround the secret.
pub(crate) fn base64_inner(
    secret: &[u8],
    lead: usize,
    alphabet: Alphabet,
) -> Option<SecretPattern> {
    let mut input = vec![0u8; lead];
    input.extend_from_slice(secret);
    let encoded = match alphabet {
        Alphabet::Standard => STANDARD_NO_PAD.encode(&input),
        Alphabet::UrlSafe => URL_SAFE_NO_PAD.encode(&input),
    };
    let start_bit = 8 * lead;
    let end_bit = 8 * input.len();
    let first = start_bit.div_ceil(6);
    let last = end_bit / 6;
    let text = encoded.get(first..last)?;
    if text.len() < MIN_INNER_BASE64_LEN {
        return None;
    }
    Some(SecretPattern {
        text: text.to_owned(),
        widen_start: !start_bit.is_multiple_of(6),
        widen_end: !end_bit.is_multiple_of(6),
    })
}

/// Whether `byte` can occur in standard or URL-safe base64 text.
pub(crate) fn is_base64_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'-' | b'_')
}

/// The cheap test that keeps decoding off the hot path: only text with a
/// `%` or a `+` can decode to something else.
pub(crate) fn may_decode(text: &[u8]) -> bool {
    text.iter().any(|&byte| byte == b'%' || byte == b'+')
}

/// Calls `found` on each distinct text reachable from `text` by 1 to
/// `rounds` rounds of URL decoding (`%XX` only) or form decoding (`+` is a
/// space, then `%XX`), stopping at the first for which it returns true.
/// Malformed `%` fragments are left as they are, as browsers do.
pub(crate) fn any_decoding(
    text: &[u8],
    rounds: usize,
    mut found: impl FnMut(&[u8]) -> bool,
) -> bool {
    let mut frontier: Vec<Cow<'_, [u8]>> = vec![Cow::Borrowed(text)];
    for _ in 0..rounds {
        let mut next: Vec<Cow<'_, [u8]>> = Vec::new();
        for current in &frontier {
            if current.contains(&b'%') {
                if let Cow::Owned(decoded) = Cow::from(percent_encoding::percent_decode(current)) {
                    push_new(&mut next, Cow::Owned(decoded));
                }
            }
            if current.contains(&b'+') {
                let spaced: Vec<u8> = current
                    .iter()
                    .map(|&byte| if byte == b'+' { b' ' } else { byte })
                    .collect();
                let decoded = Cow::from(percent_encoding::percent_decode(&spaced)).into_owned();
                push_new(&mut next, Cow::Owned(decoded));
            }
        }
        if next.iter().any(|candidate| found(candidate)) {
            return true;
        }
        next.retain(|candidate| may_decode(candidate));
        if next.is_empty() {
            return false;
        }
        frontier = next;
    }
    false
}

fn push_new<'a>(list: &mut Vec<Cow<'a, [u8]>>, item: Cow<'a, [u8]>) {
    if !list.contains(&item) {
        list.push(item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Contains a reserved ASCII character, a two-byte character, a space,
    /// and bytes whose base64 uses `+`; 13 bytes, so base64 pads with `==`.
    const SECRET: &str = "k3y?>~é f+/!";

    #[test]
    fn encodings_match_reference_values() {
        // Computed independently with Python's urllib.parse and base64.
        let expected = [
            (Encoding::Raw, SECRET),
            (Encoding::PercentUpper, "k3y%3F%3E~%C3%A9%20f%2B%2F%21"),
            (Encoding::PercentLower, "k3y%3f%3e~%c3%a9%20f%2b%2f%21"),
            (Encoding::Form, "k3y%3F%3E~%C3%A9+f%2B%2F%21"),
            (Encoding::Base64, "azN5Pz5+w6kgZisvIQ=="),
            (Encoding::Base64NoPad, "azN5Pz5+w6kgZisvIQ"),
            (Encoding::Base64Url, "azN5Pz5-w6kgZisvIQ=="),
            (Encoding::Base64UrlNoPad, "azN5Pz5-w6kgZisvIQ"),
        ];
        for (encoding, text) in expected {
            assert_eq!(encoding.encode(SECRET), text, "{}", encoding.name());
        }
    }

    #[test]
    fn unreserved_characters_are_not_percent_encoded() {
        assert_eq!(Encoding::PercentUpper.encode("aZ09-._~"), "aZ09-._~");
        assert_eq!(Encoding::PercentUpper.encode("*'()!"), "%2A%27%28%29%21");
    }

    #[test]
    fn inner_base64_parts_follow_the_bit_layout() {
        // Reference encodings of SECRET behind 0, 1 and 2 zero bytes:
        //   0: azN5Pz5+w6kgZisvIQ==
        //   1: AGszeT8+fsOpIGYrLyE=
        //   2: AABrM3k/Pn7DqSBmKy8h
        let cases = [
            (0, "azN5Pz5+w6kgZisvI", false, true),
            (1, "szeT8+fsOpIGYrLy", true, true),
            (2, "rM3k/Pn7DqSBmKy8h", true, false),
        ];
        for (lead, text, widen_start, widen_end) in cases {
            let inner = base64_inner(SECRET.as_bytes(), lead, Alphabet::Standard)
                .expect("long enough for an inner part");
            assert_eq!(inner.text, text, "lead {lead}");
            assert_eq!(
                (inner.widen_start, inner.widen_end),
                (widen_start, widen_end)
            );
        }
        let url = base64_inner(SECRET.as_bytes(), 2, Alphabet::UrlSafe).expect("inner part");
        assert_eq!(url.text, "rM3k_Pn7DqSBmKy8h");
    }

    #[test]
    fn tiny_inner_parts_are_not_searched_for() {
        assert_eq!(base64_inner(b"ab", 1, Alphabet::Standard), None);
    }

    #[test]
    fn json_escaped_form_is_a_pattern_only_when_it_differs() {
        let quoted = patterns("pa\"ss\\word");
        assert!(quoted
            .iter()
            .any(|pattern| pattern.text == "pa\\\"ss\\\\word"));
        let plain = patterns("password");
        assert_eq!(
            plain
                .iter()
                .filter(|pattern| pattern.text == "password")
                .count(),
            1
        );
    }

    #[test]
    fn decoding_explores_url_and_form_rounds() {
        let target = SECRET.as_bytes();
        let twice = b"x=k3y%253F%253E~%25C3%25A9%2520f%252B%252F%2521";
        assert!(any_decoding(twice, 4, |candidate| candidate
            .windows(target.len())
            .any(|w| w == target)));
        assert!(!any_decoding(twice, 1, |candidate| candidate
            .windows(target.len())
            .any(|w| w == target)));
        // Three rounds of form encoding, as Python's quote_plus would write.
        let thrice = b"k3y%25253F%25253E~%2525C3%2525A9%252Bf%25252B%25252F%252521";
        assert!(any_decoding(thrice, 4, |candidate| candidate
            .windows(target.len())
            .any(|w| w == target)));
    }

    #[test]
    fn malformed_percent_fragments_survive_decoding() {
        let mut seen = Vec::new();
        any_decoding(b"100%zz+%4", 4, |candidate| {
            seen.push(candidate.to_vec());
            false
        });
        assert_eq!(seen, vec![b"100%zz %4".to_vec()]);
    }
}
