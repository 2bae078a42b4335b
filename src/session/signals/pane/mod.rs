//! Reading an agent's approval box from a captured pane (pane
//! grammar v2) with the grammar of its data file: the question line, the
//! box around it, the tool line anywhere in the box, the option rows (each
//! matched whole, in a column or side by side on one line) and which one
//! holds the focus (a marker, reverse video, a background colour), and
//! whether the box stands for a request title. The pane is untrusted:
//! nothing here guesses — a box that does not read exactly as the data
//! says is "not visible".
//!
//! - [`styled`]: a `capture-pane -e` capture read into text and styles.
//! - [`rows`]: the rows of a box and where the focus is.

pub mod rows;
pub mod styled;

use std::ops::Range;

use crate::adapter::tui_data::{CommandBox, CommandMarks, PromptGrammar};
use styled::StyledLine;

/// A row of a one-time approval box.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    Allow,
    /// `rows.others[i]` of the data (persistent trust, an editor).
    Other(usize),
    Reject,
}

impl Row {
    /// The row's pattern as a person reads it (for messages).
    pub fn label(self, grammar: &PromptGrammar) -> String {
        let rows = &grammar.rows;
        match self {
            Row::Allow => rows.allow.shown(),
            Row::Other(index) => rows
                .others
                .get(index)
                .map_or_else(String::new, |pattern| pattern.shown()),
            Row::Reject => rows.reject.shown(),
        }
    }
}

/// A visible approval box.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptView {
    /// The tool line, trimmed.
    pub tool_line: String,
    /// The tool line without its prefix and suffixes, whitespace collapsed.
    pub title: String,
    /// The question line, trimmed.
    pub question: String,
    /// The command, when a nested box right between the tool line and
    /// the question shows it (its lines joined by a space).
    pub command: Option<String>,
    /// The rows, in screen order: `Allow`, maybe others, `Reject`.
    pub rows: Vec<Row>,
    /// Each row's text as the screen shows it (marker and number removed).
    pub texts: Vec<String>,
    /// The focused row.
    pub focused: Row,
    /// Line indexes (in the capture) of the tool line and the question.
    pub tool_at: usize,
    pub question_at: usize,
}

impl PromptView {
    /// The row after `row` (towards reject), if any.
    pub fn below(&self, row: Row) -> Option<Row> {
        let index = self.rows.iter().position(|candidate| *candidate == row)?;
        self.rows.get(index + 1).copied()
    }
}

/// One line of the capture as the grammar sees it: cut to `within`, and
/// its text with the frame's sides removed and trimmed (a slice of the
/// line, so its styles can be read).
pub struct BoxLine {
    pub line: StyledLine,
    start: usize,
    len: usize,
    /// `within` cut through the line's text (a wider pane than the data
    /// was read from): a box using this line shows only part of it.
    cut: bool,
}

impl BoxLine {
    fn new(line: StyledLine, cut: bool, grammar: &PromptGrammar) -> BoxLine {
        let text = grammar.strip_frame(&line.text).trim();
        let start = styled::offset_in(&line.text, text).unwrap_or(0);
        let len = text.len();
        BoxLine {
            line,
            start,
            len,
            cut,
        }
    }

    /// The display column where [`BoxLine::text`] starts.
    pub fn column(&self) -> usize {
        unicode_width::UnicodeWidthStr::width(&self.line.text[..self.start])
    }

    /// The raw line (cut to `within`).
    pub fn raw(&self) -> &str {
        &self.line.text
    }

    /// The line inside the frame, trimmed.
    pub fn text(&self) -> &str {
        &self.line.text[self.start..self.start + self.len]
    }
}

/// The capture's lines as the grammar reads them.
pub fn box_lines(capture: &str, grammar: &PromptGrammar) -> Vec<BoxLine> {
    styled::read(capture)
        .into_iter()
        .map(|line| match grammar.within {
            Some(columns) => {
                let cut = line.cut_through(columns.from, columns.to);
                BoxLine::new(line.columns(columns.from, columns.to), cut, grammar)
            }
            None => BoxLine::new(line, false, grammar),
        })
        .collect()
}

/// Whether any approval question is on screen: the pane is busy for text
/// injection.
pub fn approval_visible(capture: &str, grammar: &PromptGrammar) -> bool {
    box_lines(capture, grammar)
        .iter()
        .any(|line| grammar.is_question(line.text()))
}

