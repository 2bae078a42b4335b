//! Scrubbing text that arrives in pieces ("Streams and cuts"):
//! agent message and thought chunks, agent stderr, the log, recorder lines,
//! pane captures.
//!
//! A [`StreamScrubber`] holds back the shortest tail of what it was given
//! that could still begin a secret or one of its encodings (a prefix of a
//! pattern of the automaton, also after up to four rounds of URL/form
//! decoding, and an unfinished `%X` escape), and releases it with the next
//! piece or at [`finish`](StreamScrubber::finish). What it releases never
//! splits an occurrence, nor separates two that touch, nor takes away the
//! base64 character next to one that a match would widen into; so the
//! released pieces, concatenated, are the one-shot scrub of the
//! concatenated input, with one exception the one-shot scrub cannot avoid
//! either: a secret found only after decoding replaces the released piece
//! that holds it, not the whole stream.
//!
//! A stream that could still be, as a whole, a secret too short to search
//! for inside text is held entirely until it cannot be any more.

use std::borrow::Cow;
use std::collections::HashSet;
use std::ops::Range;

use aho_corasick::AhoCorasick;

use super::{encodings, redacted_whole, Matcher, PatternInfo, PatternSet, Scrubber};
use super::{MAX_DECODE_ROUNDS, REDACTED};

/// How many bytes one decoded byte can come from: `%XX` in every round.
const DECODE_SPREAD: usize = 3usize.pow(MAX_DECODE_ROUNDS as u32);

/// The most a run of touching occurrences may hold back: beyond it, the
/// run is cut between two of them (each still replaced, by a marker each).
const MAX_HELD: usize = 8 * 1024;

/// What a stream must hold back, derived from the patterns.
pub(super) struct Prefixes {
    /// Every pattern, sorted: the ones a text begins are contiguous.
    sorted: Vec<Vec<u8>>,
    /// The bytes some pattern starts with.
    first: [bool; 256],
    longest: usize,
    /// Some match widens into the base64 character before it.
    widen_start: bool,
    /// The short secrets in every encoding, sorted.
    short: Vec<Vec<u8>>,
    longest_short: usize,
}

impl Prefixes {
    pub(super) fn new(texts: &[String], info: &[PatternInfo], short: &HashSet<Vec<u8>>) -> Self {
        let mut sorted: Vec<Vec<u8>> = texts.iter().map(|text| text.as_bytes().to_vec()).collect();
        sorted.sort_unstable();
        let mut first = [false; 256];
        for pattern in &sorted {
            if let Some(&byte) = pattern.first() {
                first[usize::from(byte)] = true;
            }
        }
        let mut short: Vec<Vec<u8>> = short.iter().cloned().collect();
        short.sort_unstable();
        Prefixes {
            longest: sorted.iter().map(Vec::len).max().unwrap_or(0),
            sorted,
            first,
            widen_start: info.iter().any(|info| info.widen_start),
            longest_short: short.iter().map(Vec::len).max().unwrap_or(0),
            short,
        }
    }

    /// The first position from which `text` is the beginning of a pattern
    /// (or a whole one); `text.len()` if there is none.
    fn hold_from(&self, text: &[u8]) -> usize {
        let start = text.len().saturating_sub(self.longest);
        (start..text.len())
            .find(|&at| self.first[usize::from(text[at])] && begins(&self.sorted, &text[at..]))
            .unwrap_or(text.len())
    }

