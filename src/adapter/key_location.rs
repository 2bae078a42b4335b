//! Where a key path (`acp.command[0].since`) sits in an adapter data
//! file's text, so a problem [`super::validate`] finds points at its line
//! and column as a parse error would. Found by indentation: adapter files
//! are written in block style.

/// One meaningful line of the file; a `- key: x` line is also a key line
/// two columns deeper (the item's first key).
struct KeyLine<'a> {
    line: usize,
    indent: usize,
    content: &'a str,
    dash: bool,
}

/// One step of a key path: a map key or a list index.
enum Segment {
    Key(String),
    Index(usize),
}

/// The 1-based line and column of key path `key` (`a.b[2].c`) in the YAML
/// `text`; `None` when it cannot be found. The deepest segment found
/// counts: a missing last key still points at its parent.
pub fn locate(text: &str, key: &str) -> Option<(usize, usize)> {
    let entries = entries(text);
    let (mut low, mut high) = (0, entries.len());
    let mut parent: Option<usize> = None;
    let mut found = None;
    for segment in segments(key) {
        let window = &entries[low..high];
        let Some(at) = find(window, parent, &segment) else {
            break;
        };
        let entry = &window[at];
        let indent = entry.indent;
        found = Some((entry.line + 1, indent + 1));
        // The next segment is looked for among this entry's children: the
        // lines after it up to the next one as shallow.
        let begin = low + at + 1;
        high = entries[begin..high]
            .iter()
            .position(|later| later.indent <= indent && later.line != entry.line)
            .map_or(high, |end| begin + end);
        low = begin;
        parent = Some(indent);
    }
    found
}

/// Every line that is neither blank nor a comment, a list item's line
/// twice (the dash, then its first key).
fn entries(text: &str) -> Vec<KeyLine<'_>> {
    let mut entries = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let content = line.trim_start();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let indent = line.len() - content.len();
        let Some(rest) = content
            .strip_prefix("- ")
            .or((content == "-").then_some(""))
        else {
            entries.push(KeyLine {
                line: number,
                indent,
                content,
                dash: false,
            });
            continue;
        };
        entries.push(KeyLine {
            line: number,
            indent,
            content,
            dash: true,
        });
        let rest_trimmed = rest.trim_start();
        if !rest_trimmed.is_empty() {
            entries.push(KeyLine {
                line: number,
                indent: indent + 2 + (rest.len() - rest_trimmed.len()),
                content: rest_trimmed,
                dash: false,
            });
        }
    }
    entries
}

/// The position in `window` of `segment` among the direct children of the
/// entry indented at `parent` (the shallowest entries below it).
fn find(window: &[KeyLine<'_>], parent: Option<usize>, segment: &Segment) -> Option<usize> {
    let dash = matches!(segment, Segment::Index(_));
    let child = window
        .iter()
        .filter(|entry| parent.is_none_or(|parent| entry.indent > parent))
        .filter(|entry| entry.dash == dash)
        .map(|entry| entry.indent)
        .min();
    let children = window
        .iter()
        .enumerate()
        .filter(|(_, entry)| entry.dash == dash && Some(entry.indent) == child);
    match segment {
        Segment::Key(name) => children
            .filter(|(_, entry)| {
                [name.clone(), format!("\"{name}\""), format!("'{name}'")]
                    .iter()
                    .any(|spelled| {
                        entry
                            .content
                            .strip_prefix(spelled.as_str())
                            .is_some_and(|rest| rest.starts_with(':'))
                    })
            })
            .map(|(at, _)| at)
            .next(),
        Segment::Index(wanted) => children.map(|(at, _)| at).nth(*wanted),
    }
}

/// `a.b[2].c` as its steps.
fn segments(key: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    for part in key.split('.') {
        let (name, mut rest) = match part.find('[') {
            Some(at) => (&part[..at], &part[at..]),
            None => (part, ""),
        };
        if !name.is_empty() {
            out.push(Segment::Key(name.to_owned()));
        }
        while let Some(close) = rest.find(']') {
            if let Ok(index) = rest[1..close].parse() {
                out.push(Segment::Index(index));
            }
            rest = &rest[close + 1..];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "id: x
acp:
  # comment
  command:
    - since: \"0.33.0\"
      args: [\"--acp\"]
    - args: [\"--experimental-acp\"]
  quirks: none
tui:
  recorderSince: \"2.4.0\"
";

    #[test]
    fn key_paths_are_located_by_indentation() {
        assert_eq!(locate(TEXT, "acp.quirks"), Some((8, 3)));
        assert_eq!(locate(TEXT, "acp.command[0].since"), Some((5, 7)));
        assert_eq!(locate(TEXT, "acp.command[1].args"), Some((7, 7)));
        assert_eq!(locate(TEXT, "tui.recorderSince"), Some((10, 3)));
        // A key the parent does not hold points at the parent.
        assert_eq!(locate(TEXT, "tui.nothing"), Some((9, 1)));
        assert_eq!(locate(TEXT, "missing"), None);
    }
}
