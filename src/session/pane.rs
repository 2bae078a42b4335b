//! Reading an agent's approval prompt from a captured pane (SPEC §8.3,
//! §11.3) with the grammar of its data file: the question line, the tool
//! line above it, the option rows below it and which one holds the focus
//! marker, and whether the tool line matches a request title. The pane is
//! untrusted: nothing here guesses — a prompt that does not read exactly
//! as expected is "not visible".

use crate::adapter::tui_data::PromptLabels;

/// A row of a one-time approval prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    Allow,
    /// `otherRows[i]` of the data (persistent trust, an editor).
    Other(usize),
    Reject,
}

impl Row {
    pub fn label(self, labels: &PromptLabels) -> &str {
        match self {
            Row::Allow => &labels.allow_row,
            Row::Other(index) => labels.other_rows.get(index).map_or("", String::as_str),
            Row::Reject => &labels.reject_row,
        }
    }
}

/// A visible approval prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptView {
    /// The tool line (the nearest non-blank line above the question, or
    /// the nearest prefixed one inside the frame), trimmed.
    pub tool_line: String,
    /// The question line, trimmed.
    pub question: String,
    /// The command, when a nested box right between the tool line and
    /// the question shows it (its lines joined by a space).
    pub command: Option<String>,
    /// The rows, top to bottom: `Allow`, maybe others, `Reject`.
    pub rows: Vec<Row>,
    /// The row with the focus marker.
    pub focused: Row,
    /// Line indexes (in the capture) of the tool line and the question.
    pub tool_at: usize,
    pub question_at: usize,
}

impl PromptView {
    /// The row below `row`, if any.
    pub fn below(&self, row: Row) -> Option<Row> {
        let index = self.rows.iter().position(|candidate| *candidate == row)?;
        self.rows.get(index + 1).copied()
    }
}

/// Whether any approval prompt is on screen: the pane is busy for text
/// injection.
pub fn approval_visible(capture: &str, labels: &PromptLabels) -> bool {
    capture
        .lines()
        .any(|line| labels.is_question(labels.strip_frame(line).trim()))
}