    /// The first position from which some URL/form decoding of `text` (one
    /// to four rounds) begins a pattern or ends in an unfinished escape.
    /// Adds to `spans` where a decoding holds a whole occurrence.
    fn hold_for_decoding(
        &self,
        text: &[u8],
        automaton: &AhoCorasick,
        spans: &mut Vec<Range<usize>>,
    ) -> usize {
        let reach = (self.longest + 2) * DECODE_SPREAD;
        let offset = text.len().saturating_sub(reach);
        let window = &text[offset..];
        if !encodings::may_decode(window) {
            return text.len();
        }
        let mut hold = self.hold_from(&window[..window.len() - unfinished_escape(window)]);
        let mut seen: Vec<Vec<u8>> = Vec::new();
        let mut frontier: Vec<(Vec<u8>, Vec<usize>)> =
            vec![(window.to_vec(), (0..=window.len()).collect())];
        for _ in 0..MAX_DECODE_ROUNDS {
            let mut next = Vec::new();
            for (bytes, map) in &frontier {
                for form in [false, true] {
                    let marker = if form { b'+' } else { b'%' };
                    if !bytes.contains(&marker) {
                        continue;
                    }
                    let (decoded, inner) = decode(bytes, form);
                    if decoded == *bytes || seen.contains(&decoded) {
                        continue;
                    }
                    let map: Vec<usize> = inner.iter().map(|&at| map[at]).collect();
                    spans.extend(
                        automaton
                            .find_overlapping_iter(&decoded)
                            .map(|found| offset + map[found.start()]..offset + map[found.end()]),
                    );
                    let complete = decoded.len() - unfinished_escape(&decoded);
                    let from = self.hold_from(&decoded[..complete]);
                    hold = hold.min(map[from]);
                    seen.push(decoded.clone());
                    if encodings::may_decode(&decoded) {
                        next.push((decoded, map));
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            frontier = next;
        }
        offset + hold
    }

    /// Whether `text`, the whole stream so far, could still become a
    /// short secret (in some encoding, or after decoding).
    fn could_be_short(&self, text: &[u8]) -> bool {
        if self.short.is_empty() {
            return false;
        }
        let text = without_line_ending(text);
        let begins_short =
            |text: &[u8]| begins(&self.short, &text[..text.len() - unfinished_escape(text)]);
        begins_short(text)
            || (encodings::may_decode(text)
                && text.len() <= self.longest_short * DECODE_SPREAD
                && encodings::any_decoding(text, MAX_DECODE_ROUNDS, begins_short))
    }
}

fn without_line_ending(text: &[u8]) -> &[u8] {
    let text = text.strip_suffix(b"\n").unwrap_or(text);
    text.strip_suffix(b"\r").unwrap_or(text)
}

/// Whether some item of `sorted` begins with `text`.
fn begins(sorted: &[Vec<u8>], text: &[u8]) -> bool {
    let at = sorted.partition_point(|pattern| pattern.as_slice() < text);
    sorted
        .get(at)
        .is_some_and(|pattern| pattern.starts_with(text))
}

/// How many bytes at the end of `text` are a `%` escape still missing a
/// hex digit (`%` or `%X`).
fn unfinished_escape(text: &[u8]) -> usize {
    match text {
        [.., b'%'] => 1,
        [.., b'%', digit] if digit.is_ascii_hexdigit() => 2,
        _ => 0,
    }
}

/// One round of URL (`%XX`) or form (`+` too) decoding of `text`, and for
/// each decoded byte (and the end) the position in `text` it came from.
fn decode(text: &[u8], form: bool) -> (Vec<u8>, Vec<usize>) {
    let mut out = Vec::with_capacity(text.len());
    let mut map = Vec::with_capacity(text.len() + 1);
    let mut at = 0;
    while at < text.len() {
        map.push(at);
        match text[at] {
            b'%' if at + 2 < text.len() => match hex_pair(text[at + 1], text[at + 2]) {
                Some(byte) => {
                    out.push(byte);
                    at += 3;
                }
                None => {
                    out.push(b'%');
                    at += 1;
                }
            },
            b'+' if form => {
                out.push(b' ');
                at += 1;
            }
            byte => {
                out.push(byte);
                at += 1;
            }
        }
    }
    map.push(text.len());
    (out, map)
}

fn hex_pair(high: u8, low: u8) -> Option<u8> {
    let digit = |byte: u8| char::from(byte).to_digit(16);
    Some((digit(high)? * 16 + digit(low)?) as u8)
}

/// `text` with the bytes of `spans` replaced by NUL, which neither starts
/// an escape nor completes one, and is in no secret (environment values
/// cannot hold it).
fn masked<'a>(text: &'a [u8], spans: &[Range<usize>]) -> Cow<'a, [u8]> {
    if spans.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = text.to_vec();
    for span in spans {
        out[span.clone()].fill(0);
    }
    Cow::Owned(out)
}

/// Spans merged where they overlap or touch, in order.
fn merged(mut spans: Vec<Range<usize>>) -> Vec<Range<usize>> {
    spans.sort_unstable_by_key(|span| span.start);
    let mut out: Vec<Range<usize>> = Vec::with_capacity(spans.len());
    for span in spans {
        match out.last_mut() {
            Some(open) if span.start <= open.end => open.end = open.end.max(span.end),
            _ => out.push(span),
        }
    }
    out
}

impl PatternSet {
    /// Where `text` may be cut: before it, nothing can be part of an
    /// occurrence that is not complete yet. `released`: some of the stream
    /// has gone out already, so it can no longer equal a short secret.
    /// `spans`: the occurrences in `text`; those found after decoding are
    /// added.
    fn safe_cut(&self, text: &str, released: bool, spans: &mut Vec<Range<usize>>) -> usize {
        let bytes = text.as_bytes();
        if !released && self.prefixes.could_be_short(bytes) {
            return 0;
        }
        let Some(automaton) = &self.automaton else {
            return text.len();
        };
        // Decoding sees the raw occurrences as gone, as the one-shot scrub
        // does (it decodes the text with them replaced): a raw secret ending
        // in `%0` must not join the next byte into an escape and hide an
        // encoded secret right after it from the decoder.
        let masked = masked(bytes, spans);
        let mut cut = self
            .prefixes
            .hold_from(bytes)
            .min(self.prefixes.hold_for_decoding(&masked, automaton, spans));
        // A match starting at the cut may widen into the character before.
        if self.prefixes.widen_start && cut > 0 && encodings::is_base64_byte(bytes[cut - 1]) {
            cut -= 1;
        }
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let unmerged = cut;
        for span in merged(spans.clone()) {
            if span.start < cut && cut <= span.end {
                cut = span.start;
            }
        }
        if unmerged - cut > MAX_HELD {
            // A run of occurrences that touch, streamed without end: cut
            // between two of them rather than hold the run; both still go.
            cut = unmerged;
            for span in spans.iter() {
                if span.start < cut && cut < span.end {
                    cut = span.start;
                }
            }
        }
        cut
    }

