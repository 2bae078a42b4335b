//! Path safety shared by the installer and session homes: refuse symlinks
//! and special files on the way to a managed folder, refuse real paths that
//! escape their root, create folders one level at a time without following
//! links, and write files atomically (temp file in the same folder, rename).

use std::io::Write;
use std::os::unix::ffi::OsStrExt;
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
                "remove or replace the offending entry; oneworks never follows or repairs it by itself (a managed install can be reinstalled with `oneworks adapter prepare kiro --force`)"
                    .to_owned(),
            ),
        }
    }
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> UnsafePath + '_ {
    move |source| UnsafePath::Io {
        path: path.to_owned(),
        source: crate::fs_error::os_cause(source),
    }
}

/// The real uid of this process.
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

/// What [`read_regular_file`] found instead of a small regular file.
#[derive(Debug)]
pub enum ReadRefusal {
    /// The path (or, with `follow`, its target) does not exist.
    Missing,
    /// A symbolic link, when links are not followed.
    Symlink,
    /// A folder, FIFO, device or socket.
    NotRegular(&'static str),
    TooLarge,
    Io(std::io::Error),
}

/// Reads a regular file of at most `limit` bytes. Opening never blocks (a
/// FIFO is refused, not waited on) and never reads more than `limit + 1`
/// bytes (`/dev/zero` is refused, not swallowed). With `follow` false the
/// last component must not be a link (`O_NOFOLLOW`).
pub fn read_regular_file(path: &Path, limit: u64, follow: bool) -> Result<Vec<u8>, ReadRefusal> {
    read_regular_file_with_metadata(path, limit, follow).map(|(contents, _)| contents)
}

/// [`read_regular_file`], with the metadata of the file that was read
/// (taken from the open file, so it describes the same inode: a caller can
/// refuse a hard-linked file without a race).
pub fn read_regular_file_with_metadata(
    path: &Path,
    limit: u64,
    follow: bool,
) -> Result<(Vec<u8>, std::fs::Metadata), ReadRefusal> {
    use fs_err::os::unix::fs::OpenOptionsExt;
    use std::io::Read;
    let mut flags = libc::O_NONBLOCK | libc::O_CLOEXEC;
    if !follow {
        flags |= libc::O_NOFOLLOW;
    }
    let file = fs_err::OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)
        .map_err(crate::fs_error::os_cause);
    let file = match file {
        Ok(file) => file.into_file(),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(ReadRefusal::Missing)
        }
        Err(error) if error.raw_os_error() == Some(libc::ELOOP) && !follow => {
            return Err(ReadRefusal::Symlink)
        }
        Err(error) => {
            // Opening a socket fails (ENXIO); name what it is.
            return match fs_err::symlink_metadata(path) {
                Ok(metadata) if !metadata.is_file() && !metadata.file_type().is_symlink() => {
                    Err(ReadRefusal::NotRegular(describe(metadata.file_type())))
                }
                _ => Err(ReadRefusal::Io(error)),
            };
        }
    };
    let metadata = file.metadata().map_err(ReadRefusal::Io)?;
    if !metadata.is_file() {
        return Err(ReadRefusal::NotRegular(describe(metadata.file_type())));
    }
    if metadata.len() > limit {
        return Err(ReadRefusal::TooLarge);
    }
    let mut contents = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut contents)
        .map_err(ReadRefusal::Io)?;
    if contents.len() as u64 > limit {
        return Err(ReadRefusal::TooLarge);
    }
    Ok((contents, metadata))
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

/// A name for a file type seen through `rustix` (see [`describe`]).
fn describe_raw(mode: rustix::fs::RawMode) -> &'static str {
    use rustix::fs::FileType;
    match FileType::from_raw_mode(mode) {
        FileType::Symlink => "symbolic link",
        FileType::Directory => "directory",
        FileType::RegularFile => "regular file",
        FileType::Fifo => "FIFO",
        FileType::Socket => "socket",
        FileType::BlockDevice | FileType::CharacterDevice => "device",
        FileType::Unknown => "special file",
    }
}

