//! Reading Kiro's approval prompt from a captured pane (SPEC §8.3): the
//! tool line, the option rows and which one holds the focus marker, and
//! whether the tool line matches a request title. The pane is untrusted:
//! nothing here guesses — a prompt that does not read exactly as expected
//! is "not visible".

use crate::adapter::tui_data::PromptLabels;

/// The rows of Kiro's one-time approval prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    Allow,
    Trust,
    Reject,
}

impl Row {
    pub fn label(self, labels: &PromptLabels) -> &str {
        match self {
            Row::Allow => &labels.allow_row,
            Row::Trust => &labels.trust_row,
            Row::Reject => &labels.reject_row,
        }
    }
}

/// A visible approval prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptView {
    /// The nearest non-blank line above the marker line, trimmed.
    pub tool_line: String,
    /// The rows, top to bottom: `Allow`, maybe `Trust`, `Reject`.
    pub rows: Vec<Row>,
    /// The row with the focus marker.
    pub focused: Row,
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
    capture.lines().any(|line| line.contains(&labels.marker))
}

/// Parses the last approval prompt in `capture` (`capture-pane -p -J`).
pub fn parse(capture: &str, labels: &PromptLabels) -> Option<PromptView> {
    let lines: Vec<&str> = capture.lines().collect();
    let marker = lines
        .iter()
        .rposition(|line| line.contains(&labels.marker))?;
    let tool_line = lines[..marker]
        .iter()
        .rev()
        .map(|line| line.trim())
        .find(|line| !line.is_empty())?
        .to_owned();
    let mut rows = Vec::new();
    let mut focused = Vec::new();
    for line in &lines[marker + 1..] {
        let text = line.trim();
        if text.is_empty() {
            break;
        }
        let (has_focus, text) = match text.strip_prefix(labels.focus.as_str()) {
            Some(rest) => (true, rest.trim_start()),
            None => (false, text),
        };
        let Some(row) = [Row::Allow, Row::Trust, Row::Reject]
            .into_iter()
            .find(|row| label_matches(text, row.label(labels)))
        else {
            // The block ends at the first line that is not a row (a border).
            break;
        };
        if has_focus {
            focused.push(row);
        }
        rows.push(row);
    }
    let shape_ok = matches!(
        rows.as_slice(),
        [Row::Allow, Row::Reject] | [Row::Allow, Row::Trust, Row::Reject]
    );
    match (shape_ok, focused.as_slice()) {
        (true, [row]) => Some(PromptView {
            tool_line,
            rows,
            focused: *row,
        }),
        _ => None,
    }
}

/// A row's text starts with its label, followed by nothing or a space (a
/// hint like `(Tab to edit)`): `No` matches `No (Tab to edit)`, not `Nope`.
fn label_matches(text: &str, label: &str) -> bool {
    text.strip_prefix(label)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
}

/// Runs of whitespace collapsed to one space, ends trimmed.
pub fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether the pane's tool line stands for the request `title`:
/// `Running: pwd` ↔ `↓ Shell pwd`, whitespace runs collapsed, compared
/// whole (no loose substring match).
pub fn title_matches(tool_line: &str, title: &str, labels: &PromptLabels) -> bool {
    let mut shown = tool_line.trim();
    for prefix in &labels.tool_line {
        if let Some(rest) = shown.strip_prefix(prefix.trim_end()) {
            shown = rest;
            break;
        }
    }
    let shown = collapse(shown);
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
        assert_eq!(view.rows, [Row::Allow, Row::Trust, Row::Reject]);
        assert_eq!(view.focused, Row::Allow);
        assert_eq!(view.below(Row::Allow), Some(Row::Trust));
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