    /// The occurrences in `text`, widened as [`PatternSet::scrub`] does.
    fn spans(&self, text: &str) -> Vec<Range<usize>> {
        let Some(automaton) = &self.automaton else {
            return Vec::new();
        };
        let bytes = text.as_bytes();
        automaton
            .find_overlapping_iter(bytes)
            .map(|found| {
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
                span
            })
            .collect()
    }

    /// Splits `text` at a safe cut: the scrubbed text before it, and the
    /// cut.
    fn release<'a>(&self, text: &'a str, released: bool) -> (Cow<'a, str>, usize) {
        let mut spans = self.spans(text);
        let cut = self.safe_cut(text, released, &mut spans);
        let head = &text[..cut];
        if spans.iter().all(|span| span.start >= cut) && !encodings::may_decode(head.as_bytes()) {
            return (Cow::Borrowed(head), cut);
        }
        (self.scrub(head, false), cut)
    }
}

/// Scrubs a stream of text pieces; see the module documentation. Build one
/// per stream with [`Scrubber::stream`]; after [`finish`](Self::finish) it
/// starts a new stream.
#[derive(Debug, Clone)]
pub struct StreamScrubber {
    scrubber: Scrubber,
    /// Given but not yet released.
    pending: String,
    /// Whether some of this stream has been released.
    released: bool,
    /// Whether the stream is one string (agent text) that, as a whole,
    /// may equal a short secret; not so for a stream of parts that are
    /// strings of their own (log and stderr lines).
    whole: bool,
}

impl Scrubber {
    /// A scrubber for one stream of pieces that make one string.
    pub fn stream(&self) -> StreamScrubber {
        StreamScrubber {
            scrubber: self.clone(),
            pending: String::new(),
            released: false,
            whole: true,
        }
    }

