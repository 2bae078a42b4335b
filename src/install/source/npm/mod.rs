//! An npm package as a managed source: the package document
//! from the user's registry → one version (`dist-tags.latest` or an exact
//! one) → its Node.js runtime checked → the tarball streamed through
//! network → sha256 + sha512 → gunzip → the same guarded tar extraction as
//! the vendor archives → `integrity` verified → the `bin` made executable →
//! probe → publish, under the install lock, pinned in `<adapter>.lock`.
//! A package with a tree (dependencies, a platform package) has it
//! resolved by [`tree`] and installed by `tree_install`, every tarball
//! verified by its own integrity. Install scripts are never run: nothing in
//! the package runs but its probe; what a script would have placed, the
//! adapter's data says (`platformBin`, `executables`).

mod from_pin;
pub mod host;
pub mod integrity;
pub mod network;
pub mod node;
pub mod npmrc;
pub mod npmrc_credentials;
mod own_package;
pub mod package_document;
mod pinned_tree;
pub mod registry_choice;
pub mod specifier;
pub mod tree;
pub mod tree_error;
mod tree_install;
mod unpacked_bound;
mod urls;

use std::path::Path;

use url::Url;

use self::integrity::{sri_of, Sha512Integrity};
use self::package_document::{package_relative, PackageDocument, VersionDoc};
pub use self::urls::package_url;
use self::urls::tarball_url;
use crate::adapter::file_type::FileType;
use crate::install::error::{io, InstallError};
use crate::install::extract::{guard::Staging, Compression};
use crate::install::pin::{NpmPin, NpmPinPackage, Pin};
use crate::install::source::ManagedSource;
use crate::install::store::InstallRecord;
use crate::install::transport::fetcher;
use crate::install::transport::network_error::{shown, NetworkError};
use crate::install::{InstallRequest, Installer, Prepared, Staged};

/// The folder every entry of an npm tarball lives under.
pub const PACKAGE_DIR: &str = "package";
/// The abbreviated ("corgi") document npm itself installs from: a fraction
/// of the full one.
const ACCEPT: &str = "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*";
/// The largest package document read (a package with thousands of
/// versions weighs tens of megabytes in full).
const DOCUMENT_LIMIT: u64 = 64 * 1024 * 1024;
/// The largest tarball downloaded.
const TARBALL_LIMIT: u64 = 1024 * 1024 * 1024;

/// One version's tarball, verified before anything is installed from it.
struct NpmArtifact {
    version: semver::Version,
    tarball: Url,
    integrity: Sha512Integrity,
    /// The executable, relative to the package folder.
    bin: String,
    engines_node: Option<String>,
    /// `dist.unpackedSize`, when the document gives it.
    unpacked_size: Option<u64>,
    /// The managed Node.js it runs on (`None`: the system's).
    node: Option<crate::install::node_runtime::ManagedNode>,
}

/// One package of the tree below the main one, checked like it.
#[derive(Debug, Clone)]
struct DepArtifact {
    /// Below the main package folder (`node_modules/<name>`).
    path: String,
    name: String,
    version: String,
    tarball: Url,
    integrity: Sha512Integrity,
    platform: bool,
    /// `dist.unpackedSize`, when the document gives it.
    unpacked_size: Option<u64>,
}

impl DepArtifact {
    fn pin(&self) -> NpmPinPackage {
        NpmPinPackage {
            path: self.path.clone(),
            name: self.name.clone(),
            version: self.version.clone(),
            tarball: shown(&self.tarball),
            integrity: self.integrity.to_sri(),
            platform: self.platform,
        }
    }
}

