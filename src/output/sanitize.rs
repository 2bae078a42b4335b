//! Outside text made safe for a terminal or a record: control
//! characters other than newline and tab are replaced, so manifest fields,
//! probe output, agent messages and pane text cannot move the cursor, set
//! the title or clear the screen; bidirectional controls are replaced too,
//! so a tool title cannot show its characters in another order than the
//! one the agent will act on. A leaf module: anything may use it.

use std::borrow::Cow;

/// What a control character is shown as.
const REPLACEMENT: char = '\u{FFFD}';

/// Bidirectional formatting characters: embeddings and overrides
/// (U+202A–U+202E), isolates (U+2066–U+2069) and the implicit marks
/// (U+200E, U+200F, U+061C).
fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}'
    )
}

/// `text` with every control character but `\n` and `\t` replaced (ESC,
/// BEL, CR, DEL, C1 controls, bidirectional controls).
pub fn sanitize(text: &str) -> Cow<'_, str> {
    replace_where(text, |c| {
        (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c)
    })
}

/// One line of outside text: newlines and tabs are replaced too.
pub fn sanitize_line(text: &str) -> Cow<'_, str> {
    replace_where(text, |c| c.is_control() || is_bidi_control(c))
}

fn replace_where(text: &str, unsafe_char: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(&unsafe_char) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| if unsafe_char(c) { REPLACEMENT } else { c })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_replaced_but_newline_and_tab_kept() {
        let text = "a\u{1b}[31mred\u{1b}]0;title\u{7}\u{1b}[2J\r\u{9b}b\tc\nd";
        assert_eq!(
            sanitize(text),
            "a\u{fffd}[31mred\u{fffd}]0;title\u{fffd}\u{fffd}[2J\u{fffd}\u{fffd}b\tc\nd"
        );
        assert!(matches!(sanitize("plain\ttext\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn bidirectional_controls_are_replaced() {
        let text = "a\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}\u{2066}\u{2067}\u{2068}\u{2069}\u{200E}\u{200F}\u{061C}b";
        let expected = format!("a{}b", "\u{FFFD}".repeat(12));
        assert_eq!(sanitize(text), expected);
        assert_eq!(sanitize_line(text), expected);
        // Neighbours that are not controls stay.
        assert!(matches!(
            sanitize("\u{2029}\u{2065}\u{206A}\u{200D}\u{202F}"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn one_line_loses_its_newlines_and_tabs_too() {
        assert_eq!(
            sanitize_line("a\nb\u{9b}c\td"),
            "a\u{FFFD}b\u{FFFD}c\u{FFFD}d"
        );
        assert!(matches!(sanitize_line("plain"), Cow::Borrowed("plain")));
    }
}
