//! `prepare --locked` (or a pinned exact version) for an npm package:
//! the tree the pin records, installed without asking for any package
//! document. The pin comes from the project (possibly a hostile clone):
//! every entry is checked — a `node_modules/<name>` place below a recorded
//! parent, a package name, a version, a sha512 integrity — and every
//! tarball must be on the registry.

use url::Url;

use super::document::{self, VersionDoc};
use super::integrity::Sha512Integrity;
use super::{tarball_url, tree, DepArtifact};
use crate::install::download::shown;
use crate::install::error::InstallError;
use crate::install::lock_file::{NpmPin, NpmPinPackage};
use crate::install::{Installer, Prepared};

impl Installer<'_> {
    /// `prepare --locked` (or a pinned exact version): install what the
    /// pin records, without asking for any package document.
    pub(in crate::install) fn install_npm_pin(
        &self,
        pin: &NpmPin,
        version: semver::Version,
        force: bool,
    ) -> Result<Prepared, InstallError> {
        let (registry, package, _) = self.npm_source()?;
        if pin.package != package {
            return Err(InstallError::PinPackage {
                found: crate::output::sanitize::sanitize_line(&pin.package).into_owned(),
                wanted: package.to_owned(),
            });
        }
        let doc = VersionDoc {
            version,
            tarball: pin.tarball.clone(),
            integrity: Some(pin.integrity.clone()),
            shasum: false,
            bin: Some(pin.bin.clone()),
            engines_node: pin.engines_node.clone(),
            edges: document::Edges::default(),
        };
        let artifact = self.npm_artifact(&doc, registry, pin.node.as_ref())?;
        // The pin comes from the project (possibly a hostile clone): it may
        // name a version, never another host. A registry stays a registry.
        let on_registry = |tarball: &Url| {
            if tarball.as_str().starts_with(registry.as_str()) {
                Ok(())
            } else {
                Err(InstallError::OutsideBase {
                    download: shown(tarball),
                    base: shown(registry),
                })
            }
        };
        on_registry(&artifact.tarball)?;
        let deps = self.pinned_deps(&pin.packages, registry)?;
        for dep in &deps {
            on_registry(&dep.tarball)?;
        }
        self.install_npm_artifact(&artifact, &deps, force)
    }

    /// The pin's packages, each checked: a well-formed place in the tree
    /// below a recorded parent, a package name, a version, a tarball URL
    /// and a sha512 integrity.
    fn pinned_deps(
        &self,
        packages: &[NpmPinPackage],
        registry: &Url,
    ) -> Result<Vec<DepArtifact>, InstallError> {
        if packages.len() > tree::MAX_PACKAGES {
            return Err(tree::TreeError::PinEntry {
                path: format!("({} packages)", packages.len()),
                reason: format!("more than {} packages", tree::MAX_PACKAGES),
            }
            .into());
        }
        let mut paths = std::collections::BTreeSet::new();
        let mut deps = Vec::new();
        for entry in packages {
            let refuse = |reason: &str| tree::TreeError::PinEntry {
                path: entry.path.clone(),
                reason: reason.to_owned(),
            };
            if !tree::valid_path(&entry.path) {
                return Err(refuse("not a `node_modules/<name>` path").into());
            }
            if !super::spec::valid_name(&entry.name) {
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
            });
        }
        for dep in &deps {
            let parent = tree::parent_path(&dep.path);
            if !parent.is_empty() && !paths.contains(parent) {
                return Err(tree::TreeError::PinEntry {
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
