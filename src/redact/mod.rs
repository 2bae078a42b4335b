//! The credential scrubber every persisted file passes through.
//!
//! A [`Scrubber`] is built once from the credential values present in the
//! environment. It compiles every secret in every encoding it looks for
//! (each [`Encoding`], plus the fragments a secret leaves inside longer
//! base64 text) into one Aho-Corasick automaton, so scrubbing costs
//! one pass over the data however many secrets there are. Text that could
//! hide a secret under URL or form encoding (it holds a `%` or a `+`) is
//! decoded up to four times and searched again.
//!
//! Matching reports overlapping occurrences and removes their union: with
//! non-overlapping (leftmost) matching, an occurrence that starts inside an
//! earlier one would survive minus its first characters.

mod encodings;
pub mod rules;
mod stream;
mod url;

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use serde_json::Value;

use self::rules::CredentialRules;

pub use encodings::Encoding;
pub use stream::StreamScrubber;
pub(crate) use url::url_secrets;
pub use url::{is_sensitive_parameter, redact_url};

/// What a secret is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Secrets with fewer characters than this cannot be searched for inside
/// text without destroying it (`on` is inside `oneworks`): they redact
/// only a string that equals them, or one of their encodings, whole.
pub const SHORT_SECRET_CHARS: usize = 8;

/// How many rounds of URL/form decoding to undo when looking for a secret.
const MAX_DECODE_ROUNDS: usize = 4;

/// Removes credential values, in any encoding of `encodings`, and
/// credential-named properties from text and JSON.
#[derive(Clone)]
pub struct Scrubber {
    rules: CredentialRules,
    /// The upper-cased names the secrets came from; properties so named are
    /// dropped even if `rules` would not call them credentials.
    secret_names: Vec<String>,
    matcher: Matcher,
}

#[derive(Clone)]
enum Matcher {
    /// No secret values: only credential-named properties are dropped.
    Nothing,
    Patterns(Arc<PatternSet>),
    /// The automaton could not be built (it would need billions of states):
    /// every non-empty string and property name counts as holding a secret.
    FailClosed,
}

struct PatternSet {
    /// `None` when every secret is short.
    automaton: Option<AhoCorasick>,
    /// Short secrets in every encoding: a string equal to one goes whole.
    short: std::collections::HashSet<Vec<u8>>,
    /// Indexed by the automaton's pattern ID.
    info: Vec<PatternInfo>,
    /// Whether some pattern could occur inside a JSON number's text.
    numbers_may_match: bool,
    /// Whether some pattern contains `[` or `]`, so that the marker and the
    /// text kept around it could spell a secret anew: any occurrence that
    /// overlaps the marker and reaches past it holds its first or last
    /// character.
    marker_may_join: bool,
    /// What a stream must hold back (see [`stream`]).
    prefixes: stream::Prefixes,
}

#[derive(Debug, Clone, Copy, Default)]
struct PatternInfo {
    widen_start: bool,
    widen_end: bool,
}

impl PatternInfo {
    fn merge(&mut self, other: PatternInfo) {
        self.widen_start |= other.widen_start;
        self.widen_end |= other.widen_end;
    }
}

impl fmt::Debug for Scrubber {
    // Never prints the secrets or the patterns derived from them.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut shown = formatter.debug_struct("Scrubber");
        shown.field("secret_names", &self.secret_names);
        match &self.matcher {
            Matcher::Nothing => shown.field("patterns", &0),
            Matcher::Patterns(set) => shown.field("patterns", &set.info.len()),
            Matcher::FailClosed => shown.field("fail_closed", &true),
        };
        shown.finish_non_exhaustive()
    }
}

impl Scrubber {
    /// `secrets`: (variable name, value) pairs of credential variables present in the environment.
    /// `rules`: decides which property names are credential names.
    pub fn new(secrets: Vec<(String, String)>, rules: &CredentialRules) -> Self {
        let secret_names = secrets
            .iter()
            .map(|(name, _)| name.to_ascii_uppercase())
            .collect();
        let values: Vec<&str> = secrets
            .iter()
            .map(|(_, value)| value.as_str())
            .filter(|value| !value.is_empty())
            .collect();
        Scrubber {
            rules: rules.clone(),
            secret_names,
            matcher: Matcher::build(&values),
        }
    }

