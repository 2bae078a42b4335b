//! Installing a resolved tree into the staging folder: every package's
//! tarball downloaded (a few at once), verified by its own integrity and
//! extracted through the hostile-entry rules into a folder of its own, then
//! moved to its place below the main package (`package/node_modules/…`);
//! then what the adapter's data says an install script would have done
//! (`platformBin`, `executables`). The tree is listed in the version
//! folder's `npm-tree.json`, which `--offline` and reuse check against.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use super::tree::MAX_PACKAGES;
use super::tree_error::TreeDamage;
use super::tree_error::TreeError;
use super::{DepArtifact, NpmArtifact, Tarball, PACKAGE_DIR};
use crate::install::error::{io, InstallError};
use crate::install::pin::{NpmPin, NpmPinPackage};
use crate::install::store::Installed;
use crate::install::Installer;
use crate::output::sanitize::sanitize_line;

/// The tree's listing in the version folder.
pub const LISTING: &str = "npm-tree.json";
/// Tarballs downloaded at once.
const DOWNLOAD_THREADS: usize = 4;
/// At most this many bytes of tarballs in one tree.
const MAX_TREE_BYTES: u64 = 4 * 1024 * 1024 * 1024;
/// The largest listing read (a few hundred bytes a package).
const MAX_LISTING_BYTES: u64 = 4 * 1024 * 1024;
/// Where packages are extracted before they are moved into place.
const UNPACK_DIR: &str = ".tree";

/// What the download threads share: the index of the next package to
/// take, the bytes downloaded so far, and whether one thread failed (which
/// stops the others before their next download).
#[derive(Default)]
struct SharedDownloads {
    next: AtomicUsize,
    total: AtomicU64,
    failed: AtomicBool,
}

#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Listing {
    packages: Vec<NpmPinPackage>,
}

/// Writes the tree's listing into the staging folder.
pub(super) fn write_listing(
    staging_dir: &Path,
    packages: &[NpmPinPackage],
) -> Result<(), InstallError> {
    let path = staging_dir.join(LISTING);
    let mut text = serde_json::to_vec_pretty(&Listing {
        packages: packages.to_vec(),
    })
    .map_err(|error| InstallError::Io {
        action: "write",
        path: path.clone(),
        source: std::io::Error::other(error),
    })?;
    text.push(b'\n');
    fs_err::write(&path, text).map_err(io("write", &path))
}

/// The listing of an installed version: empty when it has none (an
/// install of one self-contained package, before trees).
fn read_listing(dir: &Path) -> Result<Vec<NpmPinPackage>, TreeDamage> {
    use crate::fs_safety::{read_regular_file, ReadRefusal};
    match read_regular_file(&dir.join(LISTING), MAX_LISTING_BYTES, false) {
        Ok(bytes) => serde_json::from_slice::<Listing>(&bytes)
            .map(|listing| listing.packages)
            .map_err(|error| TreeDamage::MalformedListing {
                listing: LISTING,
                message: error.to_string(),
            }),
        Err(ReadRefusal::Missing) => Ok(Vec::new()),
        Err(_) => Err(TreeDamage::UnreadableListing(LISTING)),
    }
}

/// A path below `base` made of `relative`'s parts, refused when it would
/// leave it.
fn below(base: &Path, relative: &str) -> Option<PathBuf> {
    let relative = super::package_document::package_relative(relative)?;
    Some(base.join(relative))
}

