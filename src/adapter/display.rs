//! Showing text that came from outside (manifest fields, probe output,
//! URLs from the environment) on a terminal or in a record (SPEC §1.3,
//! §6.2 URLs): control characters other than newline and tab are replaced
//! so they cannot move the cursor, set the title or clear the screen, and
//! a URL's userinfo and credential-shaped query values become `***`.

use std::borrow::Cow;

/// What a control character is shown as.
const REPLACEMENT: char = '\u{FFFD}';

/// Query parameter names holding one of these (any case) carry a secret.
const SENSITIVE_QUERY_WORDS: [&str; 7] = [
    "token",
    "key",
    "secret",
    "password",
    "signature",
    "credential",
    "auth",
];

/// `text` with every control character but `\n` and `\t` replaced.
pub fn outside_text(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| if is_unsafe(c) { REPLACEMENT } else { c })
            .collect(),
    )
}

/// One line of outside text: newlines and tabs are replaced too.
pub fn outside_line(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| if c.is_control() { REPLACEMENT } else { c })
            .collect(),
    )
}

fn is_unsafe(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// `url` safe to print or record: userinfo as `***`, the values of
/// credential-shaped query parameters as `***`, control characters
/// replaced. Works on the text, so a malformed URL (or a malformed `%`
/// fragment) is kept as it is apart from those parts.
pub fn redact_url(url: &str) -> String {
    let (before_fragment, fragment) = match url.find('#') {
        Some(at) => url.split_at(at),
        None => (url, ""),
    };
    let (before_query, query) = match before_fragment.find('?') {
        Some(at) => (&before_fragment[..at], Some(&before_fragment[at + 1..])),
        None => (before_fragment, None),
    };
    let mut shown = String::with_capacity(url.len());
    match before_query.find("://") {
        Some(at) => {
            let (scheme, rest) = before_query.split_at(at + 3);
            let authority_end = rest.find('/').unwrap_or(rest.len());
            let (authority, path) = rest.split_at(authority_end);
            shown.push_str(scheme);
            match authority.rfind('@') {
                Some(at) => {
                    shown.push_str("***");
                    shown.push_str(&authority[at..]);
                }
                None => shown.push_str(authority),
            }
            shown.push_str(path);
        }
        None => shown.push_str(before_query),
    }
    if let Some(query) = query {
        shown.push('?');
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, _)) if is_sensitive_name(name) => format!("{name}=***"),
                _ => pair.to_owned(),
            })
            .collect();
        shown.push_str(&pairs.join("&"));
    }
    shown.push_str(fragment);
    outside_line(&shown).into_owned()
}

fn is_sensitive_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    SENSITIVE_QUERY_WORDS
        .iter()
        .any(|word| lower.contains(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_replaced_but_newline_and_tab_kept() {
        assert_eq!(
            outside_text("\u{1b}[31m2.15.1\tok\n\u{1b}]0;title\u{7}\u{1b}[2J"),
            "\u{FFFD}[31m2.15.1\tok\n\u{FFFD}]0;title\u{FFFD}\u{FFFD}[2J"
        );
        assert!(matches!(outside_text("plain"), Cow::Borrowed("plain")));
        assert_eq!(outside_line("a\nb\u{9b}c"), "a\u{FFFD}b\u{FFFD}c");
    }

    #[test]
    fn userinfo_and_sensitive_query_values_are_hidden() {
        assert_eq!(
            redact_url("http://user:pa55word@mirror.example:8080/kiro/latest/manifest.json"),
            "http://***@mirror.example:8080/kiro/latest/manifest.json"
        );
        assert_eq!(
            redact_url(
                "https://m.example/x?token=abc&page=2&X-Amz-Signature=f00&ApiKey=k&authz=1#top"
            ),
            "https://m.example/x?token=***&page=2&X-Amz-Signature=***&ApiKey=***&authz=***#top"
        );
        assert_eq!(
            redact_url("https://m.example/a@b/x?q=1"),
            "https://m.example/a@b/x?q=1",
            "an @ in the path is not userinfo"
        );
    }

    #[test]
    fn malformed_urls_and_percent_fragments_are_kept() {
        assert_eq!(redact_url("not a url"), "not a url");
        assert_eq!(
            redact_url("http://h/%zz?secret=%zz&v=%zz"),
            "http://h/%zz?secret=***&v=%zz"
        );
        assert_eq!(redact_url("file:///srv/mirror/"), "file:///srv/mirror/");
        assert_eq!(redact_url("http://h/\u{1b}[2J"), "http://h/\u{FFFD}[2J");
    }
}
