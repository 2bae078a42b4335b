//! A package's whole tree, resolved from the registry's
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

use super::host::{describe, NpmHost};
use super::package_document::{PackageDocument, VersionDoc};
use super::specifier::{child_path, parse_spec, Spec};
use super::tree_error::TreeError;
use crate::output::sanitize::sanitize_line;

/// At most this many packages in one tree (a large real one holds a few
/// hundred).
pub const MAX_PACKAGES: usize = 2000;
/// At most this deep a nesting.
pub const MAX_DEPTH: usize = 32;
/// Documents fetched at once.
pub const DOCUMENT_THREADS: usize = 6;

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
pub type FetchDocument<'a, E> = dyn Fn(&str) -> Result<Option<PackageDocument>, E> + Sync + 'a;

/// What the adapter's data says about resolving.
pub struct TreeOptions<'a> {
    pub host: &'a NpmHost,
    /// The packages whose platform packages are installed.
    pub platform_of: &'a [String],
    pub prefer: &'a [crate::adapter::data::PlatformPrefer],
    pub peers: &'a [String],
}

/// `(alias, specifier)` edges of one package.
type EdgeList = Vec<(String, String)>;
/// Documents fetched by one worker.
type Fetched<E> = Result<Vec<(String, Option<PackageDocument>)>, E>;

struct TreeResolver<'a, 'f, E> {
    fetch: &'f FetchDocument<'f, E>,
    options: &'a TreeOptions<'a>,
    documents: HashMap<String, Option<Arc<PackageDocument>>>,
    nodes: Vec<Node>,
}

/// Resolves the tree below `root` (the main package's chosen version).
pub fn resolve<E: Send + From<TreeError>>(
    package: &str,
    root: VersionDoc,
    fetch: &FetchDocument<'_, E>,
    options: &TreeOptions<'_>,
) -> Result<Tree, E> {
    let mut resolver = TreeResolver {
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

impl<E: Send + From<TreeError>> TreeResolver<'_, '_, E> {
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
                // A bad name is refused by `expand` or `platform`; it is
                // never asked for.
                if let Spec::Registry { name, .. } = parse_spec(alias, spec) {
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
            let (name, range) = match parse_spec(&alias, &spec) {
                Spec::Registry { name, range } => (name, range),
                Spec::BadName(name) => return Err(bad_name(&package, &name).into()),
                Spec::Foreign => {
                    return Err(TreeError::Specifier {
                        package: sanitize_line(&package).into_owned(),
                        dependency: sanitize_line(&alias).into_owned(),
                        spec: sanitize_line(&spec).into_owned(),
                    }
                    .into())
                }
            };
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
            let (name, range) = match parse_spec(alias, spec) {
                Spec::Registry { name, range } => (name, range),
                // A name that is not a package's is a malformed document,
                // optional or not.
                Spec::BadName(name) => return Err(bad_name(&self.nodes[index].name, &name).into()),
                Spec::Foreign => continue,
            };
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
            if !template.counts(&host.lacks) {
                continue;
            }
            let wanted = host.expand(template.name());
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

/// `package`'s document names a dependency `name` that is not an npm
/// package name.
fn bad_name(package: &str, name: &str) -> TreeError {
    TreeError::Name {
        package: sanitize_line(package).into_owned(),
        dependency: name.escape_debug().to_string(),
    }
}

#[cfg(test)]
#[path = "tree_tests.rs"]
mod tests;
