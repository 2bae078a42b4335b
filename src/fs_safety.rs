//! Path safety shared by the installer and session homes: refuse symlinks
//! and special files on the way to a managed folder, refuse real paths that
//! escape their root, create folders one level at a time without following
//! links, and write files atomically (temp file in the same folder, rename).

use std::io::Write;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

use crate::error::{Classify, ErrorKind};

#[derive(Debug, thiserror::Error)]
pub enum UnsafePath {
    #[error("refusing to use `{path}`: it is a symbolic link (oneworks never follows links inside its managed folders)")]
    Symlink { path: PathBuf },
    #[error("refusing to use `{path}`: it is a {found}, not a {expected}")]
    WrongType {
        path: PathBuf,
        found: &'static str,
        expected: &'static str,
    },
    #[error("refusing to use `{path}`: its real path `{real}` escapes `{root}`")]
    Escapes {
        path: PathBuf,
        real: PathBuf,
        root: PathBuf,
    },
    #[error("refusing to use `{path}`: it is not under `{root}`")]
    NotUnder { path: PathBuf, root: PathBuf },
    #[error("refusing to use `{path}`: it is owned by uid {owner}, not by this user (uid {uid})")]
    Owner { path: PathBuf, owner: u32, uid: u32 },
    #[error("failed to inspect `{path}`")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl Classify for UnsafePath {
    fn kind(&self) -> ErrorKind {
        match self {
            UnsafePath::Io { .. } => ErrorKind::Internal,
            _ => ErrorKind::UnsafeArchive,
        }
    }
    fn hint(&self) -> Option<String> {
        match self {
            UnsafePath::Io { .. } => None,
            _ => Some(
                "remove or replace the offending entry; oneworks never follows or repairs it by itself (a managed install can be reinstalled with `oneworks adapter prepare ADAPTER --force`)"
                    .to_owned(),
            ),
        }
    }
}

mod beneath;
mod private;
mod read;
pub use beneath::{
    list_dir, open_dir_path_beneath, open_existing_dir_beneath, remove_tree_at, write_beneath,
};
pub use private::{open_private, PrivateOpen};
pub use read::{
    open_regular_file, open_regular_file_beneath, read_regular_file, read_regular_file_beneath,
    read_regular_file_with_metadata, ReadRefusal,
};

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> UnsafePath + '_ {
    move |source| UnsafePath::Io {
        path: path.to_owned(),
        source: crate::fs_error::os_cause(source),
    }
}

/// The real uid of this process.
/// `path` with `.` dropped and `..` applied lexically, without touching the
/// disk (no link is followed: the path checked is the path as written).
pub fn lexical_normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

pub fn current_uid() -> u32 {
    rustix::process::getuid().as_raw()
}

/// A name for a file type in messages.
pub fn describe(file_type: std::fs::FileType) -> &'static str {
    if file_type.is_symlink() {
        "symbolic link"
    } else if file_type.is_dir() {
        "directory"
    } else if file_type.is_file() {
        "regular file"
    } else if file_type.is_fifo() {
        "FIFO"
    } else if file_type.is_socket() {
        "socket"
    } else if file_type.is_block_device() || file_type.is_char_device() {
        "device"
    } else {
        "special file"
    }
}

/// The components of `path` below `base`, as successive paths
/// (`base/a`, `base/a/b`, …). `path` must be under `base`, lexically.
fn below<'a>(base: &'a Path, path: &'a Path) -> Result<Vec<PathBuf>, UnsafePath> {
    let rest = path.strip_prefix(base).map_err(|_| UnsafePath::NotUnder {
        path: path.to_owned(),
        root: base.to_owned(),
    })?;
    let mut current = base.to_owned();
    let mut steps = Vec::new();
    for component in rest.components() {
        match component {
            Component::Normal(name) => {
                current.push(name);
                steps.push(current.clone());
            }
            Component::CurDir => {}
            _ => {
                return Err(UnsafePath::NotUnder {
                    path: path.to_owned(),
                    root: base.to_owned(),
                })
            }
        }
    }
    Ok(steps)
}

