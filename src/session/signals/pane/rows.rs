//! The option rows of an approval box and where the focus is.
//!
//! - `column`: after the question, blank, skipped and tool lines may
//!   stand before the first row; from there every line is a row or a
//!   blank/skipped line, up to the reject row (the box's last row). Any
//!   other line: not a box.
//! - `line`: the first line after the question that is not blank, skipped
//!   or a tool line holds all rows side by side, separated by two or more
//!   spaces (or `rows.separator`), read from the left: allow, others,
//!   reject, each a whole cell. Text after the reject cell (a sidebar, a
//!   key hint) is ignored only when a wider gap than any between two rows
//!   stands before it; anything closer is not a box. `within` cuts a
//!   sidebar off before that.
//!
//! Every row's text (marker and number removed, trimmed) must match its
//! pattern whole; a text matching two patterns is no row. Exactly one row
//! holds the focus: the marker before it, or all of its visible
//! characters in reverse video, or in a background colour (the data's, or
//! one no other row has).

use std::ops::Range;
use std::sync::LazyLock;

use super::styled::Style;
use super::{BoxLine, Row};
use crate::adapter::tui_data::{Background, Focus, Layout, PromptGrammar};

/// The rows a box shows.
#[derive(Debug)]
pub struct FoundRows {
    pub rows: Vec<Row>,
    pub texts: Vec<String>,
    pub focused: Row,
    /// Index (in the area given) of the first row's line.
    pub first_at: usize,
    /// Index (in the area given) of the reject row's line.
    pub last_at: usize,
}

/// One row as read: which, its text, and how it looked.
struct Cell {
    row: Row,
    number: Option<usize>,
    text: String,
    marked: bool,
    styles: Vec<Style>,
}

/// Reads the rows from `area`, the lines after the question up to the
/// box's end.
pub fn read(area: &[BoxLine], grammar: &PromptGrammar) -> Option<FoundRows> {
    let (cells, first_at, last_at) = match grammar.rows.layout {
        Layout::Column => column(area, grammar)?,
        Layout::Line => line(area, grammar).map(|(cells, at)| (cells, at, at))?,
    };
    let rows: Vec<Row> = cells.iter().map(|cell| cell.row).collect();
    if !shape_ok(&rows) {
        return None;
    }
    let numbered = cells
        .iter()
        .enumerate()
        .all(|(index, cell)| cell.number.is_none_or(|number| number == index + 1));
    if !numbered {
        return None;
    }
    let focused = focused(&cells, &grammar.rows.focus)?;
    Some(FoundRows {
        rows,
        texts: cells.into_iter().map(|cell| cell.text).collect(),
        focused,
        first_at,
        last_at,
    })
}

fn column(area: &[BoxLine], grammar: &PromptGrammar) -> Option<(Vec<Cell>, usize, usize)> {
    let mut cells = Vec::new();
    let mut first_at = None;
    for (at, line) in area.iter().enumerate() {
        let text = line.text();
        if let Some(cell) = cell(text, line, grammar) {
            first_at.get_or_insert(at);
            let last = cell.row == Row::Reject;
            cells.push(cell);
            if last {
                return Some((cells, first_at?, at));
            }
            continue;
        }
        let may_stand = grammar.is_skipped(text)
            || (first_at.is_none() && super::may_precede_rows(line, grammar));
        if !may_stand {
            return None;
        }
    }
    // No reject row (yet): half-drawn or not a box.
    None
}

fn line(area: &[BoxLine], grammar: &PromptGrammar) -> Option<(Vec<Cell>, usize)> {
    let at = area
        .iter()
        .position(|line| !super::may_precede_rows(line, grammar))?;
    let line = &area[at];
    let text = line.text();
    let spans = split(text, grammar);
    let mut cells = Vec::new();
    let mut widest_gap = 0;
    for (index, span) in spans.iter().enumerate() {
        let cell = cell(&text[span.clone()], line, grammar)?;
        let last = cell.row == Row::Reject;
        cells.push(cell);
        let gap_after = spans
            .get(index + 1)
            .map(|next| text[span.end..next.start].chars().count());
        if last {
            // Anything after the reject cell must stand further off than
            // the rows stand from each other.
            return match gap_after {
                Some(gap) if gap <= widest_gap => None,
                _ => Some((cells, at)),
            };
        }
        widest_gap = widest_gap.max(gap_after.unwrap_or(0));
    }
    None
}

/// Whether the lines after the reject row (up to the box's end) may
/// stand there: with `rows.numbered`, none reads as a numbered row (a
/// box drawn alike with one more row is another box); with `rows.after`,
/// each that is not blank or skipped matches one of its patterns.
pub fn after_ok(after: &[BoxLine], grammar: &PromptGrammar) -> bool {
    let rows = &grammar.rows;
    after.iter().all(|line| {
        let text = line.text();
        let numbered_row = rows.numbered && numbered(unmarked(text, &rows.focus)).is_some();
        let footer = rows.after.is_empty()
            || grammar.is_skipped(text)
            || rows.after.iter().any(|pattern| pattern.matches(text));
        !numbered_row && footer
    })
}

