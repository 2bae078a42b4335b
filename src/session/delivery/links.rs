//! Answer links: with `--public-url URL`, each webhook POST
//! carries `answer_url` = `URL/a/{card}/{capability}`.
//!
//! Two halves, one per process:
//!
//! - **serve publishes where it listens.** Each serve process draws an
//!   instance id and writes its own file, `links-<project hash>-<instance>.json`
//!   (0600, in the private runtime folder) holding the public URL and the
//!   instance. It keeps the file open under an exclusive `flock` while it
//!   runs and removes only its own file when it stops, so two serves of one
//!   project never clobber each other, and a serve killed outright leaves a
//!   file that no longer counts (its lock went with it; the next serve of
//!   the project removes it).
//! - **the supervisor mints and checks the capability.** When the webhook
//!   POSTs a card, the supervisor picks the newest live serve of the
//!   project, draws 256 random bits for that card instance and keeps them
//!   in memory with the serve instance ([`LinkBook`]); nothing is derived
//!   from the card id, so a request id reused by a later run of the agent
//!   (or a later supervisor) revives nothing. Serve forwards a link's
//!   capability and its own instance over the approvals socket (`link` op
//!   to show the confirm form, `answer` with `by: link` to answer); the
//!   supervisor answers only for the card and serve instance it minted
//!   for, once. A link is dead once used, once its card is no longer
//!   pending, when its supervisor stops (the book is memory) and when its
//!   serve stops (another serve has another instance).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use fs4::fs_std::FileExt;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::session::secret::{random_hex, same_secret};

/// What a serve process's links file holds.
#[derive(Serialize, Deserialize)]
struct Published {
    url: String,
    instance: String,
}

/// The prefix of the links files of the project at `project` (runtime
/// folder `base`): each serve adds `-<instance>.json`.
pub fn links_prefix(base: &Path, project: &Path) -> PathBuf {
    let digest = Sha256::digest(project.as_os_str().as_encoded_bytes());
    base.join(format!("links-{}", &hex::encode(digest)[..16]))
}

/// The links files under `prefix`, with their modification times.
fn published_files(prefix: &Path) -> Vec<(PathBuf, std::time::SystemTime)> {
    let (Some(dir), Some(stem)) = (prefix.parent(), prefix.file_name()) else {
        return Vec::new();
    };
    let stem = format!("{}-", stem.to_string_lossy());
    let Ok(entries) = fs_err::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|entry| {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            name.starts_with(&stem) && name.ends_with(".json")
        })
        .filter_map(|entry| {
            let modified = entry.metadata().ok()?.modified().ok()?;
            Some((entry.path(), modified))
        })
        .collect()
}

/// The serve behind the links file at `path`, if it is ours and its serve
/// still runs (holds the lock).
fn live(path: &Path) -> Option<Published> {
    use std::os::unix::fs::MetadataExt;
    let (bytes, meta) =
        crate::fs_safety::read_regular_file_with_metadata(path, 4096, false).ok()?;
    let ours = meta.uid() == crate::fs_safety::current_uid() && meta.mode() & 0o077 == 0;
    if !ours {
        return None;
    }
    let file = fs_err::File::open(path).ok()?;
    // A shared lock we can take means no serve holds the file.
    if FileExt::try_lock_shared(file.file()).unwrap_or(true) {
        return None;
    }
    serde_json::from_slice(&bytes).ok()
}

/// The `answer_url` of `card`, when a serve process of the project runs
/// with `--public-url` (the newest one): a fresh capability is minted in
/// `book` for this card and that serve.
pub fn answer_url(prefix: &Path, card: &str, book: &LinkBook) -> Option<String> {
    let mut files = published_files(prefix);
    files.sort_by_key(|file| std::cmp::Reverse(file.1));
    let published = files.iter().find_map(|(path, _)| live(path))?;
    let url = url::Url::parse(&published.url).ok()?;
    let capability = book.mint(card, &published.instance)?;
    Some(join(&url, &format!("a/{card}/{capability}")))
}

fn join(base: &url::Url, tail: &str) -> String {
    let text = base.as_str();
    if text.ends_with('/') {
        format!("{text}{tail}")
    } else {
        format!("{text}/{tail}")
    }
}