/// Refuses `path` if any existing component below `base` down to `path` is
/// a symbolic link or not a directory (missing ones end the walk). `base`
/// itself may be a link (a user's data folder on another disk). Nothing is
/// created.
pub fn check_dir_chain(base: &Path, path: &Path) -> Result<(), UnsafePath> {
    for step in below(base, path)? {
        match fs_err::symlink_metadata(&step) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                return Err(UnsafePath::Symlink { path: step })
            }
            Ok(metadata) if !metadata.is_dir() => {
                return Err(UnsafePath::WrongType {
                    path: step,
                    found: describe(metadata.file_type()),
                    expected: "directory",
                })
            }
            Ok(_) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(error) => return Err(io_error(&step)(error)),
        }
    }
    Ok(())
}

/// Refuses a project's `.oneworks` folder that is a symbolic link or not a
/// folder (a missing one is fine). One rule for every command: config is
/// never read, and nothing is written, through a linked `.oneworks`.
pub fn check_project_dot_dir(dot_dir: &Path) -> Result<(), UnsafePath> {
    match fs_err::symlink_metadata(dot_dir) {
        Ok(metadata) if metadata.file_type().is_symlink() => Err(UnsafePath::Symlink {
            path: dot_dir.to_owned(),
        }),
        Ok(metadata) if !metadata.is_dir() => Err(UnsafePath::WrongType {
            path: dot_dir.to_owned(),
            found: describe(metadata.file_type()),
            expected: "directory",
        }),
        Ok(_) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(io_error(dot_dir)(error)),
    }
}

/// Creates `path` and every missing folder between `base` and it, one level
/// at a time with `mode`, refusing symlinks and non-folders on the way.
/// `base` itself is created with its parents if missing (it must not be a
/// link either).
pub fn create_dir_chain(base: &Path, path: &Path, mode: u32) -> Result<(), UnsafePath> {
    if fs_err::symlink_metadata(base).is_err() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode_compat(mode)
            .create(base)
            .map_err(io_error(base))?;
    }
    check_dir_chain(base, path)?;
    for step in below(base, path)? {
        match std::fs::DirBuilder::new().mode_compat(mode).create(&step) {
            Ok(()) => {}
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                let metadata = fs_err::symlink_metadata(&step).map_err(io_error(&step))?;
                if metadata.file_type().is_symlink() {
                    return Err(UnsafePath::Symlink { path: step });
                }
                if !metadata.is_dir() {
                    return Err(UnsafePath::WrongType {
                        path: step,
                        found: describe(metadata.file_type()),
                        expected: "directory",
                    });
                }
            }
            Err(error) => return Err(io_error(&step)(error)),
        }
    }
    Ok(())
}

trait DirBuilderMode {
    fn mode_compat(&mut self, mode: u32) -> &mut Self;
}

impl DirBuilderMode for std::fs::DirBuilder {
    fn mode_compat(&mut self, mode: u32) -> &mut Self {
        std::os::unix::fs::DirBuilderExt::mode(self, mode)
    }
}

/// Refuses an executable that is a link, not a regular file, not
/// executable, or whose real path escapes `root`.
pub fn check_executable(root: &Path, executable: &Path) -> Result<(), UnsafePath> {
    check_dir_chain(root, executable.parent().unwrap_or(root))?;
    let metadata = fs_err::symlink_metadata(executable).map_err(io_error(executable))?;
    if metadata.file_type().is_symlink() {
        return Err(UnsafePath::Symlink {
            path: executable.to_owned(),
        });
    }
    if !metadata.is_file() {
        return Err(UnsafePath::WrongType {
            path: executable.to_owned(),
            found: describe(metadata.file_type()),
            expected: "regular file",
        });
    }
    check_real_path_inside(root, executable)?;
    if metadata.permissions().mode() & 0o111 == 0 {
        return Err(UnsafePath::WrongType {
            path: executable.to_owned(),
            found: "file without execute permission",
            expected: "executable file",
        });
    }
    Ok(())
}

