//! Every document the tree points at is in the tree: no comment, doc or
//! script names the team's contract (`SPEC` and its sections), the house
//! style's file, or an issue by number, which a reader of the repository
//! cannot open. A comment says what holds instead.

use std::path::{Path, PathBuf};

use regex::Regex;

/// What points outside: the contract and its sections, the style file,
/// an issue by number.
const OUTSIDE: &str = r"\bSPEC\b|\bSTYLE\.md\b|\b[Ii]ssues? \d";

/// Where the tree's words live: sources, tests, scripts, data and docs
/// (fixtures captured from agents and `target/` are not ours to word).
const ROOTS: &[&str] = &[
    "src",
    "tests/it",
    "tests/fixtures",
    "benches",
    "manifests",
    "docs",
    "completions",
    ".ci",
    ".config",
    "README.md",
    "BENCHMARKS.md",
    "Cargo.toml",
];

const TEXT: &[&str] = &[
    "rs", "md", "yaml", "yml", "toml", "sh", "py", "js", "html", "css", "json",
];

fn files(path: &Path, found: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let name = path
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or("");
        // Captured agent output and fetched packages are the vendors' words.
        if matches!(name, "node_modules" | "snapshots") || name.ends_with("-pane") {
            return;
        }
        for entry in std::fs::read_dir(path).expect("read dir") {
            files(&entry.expect("entry").path(), found);
        }
    } else if path
        .extension()
        .and_then(|ext| ext.to_str())
        .is_some_and(|ext| TEXT.contains(&ext))
        || path.file_name().is_some_and(|name| name == "run")
    {
        found.push(path.to_owned());
    }
}

/// The lines of the files under `root` (relative names) that point
/// outside the tree, as `path:line: text`.
fn outside_references(root: &Path, roots: &[&str]) -> Vec<String> {
    let pattern = Regex::new(OUTSIDE).expect("pattern");
    let mut found = Vec::new();
    for name in roots {
        files(&root.join(name), &mut found);
    }
    let this_file = Path::new(file!()).file_name().expect("file name");
    let mut hits = Vec::new();
    for path in found {
        if path.file_name() == Some(this_file) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for (index, line) in text.lines().enumerate() {
            if pattern.is_match(line) {
                let shown = path
                    .strip_prefix(root)
                    .unwrap_or(&path)
                    .display()
                    .to_string();
                hits.push(format!("{shown}:{}: {}", index + 1, line.trim()));
            }
        }
    }
    hits
}

#[test]
fn no_file_points_at_a_document_outside_the_repository() {
    let hits = outside_references(Path::new(env!("CARGO_MANIFEST_DIR")), ROOTS);
    assert!(
        hits.is_empty(),
        "these lines point at documents a reader of the repository cannot open; say what holds instead:\n{}",
        hits.join("\n")
    );
}

#[test]
fn the_reference_check_finds_planted_references() {
    let tree = tempfile::tempdir().expect("temp dir");
    let src = tree.path().join("src");
    std::fs::create_dir_all(&src).expect("src");
    std::fs::write(
        src.join("a.rs"),
        "//! The run events of SPEC §1.3.\n// Fine: a spec-compliant parser.\n",
    )
    .expect("a.rs");
    std::fs::write(src.join("b.py"), "# Goal (issue 20): fast\n").expect("b.py");
    std::fs::write(src.join("c.md"), "See STYLE.md for more.\n").expect("c.md");
    let hits = outside_references(tree.path(), &["src"]);
    assert_eq!(hits.len(), 3, "{hits:#?}");
    assert!(
        hits.iter().any(|hit| hit.starts_with("src/a.rs:1:")),
        "{hits:#?}"
    );
}
