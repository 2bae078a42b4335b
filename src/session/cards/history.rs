//! A session's `cards.jsonl`: each change of a card appended (0600, never
//! through a link), and read back — each card's last recorded state, for
//! `session approvals` when the supervisor is not running or does not
//! answer. Read line by line with a bound, so a damaged or huge file
//! cannot grow memory by more than its distinct cards.

use std::path::Path;

use crate::process::lines::{BlockingLines, Line};
use crate::session::cards::Card;

/// The longest line read (a card is a few KiB at most); longer ones and
/// lines that are not cards are skipped.
const MAX_LINE: usize = 64 * 1024;

/// Each card's last recorded state, in the order the cards were opened;
/// `None` when there is no history to read: missing, or not a regular
/// file reached without a link below `project` (a FIFO is refused, not
/// waited on).
pub fn read(project: &Path, path: &Path) -> Option<Vec<Card>> {
    let file = crate::fs_safety::open_regular_file_beneath(project, path).ok()?;
    let mut lines = BlockingLines::new(file, MAX_LINE);
    let mut cards: Vec<Card> = Vec::new();
    while let Ok(Some(line)) = lines.next_line() {
        let Line::Text(bytes) = line else { continue };
        let Ok(card) = serde_json::from_slice::<Card>(&bytes) else {
            continue;
        };
        match cards.iter_mut().find(|known| known.id == card.id) {
            Some(known) => *known = card,
            None => cards.push(card),
        }
    }
    Some(cards)
}

/// Appends `card` as one line.
pub fn append(path: &Path, card: &Card) -> std::io::Result<()> {
    use std::io::Write;
    let mut line = serde_json::to_string(card).map_err(std::io::Error::other)?;
    line.push('\n');
    let mut file = crate::fs_safety::open_private(path, crate::fs_safety::PrivateOpen::Append)?;
    file.write_all(line.as_bytes())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // fixtures use std::fs directly

    use super::*;

    #[test]
    fn the_last_state_of_each_card_wins_and_junk_is_skipped() {
        let temp = tempfile::tempdir().expect("tempdir");
        let path = temp.path().join("cards.jsonl");
        let card = |id: &str, state: &str| {
            format!(
                r#"{{"id":"{id}","title":"Running: pwd","state":"{state}","created_at":"2026-01-01T00:00:00Z"}}"#
            )
        };
        let text = [
            card("a", "pending"),
            "garbage".to_owned(),
            card("b", "pending"),
            "x".repeat(MAX_LINE + 1),
            card("a", "accepted"),
        ]
        .join("\n");
        std::fs::write(&path, text).expect("write");
        let cards = read(temp.path(), &path).expect("history");
        let states: Vec<(&str, &str)> = cards
            .iter()
            .map(|card| (card.id.as_str(), card.state.as_str()))
            .collect();
        assert_eq!(states, [("a", "accepted"), ("b", "pending")]);
        assert!(read(temp.path(), &temp.path().join("missing.jsonl")).is_none());
    }
}