impl Installer<'_> {
    /// Whether the installed `version` holds exactly `listing`, every
    /// package present.
    pub(super) fn same_tree(&self, version: &semver::Version, listing: &[NpmPinPackage]) -> bool {
        let dir = self.store.version_dir(version);
        match read_listing(&dir) {
            Ok(installed) => installed == listing && present(&dir, listing).is_ok(),
            Err(_) => false,
        }
    }

    /// Before an npm install is reused: every package of its listing is
    /// present (its `package.json` names it and its version) and, given a
    /// pin, the listing is the pin's tree.
    pub fn check_npm_tree(
        &self,
        installed: &Installed,
        pin: Option<&NpmPin>,
    ) -> Result<(), InstallError> {
        if installed.record.integrity.is_none() {
            return Ok(());
        }
        let incomplete = |reason: TreeDamage| TreeError::Incomplete {
            dir: installed.dir.display().to_string(),
            reason,
        };
        let listing = read_listing(&installed.dir).map_err(incomplete)?;
        if let Some(pin) = pin {
            let mut pinned = pin.packages.clone();
            pinned.sort_by(|a, b| a.path.cmp(&b.path));
            let mut found = listing.clone();
            found.sort_by(|a, b| a.path.cmp(&b.path));
            let same_root = installed.record.integrity.as_deref() == Some(pin.integrity.as_str());
            if !same_root || found != pinned {
                return Err(incomplete(TreeDamage::NotThePinnedTree).into());
            }
        }
        present(&installed.dir, &listing).map_err(|reason| incomplete(reason).into())
    }

    /// Downloads every package below the root into its own folder, then
    /// moves each to its place (parents first).
    pub(super) fn install_deps(
        &self,
        deps: &[DepArtifact],
        staging_dir: &Path,
    ) -> Result<(), InstallError> {
        if deps.is_empty() {
            return Ok(());
        }
        if deps.len() > MAX_PACKAGES {
            return Err(TreeError::Bounds {
                package: self.data.binary.name.clone(),
                reason: format!("holds more than {MAX_PACKAGES} packages"),
            }
            .into());
        }
        let unpack = staging_dir.join(UNPACK_DIR);
        fs_err::create_dir(&unpack).map_err(io("create", &unpack))?;
        self.download_deps(deps, &unpack)?;
        move_into_place(deps, &unpack, &staging_dir.join(PACKAGE_DIR))?;
        fs_err::remove_dir_all(&unpack).map_err(io("remove", &unpack))
    }

    /// Downloads the packages a few at once, each into `unpack/<index>`;
    /// the first failure is the one returned.
    fn download_deps(&self, deps: &[DepArtifact], unpack: &Path) -> Result<(), InstallError> {
        let shared = SharedDownloads::default();
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..DOWNLOAD_THREADS.min(deps.len()))
                .map(|_| scope.spawn(|| self.download_worker(deps, unpack, &shared)))
                .collect();
            let mut first = Ok(());
            for worker in workers {
                let result = worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                if first.is_ok() {
                    first = result;
                }
            }
            first
        })
    }

    /// One download thread: takes the next package until none is left or
    /// a thread failed; a failure of its own stops the others.
    fn download_worker(
        &self,
        deps: &[DepArtifact],
        unpack: &Path,
        shared: &SharedDownloads,
    ) -> Result<(), InstallError> {
        let result = (|| loop {
            if shared.failed.load(Ordering::SeqCst) {
                return Ok(());
            }
            let index = shared.next.fetch_add(1, Ordering::SeqCst);
            let Some(dep) = deps.get(index) else {
                return Ok(());
            };
            let dir = unpack.join(index.to_string());
            fs_err::create_dir(&dir).map_err(io("create", &dir))?;
            let bytes = self.download_dep(dep, &dir)?;
            let sum = shared.total.fetch_add(bytes, Ordering::SeqCst) + bytes;
            if sum > MAX_TREE_BYTES {
                return Err(TreeError::Bounds {
                    package: self.data.binary.name.clone(),
                    reason: format!("weighs more than {MAX_TREE_BYTES} bytes of tarballs"),
                }
                .into());
            }
        })();
        if result.is_err() {
            shared.failed.store(true, Ordering::SeqCst);
        }
        result
    }

    /// One package's tarball into `dir`, retried as any download; returns
    /// its size.
    fn download_dep(&self, dep: &DepArtifact, dir: &Path) -> Result<u64, InstallError> {
        let name = sanitize_line(&dep.name).into_owned();
        let subject = format!("`{name}` {}", dep.version);
        let tarball = Tarball {
            subject: &subject,
            name: &name,
            version: &dep.version,
            url: &dep.tarball,
            integrity: &dep.integrity,
            unpacked_limit: self.unpacked_limit(dep.unpacked_size),
        };
        let hidden = indicatif::ProgressBar::hidden();
        let (_, bytes) = self.with_retries(&dep.tarball, dir, |body| {
            self.fetch_npm_into(body, &tarball, dir, &hidden)
        })?;
        super::own_package::check(&unpacked_root(dir, dep)?, &dep.name, &dep.version)?;
        Ok(bytes)
    }

    /// What the package's install script would have done, as the
    /// adapter's data says: the platform package's file placed as the
    /// main package's bin, and the exec bit on the files named.
    pub(super) fn finish_tree(
        &self,
        artifact: &NpmArtifact,
        deps: &[DepArtifact],
        staging_dir: &Path,
    ) -> Result<(), InstallError> {
        let Some(npm) = self.data.npm.as_ref() else {
            return Ok(());
        };
        let package_dir = staging_dir.join(PACKAGE_DIR);
        // `{os}`, `{cpu}`, `{libc}`: the host's npm values (a bundled
        // `vendor/ripgrep/{cpu}-{os}/rg`).
        let host = super::host::NpmHost::of(&self.host);
        if let Some(file) = &npm.platform_bin {
            let file = host.expand(file);
            let platform =
                deps.iter()
                    .find(|dep| dep.platform)
                    .ok_or_else(|| TreeError::NoPlatformBin {
                        package: sanitize_line(&self.data.binary.name).into_owned(),
                    })?;
            let relative = format!("{}/{file}", platform.path);
            let source = self.regular_file(&package_dir, &relative, "placed as the bin")?;
            let target = below(&package_dir, &artifact.bin).ok_or_else(|| TreeError::File {
                path: artifact.bin.clone(),
                action: "replaced",
                reason: "it leaves the package".to_owned(),
            })?;
            let parent = target.parent().unwrap_or(&package_dir);
            crate::fs_safety::create_dir_chain(&package_dir, parent, 0o755)?;
            match fs_err::symlink_metadata(&target) {
                Ok(metadata) if metadata.is_dir() => {
                    return Err(TreeError::File {
                        path: artifact.bin.clone(),
                        action: "replaced",
                        reason: "it is a folder".to_owned(),
                    }
                    .into())
                }
                Ok(_) => fs_err::remove_file(&target).map_err(io("replace", &target))?,
                Err(_) => {}
            }
            // A hard link inside the install (one copy of a large binary);
            // a copy where the file system refuses links.
            if fs_err::hard_link(&source, &target).is_err() {
                fs_err::copy(&source, &target).map_err(io("copy", &target))?;
            }
        }
        for file in &npm.executables {
            let path = self.regular_file(&package_dir, &host.expand(file), "made executable")?;
            set_executable(&path)?;
        }
        Ok(())
    }

    /// A regular file at `relative` below `base`, no link on the way.
    fn regular_file(
        &self,
        base: &Path,
        relative: &str,
        action: &'static str,
    ) -> Result<PathBuf, InstallError> {
        let refuse = |reason: &str| TreeError::File {
            path: sanitize_line(relative).into_owned(),
            action,
            reason: reason.to_owned(),
        };
        let path = below(base, relative).ok_or_else(|| refuse("it leaves the package"))?;
        crate::fs_safety::check_dir_chain(base, path.parent().unwrap_or(base))
            .map_err(|_| refuse("a folder on its way is a link or missing"))?;
        match fs_err::symlink_metadata(&path) {
            Ok(metadata) if metadata.is_file() => Ok(path),
            Ok(_) => Err(refuse("it is not a regular file").into()),
            Err(_) => Err(refuse("the package does not hold it").into()),
        }
    }
}