/// Parses the last approval box in `capture` (`capture-pane -p -J`, with
/// or without `-e`).
pub fn parse(capture: &str, grammar: &PromptGrammar) -> Option<PromptView> {
    let lines = box_lines(capture, grammar);
    let question_at = lines
        .iter()
        .rposition(|line| grammar.is_question(line.text()))?;
    // Two questions on screen: a command's or the model's own line reads
    // as one (the box drawn twice, a forged question under the real one);
    // which box the rows belong to cannot be told.
    if lines[..question_at]
        .iter()
        .any(|line| grammar.is_question(line.text()))
    {
        return None;
    }
    let (start, end) = box_bounds(&lines, question_at, grammar)?;
    let found = rows::read(&lines[question_at + 1..end], grammar)?;
    let first_row_at = question_at + 1 + found.first_at;
    let last_row_at = question_at + 1 + found.last_at;
    // What stands after the reject row: no further row (another box drawn
    // alike, with one more), only the data's footer lines.
    if !rows::after_ok(&lines[last_row_at + 1..end], grammar) {
        return None;
    }
    let tool_at = tool_line_at(&lines, start, question_at, first_row_at, grammar)?;
    let tool_line = lines[tool_at].text().to_owned();
    let below_to = if tool_at < question_at {
        question_at
    } else {
        first_row_at
    };
    if grammar.tool.blank_below
        && lines[tool_at + 1..below_to]
            .iter()
            .any(|line| !line.text().is_empty())
    {
        return None;
    }
    let command = box_command(&lines, start..question_at, tool_at, grammar)?;
    // A line the box reads (its title, question, rows) that `within` cut
    // through shows only part of its text: no box.
    let title_lines = match &command {
        Some((_, shown)) => shown.clone(),
        None => tool_at..tool_at + 1,
    };
    let rows_lines =
        (first_row_at..=last_row_at).filter(|at| !grammar.is_skipped(lines[*at].text()));
    if title_lines
        .chain([question_at])
        .chain(rows_lines)
        .any(|at| lines[at].cut)
    {
        return None;
    }
    let command = command.map(|(command, _)| command);
    Some(PromptView {
        title: tool_title(&tool_line, grammar),
        tool_line,
        question: lines[question_at].text().to_owned(),
        command,
        rows: found.rows,
        texts: found.texts,
        focused: found.focused,
        tool_at,
        question_at,
    })
}

/// The box around the question at `question_at`: from the frame top above
/// it (or `searchLines` above it) to the frame bottom below it (or the
/// screen's end). A frame without its bottom is half-drawn: `None`.
fn box_bounds(
    lines: &[BoxLine],
    question_at: usize,
    grammar: &PromptGrammar,
) -> Option<(usize, usize)> {
    match &grammar.frame {
        Some(_) => {
            let top = lines[..question_at]
                .iter()
                .rposition(|line| grammar.is_frame_top(line.raw()))?;
            let bottom = question_at
                + 1
                + lines[question_at + 1..]
                    .iter()
                    .position(|line| grammar.is_frame_bottom(line.raw()))?;
            Some((top + 1, bottom))
        }
        None => Some((
            question_at.saturating_sub(grammar.tool.search_lines),
            lines.len(),
        )),
    }
}

/// The command the box shows whole, with the lines it was read from, as
/// the data's `tool.commandBox` says (`above`: the box's lines up to the
/// question). `Some(None)`: the data shows none; `None`: no box — the data
/// says the command has a box of its own and it is not there whole (its
/// top scrolled past `searchLines`, or not drawn yet), so the card would
/// be titled by one line of the command.
#[allow(clippy::option_option)]
fn box_command(
    lines: &[BoxLine],
    above: Range<usize>,
    tool_at: usize,
    grammar: &PromptGrammar,
) -> Option<Option<(String, Range<usize>)>> {
    match &grammar.tool.command_box {
        CommandBox::Framed(true) if tool_at < above.end => {
            Some(command_box(lines, tool_at + 1..above.end, grammar))
        }
        CommandBox::Framed(_) => Some(None),
        CommandBox::Marked(marks) => Some(Some(marked_command_box(lines, above, marks)?)),
    }
}

/// Whether `line` is a tool line: it starts with one of the tool line
/// prefixes, at `tool.column` when the data gives one.
fn is_tool_line(line: &BoxLine, grammar: &PromptGrammar) -> bool {
    let tool = &grammar.tool;
    let text = line.text();
    tool.prefixes
        .iter()
        .any(|prefix| text.starts_with(prefix.as_str()))
        && tool.column.is_none_or(|column| line.column() == column)
}