    /// Whether there are no secret values to look for.
    pub fn is_empty(&self) -> bool {
        matches!(self.matcher, Matcher::Nothing)
    }

    /// `text` without secrets: each occurrence becomes [`REDACTED`], or the
    /// whole text does if a secret is short or only shows after decoding.
    /// Borrows `text` when there is nothing to remove.
    pub fn scrub_str<'a>(&self, text: &'a str) -> Cow<'a, str> {
        match &self.matcher {
            Matcher::Nothing => Cow::Borrowed(text),
            Matcher::Patterns(set) => set.scrub(text, true),
            Matcher::FailClosed if text.is_empty() => Cow::Borrowed(text),
            Matcher::FailClosed => Cow::Owned(redacted_whole(text)),
        }
    }

    /// Whether `text` holds a secret in any encoding, decoded or not.
    pub fn contains_secret(&self, text: &str) -> bool {
        match &self.matcher {
            Matcher::Nothing => false,
            Matcher::Patterns(set) => set.contains(text),
            Matcher::FailClosed => !text.is_empty(),
        }
    }

    /// Scrubs every string of `value` and drops each property whose name is
    /// a credential variable name (any case) or holds a secret.
    pub fn scrub_json(&self, value: &mut Value) {
        self.scrub_value(value);
    }

    /// Scrubs `text` as JSON if it is a JSON document, else as JSON lines if
    /// it has several lines, else as plain text. A document with nothing to
    /// remove comes back byte for byte; one that changed is re-serialized,
    /// pretty-printed if it spanned several lines.
    pub fn scrub_json_text(&self, text: &str) -> String {
        if let Ok(mut value) = serde_json::from_str::<Value>(text) {
            if !self.scrub_value(&mut value) {
                return text.to_owned();
            }
            let pretty = text.trim().contains('\n');
            let mut out = serialize(&value, pretty);
            out.push_str(line_ending(text));
            return out;
        }
        if !text.contains('\n') {
            return self.scrub_str(text).into_owned();
        }
        let mut out = String::with_capacity(text.len());
        for line in text.split_inclusive('\n') {
            let ending = line_ending(line);
            let body = &line[..line.len() - ending.len()];
            match serde_json::from_str::<Value>(body) {
                Ok(mut value) => {
                    if self.scrub_value(&mut value) {
                        out.push_str(&serialize(&value, false));
                    } else {
                        out.push_str(body);
                    }
                }
                Err(_) => out.push_str(&self.scrub_str(body)),
            }
            out.push_str(ending);
        }
        out
    }

    /// Scrubs `value` in place; true if anything changed.
    fn scrub_value(&self, value: &mut Value) -> bool {
        match value {
            Value::String(text) => {
                let replacement = match self.scrub_str(text) {
                    Cow::Borrowed(_) => None,
                    Cow::Owned(scrubbed) => Some(scrubbed),
                };
                match replacement {
                    Some(scrubbed) => {
                        *text = scrubbed;
                        true
                    }
                    None => false,
                }
            }
            Value::Array(items) => items
                .iter_mut()
                .fold(false, |changed, item| self.scrub_value(item) | changed),
            Value::Object(map) => {
                let before = map.len();
                map.retain(|name, value| !self.is_forbidden_property(name, value));
                let dropped = map.len() != before;
                map.values_mut()
                    .fold(dropped, |changed, item| self.scrub_value(item) | changed)
            }
            Value::Number(number) => {
                let may_match = match &self.matcher {
                    Matcher::Nothing => false,
                    Matcher::Patterns(set) => set.numbers_may_match,
                    Matcher::FailClosed => true,
                };
                if may_match && self.contains_secret(&number.to_string()) {
                    *value = Value::String(REDACTED.to_owned());
                    true
                } else {
                    false
                }
            }
            Value::Bool(_) | Value::Null => false,
        }
    }

    /// A property goes when its name holds a secret, or when its name is a
    /// credential variable name and its value is anything but a whole
    /// `${VAR}` reference: `API_KEY: "${API_KEY}"` in an MCP
    /// server's `env` carries no secret, and the server needs it.
    fn is_forbidden_property(&self, name: &str, value: &Value) -> bool {
        if self.contains_secret(name) {
            return true;
        }
        let credential_name = self.rules.is_credential_name(name)
            || self
                .secret_names
                .iter()
                .any(|secret_name| secret_name.eq_ignore_ascii_case(name));
        credential_name && !is_reference(value)
    }
}