/// Refuses `path` when its canonical path is not inside the canonical `root`.
pub fn check_real_path_inside(root: &Path, path: &Path) -> Result<(), UnsafePath> {
    let real_root = fs_err::canonicalize(root).map_err(io_error(root))?;
    let real = fs_err::canonicalize(path).map_err(io_error(path))?;
    if real.starts_with(&real_root) {
        Ok(())
    } else {
        Err(UnsafePath::Escapes {
            path: path.to_owned(),
            real,
            root: real_root,
        })
    }
}

/// Creates the folder `path` 0700 if it is missing (its parents with the
/// default mode), then [`check_private_dir`]: a runtime folder that is
/// ours and closed to others.
pub fn create_private_dir(path: &Path) -> Result<(), UnsafePath> {
    if let Some(parent) = path.parent() {
        if fs_err::symlink_metadata(parent).is_err() {
            fs_err::create_dir_all(parent).map_err(io_error(parent))?;
        }
    }
    match std::fs::DirBuilder::new().mode_compat(0o700).create(path) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(error) => return Err(io_error(path)(error)),
    }
    check_private_dir(path)
}

/// Refuses a folder not owned by this user, or readable by others when
/// `private` (runtime folders must be 0700 and ours).
pub fn check_private_dir(path: &Path) -> Result<(), UnsafePath> {
    use std::os::unix::fs::MetadataExt;
    let metadata = fs_err::symlink_metadata(path).map_err(io_error(path))?;
    if metadata.file_type().is_symlink() {
        return Err(UnsafePath::Symlink {
            path: path.to_owned(),
        });
    }
    if !metadata.is_dir() {
        return Err(UnsafePath::WrongType {
            path: path.to_owned(),
            found: describe(metadata.file_type()),
            expected: "directory",
        });
    }
    let uid = current_uid();
    if metadata.uid() != uid {
        return Err(UnsafePath::Owner {
            path: path.to_owned(),
            owner: metadata.uid(),
            uid,
        });
    }
    if metadata.mode() & 0o077 != 0 {
        fs_err::set_permissions(path, std::fs::Permissions::from_mode(0o700))
            .map_err(io_error(path))?;
    }
    Ok(())
}

/// Removes every entry of `dir` (folders recursively, links as links),
/// keeping `dir` itself. Tries them all; returns the first failure.
pub fn empty_dir(dir: &Path) -> std::io::Result<()> {
    let mut first_error = None;
    for entry in fs_err::read_dir(dir).map_err(crate::fs_error::os_cause)? {
        let removed = entry.and_then(|entry| {
            if entry.file_type()?.is_dir() {
                fs_err::remove_dir_all(entry.path())
            } else {
                fs_err::remove_file(entry.path())
            }
        });
        if let Err(error) = removed {
            first_error.get_or_insert(crate::fs_error::os_cause(error));
        }
    }
    first_error.map_or(Ok(()), Err)
}

