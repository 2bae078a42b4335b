//! Writing, listing and removing below a base folder through open folder
//! handles (`openat` with `O_NOFOLLOW | O_DIRECTORY` at every level), so a
//! folder swapped for a link between a check and a use cannot redirect
//! anything: the check and the use are the same open.

use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::{below, UnsafePath};

/// A name for a file type seen through `rustix` (see [`describe`]).
pub(super) fn describe_raw(mode: rustix::fs::RawMode) -> &'static str {
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

/// An `errno` at `at` as an [`UnsafePath`] error.
fn errno_at(at: &Path) -> impl FnOnce(rustix::io::Errno) -> UnsafePath {
    let at = at.to_owned();
    move |errno| UnsafePath::Io {
        path: at,
        source: std::io::Error::from(errno),
    }
}

/// The last component of `step` (empty when it has none).
fn name_of(step: &Path) -> std::ffi::OsString {
    step.file_name()
        .map(std::ffi::OsStr::to_owned)
        .unwrap_or_default()
}

/// Opens the folders `steps` below `base` (creating missing ones with
/// `dir_mode` when it is given), each relative to the one above with
/// `O_NOFOLLOW | O_DIRECTORY`: a link or a non-folder anywhere is refused,
/// even one swapped in while this runs. Returns the last folder (or
/// `base`).
pub(super) fn open_dir_beneath(
    base: &Path,
    steps: &[PathBuf],
    dir_mode: Option<u32>,
) -> Result<rustix::fd::OwnedFd, UnsafePath> {
    use rustix::fs::{AtFlags, Mode, OFlags};
    use rustix::io::Errno;
    let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut dir = rustix::fs::open(
        base,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(errno_at(base))?;
    for step in steps {
        let name = name_of(step);
        let opened = match (
            rustix::fs::openat(&dir, &name, dir_flags, Mode::empty()),
            dir_mode,
        ) {
            (Err(Errno::NOENT), Some(mode)) => {
                match rustix::fs::mkdirat(&dir, &name, Mode::from_raw_mode(mode)) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(errno) => return Err(errno_at(step)(errno)),
                }
                rustix::fs::openat(&dir, &name, dir_flags, Mode::empty())
            }
            (other, _) => other,
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
                        Err(_) => errno_at(step)(errno),
                    },
                )
            }
            Err(errno) => return Err(errno_at(step)(errno)),
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
    open_dir_beneath(base, &below(base, path)?, Some(dir_mode))
}

/// Opens the existing folder `path` below `base` without following any
/// link below `base` and without creating anything.
pub fn open_existing_dir_beneath(
    base: &Path,
    path: &Path,
) -> Result<rustix::fd::OwnedFd, UnsafePath> {
    open_dir_beneath(base, &below(base, path)?, None)
}

/// The entries of the open folder `dir` (no `.`/`..`), each with its type
/// as `describe_raw` names it, not following links.
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
    let steps = below(base, path)?;
    let Some((file_step, dir_steps)) = steps.split_last() else {
        return Err(UnsafePath::NotUnder {
            path: path.to_owned(),
            root: base.to_owned(),
        });
    };
    let dir = open_dir_beneath(base, dir_steps, Some(dir_mode))?;
    let name = name_of(file_step);
    check_replaceable(&dir, &name, file_step)?;
    let temp = create_temp(&dir, mode, file_step)?;
    replace_with_temp(&dir, temp, contents, mode, &name, file_step)
}

/// The entry `name` of the open folder `dir` may be replaced: it is
/// missing or a regular file, never a link (not followed) or anything else.
fn check_replaceable(
    dir: &rustix::fd::OwnedFd,
    name: &std::ffi::OsStr,
    file_step: &Path,
) -> Result<(), UnsafePath> {
    use rustix::fs::AtFlags;
    use rustix::io::Errno;
    match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat)
            if rustix::fs::FileType::from_raw_mode(stat.st_mode)
                == rustix::fs::FileType::Symlink =>
        {
            Err(UnsafePath::Symlink {
                path: file_step.to_owned(),
            })
        }
        Ok(stat)
            if rustix::fs::FileType::from_raw_mode(stat.st_mode)
                != rustix::fs::FileType::RegularFile =>
        {
            Err(UnsafePath::WrongType {
                path: file_step.to_owned(),
                found: describe_raw(stat.st_mode),
                expected: "regular file",
            })
        }
        Ok(_) | Err(Errno::NOENT) => Ok(()),
        Err(errno) => Err(errno_at(file_step)(errno)),
    }
}

/// A temp file just created in an open folder: its name and handle.
struct TempFile {
    name: String,
    fd: rustix::fd::OwnedFd,
}

/// Creates a temp file with a fresh name in the open folder `dir`;
/// `O_EXCL | O_NOFOLLOW` never reuses or follows an entry someone else put
/// there.
fn create_temp(
    dir: &rustix::fd::OwnedFd,
    mode: u32,
    file_step: &Path,
) -> Result<TempFile, UnsafePath> {
    use rustix::fs::{Mode, OFlags};
    use rustix::io::Errno;
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    loop {
        let candidate = format!(
            ".oneworks-tmp-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        match rustix::fs::openat(
            dir,
            candidate.as_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(mode),
        ) {
            Ok(fd) => {
                return Ok(TempFile {
                    name: candidate,
                    fd,
                })
            }
            Err(Errno::EXIST) => continue,
            Err(errno) => return Err(errno_at(file_step)(errno)),
        }
    }
}

/// Gives `temp` its `mode` and `contents`, syncs it and renames it over
/// `name` in the same open folder; on any failure the temp file is removed.
fn replace_with_temp(
    dir: &rustix::fd::OwnedFd,
    temp: TempFile,
    contents: &[u8],
    mode: u32,
    name: &std::ffi::OsStr,
    file_step: &Path,
) -> Result<(), UnsafePath> {
    use rustix::fs::{AtFlags, Mode};
    let TempFile {
        name: temp_name,
        fd,
    } = temp;
    let written = (|| -> std::io::Result<()> {
        rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode))?;
        let mut file = std::fs::File::from(fd);
        file.write_all(contents)?;
        file.sync_data()?;
        rustix::fs::renameat(dir, temp_name.as_str(), dir, name)?;
        Ok(())
    })();
    written.map_err(|source| {
        let _ = rustix::fs::unlinkat(dir, temp_name.as_str(), AtFlags::empty());
        UnsafePath::Io {
            path: file_step.to_owned(),
            source,
        }
    })
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

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
}