/// The package folder inside a dependency's unpacked tarball: `package/`,
/// or the tarball's one top-level folder (npm strips the first part of
/// every entry, whatever its name).
fn unpacked_root(dir: &Path, dep: &DepArtifact) -> Result<PathBuf, InstallError> {
    let package = dir.join(PACKAGE_DIR);
    if fs_err::symlink_metadata(&package).is_ok_and(|metadata| metadata.is_dir()) {
        return Ok(package);
    }
    let mut folders = Vec::new();
    for entry in fs_err::read_dir(dir).map_err(io("read", dir))? {
        let entry = entry.map_err(io("read", dir))?;
        let metadata = fs_err::symlink_metadata(entry.path()).map_err(io("read", dir))?;
        if metadata.is_dir() {
            folders.push(entry.path());
        }
    }
    match folders.as_slice() {
        [only] => Ok(only.clone()),
        _ => Err(TreeError::File {
            path: sanitize_line(&dep.name).into_owned(),
            action: "installed",
            reason: "its tarball has no single top-level folder".to_owned(),
        }
        .into()),
    }
}

fn set_executable(path: &Path) -> Result<(), InstallError> {
    use std::os::unix::fs::PermissionsExt;
    let metadata = fs_err::metadata(path).map_err(io("read", path))?;
    let mode = metadata.permissions().mode() & 0o777;
    fs_err::set_permissions(path, std::fs::Permissions::from_mode(mode | 0o555))
        .map_err(io("make executable", path))
}

