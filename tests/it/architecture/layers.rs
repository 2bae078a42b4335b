//! The layer map as data, and the test that
//! imports only point down it. Bottom to top: platform → data → install →
//! launch → ACP wire → acp / session → serve → commands. A file under `src/` that
//! the map does not place fails the test, so a new folder must be placed.

use super::{import_graph, src, Module};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Layer {
    /// Files, errors, processes, redaction, output, logging, locations.
    Platform,
    /// Data files parsed into plain types, no behaviour: the adapter files
    /// (vendor facts) and the user's `config.yaml` (read and checked).
    Data,
    /// Sources and the one verify → extract → publish pipeline.
    Install,
    /// Pick a source and version, enter the profile world, start a child.
    Launch,
    /// ACP messages both peers read (the one permission-request parser),
    /// decoded through the schema crate.
    Wire,
    /// The ACP client (`run`). Peer of `Session`: neither imports the other.
    Acp,
    /// The session supervisor. Peer of `Acp`.
    Session,
    /// `session serve`: the approvals page, a client of the sessions'
    /// sockets.
    Serve,
    /// clap, `Settings`, one file per command, dispatch.
    Commands,
}

impl Layer {
    fn rank(self) -> u8 {
        match self {
            Layer::Platform => 0,
            Layer::Data => 1,
            Layer::Install => 2,
            Layer::Launch => 3,
            Layer::Wire => 4,
            Layer::Acp | Layer::Session => 5,
            Layer::Serve => 6,
            Layer::Commands => 7,
        }
    }

    /// Whether an import from `self` to `to` points up (or sideways
    /// between the two peers acp and session).
    pub fn may_not_import(self, to: Layer) -> bool {
        to.rank() > self.rank() || (self.rank() == to.rank() && self != to)
    }
}

use Layer::*;

/// Module paths under `src/` (a folder, a file without `.rs`, `mod.rs` as its
/// folder) and their layer. The longest entry that names a module or one of
/// its parents wins; `""` is the crate root (`lib.rs`, `main.rs`) only.
pub const LAYER_MAP: &[(&str, Layer)] = &[
    // platform
    ("error", Platform),
    ("fs_error", Platform),
    ("fs_safety", Platform),
    ("logging", Platform),
    ("output", Platform),
    ("process", Platform),
    ("redact", Platform),
    // data: the adapter files, and `config/` — the strict schema of the
    // user's file, its layered loading and `${VAR}` references, read and
    // checked, no behaviour; install and launch read it, it reads nothing
    // above.
    // The environment, parsed once into plain values (`env_options`),
    // and the folders derived from it (`locations`).
    ("env_options", Data),
    ("locations", Data),
    ("adapter", Data),
    ("adapter/data", Data),
    ("adapter/registry", Data),
    ("adapter/file_type", Data),
    ("adapter/acp_data", Data),
    ("adapter/tui_data", Data),
    ("config", Data),
    // ACP messages that both peers read
    ("acp_wire", Wire),
    // install
    ("install", Install),
    // Node.js as a managed runtime of npm packages
    ("install/node_runtime", Install),
    // launch: finding a CLI, the resolver, the profile world (the probe
    // itself is install's: `install/probe`, used by install and launch)
    ("launch", Launch),
    // the two peers
    ("acp", Acp),
    ("session", Session),
    // the approvals page over the sessions' sockets
    ("serve", Serve),
    // commands
    ("", Commands),
    ("cli", Commands),
    ("cli_tests", Commands),
    ("settings", Commands),
    ("commands", Commands),
    ("dispatch", Commands),
];

/// The layer of a module: the longest map entry that is the module or one
/// of its parents.
pub fn layer_of(map: &[(&str, Layer)], module: &Module) -> Option<Layer> {
    (0..=module.len())
        .rev()
        .map(|len| module[..len].join("/"))
        .find_map(|key| {
            let root_only = key.is_empty() && !module.is_empty();
            (!root_only)
                .then(|| map.iter().find(|(entry, _)| *entry == key))
                .flatten()
                .map(|(_, layer)| *layer)
        })
}