impl Installer<'_> {
    fn npm_source(&self) -> Result<(&Url, &str, &str), InstallError> {
        match &self.source {
            ManagedSource::Npm {
                registry,
                package,
                bin_command,
            } => Ok((registry, package, bin_command)),
            ManagedSource::VendorManifest { .. } | ManagedSource::Pinned { .. } => {
                Err(self.missing_section("npm"))
            }
        }
    }

    /// `prepare` from the registry: resolve the version in the package
    /// document and its tree, install them, pin them.
    pub(crate) fn install_npm_latest(
        &self,
        request: &InstallRequest,
    ) -> Result<Prepared, InstallError> {
        let (registry, package, bin_command) = self.npm_source()?;
        let (url, document) = self.main_document(registry, package)?;
        let doc = document
            .pick(&request.version, package, bin_command)
            .map_err(|source| InstallError::Package {
                url: shown(&url),
                source,
            })?
            .ok_or_else(|| InstallError::NotPublished {
                name: self.data.binary.name.clone(),
                id: self.data.id.clone(),
                package: package.to_owned(),
                requested: request.version.to_string(),
                newest: match document.newest(5) {
                    newest if newest.is_empty() => "no versions".to_owned(),
                    newest => format!("{} (newest first)", newest.join(", ")),
                },
            })?;
        let artifact = self.npm_artifact(&doc, registry, None)?;
        let tree = self.resolve_tree(registry, package, doc)?;
        let deps = self.dep_artifacts(&tree, registry)?;
        let prepared = self.install_npm_artifact(&artifact, &deps, request.force)?;
        if let Some(path) = &request.pin_path {
            let pin = Pin {
                version: artifact.version.to_string(),
                packages: Vec::new(),
                npm: Some(NpmPin {
                    package: package.to_owned(),
                    // As shown: a userinfo or token in the URL never reaches the
                    // project's lock file.
                    tarball: shown(&artifact.tarball),
                    integrity: artifact.integrity.to_sri(),
                    bin: artifact.bin.clone(),
                    engines_node: artifact.engines_node.clone(),
                    node: artifact.node.as_ref().map(|node| node.used.clone()),
                    packages: deps.iter().map(DepArtifact::pin).collect(),
                }),
            };
            pin.write(path, self.scrubber())?;
        }
        Ok(prepared)
    }

    /// The tree below the chosen version, from the registry's documents.
    fn resolve_tree(
        &self,
        registry: &Url,
        package: &str,
        root: VersionDoc,
    ) -> Result<tree::Tree, InstallError> {
        let host = host::NpmHost::of(&self.host);
        let fetch = |name: &str| self.document(registry, name);
        tree::resolve(package, root, &fetch, &self.tree_options(&host))
    }

    /// What the adapter's data says about a tree, on `host`.
    fn tree_options<'a>(&'a self, host: &'a host::NpmHost) -> tree::TreeOptions<'a> {
        let npm = self.data.npm.as_ref();
        tree::TreeOptions {
            host,
            platform_of: npm.map_or(&[][..], |npm| &npm.platform_packages),
            prefer: npm.map_or(&[][..], |npm| &npm.platform_prefer),
            peers: npm.map_or(&[][..], |npm| &npm.peer_dependencies),
        }
    }

    /// The main package's document: where it came from, and what it says.
    fn main_document(
        &self,
        registry: &Url,
        package: &str,
    ) -> Result<(Url, PackageDocument), InstallError> {
        let url = package_url(registry, package)?;
        let bytes = self
            .fetcher
            .get_document(&url, Some(ACCEPT), DOCUMENT_LIMIT)?;
        let document = PackageDocument::parse(&bytes).map_err(|source| InstallError::Package {
            url: shown(&url),
            source,
        })?;
        Ok((url, document))
    }

    /// The document of package `name`; `None` when the registry has none.
    fn document(
        &self,
        registry: &Url,
        name: &str,
    ) -> Result<Option<PackageDocument>, InstallError> {
        let url = package_url(registry, name)?;
        match self
            .fetcher
            .get_document(&url, Some(ACCEPT), DOCUMENT_LIMIT)
        {
            Ok(bytes) => {
                PackageDocument::parse(&bytes)
                    .map(Some)
                    .map_err(|source| InstallError::Package {
                        url: shown(&url),
                        source,
                    })
            }
            Err(NetworkError::Status { status: 404, .. }) => Ok(None),
            Err(error) => Err(error.into()),
        }
    }

    /// Each package below the root, with a usable integrity and tarball.
    fn dep_artifacts(
        &self,
        tree: &tree::Tree,
        registry: &Url,
    ) -> Result<Vec<DepArtifact>, InstallError> {
        let mut deps: Vec<DepArtifact> = tree
            .packages()
            .iter()
            .map(|node| {
                let doc = &node.doc;
                let integrity =
                    Sha512Integrity::parse(doc.integrity.as_deref()).map_err(|unusable| {
                        InstallError::Unverifiable {
                            name: crate::output::sanitize::sanitize_line(&node.name).into_owned(),
                            version: doc.version.to_string(),
                            reason: unusable.reason(doc.shasum),
                        }
                    })?;
                Ok(DepArtifact {
                    path: node.path.clone(),
                    name: node.name.clone(),
                    version: doc.version.to_string(),
                    tarball: tarball_url(&doc.tarball, registry)?,
                    integrity,
                    platform: node.platform,
                    unpacked_size: doc.unpacked_size,
                })
            })
            .collect::<Result<_, InstallError>>()?;
        deps.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(deps)
    }

    /// Checks what a version document says before anything is downloaded:
    /// a usable sha512 `integrity`, a `bin` inside the package, a tarball
    /// URL, and a Node.js that satisfies `engines.node`.
    fn npm_artifact(
        &self,
        doc: &VersionDoc,
        registry: &Url,
        pinned_node: Option<&crate::install::node_runtime::node_use::NodeUse>,
    ) -> Result<NpmArtifact, InstallError> {
        let name = &self.data.binary.name;
        let (_, package, bin_command) = self.npm_source()?;
        let integrity = Sha512Integrity::parse(doc.integrity.as_deref()).map_err(|unusable| {
            InstallError::Unverifiable {
                name: name.clone(),
                version: doc.version.to_string(),
                reason: unusable.reason(doc.shasum),
            }
        })?;
        let bin = doc
            .bin
            .as_deref()
            .and_then(package_relative)
            .ok_or_else(|| InstallError::NoBinary {
                name: name.clone(),
                version: doc.version.to_string(),
                candidates: match &doc.bin {
                    Some(bin) => format!(
                        "`{}` (its `bin.{bin_command}` leaves the package)",
                        crate::output::sanitize::sanitize_line(bin)
                    ),
                    None => format!("a `bin.{bin_command}` in the `{package}` version document"),
                },
            })?;
        let tarball = tarball_url(&doc.tarball, registry)?;
        let node = self.node_for_install(
            doc.engines_node.as_deref(),
            pinned_node,
            crate::install::node_runtime::Connectivity::Online,
        )?;
        Ok(NpmArtifact {
            version: doc.version.clone(),
            tarball,
            integrity,
            bin,
            engines_node: doc.engines_node.clone(),
            unpacked_size: doc.unpacked_size,
            node,
        })
    }

    fn install_npm_artifact(
        &self,
        artifact: &NpmArtifact,
        deps: &[DepArtifact],
        force: bool,
    ) -> Result<Prepared, InstallError> {
        let sri = artifact.integrity.to_sri();
        let node = artifact.node.as_ref().map(|node| node.used.clone());
        let listing: Vec<NpmPinPackage> = deps.iter().map(DepArtifact::pin).collect();
        let (_, package, _) = self.npm_source()?;
        // An install whose record does not say it was checked as this
        // package is installed again, checked.
        let same = |record: &InstallRecord| {
            record.integrity.as_deref() == Some(sri.as_str())
                && record.package.as_deref() == Some(package)
                && record.node == node
                && self.same_tree(&artifact.version, &listing)
        };
        let prepared = self.install_with(&artifact.version, force, &same, &mut |staging_dir| {
            let (sha256, size) = self.download_npm(artifact, staging_dir)?;
            // What the install is filed under is what the tarball says.
            own_package::check(
                &staging_dir.join(PACKAGE_DIR),
                package,
                &artifact.version.to_string(),
            )?;
            self.install_deps(deps, staging_dir)?;
            self.finish_tree(artifact, deps, staging_dir)?;
            self.make_bin_executable(artifact, staging_dir)?;
            tree_install::write_listing(staging_dir, &listing)?;
            let binary = format!("{PACKAGE_DIR}/{}", artifact.bin);
            Ok(Staged {
                record: InstallRecord {
                    version: artifact.version.to_string(),
                    sha256,
                    url: self
                        .scrubber()
                        .scrub_str(&shown(&artifact.tarball))
                        .into_owned(),
                    size,
                    file_type: FileType::TarGz,
                    target_triple: "node".to_owned(),
                    binary: binary.clone(),
                    installed_at: String::new(),
                    binary_fingerprint: None,
                    integrity: Some(sri.clone()),
                    package: Some(package.to_owned()),
                    engines_node: artifact.engines_node.clone(),
                    node: node.clone(),
                },
                binary,
                version_checked: true,
            })
        })?;
        Ok(Prepared {
            runtime_path: artifact.node.as_ref().map(|node| node.bin_dir.clone()),
            ..prepared
        })
    }

    /// Downloads, verifies and extracts the tarball into `staging_dir`,
    /// trying a body that broke off again; returns its sha256 and size.
    fn download_npm(
        &self,
        artifact: &NpmArtifact,
        staging_dir: &Path,
    ) -> Result<(String, u64), InstallError> {
        let subject = format!("`{}` {}", self.data.binary.name, artifact.version);
        let tarball = Tarball {
            subject: &subject,
            name: &self.data.binary.name,
            version: &artifact.version.to_string(),
            url: &artifact.tarball,
            integrity: &artifact.integrity,
            unpacked_limit: self.unpacked_limit(artifact.unpacked_size),
        };
        self.with_retries(&artifact.tarball, staging_dir, |body| {
            let bar = self.progress_bar(body.length);
            self.fetch_npm_into(body, &tarball, staging_dir, &bar)
        })
    }

    /// One attempt: network → sha256 + sha512 → gunzip → guarded tar
    /// extraction, then the checks, the integrity first.
    fn fetch_npm_into(
        &self,
        body: fetcher::Body,
        tarball: &Tarball<'_>,
        staging_dir: &Path,
        bar: &indicatif::ProgressBar,
    ) -> Result<(String, u64), InstallError> {
        let url = tarball.url;
        let cap = body.cap(url, TARBALL_LIMIT)?;
        let length = body.length;
        let mut staging = Staging::new(staging_dir.to_owned(), tarball.unpacked_limit);
        let reader = Box::new(std::io::Read::take(body.reader, cap.saturating_add(1)));
        let (digest, extracted) = crate::install::transport::download::hash_and_extract(
            reader,
            true,
            Compression::Gzip,
            &mut staging,
            (url, self.fetcher.idle_timeout),
            bar,
        )?;
        bar.finish_and_clear();
        fetcher::check_received(url, length, digest.bytes, TARBALL_LIMIT)?;
        let computed = digest.sha512.unwrap_or_default();
        if computed != tarball.integrity.digest {
            return Err(InstallError::Checksum {
                subject: tarball.subject.to_owned(),
                algorithm: "sha512",
                expected: tarball.integrity.to_sri(),
                computed: sri_of(&computed),
                url: shown(url),
            });
        }
        extracted.map_err(|source| InstallError::Extract {
            name: tarball.name.to_owned(),
            version: tarball.version.to_owned(),
            url: shown(url),
            source,
        })?;
        Ok((digest.sha256, digest.bytes))
    }

    /// npm makes `bin` targets executable when it links them; so does
    /// oneworks, for a regular file only (a link or a folder is refused).
    fn make_bin_executable(
        &self,
        artifact: &NpmArtifact,
        staging_dir: &Path,
    ) -> Result<(), InstallError> {
        use std::os::unix::fs::PermissionsExt;
        let relative = format!("{PACKAGE_DIR}/{}", artifact.bin);
        let path = staging_dir.join(&relative);
        let no_binary = || InstallError::NoBinary {
            name: self.data.binary.name.clone(),
            version: artifact.version.to_string(),
            candidates: format!("`{}`", crate::output::sanitize::sanitize_line(&relative)),
        };
        let metadata = fs_err::symlink_metadata(&path).map_err(|_| no_binary())?;
        if !metadata.is_file() {
            // check_executable names a link or a folder precisely.
            crate::fs_safety::check_executable(staging_dir, &path)?;
            return Err(no_binary());
        }
        fs_err::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .map_err(io("make executable", &path))
    }
}

/// One tarball to download and verify, and how messages name it.
struct Tarball<'a> {
    /// ``` `gemini` 0.61.0 ```, for a checksum message.
    subject: &'a str,
    name: &'a str,
    version: &'a str,
    url: &'a Url,
    integrity: &'a Sha512Integrity,
    /// What it may unpack to before its integrity is checked.
    unpacked_limit: u64,
}
