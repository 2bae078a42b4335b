//! The shape of a lock file's tree, bound to the registry: a
//! lock may only narrow what the documents allow, so every package it
//! records below the main one must be one that a package of the tree
//! declares — under the name it is placed as, naming that package, with a
//! range or tag its version fits — as the resolver would have installed it:
//! `dependencies`, the `peerDependencies` the adapter's data names, and the
//! platform packages of the packages the data names (each declaring a
//! platform that fits this host). Only the main package's platform package
//! may be marked as the one whose files feed `platformBin`. Without this, a
//! lock could add any package of the registry to the tree, or make one the
//! bin.

use super::host::NpmHost;
use super::package_document::{PackageDocument, VersionDoc};
use super::specifier::{parse_spec, Spec};
use super::tree::TreeOptions;

/// One package of the pinned tree, with its registry documents.
pub(super) struct Pinned<'a> {
    pub path: &'a str,
    pub name: &'a str,
    pub version: &'a str,
    pub platform: bool,
    pub doc: &'a VersionDoc,
    pub document: &'a PackageDocument,
}

/// Why an entry is not one the tree declares: the field and what was
/// expected of it.
pub(super) struct Undeclared {
    pub field: &'static str,
    pub expected: &'static str,
}

/// Checks every package below the main one (`root`, named `package`).
/// Returns the first that no package of the tree declares, with why.
pub(super) fn check<'a>(
    package: &str,
    root: &VersionDoc,
    pinned: &'a [Pinned<'a>],
    options: &TreeOptions<'_>,
) -> Result<(), (&'a Pinned<'a>, Undeclared)> {
    let declarers: Vec<(&str, &VersionDoc)> = std::iter::once((package, root))
        .chain(pinned.iter().map(|entry| (entry.name, entry.doc)))
        .collect();
    for entry in pinned {
        let alias = entry
            .path
            .rsplit_once("node_modules/")
            .map_or(entry.path, |(_, alias)| alias);
        let declared = declarers
            .iter()
            .any(|(declarer, doc)| declares(declarer, doc, alias, entry, options));
        if !declared {
            return Err((
                entry,
                Undeclared {
                    field: "path",
                    expected: "a dependency a package of the tree declares",
                },
            ));
        }
        let platform_of_root = options.platform_of.iter().any(|name| name == package)
            && edge_fits(&root.edges.optional, alias, entry)
            && is_platform_for(entry.doc, options.host);
        if entry.platform && !platform_of_root {
            return Err((
                entry,
                Undeclared {
                    field: "platform",
                    expected: "a platform package of the main package that fits this host",
                },
            ));
        }
    }
    Ok(())
}

/// Whether `declarer` (at `doc`) declares `entry` as `alias` in an edge
/// the resolver follows.
fn declares(
    declarer: &str,
    doc: &VersionDoc,
    alias: &str,
    entry: &Pinned<'_>,
    options: &TreeOptions<'_>,
) -> bool {
    let edges = &doc.edges;
    let peers: Vec<(String, String)> = edges
        .peers
        .iter()
        .filter(|(name, _)| options.peers.contains(name))
        .cloned()
        .collect();
    let platform = options.platform_of.iter().any(|name| name == declarer)
        && edge_fits(&edges.optional, alias, entry)
        && is_platform_for(entry.doc, options.host);
    platform || edge_fits(&edges.dependencies, alias, entry) || edge_fits(&peers, alias, entry)
}

/// Whether one of `edges` is `alias`, names `entry`'s package and admits
/// its version.
fn edge_fits(edges: &[(String, String)], alias: &str, entry: &Pinned<'_>) -> bool {
    edges.iter().any(|(edge, spec)| {
        edge == alias
            && matches!(parse_spec(edge, spec), Spec::Registry { name, range }
                if name == entry.name && entry.document.fits(&range, entry.version))
    })
}

fn is_platform_for(doc: &VersionDoc, host: &NpmHost) -> bool {
    let edges = &doc.edges;
    edges.is_platform() && host.fits(&edges.os, &edges.cpu, &edges.libc)
}
