//! A package's whole tree (SPEC §11.2), resolved from the registry's
//! documents: `dependencies` (and the `peerDependencies` the adapter's data
//! names) by npm range, the highest matching version (`dist-tags.latest`
//! when it matches); for the packages the adapter's data names
//! (`platformPackages`), among their `optionalDependencies` the platform
//! packages (those declaring `os`/`cpu`/`libc`) that fit this host —
//! exactly one per package, none of the others; other optional
//! dependencies are not installed (they are native add-ons built by install scripts, which never
//! run). The layout is Node's: `node_modules/` beneath the main package,
//! each package placed as high as it can be (deduplicated where a placed
//! version satisfies the range), nested beneath its dependent where it
//! conflicts. Documents are fetched a level at a time, a few at once.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::document::{PackageDocument, VersionDoc};
use super::host::{describe, NpmHost};
use crate::error::{Classify, ErrorKind};
use crate::output::sanitize::sanitize_line;

/// At most this many packages in one tree (a large real one holds a few
/// hundred).
pub const MAX_PACKAGES: usize = 2000;
/// At most this deep a nesting.
pub const MAX_DEPTH: usize = 32;
/// Documents fetched at once.
pub const DOCUMENT_THREADS: usize = 6;

#[derive(Debug, thiserror::Error)]
pub enum TreeError {
    #[error("no platform package of `{package}` fits this host ({host}); it offers: {offered}")]
    NoPlatform {
        package: String,
        host: String,
        offered: String,
    },
    #[error("`{package}` needs `{dependency}` `{range}`, which the registry does not have")]
    Missing {
        package: String,
        dependency: String,
        range: String,
    },
    #[error("`{package}` needs `{dependency}` `{range}`, but the registry lists no such version (newest: {newest})")]
    NoVersion {
        package: String,
        dependency: String,
        range: String,
        newest: String,
    },
    #[error("`{package}` needs `{dependency}` as `{spec}`, which oneworks does not install (only registry versions, ranges, tags and `npm:` aliases)")]
    Specifier {
        package: String,
        dependency: String,
        spec: String,
    },
    #[error("the dependency tree of `{package}` {reason}")]
    Bounds { package: String, reason: String },
    #[error(
        "the adapter data's `platformBin` needs a platform package of `{package}`, and it has none"
    )]
    NoPlatformBin { package: String },
    #[error("`{path}` in the installed package cannot be {action}: {reason}")]
    File {
        path: String,
        action: &'static str,
        reason: String,
    },
    #[error("the lock file records a malformed package `{}`: {reason}", sanitize_line(.path))]
    PinEntry { path: String, reason: String },
    #[error("the registry's document of `{package}` is malformed")]
    Document {
        package: String,
        #[source]
        source: super::document::PackageError,
    },
    #[error("the installed tree at `{dir}` is incomplete: {reason}")]
    Incomplete { dir: String, reason: String },
}

impl Classify for TreeError {
    fn kind(&self) -> ErrorKind {
        match self {
            TreeError::NoPlatform { .. }
            | TreeError::Document { .. }
            | TreeError::Missing { .. }
            | TreeError::NoVersion { .. } => ErrorKind::Network,
            TreeError::Bounds { .. } => ErrorKind::UnsafeArchive,
            TreeError::PinEntry { .. } => ErrorKind::Config,
            TreeError::Specifier { .. }
            | TreeError::NoPlatformBin { .. }
            | TreeError::File { .. }
            | TreeError::Incomplete { .. } => ErrorKind::NoUsableCli,
        }
    }
    fn hint(&self) -> Option<String> {
        Some(match self {
            TreeError::NoPlatform { .. } => "nothing was installed: the package ships no build for this host; use `source: system` with an agent installed another way".to_owned(),
            TreeError::Missing { .. } | TreeError::NoVersion { .. } | TreeError::Document { .. } => "nothing was installed: check that ONEWORKS_NPM_REGISTRY (or npm's `registry` setting) points at a registry or a complete mirror".to_owned(),
            TreeError::Specifier { .. } => "nothing was installed: use another version of the package, or `source: system`".to_owned(),
            TreeError::Bounds { .. } => "nothing was installed: the registry's documents describe a tree too large to be this package's".to_owned(),
            TreeError::NoPlatformBin { .. } | TreeError::File { .. } => "nothing was installed: the adapter data does not fit this version of the package; check its `npm` section".to_owned(),
            TreeError::PinEntry { .. } => "fix or delete the lock file; `oneworks adapter prepare <adapter>` writes it again".to_owned(),
            TreeError::Incomplete { .. } => "reinstall it with `oneworks adapter prepare <adapter> --force` (without --offline)".to_owned(),
        })
    }
}