/// Every listed package is in its place: a `package.json` that names it
/// and its version.
fn present(dir: &Path, listing: &[NpmPinPackage]) -> Result<(), TreeDamage> {
    use crate::fs_safety::read_regular_file;
    let package_dir = dir.join(PACKAGE_DIR);
    for entry in listing {
        let missing = || TreeDamage::Missing(sanitize_line(&entry.path).into_owned());
        if !super::specifier::valid_path(&entry.path) {
            return Err(missing());
        }
        let folder = package_dir.join(&entry.path);
        crate::fs_safety::check_dir_chain(&package_dir, &folder).map_err(|_| missing())?;
        let bytes = read_regular_file(&folder.join("package.json"), 1024 * 1024, false)
            .map_err(|_| missing())?;
        let manifest: serde_json::Value = serde_json::from_slice(&bytes).map_err(|_| missing())?;
        let names = manifest["name"].as_str() == Some(entry.name.as_str());
        let versions = manifest["version"]
            .as_str()
            .and_then(|version| semver::Version::parse(version.trim_start_matches('v')).ok())
            .zip(semver::Version::parse(&entry.version).ok())
            .is_some_and(|(found, wanted)| found == wanted);
        if !(names && versions) {
            return Err(TreeDamage::OtherPackage {
                path: sanitize_line(&entry.path).into_owned(),
                name: sanitize_line(&entry.name).into_owned(),
                version: entry.version.clone(),
            });
        }
    }
    Ok(())
}

/// Moves each unpacked package from `unpack/<index>` to its place below
/// `package_dir`, parents first.
fn move_into_place(
    deps: &[DepArtifact],
    unpack: &Path,
    package_dir: &Path,
) -> Result<(), InstallError> {
    for (index, dep) in deps.iter().enumerate() {
        let from = unpacked_root(&unpack.join(index.to_string()), dep)?;
        let to = package_dir.join(&dep.path);
        let parent = to.parent().unwrap_or(package_dir);
        crate::fs_safety::create_dir_chain(package_dir, parent, 0o755)?;
        if fs_err::symlink_metadata(&to).is_ok() {
            // The tarball above ships this package itself (bundled):
            // its copy stands, as with npm.
            tracing::info!("`{}` is already in its parent's tarball: kept", dep.path);
            continue;
        }
        fs_err::rename(&from, &to).map_err(io("move into place", &to))?;
    }
    Ok(())
}