/// The tool line's index: the one prefixed line in the box above the
/// question or between the question and the rows — two are no box (one
/// of them is the command's or the model's own text: which one is the
/// tool's cannot be told); without prefixes, the nearest non-skipped
/// line above the question.
fn tool_line_at(
    lines: &[BoxLine],
    start: usize,
    question_at: usize,
    first_row_at: usize,
    grammar: &PromptGrammar,
) -> Option<usize> {
    let above = (start..question_at).rev();
    if grammar.tool.prefixes.is_empty() {
        return above
            .into_iter()
            .find(|at| !grammar.is_skipped(lines[*at].text()));
    }
    let mut found = above
        .chain(question_at + 1..first_row_at)
        .filter(|at| is_tool_line(&lines[*at], grammar));
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// Whether a line between the question and the first row may stand there:
/// blank, skipped, or a tool line.
pub(crate) fn may_precede_rows(line: &BoxLine, grammar: &PromptGrammar) -> bool {
    grammar.is_skipped(line.text()) || is_tool_line(line, grammar)
}

/// The command in a nested box that fills `between` (the lines between
/// the tool line and the question) exactly: top, content lines, bottom;
/// with the lines it was read from.
fn command_box(
    lines: &[BoxLine],
    between: Range<usize>,
    grammar: &PromptGrammar,
) -> Option<(String, Range<usize>)> {
    let frame = grammar.frame.as_ref()?;
    let [top, content @ .., bottom] = &lines[between.clone()] else {
        return None;
    };
    let is = |line: &BoxLine, mark: &str| line.text().starts_with(mark);
    if !is(top, &frame.top) || !is(bottom, &frame.bottom) || content.is_empty() {
        return None;
    }
    let mut parts = Vec::new();
    for line in content {
        if !is(line, &frame.side) {
            return None;
        }
        parts.push(collapse(grammar.strip_frame(line.text())));
    }
    let command = parts.join(" ");
    (!command.trim().is_empty()).then(|| (command, between.start + 1..between.end - 1))
}

/// The command in the box of its own marks whose bottom stands right above
/// the question (`above`: the box's lines up to the question): its lines
/// between top and bottom, `side` removed, joined by a space; with the
/// lines it was read from.
fn marked_command_box(
    lines: &[BoxLine],
    above: Range<usize>,
    marks: &CommandMarks,
) -> Option<(String, Range<usize>)> {
    let offset = above.start;
    let above = &lines[above];
    let bottom = above
        .iter()
        .rposition(|line| !line.text().is_empty())
        .filter(|at| above[*at].raw().starts_with(marks.bottom.as_str()))?;
    let top = above[..bottom]
        .iter()
        .rposition(|line| line.raw().starts_with(marks.top.as_str()))?;
    let parts: Vec<String> = above[top + 1..bottom]
        .iter()
        .map(|line| {
            let text = line.text();
            let text = match &marks.side {
                Some(side) => text.strip_prefix(side.as_str()).unwrap_or(text),
                None => text,
            };
            collapse(text)
        })
        .filter(|part| !part.is_empty())
        .collect();
    (!parts.is_empty()).then(|| (parts.join(" "), offset + top + 1..offset + bottom))
}

/// A card's title for a box read from the pane: the command when its box
/// shows it, else the tool line without its prefix and suffixes.
pub fn card_title(view: &PromptView) -> String {
    match &view.command {
        Some(command) => collapse(command),
        None => view.title.clone(),
    }
}

/// Whether the box on screen is the one titled `title`: its command when
/// its box shows one, else its tool line ([`title_matches`]).
pub fn view_matches(view: &PromptView, title: &str, grammar: &PromptGrammar) -> bool {
    match &view.command {
        Some(command) => collapse(command) == collapse(title),
        None => shown_matches(&view.title, title, grammar),
    }
}

/// Runs of ASCII whitespace collapsed to one space, ends trimmed: a
/// no-break or other Unicode space stays what it is (`rm\u{a0}-rf` is
/// not `rm -rf` to a shell, so not to a title either).
pub fn collapse(text: &str) -> String {
    text.split_ascii_whitespace().collect::<Vec<_>>().join(" ")
}

/// The tool line without its prefix (`↓ `, `? `) and its suffixes (a
/// trailing `←`), whitespace collapsed: the title of a card read from the
/// pane.
pub fn tool_title(tool_line: &str, grammar: &PromptGrammar) -> String {
    let mut shown = tool_line.trim();
    for prefix in &grammar.tool.prefixes {
        if let Some(rest) = shown.strip_prefix(prefix.trim_end()) {
            shown = rest;
            break;
        }
    }
    for suffix in &grammar.tool.strip_suffix {
        shown = suffix.strip(shown);
    }
    collapse(shown)
}

/// Whether the pane's tool line stands for the request `title`:
/// `Running: pwd` ↔ `↓ Shell pwd`, whitespace runs collapsed, compared
/// whole (no loose substring match).
pub fn title_matches(tool_line: &str, title: &str, grammar: &PromptGrammar) -> bool {
    shown_matches(&tool_title(tool_line, grammar), title, grammar)
}

/// [`title_matches`] for a tool line already made a title.
fn shown_matches(shown: &str, title: &str, grammar: &PromptGrammar) -> bool {
    let title = collapse(title);
    if shown == title {
        return true;
    }
    grammar
        .tool
        .title_prefixes
        .iter()
        .any(
            |(recorded, displayed)| match title.strip_prefix(recorded.trim_end()) {
                Some(rest) => shown == collapse(&format!("{displayed}{rest}")),
                None => false,
            },
        )
}

#[cfg(test)]
pub(crate) mod tests;

#[cfg(test)]
pub(crate) mod gemini_tests;

#[cfg(test)]
mod grammar_tests;
