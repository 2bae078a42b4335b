//! A fresh temporary HOME for every agent process: created
//! atomically with mode 0700 under the session's runtime folder, removed
//! when the process ends. Fixed paths are never reused. It holds the
//! agent's `TMPDIR` too (`tmp/`, 0700), so what an agent leaves in its
//! temporary folder — a bundled runtime unpacks its libraries there — goes
//! with the HOME instead of piling up in the shared `/tmp`.
//!
//! Ownership: the owning oneworks process holds a lock on a marker
//! `home-XXXX.owner` beside its `home-XXXX`. The marker is created (with
//! `O_EXCL`) and locked **before** the folder exists and removed only after
//! the folder is gone, so a concurrent sweep never sees a live HOME without
//! a locked marker. A sweep removes a HOME whose marker it can lock or that
//! has no marker (its owner died), and an unlocked marker without a HOME.

use std::fs::File;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use fs4::fs_std::FileExt;

use super::{io_error, ProfileError};

const PREFIX: &str = "home-";
const OWNER_SUFFIX: &str = ".owner";
/// The agent's `TMPDIR`, inside its HOME.
const TMP: &str = "tmp";

/// How many fresh names to try when a sweep or a leftover folder gets in
/// the way of one.
const ATTEMPTS: usize = 16;

/// A temporary HOME; removed on drop.
#[derive(Debug)]
pub struct TempHome {
    path: PathBuf,
    owner_path: PathBuf,
    _owner: File,
}

/// A created, locked owner marker whose HOME does not exist yet.
#[derive(Debug)]
struct Claim {
    owner_path: PathBuf,
    owner: File,
}

impl TempHome {
    /// Creates a new HOME in `runtime` (a private 0700 folder), after
    /// sweeping ones whose owner is gone.
    pub fn create(runtime: &Path) -> Result<Self, ProfileError> {
        sweep(runtime);
        let mut last_error = None;
        for _ in 0..ATTEMPTS {
            let Some(claim) = Claim::new(runtime)? else {
                continue;
            };
            match claim.make_home() {
                Ok(home) => return Ok(home),
                // A leftover folder of that name: try another name.
                Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                    last_error = Some(error);
                }
                Err(error) => return Err(io_error("create a temporary HOME in", runtime)(error)),
            }
        }
        Err(io_error("create a temporary HOME in", runtime)(
            last_error.unwrap_or_else(|| {
                std::io::Error::other(format!("no free name after {ATTEMPTS} attempts"))
            }),
        ))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The agent's temporary folder (its `TMPDIR`): inside the HOME, 0700,
    /// removed with it.
    pub fn tmp(&self) -> PathBuf {
        self.path.join(TMP)
    }
}

impl Claim {
    /// Creates a marker with a fresh name and locks it. `None` when a sweep
    /// removed the marker between its creation and the lock (the lock then
    /// guards nothing): the caller tries another name.
    fn new(runtime: &Path) -> Result<Option<Claim>, ProfileError> {
        let marker = tempfile::Builder::new()
            .prefix(PREFIX)
            .suffix(OWNER_SUFFIX)
            .permissions(std::fs::Permissions::from_mode(0o600))
            .tempfile_in(runtime)
            .map_err(io_error("create an owner marker in", runtime))?;
        let (owner, owner_path) = marker
            .keep()
            .map_err(|error| io_error("keep owner marker", runtime)(error.error))?;
        owner
            .lock_exclusive()
            .map_err(io_error("lock", &owner_path))?;
        if !is_same_file(&owner, &owner_path) {
            return Ok(None);
        }
        Ok(Some(Claim { owner_path, owner }))
    }

    /// Creates the HOME named after the marker (0700, never an existing
    /// folder). On failure the marker is removed.
    fn make_home(self) -> std::io::Result<TempHome> {
        let path = home_of(&self.owner_path);
        let created = std::fs::DirBuilder::new().mode(0o700).create(&path);
        match created {
            Ok(()) => {
                // From here the HOME is ours: dropping it removes it.
                let home = TempHome {
                    path,
                    owner_path: self.owner_path,
                    _owner: self.owner,
                };
                std::fs::DirBuilder::new().mode(0o700).create(home.tmp())?;
                Ok(home)
            }
            Err(error) => {
                let _ = fs_err::remove_file(&self.owner_path);
                Err(error)
            }
        }
    }
}

impl Drop for TempHome {
    fn drop(&mut self) {
        // The folder goes first, the marker (still locked) after it.
        if let Err(error) = fs_err::remove_dir_all(&self.path).map_err(crate::fs_error::os_cause) {
            if error.kind() != std::io::ErrorKind::NotFound {
                tracing::warn!(
                    "could not remove temporary HOME `{}`: {error}",
                    self.path.display()
                );
            }
        }
        let _ = fs_err::remove_file(&self.owner_path);
    }
}

/// Whether `path` still names the file `file` has open.
fn is_same_file(file: &File, path: &Path) -> bool {
    match (file.metadata(), fs_err::symlink_metadata(path)) {
        (Ok(open), Ok(named)) => open.dev() == named.dev() && open.ino() == named.ino(),
        _ => false,
    }
}

fn owner_marker(home: &Path) -> PathBuf {
    let mut name = home.file_name().unwrap_or_default().to_owned();
    name.push(OWNER_SUFFIX);
    home.with_file_name(name)
}

/// The HOME an owner marker stands for: its path minus the suffix.
fn home_of(marker: &Path) -> PathBuf {
    let name = marker
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or_default();
    marker.with_file_name(name.strip_suffix(OWNER_SUFFIX).unwrap_or(name))
}