/// Parses the last approval prompt in `capture` (`capture-pane -p -J`).
pub fn parse(capture: &str, labels: &PromptLabels) -> Option<PromptView> {
    let raw: Vec<&str> = capture.lines().collect();
    let lines: Vec<&str> = raw.iter().map(|line| labels.strip_frame(line)).collect();
    let question_at = lines
        .iter()
        .rposition(|line| labels.is_question(line.trim()))?;
    let tool_at = tool_line_at(&raw, &lines, question_at, labels)?;
    // Rows start right below the question, or within `linesBeforeRows`.
    let first_row = (question_at + 1..=question_at + 1 + labels.lines_before_rows)
        .take_while(|at| *at < lines.len())
        .find(|at| read_row(lines[*at].trim(), labels).is_some())?;
    let mut rows = Vec::new();
    let mut focused = Vec::new();
    for line in &lines[first_row..] {
        let text = line.trim();
        if text.is_empty() {
            break;
        }
        // The block ends at the first line that is not a row (a border).
        let Some((has_focus, number, row)) = read_row(text, labels) else {
            break;
        };
        if number.is_some_and(|number| number != rows.len() + 1) {
            return None;
        }
        if has_focus {
            focused.push(row);
        }
        rows.push(row);
    }
    match (shape_ok(&rows), focused.as_slice()) {
        (true, [row]) => Some(PromptView {
            tool_line: lines[tool_at].trim().to_owned(),
            question: lines[question_at].trim().to_owned(),
            command: command_box(&lines[tool_at + 1..question_at], labels),
            rows,
            focused: *row,
            tool_at,
            question_at,
        }),
        _ => None,
    }
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

/// The tool line's index above the question at `question_at`.
fn tool_line_at(
    raw: &[&str],
    lines: &[&str],
    question_at: usize,
    labels: &PromptLabels,
) -> Option<usize> {
    if !labels.tool_line_prefixed {
        return (0..question_at)
            .rev()
            .find(|at| !lines[*at].trim().is_empty());
    }
    for at in (0..question_at).rev() {
        if labels.is_frame_top(raw[at]) {
            return None;
        }
        let text = lines[at].trim();
        if labels
            .tool_line
            .iter()
            .any(|prefix| text.starts_with(prefix.as_str()))
        {
            return Some(at);
        }
    }
    None
}

/// The command in a nested box that fills `between` (the lines between
/// the tool line and the question) exactly: top, content lines, bottom.
fn command_box(between: &[&str], labels: &PromptLabels) -> Option<String> {
    let frame = labels.frame.as_ref()?;
    let [top, content @ .., bottom] = between else {
        return None;
    };
    let is = |line: &str, mark: &str| line.trim_start().starts_with(mark);
    if !is(top, &frame.top) || !is(bottom, &frame.bottom) || content.is_empty() {
        return None;
    }
    let mut parts = Vec::new();
    for line in content {
        if !is(line, &frame.side) {
            return None;
        }
        parts.push(collapse(labels.strip_frame(line)));
    }
    Some(parts.join(" ")).filter(|command| !command.trim().is_empty())
}

/// A card's title for a prompt read from the pane: the command when its
/// box shows it, else the tool line without its prefix.
pub fn card_title(view: &PromptView, labels: &PromptLabels) -> String {
    match &view.command {
        Some(command) => collapse(command),
        None => tool_title(&view.tool_line, labels),
    }
}

/// Whether the prompt on screen is the one titled `title`: its command
/// when its box shows one, else its tool line ([`title_matches`]).
pub fn view_matches(view: &PromptView, title: &str, labels: &PromptLabels) -> bool {
    match &view.command {
        Some(command) => collapse(command) == collapse(title),
        None => title_matches(&view.tool_line, title, labels),
    }
}

/// A row: (has the focus marker, its number if rows are numbered, which).
fn read_row(text: &str, labels: &PromptLabels) -> Option<(bool, Option<usize>, Row)> {
    let (has_focus, text) = match text.strip_prefix(labels.focus.as_str()) {
        Some(rest) => (true, rest.trim_start()),
        None => (false, text),
    };
    let (number, text) = if labels.numbered_rows {
        let digits = text.chars().take_while(char::is_ascii_digit).count();
        let rest = text[digits..].strip_prefix(". ")?;
        (
            Some(text[..digits].parse::<usize>().ok()?),
            rest.trim_start(),
        )
    } else {
        (None, text)
    };
    let others = (0..labels.other_rows.len()).map(Row::Other);
    let row = std::iter::once(Row::Allow)
        .chain(others)
        .chain(std::iter::once(Row::Reject))
        .find(|row| label_matches(text, row.label(labels)))?;
    Some((has_focus, number, row))
}

/// A row's text starts with its label, followed by nothing or a space (a
/// hint like `(Tab to edit)`): `No` matches `No (Tab to edit)`, not `Nope`.
fn label_matches(text: &str, label: &str) -> bool {
    !label.is_empty()
        && text
            .strip_prefix(label)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
}

/// Runs of whitespace collapsed to one space, ends trimmed.
pub fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The tool line without its prefix (`↓ `, `? `), whitespace collapsed:
/// the title of a card read from the pane.
pub fn tool_title(tool_line: &str, labels: &PromptLabels) -> String {
    let mut shown = tool_line.trim();
    for prefix in &labels.tool_line {
        if let Some(rest) = shown.strip_prefix(prefix.trim_end()) {
            shown = rest;
            break;
        }
    }
    collapse(shown)
}

/// Whether the pane's tool line stands for the request `title`:
/// `Running: pwd` ↔ `↓ Shell pwd`, whitespace runs collapsed, compared
/// whole (no loose substring match).
pub fn title_matches(tool_line: &str, title: &str, labels: &PromptLabels) -> bool {
    let shown = tool_title(tool_line, labels);
    let title = collapse(title);
    if shown == title {
        return true;
    }
    labels.title_prefixes.iter().any(|(recorded, displayed)| {
        match title.strip_prefix(recorded.trim_end()) {
            Some(rest) => shown == collapse(&format!("{displayed}{rest}")),
            None => false,
        }
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub fn labels() -> PromptLabels {
        crate::adapter::data::AdapterData::builtin()
            .expect("data")
            .tui
            .prompt
    }

    /// The prompt of SPEC §8.3, focus on `focus` (0-based row).
    pub fn kiro_prompt(tool: &str, trust: bool, focus: usize) -> String {
        let mut rows = vec!["Yes, single permission"];
        if trust {
            rows.push("Trust, always allow in this session");
        }
        rows.push("No (Tab to edit)");
        let mut text = format!(
            "────────────────────────────────────────\n↓ {tool}\n\n shell requires approval\n"
        );
        for (index, row) in rows.iter().enumerate() {
            let marker = if index == focus { "❯" } else { " " };
            text.push_str(&format!(" {marker} {row}\n"));
        }
        text.push_str("────────────────────────────────────────\nESC to close · Tab to edit\n");
        text
    }

    #[test]
    fn the_spec_prompt_parses_with_and_without_the_trust_row() {
        let view = parse(&kiro_prompt("Shell pwd", true, 0), &labels()).expect("prompt");
        assert_eq!(view.tool_line, "↓ Shell pwd");
        assert_eq!(view.rows, [Row::Allow, Row::Other(0), Row::Reject]);
        assert_eq!(view.focused, Row::Allow);
        assert_eq!(view.below(Row::Allow), Some(Row::Other(0)));
        let view = parse(&kiro_prompt("Shell pwd", false, 1), &labels()).expect("prompt");
        assert_eq!(view.rows, [Row::Allow, Row::Reject]);
        assert_eq!(view.focused, Row::Reject);
    }

    #[test]
    fn an_unclear_prompt_is_not_visible() {
        let labels = labels();
        // No focus marker, two markers, missing reject row, foreign rows.
        let none = kiro_prompt("Shell pwd", true, 9);
        assert_eq!(parse(&none, &labels), None);
        let two = kiro_prompt("Shell pwd", true, 0).replace("   Trust", " ❯ Trust");
        assert_eq!(parse(&two, &labels), None);
        let no_reject = kiro_prompt("Shell pwd", true, 0).replace("No (Tab", "Nope (Tab");
        assert_eq!(parse(&no_reject, &labels), None);
        assert_eq!(parse("plain shell output\n$ ls\n", &labels), None);
        assert!(!approval_visible("plain shell output", &labels));
        assert!(
            approval_visible(&none, &labels),
            "busy even when unparsable"
        );
    }

    #[test]
    fn titles_match_whole_with_whitespace_collapsed() {
        let labels = labels();
        assert!(title_matches("↓ Shell pwd", "Running: pwd", &labels));
        assert!(title_matches(
            "↓ Shell  ls   -la",
            "Running: ls -la",
            &labels
        ));
        assert!(title_matches(
            "Reading file.txt",
            "Reading file.txt",
            &labels
        ));
        assert!(!title_matches("↓ Shell pwd", "Running: pw", &labels));
        assert!(!title_matches(
            "↓ Shell pwd; rm -rf /",
            "Running: pwd",
            &labels
        ));
        assert!(!title_matches("↓ Shell rm -rf /", "Running: rm", &labels));
        assert!(!title_matches("↓ Shell pwd", "Running: pwdx", &labels));
    }

    #[test]
    fn a_cjk_title_and_a_long_joined_line_match() {
        let labels = labels();
        assert!(title_matches(
            "↓ Shell echo 你好 世界",
            "Running: echo 你好 世界",
            &labels
        ));
        let long = format!("echo {}", "x".repeat(300));
        let prompt = kiro_prompt(&format!("Shell {long}"), true, 0);
        let view = parse(&prompt, &labels).expect("prompt");
        assert!(title_matches(
            &view.tool_line,
            &format!("Running: {long}"),
            &labels
        ));
    }
}

#[cfg(test)]
#[path = "pane_gemini_tests.rs"]
pub(crate) mod gemini_tests;