    /// A scrubber for a stream whose parts are strings of their own (the
    /// log): a short secret is not looked for in the stream as a whole.
    pub fn stream_of_parts(&self) -> StreamScrubber {
        StreamScrubber {
            whole: false,
            ..self.stream()
        }
    }
}

impl StreamScrubber {
    /// Takes the next piece; returns what can be released now (possibly
    /// nothing), scrubbed. Borrows `piece` when it goes out whole and
    /// unchanged.
    pub fn push<'a>(&mut self, piece: &'a str) -> Cow<'a, str> {
        match &self.scrubber.matcher {
            Matcher::Nothing => Cow::Borrowed(piece),
            Matcher::FailClosed => {
                if piece.is_empty() || self.released {
                    Cow::Borrowed("")
                } else {
                    self.released = true;
                    Cow::Borrowed(REDACTED)
                }
            }
            Matcher::Patterns(set) => {
                if self.pending.is_empty() {
                    let (out, cut) = set.release(piece, self.released || !self.whole);
                    self.pending.push_str(&piece[cut..]);
                    self.released |= cut > 0;
                    return out;
                }
                let mut text = std::mem::take(&mut self.pending);
                text.push_str(piece);
                let (out, cut) = set.release(&text, self.released || !self.whole);
                let out = out.into_owned();
                self.released |= cut > 0;
                text.drain(..cut);
                self.pending = text;
                Cow::Owned(out)
            }
        }
    }

    /// Whether some text is held back.
    pub fn is_holding(&self) -> bool {
        !self.pending.is_empty()
    }

    /// How many bytes are held back.
    pub fn held_bytes(&self) -> usize {
        self.pending.len()
    }

    /// Ends the stream: the held-back text, scrubbed. The scrubber is then
    /// ready for a new stream.
    pub fn finish(&mut self) -> String {
        let text = std::mem::take(&mut self.pending);
        let released = std::mem::replace(&mut self.released, false);
        if text.is_empty() {
            return text;
        }
        match &self.scrubber.matcher {
            Matcher::Nothing => text,
            Matcher::FailClosed if released => String::new(),
            Matcher::FailClosed => redacted_whole(&text),
            Matcher::Patterns(set) => set.scrub(&text, self.whole && !released).into_owned(),
        }
    }
}

/// A [`StreamScrubber`] over lines (a child's stderr, the log): takes lines
/// without their line ending and gives back the scrubbed lines that can be
/// released, in order. A line is held only while it could be the start of
/// a secret that continues on the next line.
#[derive(Debug, Clone)]
pub struct LineScrubber {
    stream: StreamScrubber,
    /// Released text not yet ending in a newline.
    partial: String,
}

impl Scrubber {
    /// A scrubber for one stream of lines.
    pub fn lines(&self) -> LineScrubber {
        LineScrubber {
            stream: self.stream_of_parts(),
            partial: String::new(),
        }
    }
}

impl LineScrubber {
    /// Takes one line (without its ending); returns the lines released.
    pub fn push_line(&mut self, line: &str) -> Vec<String> {
        let mut piece = String::with_capacity(line.len() + 1);
        piece.push_str(line);
        piece.push('\n');
        let released = self.stream.push(&piece).into_owned();
        self.partial.push_str(&released);
        self.complete_lines()
    }

    /// Ends the stream: every line still held, scrubbed.
    pub fn finish(&mut self) -> Vec<String> {
        let rest = self.stream.finish();
        self.partial.push_str(&rest);
        let mut lines = self.complete_lines();
        if !self.partial.is_empty() {
            let last = std::mem::take(&mut self.partial);
            lines.push(self.stream.scrubber.scrub_str(&last).into_owned());
        }
        lines
    }

    fn complete_lines(&mut self) -> Vec<String> {
        let Some(last) = self.partial.rfind('\n') else {
            return Vec::new();
        };
        let rest = self.partial.split_off(last + 1);
        let done = std::mem::replace(&mut self.partial, rest);
        // Each line is a string of its own: one equal to a short secret goes.
        done.lines()
            .map(|line| self.stream.scrubber.scrub_str(line).into_owned())
            .collect()
    }
}
