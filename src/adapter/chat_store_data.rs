//! `tui.signals.chatStore` of an adapter data file: where the
//! agent keeps its conversation as a SQLite database per chat, and how a
//! call waiting for its approval reads there. The supervisor reads each
//! such store read-only ([`crate::session::signals::chat_store`]); the
//! agent's own box stays the only place a decision is taken.
//!
//! Every name here is checked when the data is read: the folder is a
//! relative path without `..`, the file one plain name, the table and
//! column SQL identifiers (they are written into a query).

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Deserializer};

use super::json_pointer::JsonPointer;

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChatStoreSignalData {
    /// The variable of the agent's environment whose value is the folder
    /// the stores live below (its `HOME`). Nothing below it may be a link.
    pub base: String,
    /// The folder (below `base`) holding one folder per working folder.
    pub folder: RelativeFolder,
    /// How a working folder's own folder is named.
    pub working_folder: FolderNaming,
    /// The database in each chat's folder (`<working folder>/<chat>/<file>`).
    pub file: PlainName,
    /// The table whose rows hold the conversation, and their column.
    pub table: SqlName,
    pub column: SqlName,
    /// A call part: found in any JSON object embedded in a row.
    pub call: CallPart,
    /// A result part: the call with its id was answered.
    pub result: ResultPart,
    /// How often the stores are looked at.
    pub poll_ms: u64,
    /// How long a read waits for a writer's lock before it gives up until
    /// the next look.
    pub busy_timeout_ms: u64,
    /// The most bytes of rows read from one store in one look; a row
    /// larger than this is skipped whole.
    pub max_bytes: u64,
    /// The longest the pane watcher, once it sees the box, waits for this
    /// store's card before it makes its own: it stops waiting as soon as
    /// a look at the store that began after the box was seen has ended.
    #[serde(default = "default_pane_wait_ms")]
    pub pane_wait_ms: u64,
}

fn default_pane_wait_ms() -> u64 {
    1000
}

impl ChatStoreSignalData {
    pub fn poll(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.poll_ms)
    }

    pub fn busy_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.busy_timeout_ms)
    }

    pub fn pane_wait(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.pane_wait_ms)
    }
}

/// A call part and what it says.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CallPart {
    /// Fields the object must hold with exactly these string values.
    pub require: BTreeMap<JsonPointer, String>,
    /// The call's id (a non-empty string): the card's identity.
    pub id: JsonPointer,
    /// Present while the call waits for its approval; a call seen without
    /// it was committed.
    pub pending: JsonPointer,
    /// The card's text: the first of these the part holds — a string as
    /// it is, anything else as compact JSON.
    pub text: Vec<JsonPointer>,
    /// The tool's name (the card's kind).
    #[serde(default)]
    pub tool: Option<JsonPointer>,
}

/// A result part.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResultPart {
    pub require: BTreeMap<JsonPointer, String>,
    /// The id of the call it answers.
    pub id: JsonPointer,
}

/// How the folder of a working folder is named.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FolderNaming {
    /// The md5 of the working folder's absolute path, in lowercase hex.
    Md5,
}

/// Why a chat store's names are refused (the data file's loader puts the
/// field's path in front).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChatStoreDataError {
    #[error("`{0}` is not a relative folder without `..`")]
    NotRelative(String),
    #[error("`{0}` is not one plain file name")]
    NotPlain(String),
    #[error("`{0}` is not an SQL name (letters, digits and `_`, not starting with a digit)")]
    NotSqlName(String),
}

fn shown(text: &str) -> String {
    crate::output::sanitize_line(text).into_owned()
}

/// A relative folder, every part of it a plain name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelativeFolder(PathBuf);

impl RelativeFolder {
    pub fn new(text: &str) -> Result<Self, ChatStoreDataError> {
        let path = Path::new(text);
        let plain = !text.is_empty()
            && path
                .components()
                .all(|component| matches!(component, Component::Normal(_)));
        if plain {
            Ok(Self(path.to_owned()))
        } else {
            Err(ChatStoreDataError::NotRelative(shown(text)))
        }
    }

    /// Its parts, in order.
    pub fn parts(&self) -> impl Iterator<Item = &std::ffi::OsStr> {
        self.0.iter()
    }
}

/// One plain file name (no `/`, not `.` or `..`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlainName(String);

impl PlainName {
    pub fn new(text: &str) -> Result<Self, ChatStoreDataError> {
        let plain = !text.is_empty() && !text.contains(['/', '\0']) && text != "." && text != "..";
        if plain {
            Ok(Self(text.to_owned()))
        } else {
            Err(ChatStoreDataError::NotPlain(shown(text)))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An SQL identifier oneworks writes into a query: checked, never quoted
/// from outside text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlName(String);

impl SqlName {
    pub fn new(text: &str) -> Result<Self, ChatStoreDataError> {
        let mut chars = text.chars();
        let plain = chars
            .next()
            .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
        if plain {
            Ok(Self(text.to_owned()))
        } else {
            Err(ChatStoreDataError::NotSqlName(shown(text)))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

macro_rules! checked_string {
    ($type:ty) => {
        impl<'de> Deserialize<'de> for $type {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = String::deserialize(deserializer)?;
                <$type>::new(&text).map_err(serde::de::Error::custom)
            }
        }
    };
}

checked_string!(RelativeFolder);
checked_string!(PlainName);
checked_string!(SqlName);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        assert!(RelativeFolder::new(".cursor/chats").is_ok());
        for bad in ["", "/abs", "a/../b", "./a", ".."] {
            assert_eq!(
                RelativeFolder::new(bad),
                Err(ChatStoreDataError::NotRelative(bad.to_owned())),
                "{bad}"
            );
        }
        assert!(PlainName::new("store.db").is_ok());
        for bad in ["", "a/b", ".", ".."] {
            assert!(PlainName::new(bad).is_err(), "{bad}");
        }
        assert!(SqlName::new("blobs").is_ok());
        assert!(SqlName::new("_x1").is_ok());
        for bad in ["", "1x", "a b", "a;drop", "a\"b"] {
            assert!(SqlName::new(bad).is_err(), "{bad}");
        }
    }
}