/// One package of the tree; the root (index 0) is the main package.
#[derive(Debug, Clone)]
pub struct Node {
    /// Below the main package folder (`""` for the root).
    pub path: String,
    /// The registry's name.
    pub name: String,
    pub doc: VersionDoc,
    pub parent: Option<usize>,
    /// The platform package chosen for the main package.
    pub platform: bool,
    /// Placed children by the name they are required as.
    children: BTreeMap<String, usize>,
}

/// A resolved tree, parents before children.
#[derive(Debug, Clone)]
pub struct Tree {
    pub nodes: Vec<Node>,
}

impl Tree {
    pub fn root(&self) -> &Node {
        &self.nodes[0]
    }

    /// The packages below the root.
    pub fn packages(&self) -> &[Node] {
        &self.nodes[1..]
    }
}

/// Asks the registry for a package document: `Ok(None)` when it has none.
pub type Fetch<'a, E> = dyn Fn(&str) -> Result<Option<PackageDocument>, E> + Sync + 'a;

/// What the adapter's data says about resolving.
pub struct Options<'a> {
    pub host: &'a NpmHost,
    /// The packages whose platform packages are installed.
    pub platform_of: &'a [String],
    pub prefer: &'a [String],
    pub peers: &'a [String],
}

/// A dependency specifier: the registry name and the range or tag.
fn parse_spec(alias: &str, spec: &str) -> Option<(String, String)> {
    let spec = spec.trim();
    if let Some(aliased) = spec.strip_prefix("npm:") {
        // `npm:@scope/name@range`, `npm:name@range`, `npm:name`.
        let (name, range) = match aliased.strip_prefix('@') {
            Some(scoped) => match scoped.split_once('@') {
                Some((name, range)) => (format!("@{name}"), range.to_owned()),
                None => (aliased.to_owned(), "*".to_owned()),
            },
            None => match aliased.split_once('@') {
                Some((name, range)) => (name.to_owned(), range.to_owned()),
                None => (aliased.to_owned(), "*".to_owned()),
            },
        };
        return valid_name(&name).then_some((name, range));
    }
    let foreign = [
        "file:",
        "link:",
        "git",
        "http:",
        "https:",
        "github:",
        "workspace:",
        "portal:",
    ];
    if foreign.iter().any(|prefix| spec.starts_with(prefix)) || spec.contains('/') {
        return None;
    }
    Some((alias.to_owned(), spec.to_owned()))
}

/// An npm package name (`name` or `@scope/name`) safe as a folder name.
pub fn valid_name(name: &str) -> bool {
    let part = |part: &str| {
        !part.is_empty()
            && !part.starts_with('.')
            && part.len() <= 214
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~'))
    };
    match name.strip_prefix('@') {
        Some(scoped) => scoped
            .split_once('/')
            .is_some_and(|(scope, rest)| part(scope) && part(rest)),
        None => part(name),
    }
}

/// The path of a child `alias` of a package at `parent`.
fn child_path(parent: &str, alias: &str) -> String {
    if parent.is_empty() {
        format!("node_modules/{alias}")
    } else {
        format!("{parent}/node_modules/{alias}")
    }
}

/// Whether a pin's `path` is a well-formed place in a tree: one or more
/// `node_modules/<name>` steps.
pub fn valid_path(path: &str) -> bool {
    let mut rest = path;
    let mut steps = 0;
    while let Some(after) = rest.strip_prefix("node_modules/") {
        let (name, next) = match after.strip_prefix('@') {
            Some(_) => {
                let mut parts = after.splitn(3, '/');
                let scope = parts.next().unwrap_or_default();
                let name = parts.next().unwrap_or_default();
                let consumed = scope.len() + 1 + name.len();
                (
                    &after[..consumed.min(after.len())],
                    &after[consumed.min(after.len())..],
                )
            }
            None => match after.split_once('/') {
                Some((name, _)) => (name, &after[name.len()..]),
                None => (after, ""),
            },
        };
        if !valid_name(name) {
            return false;
        }
        steps += 1;
        if next.is_empty() {
            return steps > 0;
        }
        match next.strip_prefix('/') {
            Some(next) => rest = next,
            None => return false,
        }
    }
    false
}