/// Whether `value` is a string that is exactly one `${NAME}` reference
/// (the syntax of `config::reference_name`, restated here so that the
/// scrubber, which config uses, does not depend on config).
fn is_reference(value: &Value) -> bool {
    let Value::String(text) = value else {
        return false;
    };
    let Some(name) = text
        .strip_prefix("${")
        .and_then(|rest| rest.strip_suffix('}'))
    else {
        return false;
    };
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b'A'..=b'Z' | b'a'..=b'z' | b'_'))
        && bytes.all(|byte| byte.is_ascii_alphanumeric() || byte == b'_')
}

fn serialize(value: &Value, pretty: bool) -> String {
    let serialized = if pretty {
        serde_json::to_string_pretty(value)
    } else {
        serde_json::to_string(value)
    };
    // Serializing a `Value` cannot fail (its keys are strings); should it
    // ever, nothing of the document is written.
    serialized.unwrap_or_else(|_| REDACTED.to_owned())
}

/// The marker in place of all of `text`, keeping its line ending: a
/// redacted line is still a line.
fn redacted_whole(text: &str) -> String {
    format!("{REDACTED}{}", line_ending(text))
}

fn line_ending(text: &str) -> &'static str {
    if text.ends_with("\r\n") {
        "\r\n"
    } else if text.ends_with('\n') {
        "\n"
    } else {
        ""
    }
}

impl Matcher {
    fn build(values: &[&str]) -> Matcher {
        let mut texts: Vec<String> = Vec::new();
        let mut info: Vec<PatternInfo> = Vec::new();
        let mut short = std::collections::HashSet::new();
        let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for value in values {
            if value.chars().count() < SHORT_SECRET_CHARS {
                for encoding in Encoding::ALL {
                    short.insert(encoding.encode(value).into_bytes());
                }
                continue;
            }
            for pattern in encodings::patterns(value) {
                let pattern_info = PatternInfo {
                    widen_start: pattern.widen_start,
                    widen_end: pattern.widen_end,
                };
                match index.get(&pattern.text) {
                    Some(&id) => info[id].merge(pattern_info),
                    None => {
                        index.insert(pattern.text.clone(), texts.len());
                        texts.push(pattern.text);
                        info.push(pattern_info);
                    }
                }
            }
        }
        if texts.is_empty() && short.is_empty() {
            return Matcher::Nothing;
        }
        let automaton = if texts.is_empty() {
            None
        } else {
            // A DFA is the fastest search; for very many or very long
            // secrets it may exceed its limits, and the default (an NFA)
            // still works.
            let built = AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .kind(Some(AhoCorasickKind::DFA))
                .build(&texts)
                .or_else(|_| {
                    AhoCorasick::builder()
                        .match_kind(MatchKind::Standard)
                        .build(&texts)
                });
            let Ok(built) = built else {
                return Matcher::FailClosed;
            };
            Some(built)
        };
        let number_like = |bytes: &[u8]| {
            bytes.iter().all(|byte| {
                byte.is_ascii_digit() || matches!(byte, b'+' | b'-' | b'.' | b'e' | b'E')
            })
        };
        let numbers_may_match = texts.iter().any(|text| number_like(text.as_bytes()))
            || short.iter().any(|bytes| number_like(bytes));
        let marker_may_join = texts
            .iter()
            .any(|text| text.bytes().any(|byte| byte == b'[' || byte == b']'));
        let prefixes = stream::Prefixes::new(&texts, &info, &short);
        Matcher::Patterns(Arc::new(PatternSet {
            automaton,
            short,
            info,
            numbers_may_match,
            marker_may_join,
            prefixes,
        }))
    }
}

