//! One name per concept: under `src/`, outside tests,
//! no type name (struct, enum, trait, type alias, union) and no module
//! name is defined twice, and no `pub use … as …` gives an item a second
//! name. Two rules, not names, allow a module name twice:
//!
//! - a subsystem's errors live in its `error` module (`install::error`,
//!   `launch::error`, …);
//! - a module of `commands/` is named after the subcommand it implements
//!   (a variant of a clap `Subcommand` enum in `cli.rs`: `commands::config`
//!   beside `config`, `commands::session` beside `session`).
//!
//! Tests are exempt: an item under `#[cfg(test)]`, a module named `tests`
//! or `*_tests` and the files under it, and the test-double binaries under
//! `src/bin/`. The scan reads text the way `layers.rs` does: comments and
//! literals blanked, a type's associated types (`type Err = …` in an
//! `impl` or a `trait`) not definitions.

use super::src;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `text` with comments and the insides of string and char literals
/// replaced by spaces (newlines kept), so braces and keywords in them do
/// not count.
fn blank(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut index = 0;
    let keep_lines = |character: char| if character == '\n' { '\n' } else { ' ' };
    while index < chars.len() {
        let rest = &chars[index..];
        let next = |offset: usize| rest.get(offset).copied();
        if rest.starts_with(&['/', '/']) {
            while index < chars.len() && chars[index] != '\n' {
                out.push(' ');
                index += 1;
            }
        } else if rest.starts_with(&['/', '*']) {
            let mut depth = 0usize;
            loop {
                let here = &chars[index..];
                if here.starts_with(&['/', '*']) {
                    depth += 1;
                    out.push_str("  ");
                    index += 2;
                } else if here.starts_with(&['*', '/']) {
                    depth -= 1;
                    out.push_str("  ");
                    index += 2;
                    if depth == 0 {
                        break;
                    }
                } else if let Some(&character) = here.first() {
                    out.push(keep_lines(character));
                    index += 1;
                } else {
                    break;
                }
            }
        } else if next(0) == Some('r')
            && matches!(next(1), Some('"' | '#'))
            && !chars[..index]
                .last()
                .is_some_and(|c| c.is_alphanumeric() || *c == '_')
        {
            let hashes = rest[1..].iter().take_while(|c| **c == '#').count();
            if next(1 + hashes) != Some('"') {
                out.push('r');
                index += 1;
                continue;
            }
            let close: Vec<char> = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            out.push('"');
            index += 2 + hashes;
            while index < chars.len() && !chars[index..].starts_with(&close) {
                out.push(keep_lines(chars[index]));
                index += 1;
            }
            out.push('"');
            index = (index + close.len()).min(chars.len());
        } else if next(0) == Some('"') {
            out.push('"');
            index += 1;
            while index < chars.len() && chars[index] != '"' {
                let step = if chars[index] == '\\' { 2 } else { 1 };
                for _ in 0..step.min(chars.len() - index) {
                    out.push(keep_lines(chars[index]));
                    index += 1;
                }
            }
            out.push('"');
            index += 1;
        } else if next(0) == Some('\'') && (next(1) == Some('\\') || next(2) == Some('\'')) {
            // A char literal (a lifetime is `'a` with no closing quote).
            out.push('\'');
            index += 1;
            while index < chars.len() && chars[index] != '\'' {
                let step = if chars[index] == '\\' { 2 } else { 1 };
                for _ in 0..step.min(chars.len() - index) {
                    out.push(' ');
                    index += 1;
                }
            }
            out.push('\'');
            index += 1;
        } else {
            out.push(chars[index]);
            index += 1;
        }
    }
    out
}

/// The index just past the item that starts at `start`: its `;`, or the
/// brace that closes its body.
fn item_end(code: &[u8], start: usize) -> usize {
    let mut index = start;
    let mut nesting = 0usize;
    while index < code.len() {
        match code[index] {
            b'(' | b'[' => nesting += 1,
            b')' | b']' => nesting = nesting.saturating_sub(1),
            b';' if nesting == 0 => return index + 1,
            b'{' if nesting == 0 => return closing_brace(code, index) + 1,
            _ => {}
        }
        index += 1;
    }
    code.len()
}

