//! The pane-scrape fallback: a generic approval detector for
//! agent versions without the recorder and for other agent TUIs. It finds an
//! approval block in a captured pane — a title line ending with `?` or
//! containing `requires approval`, followed by option rows — and reads the
//! keys each row advertises in `(…)` hints, but only hints that name keys
//! (`(Tab to edit)` is an instruction). [`Tracker`] keeps a single active
//! prompt, deduplicated by a content hash; a prompt that vanishes without
//! our keystroke was answered in the terminal, and two identical prompts
//! in a row are told apart only by the vanish between them.

use sha2::{Digest, Sha256};

use crate::adapter::tui_data::TuiData;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionRow {
    /// The row text without its focus marker and key hints.
    pub label: String,
    /// Keys the row advertises, lowercase (`y`, `esc`, `shift+tab`).
    pub keys: Vec<String>,
    pub focused: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetectedPrompt {
    /// The nearest non-blank line above the title (the command), if any.
    pub context: Option<String>,
    pub title: String,
    pub options: Vec<OptionRow>,
    /// Content hash (context, title, row labels; not the focus).
    pub hash: String,
    /// How many lines above it carry the same title (answered prompts
    /// left on screen). One more than before, with the same hash, is an
    /// identical prompt drawn below the one answered: the vanish between
    /// them fell between two captures.
    pub earlier: usize,
}

impl DetectedPrompt {
    /// A one-line preview for a card.
    pub fn preview(&self) -> String {
        match &self.context {
            Some(context) => format!("{context} — {}", self.title),
            None => self.title.clone(),
        }
    }
}

/// Strips decoration a block may carry on every line: box sides (a
/// subagent's prompt inside a frame) and trailing blanks. Leading spaces
/// stay: the indentation tells rows from description lines.
fn strip_frame(line: &str) -> &str {
    let line = line.trim_end();
    let line = line.trim_end_matches(['│', '┃', '|', '║']).trim_end();
    let inner = line.trim_start();
    match inner.strip_prefix(['│', '┃', '|', '║']) {
        Some(rest) => rest,
        None => line,
    }
}

fn is_border(line: &str) -> bool {
    !line.is_empty()
        && line.chars().all(|c| {
            matches!(
                c,
                '─' | '━'
                    | '═'
                    | '-'
                    | '╭'
                    | '╮'
                    | '╰'
                    | '╯'
                    | '┌'
                    | '┐'
                    | '└'
                    | '┘'
                    | ' '
            )
        })
}

fn is_title(line: &str, data: &TuiData) -> bool {
    data.prompt.is_question(line)
        || data
            .fallback
            .question_marks
            .iter()
            .any(|mark| line.ends_with(mark.as_str()))
}

/// Whether every alternative inside a `(…)` hint names a key.
fn hint_keys(hint: &str, data: &TuiData) -> Option<Vec<String>> {
    let alternatives: Vec<String> = hint
        .split(" or ")
        .flat_map(|part| part.split(['/', ',']))
        .map(|part| part.trim().to_lowercase())
        .filter(|part| !part.is_empty())
        .collect();
    let names_key = |token: &str| {
        let single = token.chars().count() == 1 && token.chars().all(char::is_alphanumeric);
        let named = data.fallback.key_names.iter().any(|name| name == token);
        let combination = token.split_once('+').is_some_and(|(modifier, key)| {
            matches!(modifier, "shift" | "ctrl" | "alt" | "meta" | "cmd")
                && !key.is_empty()
                && !key.contains(' ')
        });
        single || named || combination
    };
    (!alternatives.is_empty() && alternatives.iter().all(|token| names_key(token)))
        .then_some(alternatives)
}

/// Splits a row into its label (key hints removed) and advertised keys.
fn row(text: &str, focused: bool, data: &TuiData) -> OptionRow {
    let mut label = String::new();
    let mut keys = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('(') {
        let Some(close) = rest[open..].find(')') else {
            break;
        };
        let hint = &rest[open + 1..open + close];
        label.push_str(&rest[..open]);
        match hint_keys(hint, data) {
            Some(found) => keys.extend(found),
            None => label.push_str(&rest[open..=open + close]),
        }
        rest = &rest[open + close + 1..];
    }
    label.push_str(rest);
    OptionRow {
        label: crate::session::signals::pane::collapse(&label),
        keys,
        focused,
    }
}

fn strip_marker<'a>(line: &'a str, data: &TuiData) -> (bool, &'a str) {
    for marker in &data.fallback.focus_markers {
        if let Some(rest) = line.strip_prefix(marker.as_str()) {
            return (true, rest.trim_start());
        }
    }
    (false, line)
}

