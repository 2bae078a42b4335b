//! Answer links (SPEC §8.5): with `--public-url URL`, each webhook POST
//! carries `answer_url` = `URL/a/{card}/{capability}`. The capability is
//! HMAC-SHA256(key, card id): 256 bits that name one card and nothing else,
//! under a key of 256 random bits this serve process draws. The key and URL
//! reach the supervisors through one file, `links-<project hash>.json`
//! (0600) in the private runtime folder, written when serve starts and
//! removed when it stops; a supervisor reads it when it POSTs a card. A
//! link answers once: the card must be pending, and serve remembers the
//! links it used.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// What the links file holds.
#[derive(Serialize, Deserialize)]
struct Published {
    url: String,
    key: String,
}

/// The links file of the project at `project` (runtime folder `base`).
pub fn links_file(base: &Path, project: &Path) -> PathBuf {
    let digest = Sha256::digest(project.as_os_str().as_encoded_bytes());
    base.join(format!("links-{}.json", &hex::encode(digest)[..16]))
}

fn capability(key: &[u8], card: &str) -> Option<String> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).ok()?;
    mac.update(card.as_bytes());
    Some(hex::encode(mac.finalize().into_bytes()))
}

/// The `answer_url` of `card`, when a serve process of the project
/// published its links in `path` (read by the supervisor's webhook).
pub fn answer_url(path: &Path, card: &str) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let meta = fs_err::symlink_metadata(path).ok()?;
    let ours = meta.is_file()
        && meta.uid() == crate::fs_safety::current_uid()
        && meta.mode() & 0o077 == 0
        && meta.len() < 4096;
    if !ours {
        return None;
    }
    let published: Published = serde_json::from_slice(&fs_err::read(path).ok()?).ok()?;
    let key = hex::decode(&published.key).ok()?;
    let url = url::Url::parse(&published.url).ok()?;
    let cap = capability(&key, card)?;
    Some(join(&url, &format!("a/{card}/{cap}")))
}

fn join(base: &url::Url, tail: &str) -> String {
    let text = base.as_str();
    if text.ends_with('/') {
        format!("{text}{tail}")
    } else {
        format!("{text}/{tail}")
    }
}

pub struct Links {
    key: Vec<u8>,
    file: PathBuf,
    used: Mutex<HashSet<String>>,
}

impl Links {
    /// Draws the key and writes the links file.
    pub fn publish(url: &url::Url, base: &Path, project: &Path) -> std::io::Result<Links> {
        let key = hex::decode(super::secret::random_hex()?).map_err(std::io::Error::other)?;
        if !base.exists() {
            use std::os::unix::fs::DirBuilderExt;
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(base)?;
        }
        crate::fs_safety::check_private_dir(base).map_err(std::io::Error::other)?;
        let file = links_file(base, project);
        let published = Published {
            url: url.as_str().to_owned(),
            key: hex::encode(&key),
        };
        let text = serde_json::to_vec(&published).map_err(std::io::Error::other)?;
        crate::fs_safety::atomic_write(&file, &text, 0o600)?;
        Ok(Links {
            key,
            file,
            used: Mutex::new(HashSet::new()),
        })
    }

    /// Whether `given` is card `card`'s capability.
    pub fn valid(&self, card: &str, given: &str) -> bool {
        capability(&self.key, card)
            .is_some_and(|expected| super::secret::same_secret(given, &expected))
    }

    /// Marks card `card`'s link as used; `false` when it already was (it
    /// answers no more).
    pub fn spend(&self, card: &str) -> bool {
        self.used
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(card.to_owned())
    }

    /// Removes the links file (serve is stopping).
    pub fn withdraw(&self) {
        let _ = fs_err::remove_file(&self.file);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capability_names_one_card() {
        let key = [7u8; 32];
        let a = capability(&key, "card-a").expect("a");
        assert_eq!(a.len(), 64);
        assert_ne!(Some(a.clone()), capability(&key, "card-b"));
        assert_ne!(Some(a), capability(&[8u8; 32], "card-a"));
    }
}