/// Today's imports that point up, each `from -> to: why`. The list only
/// shrinks: a new upward import fails the test, and so does an entry that no
/// longer exists (delete an entry when its import is gone).
pub const KNOWN_DEBT: &[&str] = &[];

/// Files that only hold tests (`tests.rs`, `*_tests.rs`, a `tests/`
/// folder): their imports are not layering.
fn is_test_module(module: &Module) -> bool {
    module
        .iter()
        .any(|part| part == "tests" || part.ends_with("_tests"))
}

/// Every import that points up the map (or between acp and session), as
/// `(from, to)`, and the modules the map does not place.
pub fn upward_imports(
    graph: &BTreeMap<Module, BTreeSet<Module>>,
    map: &[(&str, Layer)],
) -> (BTreeSet<(String, String)>, Vec<String>) {
    let mut unplaced = Vec::new();
    let mut upward = BTreeSet::new();
    for (from, targets) in graph {
        let Some(from_layer) = layer_of(map, from) else {
            unplaced.push(from.join("/"));
            continue;
        };
        if is_test_module(from) {
            continue;
        }
        for to in targets {
            if layer_of(map, to).is_some_and(|to_layer| from_layer.may_not_import(to_layer)) {
                upward.insert((from.join("/"), to.join("/")));
            }
        }
    }
    (upward, unplaced)
}

/// What is wrong with the code against the map and the debt list: files
/// with no layer, map entries that name no module, new upward imports and
/// debt entries that no longer exist. Empty when all is well.
pub fn layer_problems(
    graph: &BTreeMap<Module, BTreeSet<Module>>,
    map: &[(&str, Layer)],
    debt: &[&str],
) -> Vec<String> {
    let (upward, unplaced) = upward_imports(graph, map);
    let mut problems: Vec<String> = unplaced
        .iter()
        .map(|module| format!("`{module}` has no layer: add it to LAYER_MAP"))
        .collect();
    let modules: BTreeSet<String> = graph.keys().map(|module| module.join("/")).collect();
    problems.extend(
        map.iter()
            .filter(|(entry, _)| !modules.contains(*entry))
            .map(|(entry, _)| format!("LAYER_MAP names `{entry}`, which is not a module")),
    );
    let known: BTreeSet<(String, String)> = debt
        .iter()
        .map(|entry| {
            let (edge, _why) = entry.split_once(": ").expect("`from -> to: why`");
            let (from, to) = edge.split_once(" -> ").expect("`from -> to: why`");
            (from.to_owned(), to.to_owned())
        })
        .collect();
    problems.extend(upward.difference(&known).map(|(from, to)| {
        format!(
            "new upward import `{from}` -> `{to}`: move the code down, or invert the dependency"
        )
    }));
    problems.extend(known.difference(&upward).map(|(from, to)| {
        format!("`{from}` -> `{to}` no longer points up: delete it from KNOWN_DEBT")
    }));
    problems
}

#[test]
fn imports_only_point_down_the_layers() {
    let graph = import_graph(&src());
    assert!(graph.len() > 20, "the scan found the modules");
    let problems = layer_problems(&graph, LAYER_MAP, KNOWN_DEBT);
    assert!(problems.is_empty(), "{problems:#?}");
}

/// A copy of `src/` (test doubles under `bin/` left out) with `edits`
/// applied: `(file, text put first)`; a file that does not exist is created.
pub fn planted_copy(edits: &[(&str, &str)]) -> tempfile::TempDir {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).expect("mkdir");
        for entry in std::fs::read_dir(from).expect("read src") {
            let path = entry.expect("entry").path();
            let target = to.join(path.file_name().expect("name"));
            if path.is_dir() {
                if !path.ends_with("bin") {
                    copy(&path, &target);
                }
            } else {
                std::fs::copy(&path, &target).expect("copy");
            }
        }
    }
    let dir = tempfile::tempdir().expect("tempdir");
    copy(&src(), dir.path());
    for (file, text) in edits {
        let path = dir.path().join(file);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        let before = std::fs::read_to_string(&path).unwrap_or_default();
        std::fs::write(&path, format!("{text}\n{before}")).expect("write");
    }
    dir
}

