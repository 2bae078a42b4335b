use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::*;
use crate::session::signals::chat_store_frames::embedded_objects;

fn data() -> ChatStoreSignalData {
    let data = crate::adapter::registry::Registry::builtin()
        .load("cursor")
        .expect("cursor data")
        .tui
        .signals
        .chat_store;
    data.expect("cursor reads a chat store")
}

fn call_message(id: &str, command: &str, pending: bool) -> Value {
    let mut part = json!({"type": "tool-call", "toolCallId": id, "toolName": "Shell",
                          "args": {"command": command}});
    if pending {
        part["providerOptions"] = json!({"cursor": {"pendingToolCallStartedAtMs": 1}});
    }
    json!({"role": "assistant", "content": [part]})
}

/// A checkpoint frame: child references with a brace and a quote among
/// their bytes, then the message behind a tag and a length.
fn frame(message: &Value) -> Vec<u8> {
    let json = message.to_string();
    let mut bytes = vec![0x0A, 0x20];
    bytes.extend_from_slice(&[b'{', b'"', 0xff, b'}', 0x00, b'{'][..]);
    bytes.extend_from_slice(&[7u8; 26]);
    bytes.extend_from_slice(&[0x12, 0x80 | 0x10, 0x01]);
    bytes.extend_from_slice(json.as_bytes());
    bytes.extend_from_slice(&[0x1a, 0x00, b'{']);
    bytes
}

/// A home with the stores of `cwd` below it.
struct Home {
    _temp: tempfile::TempDir,
    home: PathBuf,
    cwd: PathBuf,
}

impl Home {
    fn new() -> Home {
        let temp = tempfile::tempdir().expect("tempdir");
        let home = temp.path().join("home");
        let cwd = temp.path().join("project");
        fs_err::create_dir_all(&home).expect("home");
        fs_err::create_dir_all(&cwd).expect("cwd");
        Home {
            _temp: temp,
            home,
            cwd,
        }
    }

    fn stores(&self) -> Stores {
        Stores::new(data(), &self.home, &self.cwd)
    }

    /// The store of chat `chat` of working folder `cwd`, created (WAL,
    /// `blobs`), holding `rows`.
    fn write(&self, cwd: &Path, chat: &str, rows: &[Vec<u8>]) -> PathBuf {
        let cwd = fs_err::canonicalize(cwd).expect("cwd");
        let name = hex::encode(Md5::digest(cwd.as_os_str().as_encoded_bytes()));
        let folder = self.home.join(".cursor/chats").join(name).join(chat);
        fs_err::create_dir_all(&folder).expect("chat folder");
        let path = folder.join("store.db");
        let store = rusqlite::Connection::open(&path).expect("open");
        store
            .execute_batch(
                "PRAGMA journal_mode=WAL;
                 CREATE TABLE IF NOT EXISTS blobs (id TEXT PRIMARY KEY, data BLOB);",
            )
            .expect("schema");
        for row in rows {
            store
                .execute(
                    "INSERT OR REPLACE INTO blobs (id, data) VALUES (?1, ?2)",
                    rusqlite::params![hex::encode(sha2::Sha256::digest(row)), row],
                )
                .expect("insert");
        }
        path
    }
}

fn new_calls(stores: &mut Stores, mirror: &mut StoreMirror) -> Vec<String> {
    mirror
        .observe(stores.look())
        .into_iter()
        .map(|call| format!("{} {}", call.id, call.text))
        .collect()
}

#[test]
fn embedded_objects_are_found_in_binary_frames() {
    let message = call_message("toolu_1", "touch a", true);
    let objects = embedded_objects(&frame(&message));
    assert_eq!(objects, [message]);
    assert!(embedded_objects(b"\x0a\x20{\"unclosed").is_empty());
    assert_eq!(
        embedded_objects(b"{} {\"a\":1}"),
        [json!({}), json!({"a": 1})]
    );
}