/// Removes temporary HOMEs in `runtime` whose owner process is gone, and
/// owner markers left without a HOME.
pub fn sweep(runtime: &Path) {
    let Ok(entries) = fs_err::read_dir(runtime) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !name.starts_with(PREFIX) {
            continue;
        }
        let path = entry.path();
        let is_marker = name.ends_with(OWNER_SUFFIX);
        let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
        if is_marker {
            sweep_marker(&path);
        } else if is_dir && fs_err::symlink_metadata(owner_marker(&path)).is_err() {
            // A marker always exists before its HOME and outlives it: a
            // HOME without one belongs to nobody.
            remove_home(&path);
        }
    }
}

/// Takes the marker's lock if its owner is gone, then removes its HOME (if
/// any) and the marker itself.
fn sweep_marker(marker: &Path) {
    let Ok(file) = fs_err::File::open(marker).map(fs_err::File::into_file) else {
        return;
    };
    // The owner holds the lock while it lives.
    if !file.try_lock_exclusive().unwrap_or(false) {
        return;
    }
    // Another sweep may have removed this marker, and a new owner created
    // one of the same name, since it was opened.
    if !is_same_file(&file, marker) {
        return;
    }
    remove_home(&home_of(marker));
    let _ = fs_err::remove_file(marker);
}

fn remove_home(home: &Path) {
    match fs_err::symlink_metadata(home) {
        Ok(metadata) if metadata.is_dir() => {
            if let Err(error) = fs_err::remove_dir_all(home).map_err(crate::fs_error::os_cause) {
                tracing::warn!("could not sweep `{}`: {error}", home.display());
            }
        }
        _ => {}
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn fresh_private_unique_and_removed() {
        let runtime = tempfile::tempdir().expect("tempdir");
        let first = TempHome::create(runtime.path()).expect("first");
        let second = TempHome::create(runtime.path()).expect("second");
        assert_ne!(first.path(), second.path());
        let mode = std::fs::metadata(first.path())
            .expect("stat")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o700);
        let path = first.path().to_owned();
        let marker = owner_marker(&path);
        assert!(marker.is_file(), "the owner marker sits beside the HOME");
        std::fs::write(path.join("state"), b"x").expect("write");
        let tmp = std::fs::symlink_metadata(first.tmp()).expect("the agent's TMPDIR");
        assert!(tmp.is_dir(), "TMPDIR is a folder, not a link");
        assert_eq!(tmp.permissions().mode() & 0o777, 0o700);
        std::fs::write(first.tmp().join("bundled.so"), b"x").expect("write");
        drop(first);
        assert!(!path.exists());
        assert!(!marker.exists(), "the marker goes with its HOME");
        assert!(
            second.path().exists(),
            "a live owner's HOME survives a sweep"
        );
        sweep(runtime.path());
        assert!(second.path().exists());
        assert!(owner_marker(second.path()).exists());
    }

    #[test]
    fn orphans_are_swept() {
        let runtime = tempfile::tempdir().expect("tempdir");
        let orphan = runtime.path().join("home-orphan");
        std::fs::create_dir(&orphan).expect("mkdir");
        std::fs::write(owner_marker(&orphan), b"").expect("marker without a lock holder");
        let unmarked = runtime.path().join("home-unmarked");
        std::fs::create_dir(&unmarked).expect("mkdir");
        let lone_marker = runtime.path().join("home-gone.owner");
        std::fs::write(&lone_marker, b"").expect("marker without a HOME");
        let unrelated = runtime.path().join("socket-dir");
        std::fs::create_dir(&unrelated).expect("mkdir");
        sweep(runtime.path());
        assert!(!orphan.exists());
        assert!(!owner_marker(&orphan).exists());
        assert!(!unmarked.exists(), "a HOME without a marker is orphaned");
        assert!(!lone_marker.exists(), "an unlocked marker without a HOME");
        assert!(unrelated.exists());
    }

    /// Each step of `create`, with a sweep (another process starting) in
    /// between: the marker exists and is locked before the HOME does, so no
    /// sweep can take a HOME that is being created.
    #[test]
    fn a_sweep_between_the_steps_of_create_takes_nothing() {
        let runtime = tempfile::tempdir().expect("tempdir");
        let claim = Claim::new(runtime.path())
            .expect("claim")
            .expect("no sweep interfered");
        let home = home_of(&claim.owner_path);
        assert!(
            std::fs::symlink_metadata(&home).is_err(),
            "the HOME does not exist before its marker is locked"
        );
        sweep(runtime.path());
        assert!(
            claim.owner_path.exists(),
            "a locked marker whose HOME is not made yet survives a sweep"
        );
        let created = claim.make_home().expect("make home");
        assert_eq!(created.path(), home);
        sweep(runtime.path());
        assert!(created.path().is_dir());
        assert!(owner_marker(created.path()).exists());
    }

    #[test]
    fn a_leftover_folder_of_the_same_name_is_never_reused() {
        let runtime = tempfile::tempdir().expect("tempdir");
        let claim = Claim::new(runtime.path())
            .expect("claim")
            .expect("no sweep interfered");
        let home = home_of(&claim.owner_path);
        std::fs::create_dir(&home).expect("leftover");
        std::fs::write(home.join("planted"), b"x").expect("write");
        let marker = claim.owner_path.clone();
        let error = claim.make_home().unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::AlreadyExists);
        assert!(!marker.exists(), "the marker of a failed claim is removed");
        assert!(home.join("planted").exists(), "the leftover is not adopted");
    }
}