#[test]
fn the_layer_check_finds_a_planted_upward_import() {
    let copy = planted_copy(&[
        ("error.rs", "use crate::settings::Settings;"),
        (
            "acp/rpc.rs",
            "use crate::session::supervisor::state::Something;",
        ),
        (
            "session/cards/mod.rs",
            "// crate::acp::rpc in a comment is not an import",
        ),
        // After a nested group, the next item is still read.
        (
            "redact/rules.rs",
            "use crate::{output::{sanitize, self}, launch::resolve::Resolver};",
        ),
    ]);
    let problems = layer_problems(&import_graph(copy.path()), LAYER_MAP, KNOWN_DEBT);
    assert_eq!(
        problems,
        [
            "new upward import `acp/rpc` -> `session/supervisor/state`: move the code down, or invert the dependency",
            "new upward import `error` -> `settings`: move the code down, or invert the dependency",
            "new upward import `redact/rules` -> `launch/resolve`: move the code down, or invert the dependency",
        ],
    );
}

#[test]
fn the_layer_check_fails_on_an_unplaced_folder_and_a_paid_debt() {
    let copy = planted_copy(&[("gadget/mod.rs", "pub fn gadget() {}")]);
    let mut debt = KNOWN_DEBT.to_vec();
    debt.push("error -> settings: planted, an entry that is no longer true");
    let problems = layer_problems(&import_graph(copy.path()), LAYER_MAP, &debt);
    assert_eq!(
        problems,
        [
            "`gadget` has no layer: add it to LAYER_MAP",
            "`error` -> `settings` no longer points up: delete it from KNOWN_DEBT",
        ],
    );
}

#[test]
fn the_map_places_files_by_their_longest_entry() {
    let module = |path: &str| -> Module { path.split('/').map(str::to_owned).collect() };
    assert_eq!(layer_of(LAYER_MAP, &module("launch/resolve")), Some(Launch));
    assert_eq!(layer_of(LAYER_MAP, &module("adapter/data")), Some(Data));
    assert_eq!(
        layer_of(LAYER_MAP, &module("install/extract/tar")),
        Some(Install)
    );
    assert_eq!(layer_of(LAYER_MAP, &Vec::new()), Some(Commands));
    assert_eq!(
        layer_of(LAYER_MAP, &module("gadget")),
        None,
        "the root entry places only lib.rs and main.rs"
    );
    assert!(Session.may_not_import(Acp) && Acp.may_not_import(Session));
    assert!(Platform.may_not_import(Data) && !Commands.may_not_import(Platform));
}

/// Only the commands layer sees clap: a lower layer
/// that derives a clap trait or names `clap::` is a layering error the
/// import graph cannot see (clap is another crate).
#[test]
fn only_the_commands_layer_sees_clap() {
    let mut offenders = Vec::new();
    let mut stack = vec![src()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read src") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().and_then(|ext| ext.to_str()) != Some("rs") {
                continue;
            }
            let relative = path.strip_prefix(src()).expect("under src");
            let mut module: Module = relative
                .with_extension("")
                .iter()
                .map(|part| part.to_string_lossy().into_owned())
                .collect();
            if module.last().is_some_and(|last| last == "mod") {
                module.pop();
            }
            if module.first().is_some_and(|first| first == "bin") {
                continue;
            }
            if layer_of(LAYER_MAP, &module) == Some(Commands) {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("read");
            if text.contains("clap::") || text.contains("use clap") {
                offenders.push(module.join("/"));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "clap below the commands layer: {offenders:?}"
    );
}