#[test]
fn a_waiting_call_is_one_never_committed_and_never_answered() {
    let home = Home::new();
    let mut stores = home.stores();
    let mut mirror = StoreMirror::default();
    assert!(
        new_calls(&mut stores, &mut mirror).is_empty(),
        "no store yet"
    );
    let plain = call_message("toolu_0", "echo plain", true).to_string();
    home.write(
        &home.cwd,
        "chat-a",
        &[
            frame(&call_message("toolu_1", "touch a", true)),
            // Seen committed as well: settled, no card.
            frame(&call_message("toolu_2", "touch b", true)),
            call_message("toolu_2", "touch b", false)
                .to_string()
                .into_bytes(),
            // Answered: no card.
            frame(&call_message("toolu_3", "touch c", true)),
            json!({"role": "tool", "content": [{"type": "tool-result", "toolCallId": "toolu_3"}]})
                .to_string()
                .into_bytes(),
            plain.into_bytes(),
        ],
    );
    let mut found = new_calls(&mut stores, &mut mirror);
    found.sort();
    assert_eq!(found, ["toolu_0 echo plain", "toolu_1 touch a"]);
    assert!(new_calls(&mut stores, &mut mirror).is_empty(), "each once");
    // Committed later: a card already made stays; nothing new.
    home.write(
        &home.cwd,
        "chat-a",
        &[call_message("toolu_1", "touch a", false)
            .to_string()
            .into_bytes()],
    );
    assert!(new_calls(&mut stores, &mut mirror).is_empty());
}

#[test]
fn a_chat_folder_that_appears_later_is_read_and_another_working_folder_is_not() {
    let home = Home::new();
    let mut stores = home.stores();
    let mut mirror = StoreMirror::default();
    home.write(
        &home.cwd,
        "chat-a",
        &[frame(&call_message("toolu_1", "touch a", true))],
    );
    assert_eq!(new_calls(&mut stores, &mut mirror), ["toolu_1 touch a"]);
    // Another working folder's chat: its md5 is another folder.
    let other = home.cwd.with_file_name("elsewhere");
    fs_err::create_dir_all(&other).expect("other");
    home.write(
        &other,
        "chat-b",
        &[frame(&call_message("toolu_9", "touch other", true))],
    );
    assert!(new_calls(&mut stores, &mut mirror).is_empty());
    // A new chat of this working folder.
    home.write(
        &home.cwd,
        "chat-c",
        &[frame(&call_message("toolu_2", "touch c", true))],
    );
    assert_eq!(new_calls(&mut stores, &mut mirror), ["toolu_2 touch c"]);
}

#[test]
fn a_store_locked_by_a_writer_is_read_once_the_lock_is_gone() {
    let home = Home::new();
    let path = home.write(&home.cwd, "chat-a", &[]);
    // A rollback-journal store (WAL readers are never blocked).
    let writer = rusqlite::Connection::open(&path).expect("open");
    writer
        .execute_batch("PRAGMA journal_mode=DELETE;")
        .expect("journal mode");
    writer.execute_batch("BEGIN EXCLUSIVE;").expect("lock");
    let row = frame(&call_message("toolu_1", "touch a", true));
    writer
        .execute(
            "INSERT INTO blobs (id, data) VALUES ('x', ?1)",
            rusqlite::params![row],
        )
        .expect("insert");
    let mut stores = home.stores();
    let mut mirror = StoreMirror::default();
    assert!(matches!(
        read_rows(&path, &data()),
        Err(StoreError::Busy(_))
    ));
    assert!(new_calls(&mut stores, &mut mirror).is_empty(), "busy");
    writer.execute_batch("COMMIT;").expect("commit");
    assert_eq!(new_calls(&mut stores, &mut mirror), ["toolu_1 touch a"]);
}

#[test]
fn a_garbage_or_cut_short_store_is_skipped_and_read_again_when_it_changes() {
    let home = Home::new();
    let path = home.write(
        &home.cwd,
        "chat-a",
        &[frame(&call_message("toolu_1", "touch a", true))],
    );
    let whole = {
        // One file: the WAL folded in.
        let store = rusqlite::Connection::open(&path).expect("open");
        store
            .execute_batch("PRAGMA journal_mode=DELETE;")
            .expect("checkpoint");
        drop(store);
        fs_err::read(&path).expect("read")
    };
    fs_err::write(&path, b"not a database, not even close").expect("garbage");
    let mut stores = home.stores();
    let mut mirror = StoreMirror::default();
    assert!(matches!(
        read_rows(&path, &data()),
        Err(StoreError::Sqlite { .. })
    ));
    assert!(new_calls(&mut stores, &mut mirror).is_empty());
    fs_err::write(&path, &whole[..whole.len() / 2]).expect("cut short");
    assert!(new_calls(&mut stores, &mut mirror).is_empty());
    assert!(read_rows(&path, &data()).is_err(), "cut short");
    fs_err::write(&path, &whole).expect("whole");
    assert_eq!(new_calls(&mut stores, &mut mirror), ["toolu_1 touch a"]);
    // Never written by the reader: no journal or WAL of its own.
    let folder = path.parent().expect("folder");
    let mut names: Vec<String> = fs_err::read_dir(folder)
        .expect("list")
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["store.db"]);
    assert_eq!(fs_err::read(&path).expect("read"), whole, "unchanged");
}