/// The index of the brace that closes the one at `open`.
fn closing_brace(code: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    for (index, byte) in code.iter().enumerate().skip(open) {
        match byte {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return index;
                }
            }
            _ => {}
        }
    }
    code.len().saturating_sub(1)
}

/// Blanked code with every `#[cfg(test)]` item (its attributes, its
/// body) replaced by spaces.
fn without_test_items(code: &str) -> String {
    let mut bytes = code.as_bytes().to_vec();
    let attribute = regex::Regex::new(r"#\[cfg\(test\)\]").expect("regex");
    let more = regex::Regex::new(r"^\s*#\[[^\]]*\]").expect("regex");
    for found in attribute.find_iter(code) {
        let mut start = found.end();
        while let Some(next) = more.find(&code[start..]) {
            start += next.end();
        }
        let end = item_end(code.as_bytes(), start);
        for byte in &mut bytes[found.start()..end] {
            if *byte != b'\n' {
                *byte = b' ';
            }
        }
    }
    String::from_utf8(bytes).expect("blanked ASCII in place of ASCII")
}

/// Whether `name` is a test module's: `tests` or `*_tests`.
fn is_test_name(name: &str) -> bool {
    name == "tests" || name.ends_with("_tests")
}

/// A name defined in a file: what it names, where.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Definition {
    kind: &'static str,
    name: String,
    /// The module it is declared in (`""` for the crate root).
    parent: String,
    at: String,
}

/// Adds the definitions in one file's code (tests removed) of `module` to
/// `found`; returns its `mod x;` declarations as (their module, `x`).
fn definitions(
    code: &str,
    file: &str,
    module: &str,
    found: &mut Vec<Definition>,
) -> Vec<(String, String)> {
    let item = regex::Regex::new(
        r"\b(mod|struct|enum|trait|type|union)\s+([A-Za-z_]\w*)\s*([;{<(=:]|where\b)?",
    )
    .expect("regex");
    let opener = regex::Regex::new(
        r"^\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+)?(?:auto\s+)?(impl|trait)\b",
    )
    .expect("regex");
    let bytes = code.as_bytes();
    // Every `{ … }` and whether its direct items are associated items
    // (an `impl` or a `trait` body); every inline `mod x { … }`.
    let mut spans = Vec::new();
    let mut inline_modules: Vec<(usize, usize, String)> = Vec::new();
    let mut boundary = 0;
    for (index, byte) in bytes.iter().enumerate() {
        match byte {
            b'{' => {
                let associated = opener.is_match(&code[boundary..index]);
                spans.push((index, closing_brace(bytes, index), associated));
                boundary = index + 1;
            }
            b';' | b'}' => boundary = index + 1,
            _ => {}
        }
    }
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    let mut children = Vec::new();
    for capture in item.captures_iter(code) {
        let whole = capture.get(0).expect("match");
        let at = whole.start();
        let innermost = spans
            .iter()
            .filter(|(open, close, _)| *open < at && at < *close)
            .max_by_key(|(open, ..)| *open);
        if innermost.is_some_and(|(.., associated)| *associated) {
            continue;
        }
        let kind = &capture[1];
        let name = capture[2].to_owned();
        let parent = inline_modules
            .iter()
            .filter(|(open, close, _)| *open < at && at < *close)
            .max_by_key(|(open, ..)| *open)
            .map_or_else(|| module.to_owned(), |(_, _, path)| path.clone());
        let place = format!("{file}:{}", line_of(at));
        if kind == "mod" {
            let path = if parent.is_empty() {
                name.clone()
            } else {
                format!("{parent}::{name}")
            };
            match capture.get(3).map(|end| end.as_str()) {
                Some(";") => children.push((parent.clone(), name.clone())),
                Some("{") => {
                    let open = whole.end() - 1;
                    inline_modules.push((open, closing_brace(bytes, open), path));
                }
                _ => continue,
            }
            if is_test_name(&name) {
                continue;
            }
        } else if !name.starts_with(|c: char| c.is_ascii_uppercase()) {
            continue;
        }
        found.push(Definition {
            kind: if kind == "mod" { "module" } else { "type" },
            name,
            parent,
            at: place,
        });
    }
    children
}