/// The parent path of a pin path (`""` for a top-level package).
pub fn parent_path(path: &str) -> &str {
    match path.rfind("/node_modules/") {
        Some(index) => &path[..index],
        None => "",
    }
}

/// `(alias, specifier)` edges of one package.
type EdgeList = Vec<(String, String)>;
/// Documents fetched by one worker.
type Fetched<E> = Result<Vec<(String, Option<PackageDocument>)>, E>;

struct Resolver<'a, 'f, E> {
    fetch: &'f Fetch<'f, E>,
    options: &'a Options<'a>,
    documents: HashMap<String, Option<Arc<PackageDocument>>>,
    nodes: Vec<Node>,
}

/// Resolves the tree below `root` (the main package's chosen version).
pub fn resolve<E: Send + From<TreeError>>(
    package: &str,
    root: VersionDoc,
    fetch: &Fetch<'_, E>,
    options: &Options<'_>,
) -> Result<Tree, E> {
    let mut resolver = Resolver {
        fetch,
        options,
        documents: HashMap::new(),
        nodes: vec![Node {
            path: String::new(),
            name: package.to_owned(),
            doc: root,
            parent: None,
            platform: false,
            children: BTreeMap::new(),
        }],
    };
    let mut level = vec![0usize];
    while !level.is_empty() {
        resolver.prefetch(&level)?;
        let mut next = Vec::new();
        for index in level {
            next.extend(resolver.expand(index)?);
        }
        level = next;
    }
    Ok(Tree {
        nodes: resolver.nodes,
    })
}

impl<E: Send + From<TreeError>> Resolver<'_, '_, E> {
    /// The edges of a node to resolve: `(alias, spec)` of its
    /// dependencies and named peers, then its optional ones.
    fn edges(&self, index: usize) -> (EdgeList, EdgeList) {
        let edges = &self.nodes[index].doc.edges;
        let wanted = |(name, _): &&(String, String)| !edges.bundled.contains(name);
        let mut required: Vec<(String, String)> =
            edges.dependencies.iter().filter(wanted).cloned().collect();
        for peer in edges.peers.iter().filter(wanted) {
            if self.options.peers.contains(&peer.0) && !required.iter().any(|(n, _)| *n == peer.0) {
                required.push(peer.clone());
            }
        }
        let optional = edges
            .optional
            .iter()
            .filter(wanted)
            .filter(|(name, _)| !required.iter().any(|(n, _)| n == name))
            .cloned()
            .collect();
        (required, optional)
    }

