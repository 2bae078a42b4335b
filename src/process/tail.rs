//! The last lines a child wrote on stderr, kept for error messages.

use std::collections::VecDeque;

/// How many lines of a child's stderr an error message shows.
pub const TAIL_LINES: usize = 20;
/// Longest kept line; a child cannot grow our memory with one huge line.
const MAX_LINE_CHARS: usize = 2000;

#[derive(Debug, Default)]
pub struct StderrTail {
    lines: VecDeque<String>,
}

impl StderrTail {
    /// Keeps `line`: scrubbed whole first, then sanitized and cut, so the
    /// cut cannot keep a piece of a secret the scrubber would no longer
    /// recognise.
    pub fn push(&mut self, line: &str) {
        let line: String = crate::output::clean(line)
            .chars()
            .take(MAX_LINE_CHARS)
            .collect();
        if self.lines.len() == TAIL_LINES {
            self.lines.pop_front();
        }
        self.lines.push_back(line);
    }

    /// The kept lines, newline-joined (control characters already removed).
    pub fn text(&self) -> String {
        self.lines.iter().cloned().collect::<Vec<_>>().join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_lines_without_control_characters() {
        let mut tail = StderrTail::default();
        for n in 0..30 {
            tail.push(&format!("line {n}\u{1b}[2J"));
        }
        let text = tail.text();
        assert_eq!(text.lines().count(), TAIL_LINES);
        assert!(text.starts_with("line 10"));
        assert!(!text.contains('\u{1b}'));
    }
}
