//! Opening one of oneworks' own private files (a session's log, its lock,
//! the card history): mode 0600 when created, and never through a link
//! (`O_NOFOLLOW`), so a link planted where the file goes is refused rather
//! than written through.

use std::path::Path;

/// How a private file is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrivateOpen {
    /// Created if missing, each write added at the end (a history).
    Append,
    /// Created if missing, emptied if present (a fresh log).
    Truncate,
    /// Created; refused if anything is already there.
    CreateNew,
    /// Read and written in place, created only when `create` (a lock).
    ReadWrite { create: bool },
}

/// Opens `path` as `how` says, mode 0600, refusing a link at `path`.
/// The error is the OS's cause (`ELOOP` for a link), without the path:
/// callers name the path in their own error.
pub fn open_private(path: &Path, how: PrivateOpen) -> std::io::Result<std::fs::File> {
    use fs_err::os::unix::fs::OpenOptionsExt;
    let mut options = fs_err::OpenOptions::new();
    match how {
        PrivateOpen::Append => options.create(true).append(true),
        PrivateOpen::Truncate => options.create(true).write(true).truncate(true),
        PrivateOpen::CreateNew => options.create_new(true).write(true),
        PrivateOpen::ReadWrite { create } => options
            .read(true)
            .write(true)
            .create(create)
            .truncate(false),
    };
    options
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map(fs_err::File::into_file)
        .map_err(crate::fs_error::os_cause)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // fixtures use std::fs directly

    use super::*;
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_created_file_is_private_and_appends() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history");
        for line in ["one\n", "two\n"] {
            open_private(&path, PrivateOpen::Append)
                .unwrap()
                .write_all(line.as_bytes())
                .unwrap();
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\ntwo\n");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        open_private(&path, PrivateOpen::Truncate).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "");
    }

    #[test]
    fn a_link_is_refused_in_every_way_of_opening() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        std::fs::write(&target, "keep").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        for how in [
            PrivateOpen::Append,
            PrivateOpen::Truncate,
            PrivateOpen::ReadWrite { create: true },
            PrivateOpen::ReadWrite { create: false },
        ] {
            let error = open_private(&link, how).unwrap_err();
            assert_eq!(error.raw_os_error(), Some(libc::ELOOP), "{how:?}");
        }
        let error = open_private(&link, PrivateOpen::CreateNew).unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
    }

    #[test]
    fn without_create_a_missing_file_stays_missing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        let error = open_private(&path, PrivateOpen::ReadWrite { create: false }).unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
        assert!(!path.exists());
    }
}
