//! `prepare --locked` (or a pinned exact version) for an npm package: the
//! tree the lock file records. The lock comes from the project (possibly a
//! hostile clone), so it binds and never names: every
//! entry is checked for shape first — a `node_modules/<name>` place below a
//! recorded parent, a package name, a version, a sha512 integrity, a tarball
//! on the registry — and then, before anything is downloaded, against the
//! registry's document for its name and version: the tarball URL and
//! `dist.integrity` must be the document's, and so must the main package's
//! `bin` and `engines.node`; and every package below the main one must be
//! one the tree declares (`pinned_tree`). Another package's tarball, a
//! tarball of another version, a relabelled version or a package the tree
//! does not declare is exit 5 naming the field.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use url::Url;

use super::integrity::Sha512Integrity;
use super::package_document::{self, PackageDocument, VersionDoc};
use super::tree_error::TreeError;
use super::{pinned_tree, specifier, tarball_url, tree, DepArtifact};
use crate::install::error::{Authority, InstallError};
use crate::install::pin::{NpmPin, NpmPinPackage};
use crate::install::store::Installed;
use crate::install::transport::network_error::shown;
use crate::install::{Installer, Prepared};
use crate::output::sanitize::sanitize_line;

/// The lock file being bound to the registry, for messages.
struct PinBinding<'a> {
    path: &'a Path,
}

impl PinBinding<'_> {
    /// ``` `…/gemini.lock`'s `@google/gemini-cli` 0.99.0 ```.
    fn subject(&self, name: &str, version: &str) -> String {
        format!(
            "`{}`'s `{}` {}",
            self.path.display(),
            sanitize_line(name),
            sanitize_line(version)
        )
    }

    fn disagrees(
        &self,
        (name, version): (&str, &str),
        field: &'static str,
        expected: String,
        found: String,
    ) -> InstallError {
        InstallError::Disagrees {
            subject: self.subject(name, version),
            authority: Authority::RegistryDocument,
            field,
            expected,
            found,
        }
    }

    /// The document's entry for `version`; a version the registry does not
    /// list is a disagreement about the version itself.
    fn version_doc(
        &self,
        document: &PackageDocument,
        name: &str,
        version: &str,
        command: &str,
    ) -> Result<VersionDoc, InstallError> {
        let listed =
            document
                .version(version, name, command)
                .map_err(|source| TreeError::Document {
                    package: sanitize_line(name).into_owned(),
                    source,
                })?;
        listed.ok_or_else(|| {
            let newest = document.newest(3);
            self.disagrees(
                (name, version),
                "version",
                if newest.is_empty() {
                    "a version the registry lists (it lists none)".to_owned()
                } else {
                    format!("a version the registry lists ({})", newest.join(", "))
                },
                version.to_owned(),
            )
        })
    }

    /// The lock's `tarball` and `integrity` for `name` `version` against
    /// the document's `doc`.
    fn bind(
        &self,
        (name, version): (&str, &str),
        doc: &VersionDoc,
        (tarball, integrity): (&str, &str),
        registry: &Url,
    ) -> Result<(), InstallError> {
        let expected = shown(&tarball_url(&doc.tarball, registry)?);
        let found = tarball_url(tarball, registry)
            .map(|url| shown(&url))
            .unwrap_or_else(|_| tarball.to_owned());
        if expected != found {
            return Err(self.disagrees((name, version), "tarball", expected, found));
        }
        let expected = Sha512Integrity::parse(doc.integrity.as_deref()).map_err(|unusable| {
            InstallError::Unverifiable {
                name: sanitize_line(name).into_owned(),
                version: version.to_owned(),
                reason: unusable.reason(doc.shasum),
            }
        })?;
        let found = Sha512Integrity::parse(Some(integrity)).ok();
        if found.as_ref() != Some(&expected) {
            return Err(self.disagrees(
                (name, version),
                "integrity",
                expected.to_sri(),
                integrity.to_owned(),
            ));
        }
        Ok(())
    }
}

