//! Files on disk: setting a mode, walking a folder, and asserting that a
//! folder holds nothing (or no files) after a failed or finished run.

use std::path::{Path, PathBuf};

pub fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// Every path under `dir` (not following symlinks), `dir` excluded.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_type().map(|kind| kind.is_dir()).unwrap_or(false) {
                pending.push(path.clone());
            }
            found.push(path);
        }
    }
    found.sort();
    found
}

#[track_caller]
pub fn assert_empty_or_missing(dir: &Path, what: &str) {
    let left = walk(dir);
    assert!(
        left.is_empty(),
        "{what} ({}) must hold nothing, holds {left:#?}",
        dir.display()
    );
}

/// Like `assert_empty_or_missing` but tolerates empty folders.
#[track_caller]
pub fn assert_no_files(dir: &Path, what: &str) {
    let left: Vec<PathBuf> = walk(dir)
        .into_iter()
        .filter(|path| {
            std::fs::symlink_metadata(path)
                .map(|meta| !meta.is_dir())
                .unwrap_or(false)
        })
        .collect();
    assert!(
        left.is_empty(),
        "{what} ({}) must hold no files, holds {left:#?}",
        dir.display()
    );
}
