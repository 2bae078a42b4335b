//! Reading a regular file without blocking on a FIFO, swallowing a device
//! or (when asked) following a link — the one way oneworks opens a file it
//! did not write itself. Opening uses `O_NONBLOCK` (a FIFO with no writer
//! would block the open for good), then the open file is checked to be a
//! regular file (`fstat`: the same inode that was opened) before a byte is
//! read, and `O_NONBLOCK` is cleared again.
//!
//! [`open_regular_file_beneath`] also refuses a link in any folder below a
//! base (each opened relative to the one above with `O_NOFOLLOW`): what a
//! clone brings under `.oneworks/sessions/` is read that way.

use std::path::Path;

use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;

use super::{below, describe, UnsafePath};

/// What was found instead of a regular file that could be read.
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

/// The flags of every open here: never wait (a FIFO), never take a
/// terminal as the controlling one (a device).
fn read_flags(follow: bool) -> OFlags {
    let mut flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    if !follow {
        flags |= OFlags::NOFOLLOW;
    }
    flags
}

/// Opens the regular file `path` for reading; the open never blocks. With
/// `follow` false the last component must not be a link (`O_NOFOLLOW`).
pub fn open_regular_file(path: &Path, follow: bool) -> Result<std::fs::File, ReadRefusal> {
    match rustix::fs::open(path, read_flags(follow), Mode::empty()) {
        Ok(fd) => regular(fd),
        Err(errno) => Err(refusal_of(errno, follow, || {
            let kind = fs_err::symlink_metadata(path).ok()?.file_type();
            (!kind.is_file() && !kind.is_symlink()).then(|| describe(kind))
        })),
    }
}

/// Opens the regular file `path`, which must lie below `base`, following
/// no link anywhere below `base` (`base` itself may be one): each folder on
/// the way is opened relative to the one above with `O_NOFOLLOW |
/// O_DIRECTORY`, so a folder swapped for a link while this runs is refused
/// too. Nothing is created; the open never blocks.
pub fn open_regular_file_beneath(base: &Path, path: &Path) -> Result<std::fs::File, ReadRefusal> {
    let steps = below(base, path).map_err(refusal_of_unsafe)?;
    let Some((file_step, dir_steps)) = steps.split_last() else {
        return Err(ReadRefusal::NotRegular("directory"));
    };
    let dir = super::beneath::open_dir_beneath(base, dir_steps, None).map_err(refusal_of_unsafe)?;
    let name = file_step.file_name().unwrap_or_default();
    match rustix::fs::openat(&dir, name, read_flags(false), Mode::empty()) {
        Ok(fd) => regular(fd),
        Err(errno) => Err(refusal_of(errno, false, || {
            use rustix::fs::FileType;
            let stat =
                rustix::fs::statat(&dir, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW).ok()?;
            let kind = FileType::from_raw_mode(stat.st_mode);
            (kind != FileType::RegularFile && kind != FileType::Symlink)
                .then(|| super::beneath::describe_raw(stat.st_mode))
        })),
    }
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
    read_bounded(open_regular_file(path, follow)?, limit)
}

/// [`read_regular_file_with_metadata`] for a file below `base`, following
/// no link below `base` (see [`open_regular_file_beneath`]).
pub fn read_regular_file_beneath(
    base: &Path,
    path: &Path,
    limit: u64,
) -> Result<(Vec<u8>, std::fs::Metadata), ReadRefusal> {
    read_bounded(open_regular_file_beneath(base, path)?, limit)
}

/// The open `fd` as a file if it is a regular file, `O_NONBLOCK` cleared
/// (it means nothing for a regular file, but the descriptor may be handed
/// on).
fn regular(fd: rustix::fd::OwnedFd) -> Result<std::fs::File, ReadRefusal> {
    let file = std::fs::File::from(fd);
    let metadata = file.metadata().map_err(ReadRefusal::Io)?;
    if !metadata.is_file() {
        return Err(ReadRefusal::NotRegular(describe(metadata.file_type())));
    }
    let flags = rustix::fs::fcntl_getfl(&file).map_err(|e| ReadRefusal::Io(e.into()))?;
    rustix::fs::fcntl_setfl(&file, flags - OFlags::NONBLOCK)
        .map_err(|e| ReadRefusal::Io(e.into()))?;
    Ok(file)
}