impl Installer<'_> {
    /// `prepare --locked` (or a pinned exact version): install what the
    /// lock at `pin_path` records, each entry bound to the registry first.
    pub(crate) fn install_npm_pin(
        &self,
        pin: &NpmPin,
        pin_path: &Path,
        version: semver::Version,
        force: bool,
    ) -> Result<Prepared, InstallError> {
        let (registry, package, bin_command) = self.npm_source()?;
        if pin.package != package {
            return Err(InstallError::PinPackage {
                found: sanitize_line(&pin.package).into_owned(),
                wanted: package.to_owned(),
            });
        }
        // A malformed lock, or one naming another host, is refused before
        // any request.
        tarball_url(&pin.tarball, registry)?;
        let deps = self.pinned_deps(&pin.packages, registry)?;
        let lock = PinBinding { path: pin_path };
        let version = version.to_string();
        let (_, document) = self.main_document(registry, package)?;
        let doc = lock.version_doc(&document, package, &version, bin_command)?;
        let entry = (package, version.as_str());
        lock.bind(entry, &doc, (&pin.tarball, &pin.integrity), registry)?;
        let doc_bin = doc
            .bin
            .as_deref()
            .and_then(package_document::package_relative);
        let pin_bin = package_document::package_relative(&pin.bin);
        if doc_bin.is_some() && doc_bin != pin_bin {
            let found = pin.bin.clone();
            return Err(lock.disagrees(entry, "bin", doc_bin.unwrap_or_default(), found));
        }
        if doc.engines_node != pin.engines_node {
            let none = || "(none)".to_owned();
            return Err(lock.disagrees(
                entry,
                "enginesNode",
                doc.engines_node.clone().unwrap_or_else(none),
                pin.engines_node.clone().unwrap_or_else(none),
            ));
        }
        let artifact = self.npm_artifact(&doc, registry, pin.node.as_ref())?;
        let deps = self.bound_deps(deps, &doc, registry, &lock)?;
        self.install_npm_artifact(&artifact, &deps, force)
    }

    /// `--offline` with a lock file: only an install checked against the
    /// registry's document and its own `package.json` as the lock's package
    /// (its record says so) is used.
    pub(crate) fn check_verified(
        &self,
        installed: &Installed,
        pin: &NpmPin,
    ) -> Result<(), InstallError> {
        if installed.record.package.as_deref() == Some(pin.package.as_str())
            && installed.record.version == installed.version.to_string()
        {
            return Ok(());
        }
        Err(InstallError::Unverified {
            name: self.data.binary.name.clone(),
            version: installed.version.to_string(),
            path: installed.dir.clone(),
        })
    }

    /// Each package of the pin's tree against its registry document, and
    /// the tree's shape against what its packages declare (below `root`,
    /// the main package's document); the artifacts are then the
    /// document's (its URL unredacted, its `dist.unpackedSize`).
    fn bound_deps(
        &self,
        deps: Vec<DepArtifact>,
        root: &VersionDoc,
        registry: &Url,
        lock: &PinBinding<'_>,
    ) -> Result<Vec<DepArtifact>, InstallError> {
        let names: BTreeSet<&str> = deps.iter().map(|dep| dep.name.as_str()).collect();
        let documents = self.documents(registry, &names)?;
        let mut docs = Vec::new();
        for dep in &deps {
            let entry = (dep.name.as_str(), dep.version.as_str());
            let Some(document) = documents.get(&dep.name).and_then(Option::as_ref) else {
                return Err(lock.disagrees(
                    entry,
                    "name",
                    "a package the registry has".to_owned(),
                    dep.name.clone(),
                ));
            };
            let doc = lock.version_doc(document, &dep.name, &dep.version, "")?;
            let integrity = dep.integrity.to_sri();
            lock.bind(entry, &doc, (dep.tarball.as_str(), &integrity), registry)?;
            docs.push((doc, document));
        }
        let pinned: Vec<pinned_tree::Pinned<'_>> = deps
            .iter()
            .zip(&docs)
            .map(|(dep, (doc, document))| pinned_tree::Pinned {
                path: &dep.path,
                name: &dep.name,
                version: &dep.version,
                platform: dep.platform,
                doc,
                document,
            })
            .collect();
        let (_, package, _) = self.npm_source()?;
        let host = super::host::NpmHost::of(&self.host);
        let options = self.tree_options(&host);
        if let Err((entry, undeclared)) = pinned_tree::check(package, root, &pinned, &options) {
            return Err(InstallError::Disagrees {
                subject: format!(
                    "{} at `{}`",
                    lock.subject(entry.name, entry.version),
                    sanitize_line(entry.path)
                ),
                authority: Authority::RegistryDocument,
                field: undeclared.field,
                expected: undeclared.expected.to_owned(),
                found: if undeclared.field == "platform" {
                    "true".to_owned()
                } else {
                    entry.path.to_owned()
                },
            });
        }
        deps.into_iter()
            .zip(docs)
            .map(|(dep, (doc, _))| {
                Ok(DepArtifact {
                    tarball: tarball_url(&doc.tarball, registry)?,
                    unpacked_size: doc.unpacked_size,
                    ..dep
                })
            })
            .collect()
    }

    /// The documents of `names`, a few fetched at once; `None` for a name
    /// the registry does not have.
    fn documents(
        &self,
        registry: &Url,
        names: &BTreeSet<&str>,
    ) -> Result<HashMap<String, Option<PackageDocument>>, InstallError> {
        let names: Vec<&str> = names.iter().copied().collect();
        let chunk = names.len().div_ceil(tree::DOCUMENT_THREADS).max(1);
        std::thread::scope(|scope| {
            let workers: Vec<_> = names
                .chunks(chunk)
                .map(|group| {
                    scope.spawn(move || {
                        group
                            .iter()
                            .map(|name| Ok(((*name).to_owned(), self.document(registry, name)?)))
                            .collect::<Result<Vec<_>, InstallError>>()
                    })
                })
                .collect();
            let mut documents = HashMap::new();
            for worker in workers {
                let fetched = worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
                documents.extend(fetched);
            }
            Ok(documents)
        })
    }

    /// The pin's packages, each checked: a well-formed place in the tree
    /// below a recorded parent, a package name, a version, a tarball URL
    /// on the registry and a sha512 integrity.
    fn pinned_deps(
        &self,
        packages: &[NpmPinPackage],
        registry: &Url,
    ) -> Result<Vec<DepArtifact>, InstallError> {
        if packages.len() > tree::MAX_PACKAGES {
            return Err(TreeError::PinEntry {
                path: format!("({} packages)", packages.len()),
                reason: format!("more than {} packages", tree::MAX_PACKAGES),
            }
            .into());
        }
        let mut paths = std::collections::BTreeSet::new();
        let mut deps = Vec::new();
        for entry in packages {
            let refuse = |reason: &str| TreeError::PinEntry {
                path: entry.path.clone(),
                reason: reason.to_owned(),
            };
            if !specifier::valid_path(&entry.path) {
                return Err(refuse("not a `node_modules/<name>` path").into());
            }
            if !super::specifier::valid_name(&entry.name) {
                return Err(refuse("not an npm package name").into());
            }
            if semver::Version::parse(&entry.version).is_err() {
                return Err(refuse("its version is not a semantic version").into());
            }
            if !paths.insert(entry.path.clone()) {
                return Err(refuse("recorded twice").into());
            }
            let integrity = Sha512Integrity::parse(Some(&entry.integrity))
                .map_err(|_| refuse("its integrity is not a sha512 SRI string"))?;
            deps.push(DepArtifact {
                path: entry.path.clone(),
                name: entry.name.clone(),
                version: entry.version.clone(),
                tarball: tarball_url(&entry.tarball, registry)?,
                integrity,
                platform: entry.platform,
                unpacked_size: None,
            });
        }
        for dep in &deps {
            let parent = specifier::parent_path(&dep.path);
            if !parent.is_empty() && !paths.contains(parent) {
                return Err(TreeError::PinEntry {
                    path: dep.path.clone(),
                    reason: "its parent package is not recorded".to_owned(),
                }
                .into());
            }
        }
        deps.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(deps)
    }
}
