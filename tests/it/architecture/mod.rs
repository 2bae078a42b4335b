//! The shape of the code: no file over 500 lines, under `src/` and under
//! `tests/it/` alike (no test file is allowed over), and no two files under
//! `src/` that import each other, directly or in a circle (`crate::`,
//! `super::` and `self::` paths; comments and test modules ignored; the
//! test-double binaries under `src/bin/` excluded). The layer map and the
//! check that imports only point down it are in `architecture/layers.rs`;
//! that the edge's anyhow-backed error stays at the edge, in
//! `architecture/errors.rs`;
//! that the test groups of `.config/nextest.toml` cover the modules they
//! must, in `architecture/test_groups.rs`; that each type and module
//! name says one thing, in `architecture/names.rs`; that every wait goes
//! through `support/wait.rs`, in `architecture/waits.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

mod environment;
mod errors;
mod layers;
mod names;
mod readme_layout;
mod references;
mod test_groups;
mod waits;

const MAX_LINES: usize = 500;

type Module = Vec<String>;

fn source_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            if path.file_name().is_some_and(|name| name != "bin") {
                source_files(&path, found);
            }
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            found.push(path);
        }
    }
}

fn module_of(src: &Path, file: &Path) -> (Module, bool) {
    let relative = file
        .strip_prefix(src)
        .expect("under src")
        .with_extension("");
    let mut parts: Module = relative
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    let is_dir_module = matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    );
    if is_dir_module {
        parts.pop();
    }
    (parts, is_dir_module)
}

/// The code of a file without comments and without its test module.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or(text);
    let comment = regex::Regex::new(r"//[^\n]*").expect("regex");
    comment.replace_all(text, "").into_owned()
}

fn longest_known(modules: &BTreeSet<Module>, path: &[String]) -> Option<Module> {
    (1..=path.len())
        .rev()
        .map(|len| path[..len].to_vec())
        .find(|candidate| modules.contains(candidate))
}

fn import_graph(src: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let mut files = Vec::new();
    source_files(src, &mut files);
    let parsed: Vec<(Module, bool, String)> = files
        .iter()
        .map(|file| {
            let (module, is_dir) = module_of(src, file);
            let text = std::fs::read_to_string(file).expect("read source");
            (module, is_dir, code(&text))
        })
        .collect();
    let modules: BTreeSet<Module> = parsed.iter().map(|(module, ..)| module.clone()).collect();
    let path_re = regex::Regex::new(r"\b(crate|super|self)((?:::\w+)+)").expect("regex");
    let group_re = regex::Regex::new(r"\b(crate|super|self)::\{").expect("regex");
    let mut graph = BTreeMap::new();
    for (module, is_dir, text) in &parsed {
        let base_of = |kind: &str| -> Module {
            match kind {
                "crate" => Vec::new(),
                "self" => module.clone(),
                _ if *is_dir => module[..module.len().saturating_sub(1)].to_vec(),
                _ => module[..module.len().saturating_sub(1)].to_vec(),
            }
        };
        let mut edges = BTreeSet::new();
        let mut add = |base: Module, rest: Vec<String>| {
            let mut base = base;
            let mut rest = rest.as_slice();
            while rest.first().is_some_and(|part| part == "super") {
                base.pop();
                rest = &rest[1..];
            }
            let mut path = base;
            path.extend(rest.iter().cloned());
            if let Some(target) = longest_known(&modules, &path) {
                if &target != module {
                    edges.insert(target);
                }
            }
        };
        for capture in path_re.captures_iter(text) {
            let rest = capture[2].split("::").skip(1).map(str::to_owned).collect();
            add(base_of(&capture[1]), rest);
        }
        for capture in group_re.captures_iter(text) {
            let whole = capture.get(0).expect("match");
            let Some(body) = braced(&text[whole.end()..]) else {
                continue;
            };
            let mut paths = Vec::new();
            group_paths(body, "", &mut paths);
            for path in paths {
                add(
                    base_of(&capture[1]),
                    path.split("::").map(str::to_owned).collect(),
                );
            }
        }
        graph.insert(module.clone(), edges);
    }
    graph
}

/// The text up to the brace that closes an opened one (`after` starts
/// just inside it), or `None` when it never closes.
fn braced(after: &str) -> Option<&str> {
    let mut depth = 1usize;
    for (index, character) in after.char_indices() {
        match character {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&after[..index]);
                }
            }
            _ => {}
        }
    }
    None
}