/// The last approval block on screen (a capture's escapes are dropped
/// first: this reading is text only).
pub fn detect(capture: &str, data: &TuiData) -> Option<DetectedPrompt> {
    let capture = crate::session::signals::pane::styled::plain(capture);
    let lines: Vec<&str> = capture.lines().map(strip_frame).collect();
    let title_at = lines.iter().rposition(|line| is_title(line.trim(), data))?;
    let title = lines[title_at].trim().to_owned();
    let earlier = lines[..title_at]
        .iter()
        .filter(|line| line.trim() == title)
        .count();
    let context = lines[..title_at]
        .iter()
        .map(|line| line.trim())
        .rev()
        .find(|line| !line.is_empty())
        .filter(|line| !is_border(line))
        .map(crate::session::signals::pane::collapse);
    let block: Vec<&str> = lines[title_at + 1..]
        .iter()
        .copied()
        .take_while(|line| !line.trim().is_empty() && !is_border(line.trim()))
        .collect();
    // (indentation of the row text, focused, text) per line.
    let shaped: Vec<(usize, bool, &str)> = block
        .iter()
        .map(|line| {
            let indent = line.chars().take_while(|c| *c == ' ').count();
            let trimmed = line.trim_start();
            let (focused, text) = strip_marker(trimmed, data);
            let column = if focused {
                indent + trimmed.chars().count() - text.chars().count()
            } else {
                indent
            };
            (column, focused, text.trim_end())
        })
        .collect();
    // Rows line up with the focused row's text; lines indented less are
    // description. Without a focused row, every line is a row.
    let column = shaped
        .iter()
        .find(|(_, focused, _)| *focused)
        .map(|(column, _, _)| *column);
    let options: Vec<OptionRow> = shaped
        .iter()
        .filter(|(at, focused, _)| *focused || column.is_none_or(|column| *at == column))
        .map(|(_, focused, text)| row(text, *focused, data))
        .collect();
    if options.len() < 2 {
        return None;
    }
    let mut hasher = Sha256::new();
    let parts = context
        .iter()
        .chain([&title])
        .map(String::as_str)
        .chain(options.iter().map(|option| option.label.as_str()));
    for part in parts {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    let hash = hex::encode(&hasher.finalize()[..8]);
    Some(DetectedPrompt {
        context,
        title,
        options,
        hash,
        earlier,
    })
}

/// The adapter's own prompt (its grammar in the data file) as
/// a detected prompt for the tracker: the tool line as context, the
/// question as title, the rows as the data names them.
pub fn detect_own(capture: &str, data: &TuiData) -> Option<DetectedPrompt> {
    let grammar = &data.prompt;
    let view = crate::session::signals::pane::parse(capture, grammar)?;
    let lines = crate::session::signals::pane::box_lines(capture, grammar);
    let context = crate::session::signals::pane::collapse(&view.tool_line);
    let shown = &view.title;
    // An answered prompt leaves its tool line above, under another status
    // mark (`✓  Shell pwd`): an identical prompt below it is a new one.
    let earlier = lines[..view.tool_at.min(view.question_at)]
        .iter()
        .filter(|line| {
            let collapsed = crate::session::signals::pane::collapse(line.text());
            collapsed
                .split_once(' ')
                .is_some_and(|(_, rest)| !shown.is_empty() && rest == shown)
        })
        .count();
    let options: Vec<OptionRow> = view
        .rows
        .iter()
        .zip(&view.texts)
        .map(|(row, text)| OptionRow {
            label: text.clone(),
            keys: Vec::new(),
            focused: *row == view.focused,
        })
        .collect();
    let mut hasher = Sha256::new();
    // The command too: two long commands may share a tool line (the
    // model's description).
    let command = view.command.as_deref().unwrap_or_default();
    let parts = [context.as_str(), command, view.question.as_str()]
        .into_iter()
        .chain(options.iter().map(|option| option.label.as_str()));
    for part in parts {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    Some(DetectedPrompt {
        context: Some(context),
        title: view.question.clone(),
        options,
        hash: hex::encode(&hasher.finalize()[..8]),
        earlier,
    })
}

/// The generic detector, else the adapter's own prompt (one whose rows
/// the generic reading cannot find: Gemini's box, a blank line under its
/// question).
pub fn detect_any(capture: &str, data: &TuiData) -> Option<DetectedPrompt> {
    detect(capture, data).or_else(|| detect_own(capture, data))
}

/// What changed between two looks at the pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FallbackEvent {
    /// A new prompt; `occurrence` is unique even for an identical repeat.
    Appeared {
        occurrence: u64,
        prompt: DetectedPrompt,
    },
    /// The active prompt is gone; `by_us` = after our keystroke.
    Vanished { occurrence: u64, by_us: bool },
}

/// A single active prompt, deduplicated by content hash.
#[derive(Debug, Default)]
pub struct Tracker {
    /// Occurrence, hash, and the prompt's `earlier` when last seen.
    active: Option<(u64, String, usize)>,
    next: u64,
    keyed: bool,
}

impl Tracker {
    /// The active occurrence and its hash.
    pub fn active(&self) -> Option<(u64, &str)> {
        self.active
            .as_ref()
            .map(|(id, hash, _)| (*id, hash.as_str()))
    }

    /// We are about to type into the active prompt.
    pub fn keystroke(&mut self) {
        self.keyed = true;
    }

    pub fn observe(&mut self, seen: Option<DetectedPrompt>) -> Vec<FallbackEvent> {
        let mut events = Vec::new();
        // The same prompt: same hash, and no more copies of its title
        // above it than before (fewer is history scrolling away).
        if let (Some((_, hash, earlier)), Some(prompt)) = (&mut self.active, &seen) {
            if *hash == prompt.hash && prompt.earlier <= *earlier {
                *earlier = prompt.earlier;
                return events;
            }
        }
        if let Some((occurrence, _, _)) = self.active.take() {
            events.push(FallbackEvent::Vanished {
                occurrence,
                by_us: std::mem::take(&mut self.keyed),
            });
        }
        if let Some(prompt) = seen {
            self.next += 1;
            self.keyed = false;
            self.active = Some((self.next, prompt.hash.clone(), prompt.earlier));
            events.push(FallbackEvent::Appeared {
                occurrence: self.next,
                prompt,
            });
        }
        events
    }
}

#[cfg(test)]
#[path = "pane_fallback_tests.rs"]
mod tests;
