//! A capture taken with `capture-pane -p -J -e` read into lines of text
//! with each character's style: reverse video and background colour, the
//! two ways a focus shows without a marker. tmux prints only the changes
//! between cells, so a style carries over line ends until it is changed
//! or reset. Every other escape sequence (a foreground colour, bold, a
//! hyperlink) is dropped with its parameters; other control characters
//! are dropped. A capture without escapes reads as plain text with no
//! style.

use crate::adapter::tui_data::Background;

/// The style of one character.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Style {
    pub reverse: bool,
    pub background: Option<Background>,
}

/// One line: its text and the style of each byte of it (a character's
/// bytes share its style), so any `&str` slice of `text` has its styles.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StyledLine {
    pub text: String,
    styles: Vec<Style>,
}

impl StyledLine {
    /// A line with no style (tests, plain captures).
    pub fn plain(text: &str) -> StyledLine {
        StyledLine {
            text: text.to_owned(),
            styles: vec![Style::default(); text.len()],
        }
    }

    fn push(&mut self, c: char, style: Style) {
        self.text.push(c);
        self.styles.extend(std::iter::repeat_n(style, c.len_utf8()));
    }

    /// The styles of `part`, a slice of this line's text (empty when it
    /// is not one).
    pub fn styles_of(&self, part: &str) -> &[Style] {
        let Some(start) = offset_in(&self.text, part) else {
            return &[];
        };
        &self.styles[start..start + part.len()]
    }

    /// The characters of `part` (a slice of this line's text) that are not
    /// white space, with their style.
    pub fn visible_styles(&self, part: &str) -> Vec<Style> {
        let styles = self.styles_of(part);
        if styles.is_empty() {
            return Vec::new();
        }
        part.char_indices()
            .filter(|(_, c)| !c.is_whitespace())
            .map(|(at, _)| styles[at])
            .collect()
    }

    /// The line cut to display columns `[from, to)` (a wide character
    /// that straddles a bound is left out).
    pub fn columns(&self, from: usize, to: usize) -> StyledLine {
        let mut cut = StyledLine::default();
        let mut column = 0;
        for (at, c) in self.text.char_indices() {
            let width = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
            if column >= from && column + width <= to {
                cut.push(c, self.styles[at]);
            }
            column += width;
            if column >= to {
                break;
            }
        }
        cut
    }
}

impl StyledLine {
    /// Whether cutting the line to display columns `[from, to)` goes
    /// through text: a visible character on each side of a bound (or one
    /// straddling it). A cut between words or at blank cells does not.
    pub fn cut_through(&self, from: usize, to: usize) -> bool {
        let mut visible = [false; 4];
        let bounds = [from.checked_sub(1), Some(from), to.checked_sub(1), Some(to)];
        let mut column = 0;
        for c in self.text.chars() {
            let width = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
            if !c.is_whitespace() {
                for (seen, bound) in visible.iter_mut().zip(bounds) {
                    *seen |= bound.is_some_and(|at| (column..column + width).contains(&at));
                }
            }
            column += width;
            if column > to {
                break;
            }
        }
        let [before_from, at_from, before_to, at_to] = visible;
        (before_from && at_from) || (before_to && at_to)
    }
}

/// Where `part` starts inside `whole`, when it is a slice of it.
pub fn offset_in(whole: &str, part: &str) -> Option<usize> {
    let start = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    (start + part.len() <= whole.len()).then_some(start)
}

/// Reads a capture into styled lines.
pub fn read(capture: &str) -> Vec<StyledLine> {
    let mut lines = Vec::new();
    let mut line = StyledLine::default();
    let mut style = Style::default();
    let mut chars = capture.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => lines.push(std::mem::take(&mut line)),
            '\u{1b}' => match chars.peek() {
                Some('[') => {
                    chars.next();
                    let mut params = String::new();
                    let mut last = None;
                    for c in chars.by_ref() {
                        if ('\u{40}'..='\u{7e}').contains(&c) {
                            last = Some(c);
                            break;
                        }
                        params.push(c);
                    }
                    if last == Some('m') {
                        apply_sgr(&mut style, &params);
                    }
                }
                Some(']') => {
                    // OSC (a hyperlink, a title): up to BEL or ESC \.
                    chars.next();
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' {
                            break;
                        }
                        if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                            chars.next();
                            break;
                        }
                    }
                }
                Some(_) => {
                    chars.next();
                }
                None => {}
            },
            c if c.is_control() && c != '\t' => {}
            c => line.push(c, style),
        }
    }
    if !line.text.is_empty() {
        lines.push(line);
    }
    lines
}

/// The capture without its escape sequences: what a text-only reader
/// (the generic detector, the page's pane text) works with.
pub fn plain(capture: &str) -> String {
    if !capture.contains('\u{1b}') {
        return capture.to_owned();
    }
    let mut text = String::with_capacity(capture.len());
    for line in read(capture) {
        text.push_str(&line.text);
        text.push('\n');
    }
    text
}

