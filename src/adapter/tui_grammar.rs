//! The pane grammar v2 of an adapter's `tui.prompt` (its `tui.keys`:
//! [`super::tui_keys`])
//! (/work/wt/GRAMMAR_V2.md): how the agent's approval box
//! reads in a captured pane — its question, frame, skipped lines, tool
//! line, rows (each matched whole), where the focus shows — and the tmux
//! keys that move the focus and confirm. Plain data, checked when read: a
//! row pattern is anchored, a key name is one tmux knows, exactly one way
//! of showing the focus.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::error::message;
use crate::redact::rules::DataRegex;

/// Why a value of a `tui.prompt` or `tui.keys` section is refused (the
/// data file's loader puts the field's path in front).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GrammarError {
    #[error("`marker` is blank")]
    BlankMarker,
    #[error("`background` goes with `style: background` only")]
    BackgroundWithoutStyle,
    #[error("unknown focus style `{0}` (expected `reverse` or `background`)")]
    UnknownFocusStyle(String),
    #[error("give `marker` or `style`")]
    NoFocus,
    #[error("give exactly one of `marker` and `style`")]
    TwoFoci,
    #[error("`{0}` is not a background colour (`40`–`47`, `100`–`107`, `48;5;N`, `48;2;R;G;B`)")]
    NotAColour(String),
    #[error("invalid pattern `{pattern}`")]
    Pattern {
        pattern: String,
        #[source]
        source: regex::Error,
    },
    #[error(
        "unknown key name `{0}` (expected one of {keys}, a digit or a lowercase letter)",
        keys = NAMED_KEYS.join(" ")
    )]
    UnknownKey(String),
    #[error("`keys.{field}`: {reason}")]
    Key {
        field: &'static str,
        reason: Box<GrammarError>,
    },
}

/// Outside text in a message: control characters stripped.
pub(super) fn shown(text: &str) -> String {
    crate::output::sanitize_line(text).into_owned()
}

/// How the agent's approval box reads in a captured pane.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PromptGrammar {
    /// A line (frame sides removed, trimmed) matching one of these whole
    /// is the box's question (Kiro: `shell requires approval`).
    pub questions: Vec<WholePattern>,
    /// The box drawn around the prompt, if any.
    #[serde(default)]
    pub frame: Option<FrameData>,
    /// The display columns of the pane the box lives in (`[from, to)`,
    /// counted from 0): text outside (a sidebar sharing the lines) is cut
    /// off every line before anything else is read. Absent: the whole
    /// line.
    #[serde(default)]
    pub within: Option<Columns>,
    /// Lines inside the box that are decoration or noise, skipped wherever
    /// they appear (blank lines always are), each matched whole.
    #[serde(default)]
    pub skip: Vec<WholePattern>,
    pub tool: ToolData,
    pub rows: RowsData,
}

/// `[from, to)` display columns of the pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Columns {
    pub from: usize,
    pub to: usize,
}

/// The box around a prompt: each line's `side` is removed once at both
/// ends (a nested box keeps its own), a line starting with `top` is the
/// box's first and one starting with `bottom` its last.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FrameData {
    pub side: String,
    pub top: String,
    pub bottom: String,
}

/// Where the card's title comes from when no stronger signal gave it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolData {
    /// The tool line starts with one of these (removed for the title). It
    /// is searched anywhere in the box: above the question (the nearest
    /// first, up to the frame top or `searchLines` above), then between
    /// the question and the rows. None: the nearest non-blank, non-skipped
    /// line above the question is the tool line.
    #[serde(default)]
    pub prefixes: Vec<String>,
    /// The display column (counted from 0, after `within`) where a tool
    /// line's prefix starts: a prefixed line anywhere else (a command's
    /// own line that reads like a tool line) is no tool line. Absent: any
    /// column.
    #[serde(default)]
    pub column: Option<usize>,
    /// Only blank lines stand below the tool line, up to the rows (or the
    /// question, when the tool line is above it): a command's own next
    /// lines (a script's, a wrapped one's) stand there, and one that reads
    /// like a skipped line would hide part of the command.
    #[serde(default)]
    pub blank_below: bool,
    /// How far above the question the tool line (and the box) may start
    /// when there is no frame.
    #[serde(default = "default_search_lines")]
    pub search_lines: usize,
    /// Removed from the end of the tool line, in order (a trailing `←`, a
    /// spinner, a timer).
    #[serde(default)]
    pub strip_suffix: Vec<SuffixPattern>,
    /// Where the whole command is shown (it then is the card's title):
    /// `true` — a nested box drawn with the frame's marks that fills the
    /// lines between the tool line and the question exactly; marks of its
    /// own (`{top, bottom, side}`) — the box whose bottom stands right
    /// above the question (blank lines between), its `top` and `bottom`
    /// lines starting at the first column, its lines (`side` removed)
    /// joined by a space; other lines may stand between the tool line and
    /// it, and a box read without it is no box. `false` (absent): none.
    #[serde(default)]
    pub command_box: CommandBox,
    /// Recorder/hook title prefix → the text the pane shows in its place
    /// (`Running: ` → `Shell `).
    #[serde(default)]
    pub title_prefixes: BTreeMap<String, String>,
}