/// `text` without the focus marker before it.
fn unmarked<'a>(text: &'a str, focus: &Focus) -> &'a str {
    match focus {
        Focus::Marker(marker) => text
            .strip_prefix(marker.as_str())
            .map_or(text, str::trim_start),
        _ => text,
    }
}

/// `N. label` → (N, label).
fn numbered(text: &str) -> Option<(usize, &str)> {
    let digits = text.chars().take_while(char::is_ascii_digit).count();
    let after = text[digits..].strip_prefix(". ")?;
    Some((text[..digits].parse::<usize>().ok()?, after.trim_start()))
}

/// The byte ranges of `text`'s cells: the pieces between separators.
fn split(text: &str, grammar: &PromptGrammar) -> Vec<Range<usize>> {
    static TWO_SPACES: LazyLock<Option<regex::Regex>> =
        LazyLock::new(|| regex::Regex::new(" {2,}").ok());
    let separator = match (&grammar.rows.separator, TWO_SPACES.as_ref()) {
        (Some(pattern), _) => &pattern.0,
        (None, Some(default)) => default,
        (None, None) => return Vec::new(),
    };
    let mut spans = Vec::new();
    let mut start = 0;
    for found in separator.find_iter(text) {
        if found.start() > start {
            spans.push(start..found.start());
        }
        start = found.end();
    }
    if start < text.len() {
        spans.push(start..text.len());
    }
    spans
        .into_iter()
        .filter(|span| !text[span.clone()].trim().is_empty())
        .collect()
}

/// Reads `text` (a slice of `line`'s text) as a row.
fn cell(text: &str, line: &BoxLine, grammar: &PromptGrammar) -> Option<Cell> {
    let rows = &grammar.rows;
    let text = text.trim();
    let rest = unmarked(text, &rows.focus);
    let marked = rest.len() != text.len();
    let (number, label) = if rows.numbered {
        let (number, label) = numbered(rest)?;
        (Some(number), label)
    } else {
        (None, rest)
    };
    let candidates = std::iter::once((Row::Allow, &rows.allow))
        .chain(
            rows.others
                .iter()
                .enumerate()
                .map(|(i, p)| (Row::Other(i), p)),
        )
        .chain(std::iter::once((Row::Reject, &rows.reject)));
    let mut matching = candidates.filter(|(_, pattern)| pattern.matches(label));
    let (row, _) = matching.next()?;
    if matching.next().is_some() {
        return None;
    }
    Some(Cell {
        row,
        number,
        text: label.to_owned(),
        marked,
        styles: line.line.visible_styles(label),
    })
}

/// Allow first, reject last, other rows between in data order (each once).
fn shape_ok(rows: &[Row]) -> bool {
    let [Row::Allow, between @ .., Row::Reject] = rows else {
        return false;
    };
    let mut last = None;
    between.iter().all(|row| match row {
        Row::Other(index) if last.is_none_or(|last| *index > last) => {
            last = Some(*index);
            true
        }
        _ => false,
    })
}

/// The one focused row, if exactly one shows the focus.
fn focused(cells: &[Cell], focus: &Focus) -> Option<Row> {
    let all = |cell: &Cell, test: &dyn Fn(&Style) -> bool| {
        !cell.styles.is_empty() && cell.styles.iter().all(test)
    };
    let marked: Vec<Row> = match focus {
        Focus::Marker(_) => cells.iter().filter(|c| c.marked).map(|c| c.row).collect(),
        Focus::Reverse => cells
            .iter()
            .filter(|c| all(c, &|s| s.reverse))
            .map(|c| c.row)
            .collect(),
        Focus::Background(Some(colour)) => cells
            .iter()
            .filter(|c| all(c, &|s| s.background == Some(*colour)))
            .map(|c| c.row)
            .collect(),
        Focus::Background(None) => {
            let colours: Vec<Option<Background>> = cells.iter().map(one_background).collect();
            cells
                .iter()
                .zip(&colours)
                .filter(|(_, colour)| {
                    colour.is_some() && colours.iter().filter(|other| other == colour).count() == 1
                })
                .map(|(cell, _)| cell.row)
                .collect()
        }
    };
    match marked.as_slice() {
        [row] => Some(*row),
        _ => None,
    }
}

/// The background every visible character of the row shares, if any.
fn one_background(cell: &Cell) -> Option<Background> {
    let first = cell.styles.first()?.background?;
    cell.styles
        .iter()
        .all(|style| style.background == Some(first))
        .then_some(first)
}