fn read_bounded(
    file: std::fs::File,
    limit: u64,
) -> Result<(Vec<u8>, std::fs::Metadata), ReadRefusal> {
    use std::io::Read;
    let metadata = file.metadata().map_err(ReadRefusal::Io)?;
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

/// Why an open failed; `special` names what is there when it is neither a
/// regular file nor a link (opening a socket fails with `ENXIO`: the
/// refusal names it).
fn refusal_of(
    errno: Errno,
    follow: bool,
    special: impl FnOnce() -> Option<&'static str>,
) -> ReadRefusal {
    match errno {
        Errno::NOENT => ReadRefusal::Missing,
        Errno::LOOP if !follow => ReadRefusal::Symlink,
        _ => match special() {
            Some(found) => ReadRefusal::NotRegular(found),
            None => ReadRefusal::Io(errno.into()),
        },
    }
}

/// A folder on the way that is not one, as a read sees it.
fn refusal_of_unsafe(error: UnsafePath) -> ReadRefusal {
    match error {
        UnsafePath::Symlink { .. } => ReadRefusal::Symlink,
        UnsafePath::WrongType { found, .. } => ReadRefusal::NotRegular(found),
        UnsafePath::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            ReadRefusal::Missing
        }
        UnsafePath::Io { source, .. } => ReadRefusal::Io(source),
        other => ReadRefusal::Io(std::io::Error::other(other)),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // fixtures use std::fs directly

    use super::*;

    fn fifo(path: &Path) {
        rustix::fs::mknodat(
            rustix::fs::CWD,
            path,
            rustix::fs::FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .expect("mkfifo");
    }

    #[test]
    fn below_a_base_only_a_regular_file_reached_without_links_is_read() {
        let temp = tempfile::tempdir().expect("tempdir");
        let base = temp.path().join("project");
        let session = base.join(".oneworks/sessions/one");
        std::fs::create_dir_all(&session).expect("mkdir");
        let outside = temp.path().join("outside");
        std::fs::create_dir(&outside).expect("mkdir");
        std::fs::write(outside.join("cards.jsonl"), "planted").expect("write");
        std::fs::write(session.join("cards.jsonl"), "ours").expect("write");
        let (bytes, _) =
            read_regular_file_beneath(&base, &session.join("cards.jsonl"), 64).expect("read");
        assert_eq!(bytes, b"ours");

        // A link as the file, and a linked folder on the way.
        std::os::unix::fs::symlink(outside.join("cards.jsonl"), session.join("link.jsonl"))
            .expect("link");
        let linked = base.join(".oneworks/sessions/linked");
        std::os::unix::fs::symlink(&outside, &linked).expect("link");
        for path in [session.join("link.jsonl"), linked.join("cards.jsonl")] {
            let refused = read_regular_file_beneath(&base, &path, 64);
            assert!(
                matches!(refused, Err(ReadRefusal::Symlink)),
                "{path:?}: {refused:?}"
            );
        }

        // A FIFO (no writer: an open without O_NONBLOCK would wait for
        // good), a folder, a missing file, a path outside the base.
        fifo(&session.join("fifo"));
        let refused = read_regular_file_beneath(&base, &session.join("fifo"), 64);
        assert!(
            matches!(refused, Err(ReadRefusal::NotRegular("FIFO"))),
            "{refused:?}"
        );
        let refused = read_regular_file_beneath(&base, &session, 64);
        assert!(
            matches!(refused, Err(ReadRefusal::NotRegular("directory"))),
            "{refused:?}"
        );
        let refused = read_regular_file_beneath(&base, &session.join("missing"), 64);
        assert!(matches!(refused, Err(ReadRefusal::Missing)), "{refused:?}");
        let refused = read_regular_file_beneath(&base, &outside.join("cards.jsonl"), 64);
        assert!(matches!(refused, Err(ReadRefusal::Io(_))), "{refused:?}");
    }

    #[test]
    fn a_fifo_is_refused_without_waiting_and_a_file_opened_blocks_again() {
        let temp = tempfile::tempdir().expect("tempdir");
        let path = temp.path().join("fifo");
        fifo(&path);
        for follow in [false, true] {
            let refused = open_regular_file(&path, follow);
            assert!(
                matches!(refused, Err(ReadRefusal::NotRegular("FIFO"))),
                "{refused:?}"
            );
        }
        let file_path = temp.path().join("file");
        std::fs::write(&file_path, "x").expect("write");
        let file = open_regular_file(&file_path, false).expect("open");
        let flags = rustix::fs::fcntl_getfl(&file).expect("flags");
        assert!(!flags.contains(OFlags::NONBLOCK), "{flags:?}");
    }
}
