//! A fresh temporary HOME for every Kiro process (SPEC §5.1): created
//! atomically with mode 0700 under the session's runtime folder, removed
//! when the process ends. The owning oneworks process holds a lock on a
//! marker beside it; a HOME whose lock can be taken has lost its owner
//! (a crash) and is swept at the next start. Fixed paths are never reused.

use std::fs::File;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use fs4::fs_std::FileExt;

use super::{io_error, SessionError};

const PREFIX: &str = "home-";
const OWNER_SUFFIX: &str = ".owner";

/// A temporary HOME; removed on drop.
#[derive(Debug)]
pub struct TempHome {
    dir: Option<tempfile::TempDir>,
    owner_path: PathBuf,
    _owner: File,
}

impl TempHome {
    /// Creates a new HOME in `runtime` (a private 0700 folder), after
    /// sweeping ones whose owner is gone.
    pub fn create(runtime: &Path) -> Result<Self, SessionError> {
        sweep(runtime);
        let dir = tempfile::Builder::new()
            .prefix(PREFIX)
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir_in(runtime)
            .map_err(io_error("create a temporary HOME in", runtime))?;
        let owner_path = owner_marker(dir.path());
        let owner = File::create(&owner_path).map_err(io_error("create", &owner_path))?;
        owner
            .lock_exclusive()
            .map_err(io_error("lock", &owner_path))?;
        Ok(Self {
            dir: Some(dir),
            owner_path,
            _owner: owner,
        })
    }

    pub fn path(&self) -> &Path {
        self.dir.as_ref().map_or(Path::new(""), |dir| dir.path())
    }
}

impl Drop for TempHome {
    fn drop(&mut self) {
        if let Some(dir) = self.dir.take() {
            let path = dir.path().to_owned();
            if let Err(error) = dir.close() {
                tracing::warn!(
                    "could not remove temporary HOME `{}`: {error}",
                    path.display()
                );
            }
        }
        let _ = std::fs::remove_file(&self.owner_path);
    }
}

fn owner_marker(home: &Path) -> PathBuf {
    let mut name = home.file_name().unwrap_or_default().to_owned();
    name.push(OWNER_SUFFIX);
    home.with_file_name(name)
}

/// Removes temporary HOMEs in `runtime` whose owner process is gone.
pub fn sweep(runtime: &Path) {
    let Ok(entries) = std::fs::read_dir(runtime) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !name.starts_with(PREFIX) || name.ends_with(OWNER_SUFFIX) {
            continue;
        }
        let home = entry.path();
        let marker = owner_marker(&home);
        let orphaned = match File::open(&marker) {
            // The owner holds the lock while it lives.
            Ok(file) => file.try_lock_exclusive().unwrap_or(false),
            // A HOME without a marker was never finished: its creator died.
            Err(_) => true,
        };
        if orphaned && entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            if let Err(error) = std::fs::remove_dir_all(&home) {
                tracing::warn!("could not sweep `{}`: {error}", home.display());
            }
            let _ = std::fs::remove_file(&marker);
        }
    }
}

#[cfg(test)]
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
        std::fs::write(path.join("state"), b"x").expect("write");
        drop(first);
        assert!(!path.exists());
        assert!(
            second.path().exists(),
            "a live owner's HOME survives a sweep"
        );
        sweep(runtime.path());
        assert!(second.path().exists());
    }

    #[test]
    fn orphans_are_swept() {
        let runtime = tempfile::tempdir().expect("tempdir");
        let orphan = runtime.path().join("home-orphan");
        std::fs::create_dir(&orphan).expect("mkdir");
        std::fs::write(owner_marker(&orphan), b"").expect("marker without a lock holder");
        let unrelated = runtime.path().join("socket-dir");
        std::fs::create_dir(&unrelated).expect("mkdir");
        sweep(runtime.path());
        assert!(!orphan.exists());
        assert!(unrelated.exists());
    }
}
