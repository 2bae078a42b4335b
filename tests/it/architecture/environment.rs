//! Every variable once: no file
//! under `src/` but the parsing module `src/env_options/` reads the
//! process environment (the test-double binaries under `src/bin/` are
//! other programs and left out, as in every architecture check), and the
//! README's table of environment variables names exactly the variables the
//! code's table documents.

use std::collections::BTreeSet;
use std::path::Path;

use super::{source_files, src};

/// What reading (or changing) the process environment looks like: the
/// `std::env` calls, and clap's `env = "…"` attribute, which reads a
/// variable behind the parser's back (`target_env = "gnu"` is no read).
const READS: &str = r#"\benv::(var|var_os|vars|vars_os|remove_var|set_var)\b|\benv\s*=\s*""#;

/// `file:line: text` of each read outside `src/env_options/`.
fn reads_outside_the_parser(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    source_files(root, &mut files);
    let parser = root.join("env_options");
    let reads = regex::Regex::new(READS).expect("regex");
    files.sort();
    files
        .iter()
        .filter(|file| !file.starts_with(&parser))
        .flat_map(|file| {
            let text = std::fs::read_to_string(file).expect("read");
            let relative = file
                .strip_prefix(root)
                .expect("under src")
                .display()
                .to_string();
            text.lines()
                .enumerate()
                .filter(|(_, line)| reads.is_match(line))
                .map(|(index, line)| format!("{relative}:{}: {}", index + 1, line.trim()))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn only_env_options_reads_the_process_environment() {
    let reads = reads_outside_the_parser(&src());
    assert!(
        reads.is_empty(),
        "read these through `EnvOptions` (a new variable goes in src/env_options/names.rs): {reads:#?}"
    );
}

#[test]
fn the_read_check_finds_a_planted_read() {
    let copy = super::layers::planted_copy(&[(
        "install/store.rs",
        "fn planted() -> Option<std::ffi::OsString> { std::env::var_os(\"X\") }",
    )]);
    let reads = reads_outside_the_parser(copy.path());
    assert_eq!(reads.len(), 1, "{reads:#?}");
    assert!(reads[0].starts_with("install/store.rs:1: "), "{reads:#?}");
}

/// The backticked names in the first column of the table under
/// `### Environment variables`.
fn readme_names(readme: &str) -> BTreeSet<String> {
    let section = readme
        .split("### Environment variables")
        .nth(1)
        .expect("README has an `### Environment variables` section");
    let section = section.split("\n#").next().unwrap_or(section);
    section
        .lines()
        .filter(|line| line.starts_with('|'))
        // The header row and the `|---|` row.
        .skip(2)
        .flat_map(|row| {
            let first = row.split('|').nth(1).unwrap_or_default();
            first
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn the_readme_table_names_the_documented_variables() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("read README.md");
    let in_readme = readme_names(&readme);
    let in_code: BTreeSet<String> = oneworks::env_options::names::documented()
        .into_iter()
        .collect();
    let missing: Vec<_> = in_code.difference(&in_readme).collect();
    let extra: Vec<_> = in_readme.difference(&in_code).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "README.md's environment table and src/env_options/names.rs differ: \
         not in the README {missing:?}, not in the code's table {extra:?}"
    );
}

#[test]
fn the_readme_reader_reads_names_of_the_first_column_only() {
    let readme =
        "intro\n### Environment variables\n\n| variable | default | meaning |\n|---|---|---|\n\
        | `ONEWORKS_A` | `$HOME/x` | a |\n| `B`, `C` | | b and `D` |\n\n## Next\n| `E` | | |\n";
    let names: Vec<String> = readme_names(readme).into_iter().collect();
    assert_eq!(names, ["B", "C", "ONEWORKS_A"]);
}
