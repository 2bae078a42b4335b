//! The agent's chat store as an approval signal:
//! the agent keeps each chat as a SQLite database below its home
//! (`<base>/<folder>/<working folder's name>/<chat>/<file>`, all from the
//! data, [`ChatStoreSignalData`]) and writes a call waiting for its
//! approval there before it draws the box. The supervisor looks at the
//! stores of its own working folder every `pollMs` — a chat folder that
//! appears later is found at the next look — and makes a card for each
//! new waiting call, with the agent's call id as its identity and the
//! call's command as its text. The pane watcher then matches the box on
//! screen with it ([`super::hook::attach`]); the keystroke bridge checks
//! that box before every key.
//!
//! The stores are the agent's, and untrusted:
//! - opened read-only (`SQLITE_OPEN_READONLY`, never created, never
//!   written), without a mutex (one thread), with a small busy timeout: a
//!   store locked by a writer is looked at again next time;
//! - nothing below the base may be a link, each part checked before the
//!   open, and SQLite itself refuses a link in the path
//!   (`SQLITE_OPEN_NOFOLLOW`) — a link is refused, never followed;
//! - a store that is not a database, or is cut short, is skipped (said
//!   once per change of the file) and looked at again when it changes;
//! - rows are read up to `maxBytes` per store and look.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use md5::{Digest, Md5};

use crate::adapter::chat_store_data::{ChatStoreSignalData, FolderNaming};
use crate::session::signals::chat_store_frames::{StoreCall, StoreLook, StoreMirror};
use crate::session::supervisor::state::SessionState;

/// Why one store was not read this time.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("refusing the chat store path `{0}`: it is a link")]
    Link(PathBuf),
    #[error("refusing the chat store path `{0}`: it is not a {1}")]
    NotA(PathBuf, &'static str),
    #[error("cannot look at `{path}`")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the chat store `{0}` is busy (a writer holds its lock)")]
    Busy(PathBuf),
    #[error("cannot read the chat store `{path}`")]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
}

/// The stores of one working folder.
pub struct Stores {
    data: ChatStoreSignalData,
    /// The base, links above it resolved (it is oneworks' own folder).
    base: PathBuf,
    /// `<base>/<folder>/<working folder's name>`.
    root: PathBuf,
    /// Each store's files as last read, and what they said.
    seen: HashMap<PathBuf, (Fingerprint, StoreLook)>,
}

/// What a store's files look like from outside: the length and time of
/// the database and its write-ahead log, and the head of its shared
/// index ([`SHM_HEAD`]).
type Fingerprint = ([(u64, Option<SystemTime>); 2], Vec<u8>);

/// The bytes of a WAL database's `-shm` file that change with every commit
/// (SQLite's WAL-index header: its change counter and `mxFrame`, twice).
/// A writer appends a transaction's frames to the log and only then
/// publishes it here: a look between the two sees the log grown but not
/// the transaction, and the log's length and time alone would mark that
/// look current forever.
const SHM_HEAD: usize = 136;

impl Stores {
    /// The stores of `cwd` below `base` (the value of the data's `base`
    /// variable in the agent's environment).
    pub fn new(data: ChatStoreSignalData, base: &Path, cwd: &Path) -> Self {
        let base = fs_err::canonicalize(base).unwrap_or_else(|_| base.to_owned());
        let cwd = fs_err::canonicalize(cwd).unwrap_or_else(|_| cwd.to_owned());
        let name = match data.working_folder {
            FolderNaming::Md5 => hex::encode(Md5::digest(cwd.as_os_str().as_encoded_bytes())),
        };
        let mut root = base.clone();
        root.extend(data.folder.parts());
        root.push(name);
        Self {
            data,
            base,
            root,
            seen: HashMap::new(),
        }
    }