/// The file of module `name` declared in `file` (module path `parent`).
fn child_file(src: &Path, file: &Path, name: &str) -> Option<PathBuf> {
    let stem = file.file_stem().and_then(|stem| stem.to_str())?;
    let dir = file.parent()?;
    let dir = if matches!(stem, "mod" | "lib" | "main") {
        dir.to_path_buf()
    } else {
        dir.join(stem)
    };
    [
        dir.join(format!("{name}.rs")),
        dir.join(name).join("mod.rs"),
    ]
    .into_iter()
    .find(|path| path.starts_with(src) && path.is_file())
}

/// Every name defined outside tests in the crate under `src`, walking
/// the module tree from `lib.rs` and `main.rs` (so a file only a test
/// module declares is not read).
fn crate_definitions(src: &Path) -> Vec<Definition> {
    let mut found = Vec::new();
    let mut queue: Vec<(PathBuf, String)> = ["lib.rs", "main.rs"]
        .iter()
        .map(|root| (src.join(root), String::new()))
        .filter(|(path, _)| path.is_file())
        .collect();
    while let Some((file, module)) = queue.pop() {
        let text = std::fs::read_to_string(&file).expect("read source");
        let code = without_test_items(&blank(&text));
        let relative = file
            .strip_prefix(src.parent().unwrap_or(src))
            .unwrap_or(&file);
        let children = definitions(&code, &relative.display().to_string(), &module, &mut found);
        for (parent, name) in children {
            if is_test_name(&name) || parent.split("::").any(is_test_name) {
                continue;
            }
            // An inline module's `mod x;` (none today) is not followed.
            if parent != module {
                continue;
            }
            if let Some(path) = child_file(src, &file, &name) {
                let path_of = if module.is_empty() {
                    name.clone()
                } else {
                    format!("{module}::{name}")
                };
                queue.push((path, path_of));
            }
        }
    }
    found.retain(|definition| !definition.parent.split("::").any(is_test_name));
    found.sort();
    found
}

/// The subcommands of `cli.rs`, in snake case: the variants of every
/// enum that derives clap's `Subcommand`.
fn subcommands(src: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(src.join("cli.rs")).unwrap_or_default();
    let code = blank(&text);
    let enums = regex::Regex::new(r"derive\([^)]*\bSubcommand\b[^)]*\)\]\s*pub\s+enum\s+\w+\s*\{")
        .expect("regex");
    let variant = regex::Regex::new(r"(?m)^    ([A-Z]\w*)\b").expect("regex");
    let mut names = Vec::new();
    for found in enums.find_iter(&code) {
        let open = found.end() - 1;
        let body = &code[open..=closing_brace(code.as_bytes(), open)];
        for capture in variant.captures_iter(body) {
            let mut snake = String::new();
            for (index, character) in capture[1].chars().enumerate() {
                if character.is_ascii_uppercase() && index > 0 {
                    snake.push('_');
                }
                snake.push(character.to_ascii_lowercase());
            }
            names.push(snake);
        }
    }
    names
}

/// Whether a rule lets this module share its name.
fn allowed_twice(definition: &Definition, subcommands: &[String]) -> bool {
    definition.kind == "module"
        && (definition.name == "error"
            || (definition.parent == "commands" && subcommands.contains(&definition.name)))
}

/// Every name defined twice under `src` outside tests (the rules above
/// applied), one line each with where, and every `pub use … as …` that
/// renames an item. Empty when each name says one thing.
pub fn name_problems(src: &Path) -> Vec<String> {
    let subcommands = subcommands(src);
    let mut by_name: BTreeMap<(&str, &str), Vec<&Definition>> = BTreeMap::new();
    let definitions = crate_definitions(src);
    for definition in &definitions {
        by_name
            .entry((definition.kind, definition.name.as_str()))
            .or_default()
            .push(definition);
    }
    let mut problems = Vec::new();
    for ((kind, name), places) in &by_name {
        let counted: Vec<&&Definition> = places
            .iter()
            .filter(|definition| !allowed_twice(definition, &subcommands))
            .collect();
        if counted.len() > 1 {
            let at: Vec<&str> = places.iter().map(|place| place.at.as_str()).collect();
            problems.push(format!(
                "{kind} `{name}` is defined {} times: {}",
                places.len(),
                at.join(", ")
            ));
        }
    }
    problems.extend(renaming_reexports(src));
    problems
}

