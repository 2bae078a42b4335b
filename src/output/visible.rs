//! Card text: the one function that turns untrusted text a
//! person is asked to approve into the text every surface shows — the
//! terminal prompt of `run`, `run --json`'s `permission_request`, `session
//! approvals`, `cards.jsonl`, the webhook POST, the page and an answer
//! link's confirm form. It is applied after scrubbing (§6.2), so a cut
//! never keeps part of a secret the scrubber would no longer recognise.
//!
//! The rules, character by character:
//!
//! - Control characters that are not whitespace (ESC, BEL, DEL, C1) and
//!   bidirectional controls are stripped, as everywhere else in output.
//! - Invisible and format characters (Unicode category Cf — zero-width
//!   characters, U+2060–U+2064, U+FEFF, the soft hyphen, tag characters
//!   U+E0000–U+E007F — U+2028/U+2029, and the other default-ignorable
//!   fillers and variation selectors) are shown as an escape `⟨U+E0072⟩`:
//!   neither dropped (`rm` spelled in tag characters would vanish) nor
//!   passed through (it would display as nothing). A literal `⟨` is
//!   escaped too, so every `⟨…⟩` in card text is one of ours.
//! - Whitespace: a run of more than [`MAX_WHITESPACE_RUN`] whitespace
//!   characters becomes one marker naming its length — `⟨1100 spaces⟩`,
//!   `⟨12 tabs⟩`, `⟨9 newlines⟩` when the run is of one kind, else
//!   `⟨20 whitespace characters⟩` — so padding cannot push a tail out of
//!   view. In a shorter run a plain space stays a space and any other
//!   whitespace (newline, tab, no-break space, …) is escaped like a format
//!   character, so one line of card text stays one line and a no-break
//!   space cannot pass for a word break.
//! - Each field is kept whole up to [`MAX_FIELD_BYTES`] of shown text;
//!   beyond, it is cut between two shown pieces (never inside an escape or
//!   a marker) and ends with `… (N more characters)`, N counting the input
//!   characters not shown. Paths: all of them up to [`MAX_PATHS`], else the
//!   first [`MAX_PATHS`] and `… and N more`.
//!
//! Anything cut makes the text not [`Shown::complete`]: such a card can be
//! declined anywhere but accepted only in the terminal.

use std::fmt::Write as _;

/// The most bytes of shown text per field before it is cut.
pub const MAX_FIELD_BYTES: usize = 16 * 1024;
/// The most paths shown of one request.
pub const MAX_PATHS: usize = 256;
/// The longest whitespace run shown as it is.
pub const MAX_WHITESPACE_RUN: usize = 8;

/// Opens every escape and marker (`⟨U+200B⟩`, `⟨1100 spaces⟩`).
pub const OPEN: char = '⟨';
/// Closes every escape and marker.
pub const CLOSE: char = '⟩';

/// One field as shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    pub text: String,
    /// Nothing was cut.
    pub complete: bool,
}

/// Bidirectional formatting characters (stripped, as by
/// `output::sanitize`): embeddings and overrides, isolates, implicit marks.
fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}'
    )
}

/// Unicode category Cf (format) as of Unicode 15, plus the line and
/// paragraph separators and the default-ignorable characters that render
/// as nothing (combining grapheme joiner, Hangul fillers, variation
/// selectors, Mongolian free variation selectors).
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{0600}'..='\u{0605}'
            | '\u{06DD}'
            | '\u{070F}'
            | '\u{0890}'..='\u{0891}'
            | '\u{08E2}'
            | '\u{115F}'..='\u{1160}'
            | '\u{17B4}'..='\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{2028}'..='\u{2029}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFFB}'
            | '\u{110BD}'
            | '\u{110CD}'
            | '\u{13430}'..='\u{1343F}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// Stripped: a control that is not whitespace, or a bidi control.
fn is_stripped(c: char) -> bool {
    (c.is_control() && !is_whitespace(c)) || is_bidi_control(c)
}

/// Whitespace for the run rule (the line and paragraph separators are
/// escaped on their own, as format characters).
fn is_whitespace(c: char) -> bool {
    c.is_whitespace() && !matches!(c, '\u{2028}' | '\u{2029}')
}

/// Whether `c` may appear in card text as itself.
pub fn shown_as_itself(c: char) -> bool {
    c == ' ' || !(is_stripped(c) || is_invisible(c) || is_whitespace(c) || c == OPEN)
}

fn escape(out: &mut String, c: char) {
    let _ = write!(out, "{OPEN}U+{:04X}{CLOSE}", u32::from(c));
}

fn run_marker(out: &mut String, run: &[char]) {
    let kind = match run.first() {
        Some(first) if run.iter().all(|c| c == first) => match first {
            ' ' => "spaces",
            '\t' => "tabs",
            '\n' => "newlines",
            _ => "whitespace characters",
        },
        _ => "whitespace characters",
    };
    let _ = write!(out, "{OPEN}{} {kind}{CLOSE}", run.len());
}

/// One piece of shown text and how many input characters it stands for.
struct Piece {
    text: String,
    chars: usize,
}

/// The shown pieces of `text`, in order; stripped characters make none.
fn pieces(text: &str) -> impl Iterator<Item = Piece> + '_ {
    let mut chars = text.chars().filter(|&c| !is_stripped(c)).peekable();
    std::iter::from_fn(move || {
        let c = chars.next()?;
        let mut out = String::new();
        if is_whitespace(c) {
            let mut run = vec![c];
            while let Some(&next) = chars.peek() {
                if !is_whitespace(next) {
                    break;
                }
                run.push(next);
                chars.next();
            }
            if run.len() > MAX_WHITESPACE_RUN {
                run_marker(&mut out, &run);
            } else {
                for &c in &run {
                    if c == ' ' {
                        out.push(' ');
                    } else {
                        escape(&mut out, c);
                    }
                }
            }
            return Some(Piece {
                text: out,
                chars: run.len(),
            });
        }
        if shown_as_itself(c) {
            out.push(c);
        } else {
            escape(&mut out, c);
        }
        Some(Piece {
            text: out,
            chars: 1,
        })
    })
}

/// The card text of one field; `text` is already scrubbed.
pub fn visible(text: &str) -> Shown {
    visible_within(text, MAX_FIELD_BYTES)
}

/// [`visible`] with another bound (tests).
pub fn visible_within(text: &str, max_bytes: usize) -> Shown {
    let total = text.chars().filter(|&c| !is_stripped(c)).count();
    let mut out = String::new();
    let mut used = 0;
    for piece in pieces(text) {
        if out.len() + piece.text.len() > max_bytes {
            let _ = write!(out, " … ({} more characters)", total - used);
            return Shown {
                text: out,
                complete: false,
            };
        }
        out.push_str(&piece.text);
        used += piece.chars;
    }
    Shown {
        text: out,
        complete: true,
    }
}

/// The card text of a request's paths: each path shown as [`visible`]
/// says, all of them up to [`MAX_PATHS`], else the first ones and
/// `… and N more`. `complete`: no path and no part of one was left out.
pub fn visible_paths(paths: &[String]) -> (Vec<String>, bool) {
    let mut complete = paths.len() <= MAX_PATHS;
    let mut shown: Vec<String> = paths
        .iter()
        .take(MAX_PATHS)
        .map(|path| {
            let path = visible(path);
            complete &= path.complete;
            path.text
        })
        .collect();
    if paths.len() > MAX_PATHS {
        shown.push(format!("… and {} more", paths.len() - MAX_PATHS));
    }
    (shown, complete)
}

#[cfg(test)]
#[path = "visible_tests.rs"]
mod tests;