impl PatternSet {
    /// `whole`: `text` is a whole string, which goes if it equals a short
    /// secret; a piece of a stream does not (the stream as a whole might).
    fn scrub<'a>(&self, text: &'a str, whole: bool) -> Cow<'a, str> {
        let ending = line_ending(text);
        if whole
            && (self.equals_short(text.as_bytes())
                || (!ending.is_empty()
                    && self.equals_short(&text.as_bytes()[..text.len() - ending.len()])))
        {
            return Cow::Owned(redacted_whole(text));
        }
        let Some(automaton) = &self.automaton else {
            return Cow::Borrowed(text);
        };
        let bytes = text.as_bytes();
        let mut spans: Vec<Range<usize>> = Vec::new();
        for found in automaton.find_overlapping_iter(bytes) {
            let info = self.info[found.pattern().as_usize()];
            let mut span = found.range();
            if info.widen_start
                && span.start > 0
                && encodings::is_base64_byte(bytes[span.start - 1])
            {
                span.start -= 1;
            }
            if info.widen_end
                && span.end < bytes.len()
                && encodings::is_base64_byte(bytes[span.end])
            {
                span.end += 1;
            }
            spans.push(span);
        }
        let replaced = if spans.is_empty() {
            Cow::Borrowed(text)
        } else {
            match replace_spans(text, spans) {
                // Should the marker and the text kept around it spell a
                // secret anew, nothing of the string is kept.
                Some(out) if !(self.marker_may_join && automaton.is_match(out.as_bytes())) => {
                    Cow::Owned(out)
                }
                _ => return Cow::Owned(redacted_whole(text)),
            }
        };
        if self.found_after_decoding(replaced.as_bytes()) {
            return Cow::Owned(redacted_whole(text));
        }
        replaced
    }

    fn contains(&self, text: &str) -> bool {
        let bytes = text.as_bytes();
        self.equals_short(bytes)
            || self
                .automaton
                .as_ref()
                .is_some_and(|automaton| automaton.is_match(bytes))
            || self.found_after_decoding(bytes)
    }

    /// Whether `bytes` is a short secret, in some encoding or after
    /// URL/form decoding, and nothing else.
    fn equals_short(&self, bytes: &[u8]) -> bool {
        !self.short.is_empty()
            && (self.short.contains(bytes)
                || (encodings::may_decode(bytes)
                    && encodings::any_decoding(bytes, MAX_DECODE_ROUNDS, |decoded| {
                        self.short.contains(decoded)
                    })))
    }

    fn found_after_decoding(&self, bytes: &[u8]) -> bool {
        let Some(automaton) = &self.automaton else {
            return false;
        };
        encodings::may_decode(bytes)
            && encodings::any_decoding(bytes, MAX_DECODE_ROUNDS, |decoded| {
                automaton.is_match(decoded)
            })
    }
}

/// `text` with each of `spans` (merged where they overlap or touch) replaced
/// by [`REDACTED`]; `None` if a span does not fall on character boundaries.
fn replace_spans(text: &str, mut spans: Vec<Range<usize>>) -> Option<String> {
    spans.sort_unstable_by_key(|span| span.start);
    let mut out = String::with_capacity(text.len());
    let mut kept_from = 0;
    let mut current: Option<Range<usize>> = None;
    for span in spans {
        match &mut current {
            Some(open) if span.start <= open.end => open.end = open.end.max(span.end),
            _ => {
                if let Some(done) = current.replace(span) {
                    out.push_str(text.get(kept_from..done.start)?);
                    out.push_str(REDACTED);
                    kept_from = done.end;
                }
            }
        }
    }
    if let Some(done) = current {
        out.push_str(text.get(kept_from..done.start)?);
        out.push_str(REDACTED);
        kept_from = done.end;
    }
    out.push_str(text.get(kept_from..)?);
    Some(out)
}

#[cfg(test)]
mod tests;