/// `pub use path::A as B` (B not `_`) outside tests: a second name.
fn renaming_reexports(src: &Path) -> Vec<String> {
    let alias =
        regex::Regex::new(r"\bpub(?:\([^)]*\))?\s+use\s[^;]*?\b(\w+)\s+as\s+(\w+)").expect("regex");
    let mut files = Vec::new();
    super::source_files(src, &mut files);
    let mut found = Vec::new();
    for file in files {
        let (module, _) = super::module_of(src, &file);
        if module.iter().any(|part| is_test_name(part)) {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("read source");
        let code = without_test_items(&blank(&text));
        for capture in alias.captures_iter(&code) {
            if &capture[2] != "_" && capture[1] != capture[2] {
                let line = code[..capture.get(0).expect("match").start()]
                    .matches('\n')
                    .count()
                    + 1;
                let relative = file
                    .strip_prefix(src.parent().unwrap_or(src))
                    .unwrap_or(&file);
                found.push(format!(
                    "{}:{line} re-exports `{}` as `{}`: one name per item",
                    relative.display(),
                    &capture[1],
                    &capture[2]
                ));
            }
        }
    }
    found.sort();
    found
}

#[test]
fn each_type_and_module_name_is_defined_once() {
    assert!(
        crate_definitions(&src()).len() > 200,
        "the scan found the definitions"
    );
    let problems = name_problems(&src());
    assert!(
        problems.is_empty(),
        "give each concept its own name (a rule, not an allow-list, \
         lets `error` and `commands::<subcommand>` share theirs): {problems:#?}"
    );
}

/// A problem without its places: `type \`Twin\``, `\`A\` as \`B\``.
fn summary(problem: &str) -> String {
    let problem = problem.split(" is defined").next().unwrap_or(problem);
    let problem = problem.split(": one name").next().unwrap_or(problem);
    problem
        .split(" re-exports ")
        .nth(1)
        .unwrap_or(problem)
        .to_owned()
}

#[test]
fn the_name_check_finds_planted_twins_and_skips_tests() {
    let copy = super::layers::planted_copy(&[
        (
            "redact/mod.rs",
            "pub struct Settings;\nmod fetched;\nmod config;\nmod error;",
        ),
        ("redact/fetched.rs", "pub enum Installer {}"),
        ("redact/config.rs", ""),
        ("redact/error.rs", ""),
        ("output/mod.rs", "mod fetched { pub trait Twin {} }"),
        (
            "process/mod.rs",
            "pub type Twin = u8;\npub use crate::redact::Rules as Policy;",
        ),
        // Tests and associated types are not definitions.
        (
            "logging.rs",
            "#[cfg(test)]\nmod settings_tests { struct Settings; }\n\
             #[cfg(test)]\nstruct Installer;\n\
             struct Parse;\nimpl std::str::FromStr for Parse { type Err = (); \
             fn from_str(_: &str) -> Result<Self, ()> { Err(()) } }\n\
             // struct Settings in a comment\nconst _: &str = \"enum Installer {\";",
        ),
    ]);
    let before: Vec<String> = name_problems(&src()).iter().map(|p| summary(p)).collect();
    let problems = name_problems(copy.path());
    let planted: Vec<String> = problems
        .iter()
        .map(|problem| summary(problem))
        .filter(|problem| !before.contains(problem))
        .collect();
    // `config` is a third one beside `config` and `commands::config`; a
    // second `error` module is a subsystem's errors.
    assert_eq!(
        planted,
        [
            "module `config`",
            "module `fetched`",
            "type `Installer`",
            "type `Settings`",
            "type `Twin`",
            "`Rules` as `Policy`",
        ],
        "{problems:#?}"
    );
}