    /// The folder holding this working folder's chats.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Looks at every store again (those unchanged since the last look
    /// are not read) and returns the latest look of each; what could not
    /// be read is skipped with a warning.
    pub fn look(&mut self) -> Vec<&StoreLook> {
        for store in self.store_paths() {
            let fingerprint = fingerprint(&store);
            if self
                .seen
                .get(&store)
                .is_some_and(|(seen, _)| *seen == fingerprint)
            {
                continue;
            }
            match self.read(&store) {
                Ok(look) => {
                    self.seen.insert(store, (fingerprint, look));
                }
                // Looked at again next time, without a word each time.
                Err(StoreError::Busy(path)) => {
                    tracing::debug!("the chat store `{}` is busy", path.display());
                }
                Err(error) => {
                    warn(&error);
                    // Said once: not read again until it changes.
                    self.seen.insert(store, (fingerprint, StoreLook::default()));
                }
            }
        }
        self.seen.values().map(|(_, look)| look).collect()
    }

    /// Every `<root>/<chat>/<file>` that exists, no link on the way.
    fn store_paths(&self) -> Vec<PathBuf> {
        if let Err(error) = self.check_below_base(&self.root, "folder") {
            if !matches!(&error, StoreError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
            {
                warn(&error);
            }
            return Vec::new();
        }
        let entries = match fs_err::read_dir(&self.root) {
            Ok(entries) => entries,
            Err(error) => {
                tracing::warn!("{}", crate::output::clean(&error.to_string()));
                return Vec::new();
            }
        };
        let mut stores: Vec<PathBuf> = entries
            .flatten()
            .filter_map(|entry| match entry.file_type() {
                Ok(kind) if kind.is_dir() => Some(entry.path().join(self.data.file.as_str())),
                Ok(kind) if kind.is_symlink() => {
                    warn(&StoreError::Link(entry.path()));
                    None
                }
                _ => None,
            })
            .filter(|store| fs_err::symlink_metadata(store).is_ok())
            .collect();
        stores.sort();
        stores
    }

    /// Checks that no part of `path` below the base is a link, and that
    /// `path` itself is a `kind` (`folder` or `file`).
    fn check_below_base(&self, path: &Path, kind: &'static str) -> Result<(), StoreError> {
        let relative = path
            .strip_prefix(&self.base)
            .map_err(|_| StoreError::NotA(path.to_owned(), "path below the agent's home"))?;
        let mut at = self.base.clone();
        for part in relative.iter() {
            at.push(part);
            let meta = fs_err::symlink_metadata(&at).map_err(|error| StoreError::Io {
                path: at.clone(),
                source: crate::fs_error::os_cause(error),
            })?;
            if meta.file_type().is_symlink() {
                return Err(StoreError::Link(at));
            }
        }
        let meta = fs_err::symlink_metadata(path).map_err(|error| StoreError::Io {
            path: path.to_owned(),
            source: crate::fs_error::os_cause(error),
        })?;
        let right = match kind {
            "folder" => meta.is_dir(),
            _ => meta.is_file(),
        };
        if right {
            Ok(())
        } else {
            Err(StoreError::NotA(path.to_owned(), kind))
        }
    }

    /// Reads one store's rows into a look.
    fn read(&self, store: &Path) -> Result<StoreLook, StoreError> {
        self.check_below_base(store, "file")?;
        // SQLite opens these beside the database itself.
        for suffix in ["-wal", "-shm", "-journal"] {
            let mut side = store.as_os_str().to_owned();
            side.push(suffix);
            let side = PathBuf::from(side);
            if fs_err::symlink_metadata(&side).is_ok_and(|meta| !meta.is_file()) {
                return Err(StoreError::NotA(side, "file"));
            }
        }
        read_rows(store, &self.data)
    }
}

/// Opens `store` read-only and reads the data's column of every row up to
/// `maxBytes` into a look.
pub fn read_rows(store: &Path, data: &ChatStoreSignalData) -> Result<StoreLook, StoreError> {
    use rusqlite::OpenFlags;
    let sqlite = |source: rusqlite::Error| match source.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
            StoreError::Busy(store.to_owned())
        }
        _ => StoreError::Sqlite {
            path: store.to_owned(),
            source,
        },
    };
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_NOFOLLOW;
    let connection = rusqlite::Connection::open_with_flags(store, flags).map_err(sqlite)?;
    connection
        .busy_timeout(data.busy_timeout())
        .map_err(sqlite)?;
    // The names are checked SQL identifiers (the data's loader).
    let query = format!(
        "SELECT {column} FROM {table} WHERE length({column}) <= ?1",
        column = data.column.as_str(),
        table = data.table.as_str(),
    );
    let mut statement = connection.prepare(&query).map_err(sqlite)?;
    let bound = i64::try_from(data.max_bytes).unwrap_or(i64::MAX);
    let mut rows = statement.query([bound]).map_err(sqlite)?;
    let mut look = StoreLook::default();
    let mut read = 0u64;
    while let Some(row) = rows.next().map_err(sqlite)? {
        let bytes = match row.get_ref(0).map_err(sqlite)? {
            rusqlite::types::ValueRef::Blob(bytes) | rusqlite::types::ValueRef::Text(bytes) => {
                bytes
            }
            _ => continue,
        };
        read += bytes.len() as u64;
        if read > data.max_bytes {
            tracing::warn!(
                "the chat store `{}` holds more than {} bytes: the rest is not read",
                store.display(),
                data.max_bytes
            );
            break;
        }
        look.row(bytes, data);
    }
    Ok(look)
}