/// Applies one SGR sequence's parameters (`7`, `27`, `40`–`47`,
/// `100`–`107`, `48;5;n`, `48;2;r;g;b`, `49`, `0`; the rest only skipped
/// over).
fn apply_sgr(style: &mut Style, params: &str) {
    // `:` separates sub-parameters (`48:2::r:g:b`): read as `;`, with an
    // empty colour-space field dropped.
    let normalised = params.replace("::", ":").replace(':', ";");
    let codes: Vec<Option<u16>> = normalised
        .split(';')
        .map(|part| {
            if part.is_empty() {
                Some(0)
            } else {
                part.parse().ok()
            }
        })
        .collect();
    let mut index = 0;
    while index < codes.len() {
        let code = codes[index];
        index += 1;
        match code {
            Some(0) => *style = Style::default(),
            Some(7) => style.reverse = true,
            Some(27) => style.reverse = false,
            Some(code @ 40..=47) => style.background = Some(Background::Basic((code - 40) as u8)),
            Some(code @ 100..=107) => {
                style.background = Some(Background::Basic((code - 100 + 8) as u8));
            }
            Some(49) => style.background = None,
            Some(code @ (38 | 48 | 58)) => {
                let byte = |at: usize| -> Option<u8> {
                    codes
                        .get(at)
                        .copied()
                        .flatten()
                        .and_then(|n| u8::try_from(n).ok())
                };
                let colour = match codes.get(index).copied().flatten() {
                    Some(5) => {
                        let colour = byte(index + 1).map(Background::Indexed);
                        index += 2;
                        colour
                    }
                    Some(2) => {
                        let colour = match (byte(index + 1), byte(index + 2), byte(index + 3)) {
                            (Some(r), Some(g), Some(b)) => Some(Background::Rgb(r, g, b)),
                            _ => None,
                        };
                        index += 4;
                        colour
                    }
                    _ => None,
                };
                if code == 48 {
                    style.background = colour;
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn styles(capture: &str, line: usize, part: &str) -> Vec<Style> {
        let lines = read(capture);
        let line = &lines[line];
        let at = line.text.find(part).expect("part");
        line.visible_styles(&line.text[at..at + part.len()])
    }

    #[test]
    fn reverse_and_backgrounds_are_read_and_reset() {
        let capture = "a \u{1b}[7mon\u{1b}[27m off\n\u{1b}[44mblue\u{1b}[49m no\n\u{1b}[104mbright\u{1b}[0m x\n\u{1b}[48;5;208mi\u{1b}[48;2;250;178;131mrgb\u{1b}[m d\n";
        let on = Style {
            reverse: true,
            background: None,
        };
        assert_eq!(styles(capture, 0, "on"), [on, on]);
        assert_eq!(styles(capture, 0, "off"), [Style::default(); 3]);
        let blue = Style {
            reverse: false,
            background: Some(Background::Basic(4)),
        };
        assert_eq!(styles(capture, 1, "blue"), [blue; 4]);
        assert_eq!(styles(capture, 1, "no"), [Style::default(); 2]);
        assert_eq!(
            styles(capture, 2, "bright")[0].background,
            Some(Background::Basic(12))
        );
        assert_eq!(styles(capture, 2, "x"), [Style::default()]);
        assert_eq!(
            styles(capture, 3, "i")[0].background,
            Some(Background::Indexed(208))
        );
        assert_eq!(
            styles(capture, 3, "rgb")[0].background,
            Some(Background::Rgb(250, 178, 131))
        );
        assert_eq!(styles(capture, 3, "d"), [Style::default()]);
    }

    #[test]
    fn a_style_carries_over_the_line_end_and_foregrounds_do_not_count() {
        // `38;2;…` carries numbers that would read as codes on their own
        // (`7` reverse, `44` blue).
        let capture =
            "\u{1b}[38;2;7;44;100m\u{1b}[48;5;28mfirst\nsecond\u{1b}[49m\n\u{1b}[38;5;7mthird\n";
        let green = Some(Background::Indexed(28));
        assert!(styles(capture, 0, "first")
            .iter()
            .all(|s| s.background == green && !s.reverse));
        assert!(styles(capture, 1, "second")
            .iter()
            .all(|s| s.background == green));
        assert_eq!(styles(capture, 2, "third"), [Style::default(); 5]);
    }

    #[test]
    fn other_escapes_and_controls_are_dropped_from_the_text() {
        let capture =
            "\u{1b}]8;;http://x\u{1b}\\link\u{1b}]8;;\u{7}\u{1b}[1mbold\u{1b}[?25l\u{7}\r ok\n";
        assert_eq!(plain(capture), "linkbold ok\n");
        assert_eq!(plain("no escapes\n"), "no escapes\n");
        let lines = read("one\ntwo");
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[1].text, "two");
    }

    #[test]
    fn columns_are_display_columns() {
        let line = StyledLine::plain("你好 box  | side");
        assert_eq!(line.columns(0, 8).text, "你好 box");
        assert_eq!(
            line.columns(1, 8).text,
            "好 box",
            "a straddling wide char goes"
        );
        assert_eq!(line.columns(10, 100).text, "| side");
    }

    #[test]
    fn a_cut_through_text_is_told_from_one_between_words() {
        let line = StyledLine::plain("ab cd  ef");
        assert!(line.cut_through(0, 4), "c|d");
        assert!(!line.cut_through(0, 5), "cd| ");
        assert!(!line.cut_through(0, 6), " | ");
        assert!(!line.cut_through(0, 2), "ab| ");
        assert!(line.cut_through(1, 9), "a|b");
        assert!(!line.cut_through(3, 9), " |cd");
        assert!(!line.cut_through(0, 100), "past the end");
        let wide = StyledLine::plain("a你b");
        assert!(
            wide.cut_through(0, 2),
            "a wide character straddling the bound"
        );
        assert!(wide.cut_through(0, 3), "你|b");
    }
}
