//! The rules every archive entry passes before anything is written.

use std::collections::HashSet;
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

use fs_err::os::unix::fs::OpenOptionsExt;
use fs_err::OpenOptions;

use super::error::ExtractError;

/// The most entries one archive may hold: the largest real agent package
/// holds under 4 000 files (`@anthropic-ai/sdk` 1.16.0: 3 743), a Kiro
/// archive a handful. Every entry costs a file (and a path kept in
/// memory) before the archive's digest can be judged.
pub const MAX_ENTRIES: usize = 100_000;

/// A staging folder being filled from one archive.
pub struct Staging {
    root: PathBuf,
    seen: HashSet<PathBuf>,
    symlinks: Vec<PathBuf>,
    written: u64,
    limit: u64,
    entries: usize,
    max_entries: usize,
}

/// A write that fails because the path is taken is a malformed archive
/// (an entry clashing with an earlier one), not an internal error.
fn write_error(path: &Path, source: std::io::Error) -> ExtractError {
    if source.kind() == std::io::ErrorKind::AlreadyExists {
        ExtractError::Unsafe {
            entry: path.display().to_string(),
            reason: "clashes with an earlier entry".to_owned(),
        }
    } else {
        ExtractError::Write {
            path: path.to_owned(),
            source: crate::fs_error::os_cause(source),
        }
    }
}

fn unsafe_entry(entry: &str, reason: impl Into<String>) -> ExtractError {
    ExtractError::Unsafe {
        entry: entry.to_owned(),
        reason: reason.into(),
    }
}

/// Validates a raw entry name and returns it as a relative path
/// (`./` prefixes and trailing `/` dropped).
pub fn entry_path(raw: &[u8]) -> Result<PathBuf, ExtractError> {
    let shown = String::from_utf8_lossy(raw).escape_debug().to_string();
    let name =
        std::str::from_utf8(raw).map_err(|_| unsafe_entry(&shown, "the name is not UTF-8"))?;
    if name.chars().any(char::is_control) {
        return Err(unsafe_entry(
            &shown,
            "the name holds NUL or control characters",
        ));
    }
    if name.contains('\\') {
        return Err(unsafe_entry(&shown, "the name holds a backslash"));
    }
    if name.starts_with('/') {
        return Err(unsafe_entry(&shown, "absolute paths are not allowed"));
    }
    let mut path = PathBuf::new();
    for component in Path::new(name).components() {
        match component {
            Component::Normal(part) => path.push(part),
            Component::CurDir => {}
            Component::ParentDir => return Err(unsafe_entry(&shown, "`..` is not allowed")),
            Component::RootDir | Component::Prefix(_) => {
                return Err(unsafe_entry(&shown, "absolute paths are not allowed"))
            }
        }
    }
    if path.as_os_str().is_empty() {
        return Err(unsafe_entry(&shown, "the name is empty"));
    }
    Ok(path)
}

impl Staging {
    /// A staging folder at `root` taking at most `limit` bytes of file
    /// contents and [`MAX_ENTRIES`] entries.
    pub fn new(root: PathBuf, limit: u64) -> Self {
        Self {
            root,
            seen: HashSet::new(),
            symlinks: Vec::new(),
            written: 0,
            limit,
            entries: 0,
            max_entries: MAX_ENTRIES,
        }
    }

    /// Counts one more entry of the archive (written or skipped).
    pub fn count_entry(&mut self) -> Result<(), ExtractError> {
        self.entries += 1;
        if self.entries > self.max_entries {
            return Err(ExtractError::TooManyEntries {
                limit: self.max_entries,
            });
        }
        Ok(())
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn claim(&mut self, path: &Path) -> Result<PathBuf, ExtractError> {
        self.count_entry()?;
        if !self.seen.insert(path.to_owned()) {
            return Err(unsafe_entry(&path.display().to_string(), "duplicate entry"));
        }
        let target = self.root.join(path);
        if let Some(parent) = target.parent() {
            crate::fs_safety::create_dir_chain(&self.root, parent, 0o755)
                .map_err(|error| unsafe_entry(&path.display().to_string(), error.to_string()))?;
        }
        Ok(target)
    }

    pub fn directory(&mut self, path: &Path) -> Result<(), ExtractError> {
        let target = self.claim(path)?;
        crate::fs_safety::create_dir_chain(&self.root, &target, 0o755)
            .map_err(|error| unsafe_entry(&path.display().to_string(), error.to_string()))
    }

    /// Writes a regular file, created new; `executable` keeps only the x bit.
    pub fn file(
        &mut self,
        path: &Path,
        executable: bool,
        contents: &mut dyn Read,
    ) -> Result<(), ExtractError> {
        let target = self.claim(path)?;
        let mode = if executable { 0o755 } else { 0o644 };
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&target)
            .map_err(|source| write_error(&target, source))?
            .into_file();
        let mut buffer = vec![0u8; 256 * 1024];
        loop {
            let read = match contents.read(&mut buffer) {
                Ok(0) => break,
                Ok(read) => read,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(error) => {
                    return Err(ExtractError::Corrupt {
                        format: "archive",
                        source: error,
                    })
                }
            };
            self.written += read as u64;
            if self.written > self.limit {
                return Err(ExtractError::TooLarge { limit: self.limit });
            }
            file.write_all(&buffer[..read])
                .map_err(|source| ExtractError::Write {
                    path: target.clone(),
                    source,
                })?;
        }
        Ok(())
    }