#[test]
fn a_link_anywhere_below_the_home_is_refused_not_followed() {
    let home = Home::new();
    let path = home.write(
        &home.cwd,
        "chat-a",
        &[frame(&call_message("toolu_1", "touch a", true))],
    );
    let chat = path.parent().expect("chat").to_owned();
    let hashed = chat.parent().expect("hashed").to_owned();
    let elsewhere = home.home.parent().expect("temp").join("elsewhere");
    // The chat folder a link to a real one.
    fs_err::rename(&chat, &elsewhere).expect("move");
    fs_err::os::unix::fs::symlink(&elsewhere, &chat).expect("link");
    let mut mirror = StoreMirror::default();
    assert!(new_calls(&mut home.stores(), &mut mirror).is_empty());
    // The store file a link.
    fs_err::remove_file(&chat).expect("unlink");
    fs_err::create_dir(&chat).expect("chat");
    fs_err::os::unix::fs::symlink(elsewhere.join("store.db"), &path).expect("link");
    assert!(new_calls(&mut home.stores(), &mut mirror).is_empty());
    assert!(matches!(
        home.stores().read(&path),
        Err(StoreError::Link(_))
    ));
    // The working folder's folder a link.
    fs_err::remove_dir_all(&hashed).expect("clear");
    let moved = home.home.parent().expect("temp").join("hashed");
    fs_err::create_dir_all(moved.join("chat-a")).expect("moved");
    fs_err::copy(elsewhere.join("store.db"), moved.join("chat-a/store.db")).expect("copy");
    fs_err::os::unix::fs::symlink(&moved, &hashed).expect("link");
    assert!(new_calls(&mut home.stores(), &mut mirror).is_empty());
    // `.cursor` itself a link.
    fs_err::remove_file(&hashed).expect("unlink");
    let dot = home.home.join(".cursor");
    let real = home.home.parent().expect("temp").join("dot-cursor");
    fs_err::rename(&dot, &real).expect("move");
    fs_err::os::unix::fs::symlink(&real, &dot).expect("link");
    assert!(new_calls(&mut home.stores(), &mut mirror).is_empty());
    // SQLite itself refuses a link in the path.
    let through = dot.join("x.db");
    fs_err::copy(elsewhere.join("store.db"), real.join("x.db")).expect("copy");
    assert!(read_rows(&through, &data()).is_err());
}

#[test]
fn a_commit_published_after_the_log_grew_changes_the_fingerprint() {
    // A writer appends a transaction's frames to the log, then publishes
    // it in the shared index: a look between the two saw the log as it is
    // now, so only the index tells the next look to read again.
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("store.db");
    fs_err::write(&store, [0u8; 64]).expect("store");
    fs_err::write(dir.path().join("store.db-wal"), [1u8; 64]).expect("wal");
    let shm = dir.path().join("store.db-shm");
    let mut head = vec![0u8; 32768];
    fs_err::write(&shm, &head).expect("shm");
    let before = fingerprint(&store);
    assert_eq!(before, fingerprint(&store), "nothing changed");
    // mxFrame, in place: the same length, and the log untouched.
    head[16] = 9;
    let file = fs_err::OpenOptions::new()
        .write(true)
        .open(&shm)
        .expect("open shm");
    fs_err::os::unix::fs::FileExt::write_at(&file, &head[..SHM_HEAD], 0).expect("publish");
    assert_ne!(before, fingerprint(&store));
}

#[test]
fn a_linked_shared_index_is_not_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("store.db");
    fs_err::write(&store, [0u8; 64]).expect("store");
    let elsewhere = dir.path().join("elsewhere");
    fs_err::write(&elsewhere, [5u8; 200]).expect("elsewhere");
    fs_err::os::unix::fs::symlink(&elsewhere, dir.path().join("store.db-shm")).expect("link");
    assert!(fingerprint(&store).1.is_empty());
}

#[test]
fn a_fifo_for_a_shared_index_neither_blocks_nor_is_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("store.db");
    fs_err::write(&store, [0u8; 64]).expect("store");
    let status = std::process::Command::new("mkfifo")
        .arg(dir.path().join("store.db-shm"))
        .status()
        .expect("mkfifo");
    assert!(status.success());
    // No writer ever opens it: a blocking open or read would hang here.
    assert!(fingerprint(&store).1.is_empty());
}