/// `tool.commandBox`: `true`/`false`, or the marks of its own box.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum CommandBox {
    Framed(bool),
    Marked(CommandMarks),
}

impl Default for CommandBox {
    fn default() -> Self {
        CommandBox::Framed(false)
    }
}

/// A command box's own marks.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CommandMarks {
    pub top: String,
    pub bottom: String,
    /// Removed once from the start of a command line when it is there
    /// (a wrapped command's `│ `).
    #[serde(default)]
    pub side: Option<String>,
}

fn default_search_lines() -> usize {
    6
}

/// The option rows: allow first, reject last, others between.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RowsData {
    #[serde(default)]
    pub layout: Layout,
    /// `line` layout: what separates two rows on the line (whole runs of
    /// it); default: two or more spaces.
    #[serde(default)]
    pub separator: Option<DataRegex>,
    /// Rows carry `1. ` … counted from 1 (checked).
    #[serde(default)]
    pub numbered: bool,
    pub focus: Focus,
    pub allow: WholePattern,
    pub reject: WholePattern,
    /// Rows that may stand between allow and reject, in screen order, each
    /// optional, never chosen.
    #[serde(default)]
    pub others: Vec<WholePattern>,
    /// The lines the box may show after its reject row (a key hint), each
    /// matched whole: when given, every line there up to the box's end
    /// that is not blank or skipped must match one (another box drawn
    /// alike has its own footer). Absent: those lines are not read.
    #[serde(default)]
    pub after: Vec<WholePattern>,
}

/// How the rows are laid out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Layout {
    /// One row per line, top to bottom.
    #[default]
    Column,
    /// All rows side by side on one line, left to right.
    Line,
}

/// How the focused row shows.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "FocusFields")]
pub enum Focus {
    /// Text before the focused row (`❯`, `●`).
    Marker(String),
    /// The focused row's text cells are in reverse video.
    Reverse,
    /// The focused row's text cells have a background colour the other
    /// rows lack — this one (`44`, `48;5;208`, `48;2;250;178;131`, as
    /// `capture-pane -e` prints it) when given.
    Background(Option<Background>),
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FocusFields {
    marker: Option<String>,
    style: Option<String>,
    background: Option<String>,
}

impl TryFrom<FocusFields> for Focus {
    type Error = GrammarError;

    fn try_from(fields: FocusFields) -> Result<Self, GrammarError> {
        let FocusFields {
            marker,
            style,
            background,
        } = fields;
        match (marker, style.as_deref(), background) {
            (Some(marker), None, None) if !marker.trim().is_empty() => {
                Ok(Focus::Marker(marker.trim().to_owned()))
            }
            (Some(_), None, None) => Err(GrammarError::BlankMarker),
            (None, Some("reverse"), None) => Ok(Focus::Reverse),
            (None, Some("background"), colour) => colour
                .map(|colour| Background::parse(&colour))
                .transpose()
                .map(Focus::Background),
            (None, Some("reverse"), Some(_)) => Err(GrammarError::BackgroundWithoutStyle),
            (None, Some(other), _) => Err(GrammarError::UnknownFocusStyle(shown(other))),
            (None, None, _) => Err(GrammarError::NoFocus),
            (Some(_), Some(_), _) | (Some(_), None, Some(_)) => Err(GrammarError::TwoFoci),
        }
    }
}

/// A background colour as an SGR sequence sets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Background {
    /// 40–47 (0–7) and 100–107 (8–15).
    Basic(u8),
    /// `48;5;n`.
    Indexed(u8),
    /// `48;2;r;g;b`.
    Rgb(u8, u8, u8),
}