    /// Creates a symlink whose target must stay inside the archive root.
    pub fn symlink(&mut self, path: &Path, link_target: &[u8]) -> Result<(), ExtractError> {
        let shown = path.display().to_string();
        let link = std::str::from_utf8(link_target)
            .map_err(|_| unsafe_entry(&shown, "the link target is not UTF-8"))?;
        if link.is_empty() || link.chars().any(char::is_control) {
            return Err(unsafe_entry(
                &shown,
                "the link target is empty or holds control characters",
            ));
        }
        if link.starts_with('/') {
            return Err(unsafe_entry(
                &shown,
                format!("symlink to absolute path `{link}`"),
            ));
        }
        // Resolve lexically from the link's folder; it must never climb
        // above the archive root at any step.
        let mut depth: usize = path.components().count().saturating_sub(1);
        for component in Path::new(link).components() {
            match component {
                Component::Normal(_) => depth += 1,
                Component::CurDir => {}
                Component::ParentDir => {
                    depth = depth.checked_sub(1).ok_or_else(|| {
                        unsafe_entry(
                            &shown,
                            format!("symlink target `{link}` leaves the archive"),
                        )
                    })?;
                }
                Component::RootDir | Component::Prefix(_) => {
                    return Err(unsafe_entry(
                        &shown,
                        format!("symlink to absolute path `{link}`"),
                    ))
                }
            }
        }
        let target = self.claim(path)?;
        fs_err::os::unix::fs::symlink(link, &target)
            .map_err(|source| write_error(&target, source))?;
        self.symlinks.push(target);
        Ok(())
    }

    /// After the last entry: every link must resolve, through any chain of
    /// links, to something inside the archive root (a lexical check per
    /// link cannot see chains like `l -> .`, `x -> l/l/../..`).
    pub fn finish(&self) -> Result<(), ExtractError> {
        let root =
            fs_err::canonicalize(&self.root).map_err(|source| write_error(&self.root, source))?;
        for link in &self.symlinks {
            let shown = link
                .strip_prefix(&self.root)
                .unwrap_or(link)
                .display()
                .to_string();
            match fs_err::canonicalize(link) {
                Ok(real) if real.starts_with(&root) => {}
                Ok(real) => {
                    return Err(unsafe_entry(
                        &shown,
                        format!(
                            "symlink resolves to `{}`, outside the archive",
                            real.display()
                        ),
                    ))
                }
                Err(_) => {
                    return Err(unsafe_entry(
                        &shown,
                        "symlink target does not exist in the archive",
                    ))
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_names() {
        assert_eq!(
            entry_path(b"./agentcli/bin/agent-cli").expect("ok"),
            PathBuf::from("agentcli/bin/agent-cli")
        );
        assert_eq!(
            entry_path(b"agentcli/").expect("ok"),
            PathBuf::from("agentcli")
        );
        for bad in [
            &b"../evil"[..],
            b"a/../../evil",
            b"/etc/passwd",
            b"a\0b",
            b"a\nb",
            b"",
            b"./",
            b"a\\b",
        ] {
            assert!(
                entry_path(bad).is_err(),
                "{:?} must be refused",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn symlinks_stay_inside_and_duplicates_fail() {
        let temp = tempfile::tempdir().expect("tempdir");
        let mut staging = Staging::new(temp.path().to_owned(), 1 << 20);
        staging
            .symlink(Path::new("agentcli/bin/q"), b"agent-cli")
            .expect("sibling link");
        staging
            .symlink(Path::new("agentcli/bin/up"), b"../install.sh")
            .expect("inside link");
        assert!(staging
            .symlink(Path::new("agentcli/bin/out"), b"../../../etc")
            .is_err());
        assert!(staging
            .symlink(Path::new("agentcli/abs"), b"/etc/passwd")
            .is_err());
        let mut data: &[u8] = b"x";
        staging
            .file(Path::new("agentcli/a"), false, &mut data)
            .expect("file");
        let mut data: &[u8] = b"x";
        assert!(staging
            .file(Path::new("agentcli/a"), false, &mut data)
            .is_err());
        // Writing through the symlink folder is refused, not followed.
        let mut data: &[u8] = b"x";
        let error = staging
            .file(Path::new("agentcli/bin/up/x"), false, &mut data)
            .unwrap_err();
        assert!(error.is_unsafe(), "{error}");
    }

    #[test]
    fn entry_bound() {
        let temp = tempfile::tempdir().expect("tempdir");
        let mut staging = Staging::new(temp.path().to_owned(), 1 << 20);
        staging.max_entries = 3;
        for name in ["a", "b", "c"] {
            staging
                .directory(Path::new(name))
                .expect("within the bound");
        }
        assert!(matches!(
            staging.directory(Path::new("d")),
            Err(ExtractError::TooManyEntries { limit: 3 })
        ));
    }

    #[test]
    fn size_bound() {
        let temp = tempfile::tempdir().expect("tempdir");
        let mut staging = Staging::new(temp.path().to_owned(), 10);
        let mut data: &[u8] = &[0u8; 11];
        assert!(matches!(
            staging.file(Path::new("big"), false, &mut data),
            Err(ExtractError::TooLarge { .. })
        ));
    }
}
