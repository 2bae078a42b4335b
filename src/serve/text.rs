//! Outside text on its way to the page.

/// Outside text for the page: scrubbed (§6.2), control and bidirectional
/// characters stripped (newline and tab kept). The template escapes it.
pub fn web_text(text: &str) -> String {
    crate::output::scrub(text)
        .chars()
        .filter(|&c| (!c.is_control() || c == '\n' || c == '\t') && !is_bidi(c))
        .collect()
}

fn is_bidi(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    #[test]
    fn web_text_strips_controls_and_bidi_but_keeps_lines() {
        let text = "a\u{1b}[31mb\u{202e}c\u{2066}d\ne\tf";
        assert_eq!(super::web_text(text), "a[31mbcd\ne\tf");
    }
}