impl Background {
    /// `44`, `104`, `48;5;208`, `48;2;250;178;131`.
    pub fn parse(text: &str) -> Result<Background, GrammarError> {
        let bad = || GrammarError::NotAColour(shown(text));
        let parts: Vec<u8> = text
            .split(';')
            .map(|part| part.trim().parse::<u8>())
            .collect::<Result<_, _>>()
            .map_err(|_| bad())?;
        match parts.as_slice() {
            [code @ 40..=47] => Ok(Background::Basic(code - 40)),
            [code @ 100..=107] => Ok(Background::Basic(code - 100 + 8)),
            [48, 5, index] => Ok(Background::Indexed(*index)),
            [48, 2, r, g, b] => Ok(Background::Rgb(*r, *g, *b)),
            _ => Err(bad()),
        }
    }
}

/// A regular expression matched against a whole line or row (anchored:
/// `^(?:…)$`); its source is what it reads as in messages.
#[derive(Debug, Clone)]
pub struct WholePattern {
    pub source: String,
    regex: regex::Regex,
}

impl WholePattern {
    pub fn new(source: &str) -> Result<WholePattern, GrammarError> {
        regex::Regex::new(&format!("^(?:{source})$"))
            .map(|regex| WholePattern {
                source: source.to_owned(),
                regex,
            })
            .map_err(|error| GrammarError::Pattern {
                pattern: shown(source),
                source: error,
            })
    }

    pub fn matches(&self, text: &str) -> bool {
        self.regex.is_match(text)
    }

    /// The pattern as a person reads it: a backslash before punctuation
    /// dropped (`No \(esc\)` reads `No (esc)`).
    pub fn shown(&self) -> String {
        let mut shown = String::with_capacity(self.source.len());
        let mut chars = self.source.chars().peekable();
        while let Some(c) = chars.next() {
            match chars.peek() {
                Some(next) if c == '\\' && next.is_ascii_punctuation() => {}
                _ => shown.push(c),
            }
        }
        shown
    }
}

impl<'de> Deserialize<'de> for WholePattern {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        // serde keeps text only: the error with its cause.
        WholePattern::new(&text).map_err(|error| serde::de::Error::custom(message(&error)))
    }
}

/// A regular expression removed from the end of a text (`(?:…)$`).
#[derive(Debug, Clone)]
pub struct SuffixPattern(regex::Regex);

impl SuffixPattern {
    /// `text` without the suffix, if it ends with one.
    pub fn strip<'a>(&self, text: &'a str) -> &'a str {
        match self.0.find(text) {
            Some(found) => &text[..found.start()],
            None => text,
        }
    }
}

impl<'de> Deserialize<'de> for SuffixPattern {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        regex::Regex::new(&format!("(?:{text})$"))
            .map(SuffixPattern)
            .map_err(|source| {
                let error = GrammarError::Pattern {
                    pattern: shown(&text),
                    source,
                };
                serde::de::Error::custom(message(&error))
            })
    }
}

/// The named keys a data file may use.
pub const NAMED_KEYS: &[&str] = &[
    "Up", "Down", "Left", "Right", "Tab", "BTab", "Enter", "Escape", "Space",
];

impl PromptGrammar {
    /// Whether `line` (frame sides removed, trimmed) is a prompt's question.
    pub fn is_question(&self, line: &str) -> bool {
        self.questions.iter().any(|pattern| pattern.matches(line))
    }

    /// Whether `line` (frame sides removed, trimmed) is a skipped line.
    pub fn is_skipped(&self, line: &str) -> bool {
        line.is_empty() || self.skip.iter().any(|pattern| pattern.matches(line))
    }

    /// `line` without the frame's sides (once at each end); trailing
    /// blanks go, leading spaces stay.
    pub fn strip_frame<'a>(&self, line: &'a str) -> &'a str {
        let Some(frame) = &self.frame else {
            return line;
        };
        let side = frame.side.as_str();
        let line = line.trim_end();
        let line = line.strip_suffix(side).unwrap_or(line).trim_end();
        match line.trim_start().strip_prefix(side) {
            Some(rest) => rest,
            None => line,
        }
    }

    /// Whether raw `line` is the first line of the frame (its top border).
    pub fn is_frame_top(&self, line: &str) -> bool {
        self.frame
            .as_ref()
            .is_some_and(|frame| line.trim_start().starts_with(frame.top.as_str()))
    }

    /// Whether raw `line` is the last line of the frame (its bottom border).
    pub fn is_frame_bottom(&self, line: &str) -> bool {
        self.frame
            .as_ref()
            .is_some_and(|frame| line.trim_start().starts_with(frame.bottom.as_str()))
    }
}

#[cfg(test)]
#[path = "tui_grammar_tests.rs"]
mod tests;
