//! Reading a small regular file without blocking on a FIFO, swallowing a
//! device or (when asked) following a link.

use std::path::Path;

use super::describe;

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