    /// Fetches, a few at once, the documents this level needs.
    fn prefetch(&mut self, level: &[usize]) -> Result<(), E> {
        let mut names: Vec<String> = Vec::new();
        for &index in level {
            let (required, mut optional) = self.edges(index);
            if !self.options.platform_of.contains(&self.nodes[index].name) {
                optional.clear();
            }
            for (alias, spec) in required.iter().chain(&optional) {
                if let Some((name, _)) = parse_spec(alias, spec) {
                    if !self.documents.contains_key(&name) && !names.contains(&name) {
                        names.push(name);
                    }
                }
            }
        }
        let fetch = self.fetch;
        let chunk = names.len().div_ceil(DOCUMENT_THREADS).max(1);
        let fetched: Vec<Fetched<E>> = std::thread::scope(|scope| {
            let handles: Vec<_> = names
                .chunks(chunk)
                .map(|group| {
                    scope.spawn(move || {
                        group
                            .iter()
                            .map(|name| Ok((name.clone(), fetch(name)?)))
                            .collect::<Result<Vec<_>, E>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|handle| {
                    handle
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .collect()
        });
        for group in fetched {
            for (name, document) in group? {
                self.documents.insert(name, document.map(Arc::new));
            }
        }
        Ok(())
    }

    fn document(&self, name: &str) -> Option<Arc<PackageDocument>> {
        self.documents.get(name).cloned().flatten()
    }

    /// Places the dependencies of `index`; returns the new nodes.
    fn expand(&mut self, index: usize) -> Result<Vec<usize>, E> {
        let (required, optional) = self.edges(index);
        let package = self.nodes[index].name.clone();
        let mut placed = Vec::new();
        let wants_platform = self.options.platform_of.contains(&package);
        let optional: EdgeList = if wants_platform { optional } else { Vec::new() };
        if let Some(platform) = self.platform(index, &optional)? {
            let (alias, name, doc) = platform;
            if let Some(new) = self.place(index, &alias, &name, doc)? {
                self.nodes[new].platform = index == 0;
                placed.push(new);
            }
        }
        for (alias, spec) in required {
            let Some((name, range)) = parse_spec(&alias, &spec) else {
                return Err(TreeError::Specifier {
                    package: sanitize_line(&package).into_owned(),
                    dependency: sanitize_line(&alias).into_owned(),
                    spec: sanitize_line(&spec).into_owned(),
                }
                .into());
            };
            if !valid_name(&alias) {
                return Err(TreeError::Specifier {
                    package: sanitize_line(&package).into_owned(),
                    dependency: sanitize_line(&alias).into_owned(),
                    spec: sanitize_line(&spec).into_owned(),
                }
                .into());
            }
            if self.visible(index, &alias, &name, &range) {
                continue;
            }
            let doc = self.pick(&package, &alias, &name, &range)?;
            if let Some(new) = self.place(index, &alias, &name, doc)? {
                placed.push(new);
            }
        }
        Ok(placed)
    }

    /// Whether Node, resolving `alias` from the package at `index`, finds
    /// a version of `name` that satisfies `range` (the main package itself
    /// counts: a cycle back to it ends there).
    fn visible(&self, index: usize, alias: &str, name: &str, range: &str) -> bool {
        let fits = |node: &Node| {
            node.name == name
                && super::node::satisfies(
                    if range.is_empty() { "*" } else { range },
                    &node.doc.version,
                )
                .unwrap_or(false)
        };
        if alias == self.nodes[0].name && fits(&self.nodes[0]) {
            return true;
        }
        let mut at = Some(index);
        while let Some(level) = at {
            if let Some(&child) = self.nodes[level].children.get(alias) {
                return fits(&self.nodes[child]);
            }
            at = self.nodes[level].parent;
        }
        false
    }

    /// The version of `name` that `range` picks.
    fn pick(&self, package: &str, alias: &str, name: &str, range: &str) -> Result<VersionDoc, E> {
        let shown = |text: &str| sanitize_line(text).into_owned();
        let Some(document) = self.document(name) else {
            return Err(TreeError::Missing {
                package: shown(package),
                dependency: shown(alias),
                range: shown(range),
            }
            .into());
        };
        let key = document.best(range).map_err(|_| TreeError::Specifier {
            package: shown(package),
            dependency: shown(alias),
            spec: shown(range),
        })?;
        let doc = match key {
            Some(key) => {
                document
                    .version(&key, name, "")
                    .map_err(|source| TreeError::Document {
                        package: shown(name),
                        source,
                    })?
            }
            None => None,
        };
        doc.ok_or_else(|| {
            TreeError::NoVersion {
                package: shown(package),
                dependency: shown(alias),
                range: shown(range),
                newest: match document.newest(3) {
                    newest if newest.is_empty() => "none".to_owned(),
                    newest => newest.join(", "),
                },
            }
            .into()
        })
    }

    /// The one platform package of `index` for this host, when its
    /// optional dependencies are platform packages.
    fn platform(
        &self,
        index: usize,
        optional: &[(String, String)],
    ) -> Result<Option<(String, String, VersionDoc)>, E> {
        let mut offered = Vec::new();
        let mut fitting = Vec::new();
        for (alias, spec) in optional {
            let Some((name, range)) = parse_spec(alias, spec) else {
                continue;
            };
            if !valid_name(alias) {
                continue;
            }
            // An optional package the registry lacks is skipped, as npm does.
            let Some(document) = self.document(&name) else {
                continue;
            };
            let Ok(Some(key)) = document.best(&range) else {
                continue;
            };
            let Some(doc) =
                document
                    .version(&key, &name, "")
                    .map_err(|source| TreeError::Document {
                        package: sanitize_line(&name).into_owned(),
                        source,
                    })?
            else {
                continue;
            };
            let edges = &doc.edges;
            if !edges.is_platform() {
                tracing::debug!(
                    "optional dependency `{alias}` is not a platform package: not installed"
                );
                continue;
            }
            offered.push(format!(
                "{} ({})",
                sanitize_line(alias),
                describe(&edges.os, &edges.cpu, &edges.libc)
            ));
            if self.options.host.fits(&edges.os, &edges.cpu, &edges.libc) {
                fitting.push((alias.clone(), name, doc));
            }
        }
        if offered.is_empty() {
            return Ok(None);
        }
        if fitting.is_empty() {
            return Err(TreeError::NoPlatform {
                package: sanitize_line(&self.nodes[index].name).into_owned(),
                host: self.options.host.to_string(),
                offered: offered.join(", "),
            }
            .into());
        }
        let host = self.options.host;
        for template in self.options.prefer {
            let wanted = host.expand(template);
            if let Some(found) = fitting.iter().position(|(alias, _, _)| *alias == wanted) {
                return Ok(Some(fitting.swap_remove(found)));
            }
        }
        // The one declaring this host's libc, then the shortest name.
        let libc = host.libc.clone().unwrap_or_default();
        fitting.sort_by_key(|(alias, _, doc)| {
            (!doc.edges.libc.contains(&libc), alias.len(), alias.clone())
        });
        Ok(fitting.into_iter().next())
    }

    /// Places `doc` as `alias` for the package at `index`: at the top when
    /// no other version of it is on the way up, else beneath `index`.
    fn place(
        &mut self,
        index: usize,
        alias: &str,
        name: &str,
        doc: VersionDoc,
    ) -> Result<Option<usize>, E> {
        let mut conflict = false;
        let mut at = Some(index);
        while let Some(level) = at {
            if self.nodes[level].children.contains_key(alias) {
                conflict = true;
                break;
            }
            at = self.nodes[level].parent;
        }
        let parent = if conflict { index } else { 0 };
        if self.nodes[parent].children.contains_key(alias) {
            // Named twice by one package: the first placement stands.
            return Ok(None);
        }
        let package = &self.nodes[0].name;
        if self.nodes.len() >= MAX_PACKAGES {
            return Err(TreeError::Bounds {
                package: sanitize_line(package).into_owned(),
                reason: format!("holds more than {MAX_PACKAGES} packages"),
            }
            .into());
        }
        let path = child_path(&self.nodes[parent].path, alias);
        if path.matches("node_modules/").count() > MAX_DEPTH {
            return Err(TreeError::Bounds {
                package: sanitize_line(package).into_owned(),
                reason: format!("nests deeper than {MAX_DEPTH} levels"),
            }
            .into());
        }
        let new = self.nodes.len();
        self.nodes.push(Node {
            path,
            name: name.to_owned(),
            doc,
            parent: Some(parent),
            platform: false,
            children: BTreeMap::new(),
        });
        self.nodes[parent].children.insert(alias.to_owned(), new);
        Ok(Some(new))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    enum TestError {
        Tree(TreeError),
    }
    impl From<TreeError> for TestError {
        fn from(error: TreeError) -> Self {
            TestError::Tree(error)
        }
    }

    /// A registry of `name → [(version, dependencies json)]`.
    fn registry(packages: &[(&str, &[(&str, &str)])]) -> HashMap<String, Vec<u8>> {
        packages
            .iter()
            .map(|(name, versions)| {
                let mut map = serde_json::Map::new();
                let mut latest = String::new();
                for (version, extra) in *versions {
                    let mut doc: serde_json::Value = serde_json::from_str(extra).expect("json");
                    doc["dist"] = serde_json::json!({"tarball": format!("http://r.test/{name}-{version}.tgz"), "integrity": "sha512-x"});
                    map.insert((*version).to_owned(), doc);
                    latest = (*version).to_owned();
                }
                let document = serde_json::json!({"dist-tags": {"latest": latest}, "versions": map});
                ((*name).to_owned(), serde_json::to_vec(&document).expect("json"))
            })
            .collect()
    }

    fn run(
        packages: &[(&str, &[(&str, &str)])],
        root: &str,
        host: &NpmHost,
    ) -> Result<Vec<(String, String)>, TestError> {
        let documents = registry(packages);
        let root = PackageDocument::parse(&documents[root])
            .expect("root")
            .pick(&crate::config::VersionRequest::Latest, root, "")
            .expect("pick")
            .expect("latest");
        let fetch = |name: &str| -> Result<Option<PackageDocument>, TestError> {
            Ok(documents
                .get(name)
                .map(|bytes| PackageDocument::parse(bytes).expect("parse")))
        };
        let platform_of = ["root".to_owned()];
        let options = Options {
            host,
            platform_of: &platform_of,
            prefer: &[],
            peers: &[],
        };
        let tree = resolve("root", root, &fetch, &options)?;
        let mut placed: Vec<(String, String)> = tree
            .packages()
            .iter()
            .map(|node| (node.path.clone(), node.doc.version.to_string()))
            .collect();
        placed.sort();
        Ok(placed)
    }

    fn glibc() -> NpmHost {
        NpmHost {
            os: "linux".to_owned(),
            cpu: "x64".to_owned(),
            libc: Some("glibc".to_owned()),
        }
    }

    #[test]
    fn hoists_dedupes_and_nests_conflicts() {
        let placed = run(
            &[
                (
                    "root",
                    &[("1.0.0", r#"{"dependencies": {"a": "^1.0.0", "b": "1.x"}}"#)],
                ),
                (
                    "a",
                    &[
                        ("1.0.0", "{}"),
                        ("1.2.0", r#"{"dependencies": {"c": "^2"}}"#),
                        ("2.0.0", "{}"),
                    ],
                ),
                (
                    "b",
                    &[(
                        "1.0.0",
                        r#"{"dependencies": {"c": "^1.1", "a": ">=1.1.0 <2"}}"#,
                    )],
                ),
                (
                    "c",
                    &[
                        ("1.1.0", "{}"),
                        ("1.5.0", "{}"),
                        ("2.3.0", "{}"),
                        ("3.0.0-rc.1", "{}"),
                    ],
                ),
            ],
            "root",
            &glibc(),
        )
        .expect("resolves");
        // a hoisted once (b's range is met by the hoisted 1.2.0); c@2 hoisted
        // for a, c@1 nested beneath b.
        assert_eq!(
            placed,
            [
                ("node_modules/a".to_owned(), "1.2.0".to_owned()),
                ("node_modules/b".to_owned(), "1.0.0".to_owned()),
                (
                    "node_modules/b/node_modules/c".to_owned(),
                    "1.5.0".to_owned()
                ),
                ("node_modules/c".to_owned(), "2.3.0".to_owned()),
            ]
        );
    }

    #[test]
    fn cycles_end_and_specifiers_are_checked() {
        let placed = run(
            &[
                ("root", &[("1.0.0", r#"{"dependencies": {"a": "*"}}"#)]),
                (
                    "a",
                    &[("1.0.0", r#"{"dependencies": {"b": "*", "root": "^1"}}"#)],
                ),
                ("b", &[("1.0.0", r#"{"dependencies": {"a": "^1"}}"#)]),
            ],
            "root",
            &glibc(),
        )
        .expect("a cycle resolves");
        assert_eq!(placed.len(), 2, "{placed:?}");
        let error = run(
            &[(
                "root",
                &[(
                    "1.0.0",
                    r#"{"dependencies": {"a": "git+https://x.test/a.git"}}"#,
                )],
            )],
            "root",
            &glibc(),
        )
        .expect_err("git");
        assert!(
            matches!(error, TestError::Tree(TreeError::Specifier { .. })),
            "{error:?}"
        );
        let error = run(
            &[("root", &[("1.0.0", r#"{"dependencies": {"gone": "^1"}}"#)])],
            "root",
            &glibc(),
        )
        .expect_err("missing");
        assert!(
            matches!(error, TestError::Tree(TreeError::Missing { .. })),
            "{error:?}"
        );
    }

    #[test]
    fn one_platform_package_and_aliases() {
        let packages: &[(&str, &[(&str, &str)])] = &[
            (
                "root",
                &[
                    (
                        "1.0.0",
                        r#"{"optionalDependencies": {"root-linux-x64": "npm:root@1.0.0-linux-x64", "p-musl": "1.0.0", "p-arm": "1.0.0", "keytar": "^7"}}"#,
                    ),
                    (
                        "1.0.0-linux-x64",
                        r#"{"os": ["linux"], "cpu": ["x64"], "libc": ["glibc"]}"#,
                    ),
                ],
            ),
            (
                "p-musl",
                &[(
                    "1.0.0",
                    r#"{"os": ["linux"], "cpu": ["x64"], "libc": ["musl"]}"#,
                )],
            ),
            (
                "p-arm",
                &[("1.0.0", r#"{"os": ["linux"], "cpu": ["arm64"]}"#)],
            ),
            ("keytar", &[("7.0.0", "{}")]),
        ];
        // `latest` of root is its platform build here: pin the root instead.
        let documents = registry(packages);
        let root = PackageDocument::parse(&documents["root"])
            .expect("root")
            .version("1.0.0", "root", "")
            .expect("ok")
            .expect("1.0.0");
        let fetch = |name: &str| -> Result<Option<PackageDocument>, TestError> {
            Ok(documents
                .get(name)
                .map(|bytes| PackageDocument::parse(bytes).expect("parse")))
        };
        let host = glibc();
        let platform_of = ["root".to_owned()];
        let options = Options {
            host: &host,
            platform_of: &platform_of,
            prefer: &[],
            peers: &[],
        };
        let tree = resolve("root", root.clone(), &fetch, &options).expect("resolves");
        let packages: Vec<(&str, &str, bool)> = tree
            .packages()
            .iter()
            .map(|node| (node.path.as_str(), node.name.as_str(), node.platform))
            .collect();
        assert_eq!(packages, [("node_modules/root-linux-x64", "root", true)]);
        let arm = NpmHost {
            cpu: "arm64".to_owned(),
            ..glibc()
        };
        let options = Options {
            host: &arm,
            platform_of: &platform_of,
            prefer: &[],
            peers: &[],
        };
        let tree = resolve("root", root.clone(), &fetch, &options).expect("resolves");
        assert_eq!(tree.packages()[0].path, "node_modules/p-arm");
        let mac = NpmHost {
            os: "darwin".to_owned(),
            cpu: "arm64".to_owned(),
            libc: None,
        };
        let options = Options {
            host: &mac,
            platform_of: &platform_of,
            prefer: &[],
            peers: &[],
        };
        let error = resolve("root", root.clone(), &fetch, &options).expect_err("no platform");
        let TestError::Tree(error) = error;
        assert_eq!(
            error.to_string(),
            "no platform package of `root` fits this host (darwin/arm64); it offers: p-arm (linux/arm64), p-musl (linux/x64 (musl)), root-linux-x64 (linux/x64 (glibc))"
        );
        // A package the data does not name: its optional packages are not
        // installed, and none is even asked for.
        let options = Options {
            host: &mac,
            platform_of: &[],
            prefer: &[],
            peers: &[],
        };
        let tree = resolve("root", root, &fetch, &options).expect("resolves");
        assert!(tree.packages().is_empty());
    }

    #[test]
    fn pin_paths_are_checked() {
        assert!(valid_path("node_modules/a"));
        assert!(valid_path("node_modules/@s/a/node_modules/b"));
        assert!(!valid_path("node_modules/../x"));
        assert!(!valid_path("node_modules/a/../../x"));
        assert!(!valid_path("x/node_modules/a"));
        assert!(!valid_path("node_modules/"));
        assert!(!valid_path("node_modules/@s"));
        assert!(!valid_path(""));
        assert_eq!(
            parent_path("node_modules/a/node_modules/b"),
            "node_modules/a"
        );
        assert_eq!(parent_path("node_modules/a"), "");
        assert_eq!(
            parse_spec("x", "npm:@openai/codex@0.1.0-linux-x64"),
            Some(("@openai/codex".to_owned(), "0.1.0-linux-x64".to_owned()))
        );
        assert_eq!(parse_spec("x", "user/repo"), None);
    }
}
