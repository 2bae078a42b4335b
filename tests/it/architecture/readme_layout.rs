//! The README's "Layout of the code" table is true of the tree: every
//! path it names exists (a folder's row names files found below that
//! folder), and every folder under `src/` has a row. A rename that forgets
//! the README fails here.

use std::path::{Path, PathBuf};

use super::src;

/// The rows of the README's layout table: the first column and the rest.
fn rows(readme: &str) -> Vec<(String, String)> {
    let section = readme
        .split("\n## Layout of the code\n")
        .nth(1)
        .expect("the README has a `## Layout of the code` section");
    let section = section.split("\n## ").next().unwrap_or(section);
    section
        .lines()
        .filter(|line| line.starts_with("| `"))
        .filter_map(|line| {
            let mut cells = line.trim_matches('|').splitn(2, " | ");
            Some((cells.next()?.to_owned(), cells.next()?.to_owned()))
        })
        .collect()
}

/// The backticked names in `text` that look like paths (`x.rs`, `dir/`;
/// not a pattern such as `fixtures/<agent>-pane/`).
fn paths(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|name| !name.contains([' ', '<', '*', ':']))
        .filter(|name| name.ends_with(".rs") || name.ends_with('/'))
        .map(str::to_owned)
        .collect()
}

/// Whether `name` lies somewhere below `folder` (as a path suffix).
fn found_below(folder: &Path, name: &str) -> bool {
    let name = name.trim_end_matches('/');
    let Ok(entries) = std::fs::read_dir(folder) else {
        return false;
    };
    entries.flatten().any(|entry| {
        let path = entry.path();
        path.ends_with(name) || (path.is_dir() && found_below(&path, name))
    })
}

/// What the table gets wrong of the tree at `root` (the repository).
fn errors(readme: &str, root: &Path) -> Vec<String> {
    let mut errors = Vec::new();
    let rows = rows(readme);
    for (first, rest) in &rows {
        let named = paths(first);
        for path in &named {
            let at = if path.contains('/') && !path.starts_with("src/") && !root.join(path).exists()
            {
                root.join("src").join(path)
            } else {
                root.join(path)
            };
            if !at.exists() {
                errors.push(format!("`{path}` (first column) does not exist"));
            }
        }
        // A folder's row: the files it names lie below it.
        if let [folder] = named.as_slice() {
            let folder = root.join(folder);
            if folder.is_dir() {
                for name in paths(rest) {
                    if !found_below(&folder, &name) {
                        errors.push(format!(
                            "`{name}` is not below `{}`",
                            folder.strip_prefix(root).unwrap_or(&folder).display()
                        ));
                    }
                }
            }
        }
    }
    let firsts: Vec<String> = rows.iter().flat_map(|(first, _)| paths(first)).collect();
    let src_dir: PathBuf = root.join("src");
    let mut folders: Vec<String> = std::fs::read_dir(&src_dir)
        .expect("src")
        .flatten()
        .filter(|entry| entry.path().is_dir())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    for folder in folders {
        let rowed = firsts.iter().any(|path| {
            path.starts_with(&format!("src/{folder}")) || path.starts_with(&format!("{folder}/"))
        });
        if !rowed {
            errors.push(format!("`src/{folder}/` has no row"));
        }
    }
    errors
}

#[test]
fn the_readme_layout_names_what_the_tree_holds() {
    let root = src().parent().expect("repository").to_path_buf();
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let errors = errors(&readme, &root);
    assert!(
        errors.is_empty(),
        "README.md's layout table:\n{}",
        errors.join("\n")
    );
}

#[test]
fn a_stale_name_in_the_layout_is_found() {
    let root = src().parent().expect("repository").to_path_buf();
    let readme = "# x\n\n## Layout of the code\n\n| folder | what |\n|---|---|\n| `src/session/` | `gone_away.rs`, `tmux.rs` |\n| `src/nowhere/` | x |\n\n## Next\n";
    let errors = errors(readme, &root);
    assert!(
        errors.contains(&"`gone_away.rs` is not below `src/session`".to_owned()),
        "{errors:?}"
    );
    assert!(
        errors.contains(&"`src/nowhere/` (first column) does not exist".to_owned()),
        "{errors:?}"
    );
    assert!(
        errors.contains(&"`src/install/` has no row".to_owned()),
        "{errors:?}"
    );
    assert!(
        !errors.iter().any(|error| error.contains("tmux.rs")),
        "{errors:?}"
    );
}