fn fingerprint(store: &Path) -> Fingerprint {
    let stat = |path: &Path| {
        fs_err::symlink_metadata(path)
            .map(|meta| (meta.len(), meta.modified().ok()))
            .unwrap_or((0, None))
    };
    let mut wal = store.as_os_str().to_owned();
    wal.push("-wal");
    let mut shm = store.as_os_str().to_owned();
    shm.push("-shm");
    (
        [stat(store), stat(Path::new(&wal))],
        shm_head(Path::new(&shm)),
    )
}

/// The first [`SHM_HEAD`] bytes of a `-shm` file (empty when there is
/// none); a link is not followed and a FIFO does not block.
fn shm_head(path: &Path) -> Vec<u8> {
    use fs_err::os::unix::fs::OpenOptionsExt;
    use std::io::Read;
    let mut head = Vec::with_capacity(SHM_HEAD);
    if let Ok(file) = fs_err::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
    {
        if file.metadata().is_ok_and(|meta| meta.is_file()) {
            let _ = file.take(SHM_HEAD as u64).read_to_end(&mut head);
        }
    }
    head
}

fn warn(error: &StoreError) {
    tracing::warn!("{}", crate::output::clean(&crate::error::message(error)));
}

/// Looks at the stores every `pollMs` until the task is aborted, making a
/// card for each new waiting call.
pub async fn run(stores: Stores, state: Arc<SessionState>) {
    let every = stores.data.poll();
    let mut held = Some((stores, StoreMirror::default()));
    loop {
        let Some((mut stores, mut mirror)) = held.take() else {
            return;
        };
        let looked = tokio::task::spawn_blocking(move || {
            let calls = mirror.observe(stores.look());
            (stores, mirror, calls)
        })
        .await;
        let Ok((stores, mirror, calls)) = looked else {
            return;
        };
        held = Some((stores, mirror));
        for call in calls {
            signal(&state, &call);
        }
        state.store_looked();
        tokio::time::sleep(every).await;
    }
}

fn signal(state: &SessionState, call: &StoreCall) {
    tracing::info!(
        "a waiting call in the chat store ({} bytes of text)",
        call.text.len()
    );
    state.hook_signal(call.request(), &call.id);
}

#[cfg(test)]
#[path = "chat_store_tests.rs"]
mod tests;