/// Writes `contents` to `path` atomically: a temp file in the same folder,
/// flushed and renamed over the target. Readers see the old or the new
/// file, never a half-written one.
pub fn atomic_write(path: &Path, contents: &[u8], mode: u32) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let mut file = tempfile::Builder::new()
        .prefix(".oneworks-tmp-")
        .permissions(std::fs::Permissions::from_mode(mode))
        .tempfile_in(dir)?;
    file.write_all(contents)?;
    file.as_file().sync_data()?;
    file.persist(path).map_err(|error| error.error)?;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn dir_chain_refuses_symlinks_and_files() {
        let temp = tempfile::tempdir().expect("tempdir");
        let base = temp.path().join("base");
        create_dir_chain(&base, &base.join("a/b"), 0o700).expect("creates chain");
        assert!(base.join("a/b").is_dir());

        std::os::unix::fs::symlink(temp.path(), base.join("link")).expect("symlink");
        let error = create_dir_chain(&base, &base.join("link/x"), 0o700).unwrap_err();
        assert!(matches!(error, UnsafePath::Symlink { .. }), "{error}");
        assert!(!temp.path().join("x").exists());

        std::fs::write(base.join("file"), b"").expect("write");
        let error = check_dir_chain(&base, &base.join("file/x")).unwrap_err();
        assert!(matches!(error, UnsafePath::WrongType { .. }), "{error}");
    }

    #[test]
    fn executable_checks() {
        let temp = tempfile::tempdir().expect("tempdir");
        let root = temp.path().join("v");
        std::fs::create_dir(&root).expect("mkdir");
        let exe = root.join("agent-cli");
        std::fs::write(&exe, b"#!/bin/sh\n").expect("write");
        assert!(check_executable(&root, &exe).is_err(), "not executable yet");
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        check_executable(&root, &exe).expect("regular executable passes");

        let outside = temp.path().join("outside");
        std::fs::write(&outside, b"").expect("write");
        let link = root.join("link");
        std::os::unix::fs::symlink(&outside, &link).expect("symlink");
        assert!(matches!(
            check_executable(&root, &link),
            Err(UnsafePath::Symlink { .. })
        ));
        let folder = root.join("folder");
        std::fs::create_dir(&folder).expect("mkdir");
        assert!(matches!(
            check_executable(&root, &folder),
            Err(UnsafePath::WrongType { .. })
        ));
    }

    #[test]
    fn regular_files_only_and_bounded() {
        let temp = tempfile::tempdir().expect("tempdir");
        let file = temp.path().join("f");
        std::fs::write(&file, b"12345").expect("write");
        assert_eq!(read_regular_file(&file, 5, false).expect("fits"), b"12345");
        assert!(matches!(
            read_regular_file(&file, 4, false),
            Err(ReadRefusal::TooLarge)
        ));
        let link = temp.path().join("link");
        std::os::unix::fs::symlink(&file, &link).expect("symlink");
        assert!(matches!(
            read_regular_file(&link, 5, false),
            Err(ReadRefusal::Symlink)
        ));
        assert_eq!(
            read_regular_file(&link, 5, true).expect("followed"),
            b"12345"
        );
        let fifo = temp.path().join("fifo");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo");
        assert!(status.success());
        assert!(matches!(
            read_regular_file(&fifo, 5, true),
            Err(ReadRefusal::NotRegular("FIFO"))
        ));
        assert!(matches!(
            read_regular_file(Path::new("/dev/zero"), 5, true),
            Err(ReadRefusal::NotRegular("device"))
        ));
        assert!(matches!(
            read_regular_file(temp.path(), 5, true),
            Err(ReadRefusal::NotRegular("directory"))
        ));
        assert!(matches!(
            read_regular_file(&temp.path().join("none"), 5, true),
            Err(ReadRefusal::Missing)
        ));
    }

    #[test]
    fn a_linked_dot_dir_is_refused() {
        let temp = tempfile::tempdir().expect("tempdir");
        let dot = temp.path().join(".oneworks");
        check_project_dot_dir(&dot).expect("missing is fine");
        std::os::unix::fs::symlink(temp.path(), &dot).expect("symlink");
        assert!(matches!(
            check_project_dot_dir(&dot),
            Err(UnsafePath::Symlink { .. })
        ));
    }

    #[test]
    fn atomic_write_replaces_whole_file() {
        let temp = tempfile::tempdir().expect("tempdir");
        let path = temp.path().join("f.json");
        atomic_write(&path, b"one", 0o600).expect("write");
        atomic_write(&path, b"two", 0o600).expect("rewrite");
        assert_eq!(std::fs::read(&path).expect("read"), b"two");
        let leftovers = std::fs::read_dir(temp.path()).expect("list").count();
        assert_eq!(leftovers, 1, "no temp files left behind");
    }
}
