//! The globs of a permission policy, small on purpose: `*`
//! (any run of characters), `?` (one character) and `\` (the next
//! character as itself); everything else, `[`, `{` and `,` included, is
//! itself — a command or a title is full of brackets, and a list of globs
//! already says "any of". Over a path (`path:`), `*` and `?` stay within
//! one folder and `**` crosses folders (`docs/**`, `**/.env`); over text
//! (`command:`, `title:`), `*` matches anything, `/` and line breaks too.
//!
//! A glob becomes an anchored regex: `regex` is already a dependency and
//! matches in linear time, so no glob makes a match slow.

use std::fmt;

/// What a glob runs over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GlobOver {
    /// A command or a title: `*` crosses everything.
    Text,
    /// A path: `*` and `?` stay within a folder, `**` crosses folders.
    Path,
}

/// A glob, compiled; it keeps the text it was written as.
#[derive(Clone)]
pub struct Glob {
    written: String,
    regex: regex::Regex,
}

impl fmt::Debug for Glob {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.debug_tuple("Glob").field(&self.written).finish()
    }
}

impl PartialEq for Glob {
    fn eq(&self, other: &Self) -> bool {
        self.written == other.written
    }
}

/// Why a glob cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GlobError {
    #[error("an empty glob matches nothing")]
    Empty,
    #[error("the glob ends with `\\`, which escapes nothing")]
    TrailingEscape,
    #[error("the glob is too large to match")]
    TooLarge,
}

impl Glob {
    pub fn new(written: &str, over: GlobOver) -> Result<Self, GlobError> {
        if written.is_empty() {
            return Err(GlobError::Empty);
        }
        let pattern = translate(written, over)?;
        let regex = regex::RegexBuilder::new(&pattern)
            .size_limit(1 << 20)
            .build()
            .map_err(|_| GlobError::TooLarge)?;
        Ok(Self {
            written: written.to_owned(),
            regex,
        })
    }

    /// The glob as written.
    pub fn as_str(&self) -> &str {
        &self.written
    }

    /// Whether the whole of `text` matches.
    pub fn is_match(&self, text: &str) -> bool {
        self.regex.is_match(text)
    }
}

/// The anchored regex of `glob`.
fn translate(glob: &str, over: GlobOver) -> Result<String, GlobError> {
    let (any, one) = match over {
        GlobOver::Text => (".*", "."),
        GlobOver::Path => ("[^/]*", "[^/]"),
    };
    let mut pattern = String::from("(?s)^");
    let mut chars = glob.chars().peekable();
    // Whether the last thing written ends a folder (or starts the glob):
    // only there does `**/` stand for "any folders, or none".
    let mut at_folder_start = true;
    while let Some(c) = chars.next() {
        match c {
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
                while chars.peek() == Some(&'*') {
                    chars.next();
                }
                if over == GlobOver::Path && at_folder_start && chars.peek() == Some(&'/') {
                    chars.next();
                    pattern.push_str("(?:.*/)?");
                    continue;
                }
                pattern.push_str(".*");
            }
            '*' => pattern.push_str(any),
            '?' => pattern.push_str(one),
            '\\' => {
                let escaped = chars.next().ok_or(GlobError::TrailingEscape)?;
                pattern.push_str(&regex::escape(escaped.encode_utf8(&mut [0; 4])));
            }
            other => pattern.push_str(&regex::escape(other.encode_utf8(&mut [0; 4]))),
        }
        at_folder_start = c == '/';
    }
    pattern.push('$');
    Ok(pattern)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(glob: &str) -> Glob {
        Glob::new(glob, GlobOver::Text).expect("a glob")
    }

    fn path(glob: &str) -> Glob {
        Glob::new(glob, GlobOver::Path).expect("a glob")
    }

    #[test]
    fn over_text_a_star_matches_anything_and_the_rest_is_literal() {
        let rm = text("rm *");
        assert!(rm.is_match("rm -rf /tmp/x"));
        assert!(rm.is_match("rm \n/etc"), "a line break too");
        assert!(!rm.is_match("echo; rm x"), "anchored at the start");
        assert!(!rm.is_match("rm"), "the space is literal");
        let pipe = text("curl * | sh");
        assert!(pipe.is_match("curl https://x.example/a.sh | sh"));
        assert!(!pipe.is_match("curl https://x.example/a.sh | sh -s"));
        assert!(text("Edit ?.md").is_match("Edit a.md"));
        assert!(!text("Edit ?.md").is_match("Edit ab.md"));
        for literal in ["test [ -f x ]", "a{b,c}", "x.y+z(1)|^$"] {
            assert!(text(literal).is_match(literal), "{literal}");
        }
        assert!(!text("a{b,c}").is_match("ab"));
        assert!(text("ls \\*").is_match("ls *"));
        assert!(!text("ls \\*").is_match("ls a"));
        assert!(text("Edit").is_match("Edit") && !text("Edit").is_match("edit"));
    }

    #[test]
    fn over_paths_a_star_stays_in_its_folder_and_two_cross_folders() {
        let docs = path("docs/*.md");
        assert!(docs.is_match("docs/a.md"));
        assert!(!docs.is_match("docs/x/a.md"));
        let deep = path("docs/**");
        assert!(deep.is_match("docs/a.md") && deep.is_match("docs/x/y/z.rs"));
        assert!(!deep.is_match("docs") && !deep.is_match("src/docs/a"));
        let anywhere = path("**/.env");
        assert!(anywhere.is_match(".env"), "`**/` may be no folder at all");
        assert!(anywhere.is_match("a/b/.env"));
        assert!(!anywhere.is_match("a/b/x.env"));
        let middle = path("src/**/mod.rs");
        assert!(middle.is_match("src/mod.rs") && middle.is_match("src/a/b/mod.rs"));
        assert!(!path("?").is_match("/"));
        assert!(path("/etc/**").is_match("/etc/passwd"));
    }

    #[test]
    fn bad_globs_are_refused() {
        assert_eq!(Glob::new("", GlobOver::Text).err(), Some(GlobError::Empty));
        assert_eq!(
            Glob::new("rm \\", GlobOver::Text).err(),
            Some(GlobError::TrailingEscape)
        );
        assert_eq!(text("a\\\\").as_str(), "a\\\\");
        assert!(text("a\\\\").is_match("a\\"));
    }
}