/// Whether `card` and `capability` have the shape of a link's parts (a
/// check before any socket is asked).
pub fn well_formed(card: &str, capability: &str) -> bool {
    let card_ok = !card.is_empty()
        && card.len() <= 256
        && card
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.');
    card_ok
        && capability.len() == 64
        && capability
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A serve process's published links file, locked while it runs.
pub struct Links {
    /// Names this serve in the supervisors' link books.
    pub instance: String,
    file: PathBuf,
    /// Holds the lock; closed (unlocked) when serve stops.
    _lock: std::fs::File,
}

impl Links {
    /// Draws the instance and writes (and locks) this serve's links file;
    /// removes the files of serves of the project that no longer run.
    pub fn publish(url: &url::Url, base: &Path, project: &Path) -> std::io::Result<Links> {
        use std::io::Write;
        use std::os::unix::fs::PermissionsExt;
        let instance = random_hex()?[..32].to_owned();
        crate::fs_safety::create_private_dir(base).map_err(std::io::Error::other)?;
        let prefix = links_prefix(base, project);
        for (stale, _) in published_files(&prefix) {
            let Ok(file) = fs_err::File::open(&stale) else {
                continue;
            };
            if FileExt::try_lock_exclusive(file.file()).unwrap_or(false) {
                let _ = fs_err::remove_file(&stale);
            }
        }
        let file = PathBuf::from(format!("{}-{instance}.json", prefix.display()));
        let published = Published {
            url: url.as_str().to_owned(),
            instance: instance.clone(),
        };
        let text = serde_json::to_vec(&published).map_err(std::io::Error::other)?;
        // Locked before it is renamed into place: no reader sees it unlocked.
        let mut temp = tempfile::Builder::new()
            .prefix(".oneworks-tmp-")
            .permissions(std::fs::Permissions::from_mode(0o600))
            .tempfile_in(base)?;
        if !FileExt::try_lock_exclusive(temp.as_file())? {
            return Err(std::io::Error::other("cannot lock the links file"));
        }
        temp.write_all(&text)?;
        let lock = temp.persist(&file).map_err(|error| error.error)?;
        Ok(Links {
            instance,
            file,
            _lock: lock,
        })
    }

    /// Removes this serve's links file (serve is stopping).
    pub fn withdraw(&self) {
        let _ = fs_err::remove_file(&self.file);
    }
}

/// Why a link does not answer.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum LinkRefusal {
    #[error("no such link")]
    Unknown,
    #[error("this link was used")]
    Used,
}

/// One minted capability.
struct Minted {
    capability: String,
    serve: String,
    spent: bool,
}

/// The supervisor's capabilities, one per card instance sent with a link
/// (memory only: they die with the supervisor).
#[derive(Default)]
pub struct LinkBook {
    minted: Mutex<HashMap<String, Minted>>,
}