/// The paths a `use` group names, nested groups flattened:
/// `a::{b, c::{d, self}}` gives `a::b`, `a::c::d` and `a::c`.
fn group_paths(body: &str, prefix: &str, out: &mut Vec<String>) {
    let join = |head: &str| match (prefix.is_empty(), head.is_empty()) {
        (_, true) => prefix.to_owned(),
        (true, false) => head.to_owned(),
        (false, false) => format!("{prefix}::{head}"),
    };
    let mut depth = 0usize;
    let mut item = String::new();
    for character in body.chars().chain(std::iter::once(',')) {
        match character {
            '{' => {
                depth += 1;
                item.push(character);
            }
            '}' => {
                depth = depth.saturating_sub(1);
                item.push(character);
            }
            ',' if depth == 0 => {
                let entry = item.trim();
                if let (Some(open), Some(close)) = (entry.find('{'), entry.rfind('}')) {
                    let head = entry[..open].trim().trim_end_matches("::");
                    group_paths(&entry[open + 1..close], &join(head), out);
                } else {
                    let name = entry.split(" as ").next().unwrap_or("").trim();
                    let path = if name == "self" { join("") } else { join(name) };
                    if !name.is_empty() && !path.is_empty() {
                        out.push(path);
                    }
                }
                item.clear();
            }
            _ => item.push(character),
        }
    }
}

#[test]
fn use_groups_are_read_nested() {
    let mut paths = Vec::new();
    group_paths(
        "acp::{rpc, turn::{self, questions}}, settings::Settings as S, self",
        "",
        &mut paths,
    );
    assert_eq!(
        paths,
        [
            "acp::rpc",
            "acp::turn",
            "acp::turn::questions",
            "settings::Settings"
        ]
    );
}

/// A cycle reachable from `start`, as a list of modules, if any.
fn find_cycle(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Option<Vec<Module>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        node: &Module,
        graph: &BTreeMap<Module, BTreeSet<Module>>,
        marks: &mut BTreeMap<Module, Mark>,
        path: &mut Vec<Module>,
    ) -> Option<Vec<Module>> {
        marks.insert(node.clone(), Mark::Open);
        path.push(node.clone());
        for next in graph.get(node).into_iter().flatten() {
            match marks.get(next) {
                Some(Mark::Open) => {
                    let start = path.iter().position(|item| item == next).unwrap_or(0);
                    let mut cycle = path[start..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                Some(Mark::Done) => {}
                None => {
                    if let Some(cycle) = visit(next, graph, marks, path) {
                        return Some(cycle);
                    }
                }
            }
        }
        path.pop();
        marks.insert(node.clone(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for node in graph.keys() {
        if !marks.contains_key(node) {
            if let Some(cycle) = visit(node, graph, &mut marks, &mut Vec::new()) {
                return Some(cycle);
            }
        }
    }
    None
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn no_source_file_is_over_500_lines() {
    let mut files = Vec::new();
    source_files(&src(), &mut files);
    let long: Vec<String> = files
        .iter()
        .filter(|file| !file.ends_with("tests.rs"))
        .filter_map(|file| {
            let lines = std::fs::read_to_string(file).expect("read").lines().count();
            (lines > MAX_LINES).then(|| format!("{} ({lines} lines)", file.display()))
        })
        .collect();
    assert!(long.is_empty(), "split these by concept: {long:#?}");
}

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            found.push(path);
        }
    }
}

#[test]
fn no_test_file_is_over_500_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    assert!(files.len() > 40, "the scan found the test files");
    let long: Vec<String> = files
        .iter()
        .filter_map(|file| {
            let lines = std::fs::read_to_string(file).expect("read").lines().count();
            let name = file.strip_prefix(&root).expect("under tests/it").display();
            (lines > MAX_LINES).then(|| format!("tests/it/{name} ({lines} lines)"))
        })
        .collect();
    assert!(
        long.is_empty(),
        "split these by feature (a folder, one file per feature): {long:#?}"
    );
}

#[test]
fn no_module_imports_in_a_circle() {
    let graph = import_graph(&src());
    assert!(graph.len() > 20, "the scan found the modules");
    if let Some(cycle) = find_cycle(&graph) {
        let names: Vec<String> = cycle.iter().map(|module| module.join("/")).collect();
        panic!("import cycle: {}", names.join(" -> "));
    }
}

#[test]
fn the_cycle_finder_finds_a_planted_cycle() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path();
    std::fs::write(src.join("lib.rs"), "pub mod a;\npub mod b;\n").expect("write");
    std::fs::write(src.join("a.rs"), "use crate::b::B;\n").expect("write");
    std::fs::write(
        src.join("b.rs"),
        "// crate::a is only named here\nuse super::a;\n",
    )
    .expect("write");
    let cycle = find_cycle(&import_graph(src)).expect("the planted cycle");
    assert_eq!(cycle.len(), 3, "{cycle:?}");
}