/// Opens (creating missing ones with `dir_mode`) the folders `steps`
/// below `base`, each relative to the one above with `O_NOFOLLOW |
/// O_DIRECTORY`: a link or a non-folder anywhere is refused, even one
/// swapped in while this runs. Returns the last folder (or `base`).
fn open_dir_beneath(
    base: &Path,
    steps: &[PathBuf],
    dir_mode: u32,
) -> Result<rustix::fd::OwnedFd, UnsafePath> {
    use rustix::fs::{AtFlags, Mode, OFlags};
    use rustix::io::Errno;
    let io = |at: &Path| {
        let at = at.to_owned();
        move |errno: Errno| UnsafePath::Io {
            path: at,
            source: std::io::Error::from(errno),
        }
    };
    let name_of = |step: &Path| {
        step.file_name()
            .map(std::ffi::OsStr::to_owned)
            .unwrap_or_default()
    };
    let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut dir = rustix::fs::open(
        base,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(io(base))?;
    for step in steps {
        let name = name_of(step);
        let opened = match rustix::fs::openat(&dir, &name, dir_flags, Mode::empty()) {
            Err(Errno::NOENT) => {
                match rustix::fs::mkdirat(&dir, &name, Mode::from_raw_mode(dir_mode)) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(errno) => return Err(io(step)(errno)),
                }
                rustix::fs::openat(&dir, &name, dir_flags, Mode::empty())
            }
            other => other,
        };
        dir = match opened {
            Ok(fd) => fd,
            Err(errno @ (Errno::LOOP | Errno::NOTDIR)) => {
                return Err(
                    match rustix::fs::statat(&dir, &name, AtFlags::SYMLINK_NOFOLLOW) {
                        Ok(stat)
                            if rustix::fs::FileType::from_raw_mode(stat.st_mode)
                                == rustix::fs::FileType::Symlink =>
                        {
                            UnsafePath::Symlink { path: step.clone() }
                        }
                        Ok(stat) => UnsafePath::WrongType {
                            path: step.clone(),
                            found: describe_raw(stat.st_mode),
                            expected: "directory",
                        },
                        Err(_) => io(step)(errno),
                    },
                )
            }
            Err(errno) => return Err(io(step)(errno)),
        };
    }
    Ok(dir)
}

/// Opens the folder `path` below `base` without following any link below
/// `base` (see [`write_beneath`]), creating missing folders with `dir_mode`.
pub fn open_dir_path_beneath(
    base: &Path,
    path: &Path,
    dir_mode: u32,
) -> Result<rustix::fd::OwnedFd, UnsafePath> {
    open_dir_beneath(base, &below(base, path)?, dir_mode)
}

/// The entries of the open folder `dir` (no `.`/`..`), each with its type
/// as [`describe`] names it, not following links.
pub fn list_dir(
    dir: &rustix::fd::OwnedFd,
) -> std::io::Result<Vec<(std::ffi::OsString, &'static str)>> {
    use rustix::fs::AtFlags;
    let mut found = Vec::new();
    for entry in rustix::fs::Dir::read_from(dir)? {
        let entry = entry?;
        let name = std::ffi::OsStr::from_bytes(entry.file_name().to_bytes()).to_owned();
        if name == "." || name == ".." {
            continue;
        }
        let stat = rustix::fs::statat(dir, &name, AtFlags::SYMLINK_NOFOLLOW)?;
        found.push((name, describe_raw(stat.st_mode)));
    }
    Ok(found)
}

/// Removes the entry `name` of the open folder `dir` (a folder with all it
/// holds), relative to open folders all the way down: no link is followed
/// (a link inside is removed as a link). `shown` names it in errors.
pub fn remove_tree_at(
    dir: &rustix::fd::OwnedFd,
    name: &std::ffi::OsStr,
    shown: &Path,
) -> Result<(), UnsafePath> {
    use rustix::fs::{AtFlags, Mode, OFlags};
    use rustix::io::Errno;
    let io = |errno: Errno| UnsafePath::Io {
        path: shown.to_owned(),
        source: std::io::Error::from(errno),
    };
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    match rustix::fs::openat(dir, name, flags, Mode::empty()) {
        Ok(child) => {
            let entries = rustix::fs::Dir::read_from(&child).map_err(io)?;
            for entry in entries {
                let entry = entry.map_err(io)?;
                let entry_name = std::ffi::OsStr::from_bytes(entry.file_name().to_bytes());
                if entry_name == "." || entry_name == ".." {
                    continue;
                }
                remove_tree_at(&child, entry_name, &shown.join(entry_name))?;
            }
            rustix::fs::unlinkat(dir, name, AtFlags::REMOVEDIR).map_err(io)
        }
        // Not a folder (or a link to one): removed as it is.
        Err(Errno::NOTDIR | Errno::LOOP) => {
            rustix::fs::unlinkat(dir, name, AtFlags::empty()).map_err(io)
        }
        Err(Errno::NOENT) => Ok(()),
        Err(errno) => Err(io(errno)),
    }
}

