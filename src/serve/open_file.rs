//! `--open`'s hand-off to the browser (Jupyter's
//! `jpserver-*-open.html` model). Every local user can read a process's
//! argv in `/proc`, so the desktop's opener gets nothing worth taking: only
//! the path of a file (0600, in the 0700 runtime folder) whose page sends
//! the browser on to the printed URL, the token in its fragment. The file
//! goes at the first authenticated request (the page has loaded), after
//! [`OPEN_FILE_LIFETIME`], or when serve exits, whichever comes first; a
//! file left by a serve that was killed is removed by the next one once
//! its lifetime is over.
//!
//! The page moves on with `<meta http-equiv="refresh">`, not a script:
//! serve's own CSP does not reach a `file://` page, but a browser may run
//! no script in local files (a policy, a hardened profile), and a refresh
//! needs none. Chromium follows it from `file://` to `http://127.0.0.1`
//! with the fragment intact.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::fs_safety::{open_private, PrivateOpen};

/// How long the file may wait for its page to load: a browser started
/// cold takes seconds, not minutes.
pub const OPEN_FILE_LIFETIME: Duration = Duration::from_secs(60);

const PREFIX: &str = "serve-open-";
const SUFFIX: &str = ".html";

/// The file, removed when dropped.
#[derive(Debug)]
pub struct OpenFile {
    path: PathBuf,
}

impl OpenFile {
    /// Writes the page that sends the browser on to `page_url` into the
    /// private folder `dir` (created 0700 if missing, refused if it is a
    /// link, another user's or cannot be made private); first removes the
    /// files of earlier serves older than `lifetime`.
    pub fn write(dir: &Path, page_url: &str, lifetime: Duration) -> std::io::Result<OpenFile> {
        crate::fs_safety::create_private_dir(dir).map_err(std::io::Error::other)?;
        remove_expired(dir, lifetime);
        let name = format!(
            "{PREFIX}{}{SUFFIX}",
            &crate::session::secret::random_hex()?[..16]
        );
        let path = dir.join(name);
        let mut file = open_private(&path, PrivateOpen::CreateNew)?;
        let opened = OpenFile { path };
        file.write_all(super::page::open_page(page_url).into_string().as_bytes())?;
        Ok(opened)
    }

    /// What the opener is given.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for OpenFile {
    fn drop(&mut self) {
        let _ = fs_err::remove_file(&self.path);
    }
}

/// Removes the `--open` files in `dir` older than `lifetime` (their serve
/// was killed before it could): past it they are refused by spec anyway.
fn remove_expired(dir: &Path, lifetime: Duration) {
    let Ok(entries) = fs_err::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !(name.starts_with(PREFIX) && name.ends_with(SUFFIX)) {
            continue;
        }
        // Not followed: a link or anything else is not one of ours.
        let expired = entry
            .metadata()
            .ok()
            .filter(|meta| meta.is_file())
            .is_some_and(|meta| {
                meta.modified()
                    .ok()
                    .and_then(|modified| now.duration_since(modified).ok())
                    .is_some_and(|age| age >= lifetime)
            });
        if expired {
            let _ = fs_err::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // fixtures use std::fs directly

    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_file_is_private_sends_the_browser_on_and_goes_when_dropped() {
        let temp = tempfile::tempdir().expect("tempdir");
        let dir = temp.path().join("oneworks");
        let url = "http://127.0.0.1:4000/#token=00ff";
        let file = OpenFile::write(&dir, url, OPEN_FILE_LIFETIME).expect("write");
        let mode = |path: &Path| std::fs::metadata(path).expect("meta").permissions().mode();
        assert_eq!(mode(&dir) & 0o777, 0o700);
        assert_eq!(mode(file.path()) & 0o777, 0o600);
        let html = std::fs::read_to_string(file.path()).expect("read");
        assert!(
            html.contains(&format!(
                r#"<meta http-equiv="refresh" content="0;url={url}">"#
            )),
            "{html}"
        );
        let path = file.path().to_owned();
        drop(file);
        assert!(!path.exists());
    }

    #[test]
    fn only_expired_files_of_ours_are_removed() {
        let temp = tempfile::tempdir().expect("tempdir");
        let dir = temp.path().join("oneworks");
        let old = OpenFile::write(&dir, "http://127.0.0.1:1/", OPEN_FILE_LIFETIME).expect("old");
        let other = dir.join("links-0123.json");
        std::fs::write(&other, "{}").expect("write");
        let fresh = OpenFile::write(&dir, "http://127.0.0.1:2/", OPEN_FILE_LIFETIME).expect("new");
        assert!(old.path().exists(), "younger than its lifetime");
        let _newest = OpenFile::write(&dir, "http://127.0.0.1:3/", Duration::ZERO).expect("new");
        assert!(!old.path().exists() && !fresh.path().exists());
        assert!(other.exists());
    }

    #[test]
    fn a_linked_folder_is_refused() {
        let temp = tempfile::tempdir().expect("tempdir");
        let real = temp.path().join("real");
        std::fs::create_dir(&real).expect("mkdir");
        let link = temp.path().join("link");
        std::os::unix::fs::symlink(&real, &link).expect("link");
        assert!(OpenFile::write(&link, "http://127.0.0.1:1/", OPEN_FILE_LIFETIME).is_err());
        assert_eq!(std::fs::read_dir(&real).expect("list").count(), 0);
    }
}