impl LinkBook {
    /// Draws card `card`'s capability for serve instance `serve` (replacing
    /// any earlier one of that card).
    pub fn mint(&self, card: &str, serve: &str) -> Option<String> {
        let capability = random_hex().ok()?;
        let minted = Minted {
            capability: capability.clone(),
            serve: serve.to_owned(),
            spent: false,
        };
        self.lock().insert(card.to_owned(), minted);
        Some(capability)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Minted>> {
        self.minted.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether `capability`, forwarded by serve `serve`, is card `card`'s
    /// link (used or not).
    pub fn check(&self, card: &str, capability: &str, serve: &str) -> Result<(), LinkRefusal> {
        let minted = self.lock();
        match minted.get(card) {
            Some(entry)
                if same_secret(capability, &entry.capability)
                    && same_secret(serve, &entry.serve) =>
            {
                if entry.spent {
                    Err(LinkRefusal::Used)
                } else {
                    Ok(())
                }
            }
            _ => Err(LinkRefusal::Unknown),
        }
    }

    /// [`check`](Self::check), then marks the link used: it answers once.
    pub fn spend(&self, card: &str, capability: &str, serve: &str) -> Result<(), LinkRefusal> {
        self.check(card, capability, serve)?;
        if let Some(entry) = self.lock().get_mut(card) {
            if entry.spent {
                return Err(LinkRefusal::Used);
            }
            entry.spent = true;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capability_is_drawn_per_card_instance_and_answers_once() {
        let book = LinkBook::default();
        let first = book.mint("card-a", "serve-1").expect("minted");
        assert_eq!(first.len(), 64);
        assert!(well_formed("card-a", &first));
        assert_eq!(book.check("card-a", &first, "serve-1"), Ok(()));
        assert_eq!(
            book.check("card-a", &first, "serve-2"),
            Err(LinkRefusal::Unknown),
            "another serve"
        );
        assert_eq!(
            book.check("card-b", &first, "serve-1"),
            Err(LinkRefusal::Unknown)
        );
        // The same card sent again: a new capability, the old one dead.
        let second = book.mint("card-a", "serve-1").expect("minted");
        assert_ne!(first, second);
        assert_eq!(
            book.check("card-a", &first, "serve-1"),
            Err(LinkRefusal::Unknown)
        );
        assert_eq!(book.spend("card-a", &second, "serve-1"), Ok(()));
        assert_eq!(
            book.spend("card-a", &second, "serve-1"),
            Err(LinkRefusal::Used)
        );
        // A fresh book (a later supervisor) knows nothing.
        assert_eq!(
            LinkBook::default().check("card-a", &second, "serve-1"),
            Err(LinkRefusal::Unknown)
        );
    }

    #[test]
    fn link_parts_are_checked_for_shape_first() {
        let hex = "0".repeat(64);
        assert!(well_formed("kiro_default_0123abcd", &hex));
        for (card, capability) in [
            ("", hex.as_str()),
            ("x", "y"),
            ("a/b", hex.as_str()),
            ("x", &"A".repeat(64)),
            ("x", &"0".repeat(65)),
        ] {
            assert!(!well_formed(card, capability), "{card} {capability}");
        }
    }

    #[test]
    fn each_serve_keeps_its_own_file_and_a_dead_one_does_not_count() {
        let temp = tempfile::tempdir().expect("temp");
        let base = temp.path().join("run");
        let project = Path::new("/srv/project");
        let prefix = links_prefix(&base, project);
        let a = Links::publish(
            &url::Url::parse("https://a.example/").expect("url"),
            &base,
            project,
        )
        .expect("a");
        let b = Links::publish(
            &url::Url::parse("https://b.example/").expect("url"),
            &base,
            project,
        )
        .expect("b");
        assert_eq!(published_files(&prefix).len(), 2);
        let book = LinkBook::default();
        let url = answer_url(&prefix, "card", &book).expect("a link");
        let newest = if url.starts_with("https://b.example/") {
            &b
        } else {
            &a
        };
        let capability = url.rsplit('/').next().expect("capability");
        assert_eq!(book.check("card", capability, &newest.instance), Ok(()));
        b.withdraw();
        drop(b);
        let url = answer_url(&prefix, "card", &book).expect("a link");
        assert!(url.starts_with("https://a.example/a/card/"), "{url}");
        // A serve killed outright: its file stays, its lock does not.
        drop(a);
        assert_eq!(published_files(&prefix).len(), 1);
        assert_eq!(answer_url(&prefix, "card", &book), None);
        let c = Links::publish(
            &url::Url::parse("https://c.example/").expect("url"),
            &base,
            project,
        )
        .expect("c");
        assert_eq!(published_files(&prefix).len(), 1, "the stale file is gone");
        c.withdraw();
    }

    #[test]
    fn a_links_file_open_to_others_or_a_link_to_one_is_not_used() {
        use std::os::unix::fs::PermissionsExt;
        let temp = tempfile::tempdir().expect("temp");
        let base = temp.path().join("run");
        let project = Path::new("/srv/project");
        let prefix = links_prefix(&base, project);
        let links = Links::publish(
            &url::Url::parse("https://a.example/").expect("url"),
            &base,
            project,
        )
        .expect("published");
        let book = LinkBook::default();
        assert!(answer_url(&prefix, "card", &book).is_some());
        let own = published_files(&prefix).remove(0).0;
        fs_err::set_permissions(&own, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        assert_eq!(
            answer_url(&prefix, "card", &book),
            None,
            "readable by others"
        );
        fs_err::set_permissions(&own, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        // Only a symbolic link under a links name, to the live file.
        let elsewhere = base.join("elsewhere.json");
        fs_err::rename(&own, &elsewhere).expect("rename");
        let planted = PathBuf::from(format!("{}-planted.json", prefix.display()));
        fs_err::os::unix::fs::symlink(&elsewhere, &planted).expect("symlink");
        assert_eq!(answer_url(&prefix, "card", &book), None, "followed a link");
        fs_err::remove_file(&planted).expect("remove");
        fs_err::rename(&elsewhere, &own).expect("rename back");
        assert!(answer_url(&prefix, "card", &book).is_some(), "the control");
        links.withdraw();
    }
}