/// Writes `contents` to `path` atomically, with no symbolic link followed
/// anywhere below `base`, even if a folder on the way is swapped for a
/// link while this runs: each folder is opened relative to the one above
/// it with `O_NOFOLLOW | O_DIRECTORY` (missing ones are created with
/// `dir_mode`), and the temp file and the rename happen relative to the
/// last open folder. A check of the path followed by a write through it
/// would leave a window for the swap. `base` itself may be a link; `path`
/// must be below it, and an existing `path` must be a regular file.
pub fn write_beneath(
    base: &Path,
    path: &Path,
    contents: &[u8],
    mode: u32,
    dir_mode: u32,
) -> Result<(), UnsafePath> {
    use rustix::fs::{AtFlags, Mode, OFlags};
    use rustix::io::Errno;
    let steps = below(base, path)?;
    let Some((file_step, dir_steps)) = steps.split_last() else {
        return Err(UnsafePath::NotUnder {
            path: path.to_owned(),
            root: base.to_owned(),
        });
    };
    let io = |at: &Path| {
        let at = at.to_owned();
        move |errno: Errno| UnsafePath::Io {
            path: at,
            source: std::io::Error::from(errno),
        }
    };
    let name_of = |step: &Path| {
        step.file_name()
            .map(std::ffi::OsStr::to_owned)
            .unwrap_or_default()
    };
    let dir = open_dir_beneath(base, dir_steps, dir_mode)?;
    let name = name_of(file_step);
    match rustix::fs::statat(&dir, &name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat)
            if rustix::fs::FileType::from_raw_mode(stat.st_mode)
                == rustix::fs::FileType::Symlink =>
        {
            return Err(UnsafePath::Symlink {
                path: file_step.clone(),
            })
        }
        Ok(stat)
            if rustix::fs::FileType::from_raw_mode(stat.st_mode)
                != rustix::fs::FileType::RegularFile =>
        {
            return Err(UnsafePath::WrongType {
                path: file_step.clone(),
                found: describe_raw(stat.st_mode),
                expected: "regular file",
            })
        }
        Ok(_) | Err(Errno::NOENT) => {}
        Err(errno) => return Err(io(file_step)(errno)),
    }
    // A fresh temp name in the same folder; `O_EXCL | O_NOFOLLOW` never
    // reuses or follows an entry someone else put there.
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let temp = loop {
        let candidate = format!(
            ".oneworks-tmp-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        match rustix::fs::openat(
            &dir,
            candidate.as_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(mode),
        ) {
            Ok(fd) => break (candidate, fd),
            Err(Errno::EXIST) => continue,
            Err(errno) => return Err(io(file_step)(errno)),
        }
    };
    let (temp_name, fd) = temp;
    let written = (|| -> std::io::Result<()> {
        rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode))?;
        let mut file = std::fs::File::from(fd);
        file.write_all(contents)?;
        file.sync_data()?;
        rustix::fs::renameat(&dir, temp_name.as_str(), &dir, &name)?;
        Ok(())
    })();
    written.map_err(|source| {
        let _ = rustix::fs::unlinkat(&dir, temp_name.as_str(), AtFlags::empty());
        UnsafePath::Io {
            path: file_step.clone(),
            source,
        }
    })
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn write_beneath_creates_writes_and_refuses_links() {
        let temp = tempfile::tempdir().expect("tempdir");
        let base = temp.path().join("base");
        std::fs::create_dir(&base).expect("mkdir");
        let target = base.join("a/b/file");
        write_beneath(&base, &target, b"one", 0o600, 0o700).expect("write");
        write_beneath(&base, &target, b"two", 0o600, 0o700).expect("rewrite");
        assert_eq!(std::fs::read(&target).expect("read"), b"two");
        let mode = std::fs::metadata(&target)
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(
            std::fs::read_dir(base.join("a/b")).expect("list").count(),
            1
        );

        let outside = temp.path().join("outside");
        std::fs::create_dir(&outside).expect("mkdir");
        std::os::unix::fs::symlink(&outside, base.join("link")).expect("symlink");
        let error = write_beneath(&base, &base.join("link/x/file"), b"", 0o600, 0o700).unwrap_err();
        assert!(matches!(error, UnsafePath::Symlink { .. }), "{error}");
        std::os::unix::fs::symlink(outside.join("f"), base.join("a/b/linked")).expect("symlink");
        let error = write_beneath(&base, &base.join("a/b/linked"), b"", 0o600, 0o700).unwrap_err();
        assert!(matches!(error, UnsafePath::Symlink { .. }), "{error}");
        std::fs::write(base.join("plain"), b"").expect("write");
        let error = write_beneath(&base, &base.join("plain/x"), b"", 0o600, 0o700).unwrap_err();
        assert!(matches!(error, UnsafePath::WrongType { .. }), "{error}");
        assert_eq!(std::fs::read_dir(&outside).expect("list").count(), 0);
    }

    #[test]
    fn remove_tree_at_removes_links_as_links() {
        let temp = tempfile::tempdir().expect("tempdir");
        let base = temp.path().join("base");
        let outside = temp.path().join("outside");
        std::fs::create_dir_all(base.join("skills/stale/deep")).expect("mkdir");
        std::fs::create_dir(&outside).expect("mkdir");
        std::fs::write(outside.join("keep"), b"keep").expect("write");
        std::fs::write(base.join("skills/stale/deep/f"), b"").expect("write");
        std::os::unix::fs::symlink(&outside, base.join("skills/stale/link")).expect("symlink");
        let dir = open_dir_path_beneath(&base, &base.join("skills"), 0o700).expect("open");
        let listed = list_dir(&dir).expect("list");
        assert_eq!(listed, [(std::ffi::OsString::from("stale"), "directory")]);
        remove_tree_at(
            &dir,
            std::ffi::OsStr::new("stale"),
            &base.join("skills/stale"),
        )
        .expect("remove");
        assert!(!base.join("skills/stale").exists());
        assert_eq!(std::fs::read(outside.join("keep")).expect("kept"), b"keep");

        std::os::unix::fs::symlink(&outside, base.join("linked")).expect("symlink");
        assert!(matches!(
            open_dir_path_beneath(&base, &base.join("linked"), 0o700),
            Err(UnsafePath::Symlink { .. })
        ));
    }

    /// A folder swapped for a link while writes go on: nothing ever lands
    /// through the link. (Run against the check-then-write it replaces,
    /// this let a write through in about one run of three.)
    #[test]
    fn a_folder_swapped_for_a_link_mid_write_is_never_followed() {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;
        let temp = tempfile::tempdir().expect("tempdir");
        let base = temp.path().join("base");
        let outside = temp.path().join("outside");
        std::fs::create_dir_all(base.join("skills/s")).expect("mkdir");
        std::fs::create_dir(&outside).expect("mkdir");
        let stop = Arc::new(AtomicBool::new(false));
        let swapper = {
            let stop = Arc::clone(&stop);
            let folder = base.join("skills/s");
            let parked = base.join("skills/parked");
            let outside = outside.clone();
            std::thread::spawn(move || {
                let link = folder.clone();
                while !stop.load(Ordering::Relaxed) {
                    // Folder -> link -> folder, as fast as possible.
                    if std::fs::rename(&folder, &parked).is_ok() {
                        let _ = std::os::unix::fs::symlink(&outside, &link);
                        std::thread::yield_now();
                        let _ = std::fs::remove_file(&link);
                        let _ = std::fs::rename(&parked, &folder);
                        std::thread::yield_now();
                    }
                }
            })
        };
        for _ in 0..1500 {
            let _ = write_beneath(&base, &base.join("skills/s/SKILL.md"), b"x", 0o600, 0o700);
        }
        stop.store(true, Ordering::Relaxed);
        swapper.join().expect("swapper");
        assert_eq!(
            std::fs::read_dir(&outside).expect("list").count(),
            0,
            "a write went through the link"
        );
    }

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
        let exe = root.join("kiro-cli");
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
