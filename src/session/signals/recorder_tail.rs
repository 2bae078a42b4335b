//! The recorder tail: a pure state machine ([`SlotMirror`]) that
//! turns batches of recorder messages into card events, and a file reader
//! ([`RecorderFile`]) that yields whole new lines. The supervisor drives both
//! from [`watch`]: an inotify wake-up on every write to the runtime folder,
//! with a slow poll as a safety net, so an idle session costs no CPU.
//!
//! Race rules (from the original design): nothing historical is replayed;
//! a request answered in the same batch is skipped; one card is parked at a
//! time and further requests stay terminal-only; the slot is released when
//! the card's delivery ends for any reason or the terminal answers; a late
//! response parks nothing and only updates its card's record.

use std::collections::HashSet;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::process::lines::{Line, LineBuffer, BLOCK};
use crate::session::signals::recorder::{
    parse_line, ApprovalRequest, ApprovalResponse, RecorderMessage,
};

/// What the tail tells the card book.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TailEvent {
    /// A new approval to mirror as a card; it now holds the slot.
    Park(ApprovalRequest),
    /// A response for a request that has a card. `was_parked`: it held the
    /// slot (the terminal answered first); else it only updates the record.
    Resolved {
        response: ApprovalResponse,
        was_parked: bool,
    },
}

/// The single-slot mirror.
#[derive(Debug, Default)]
pub struct SlotMirror {
    parked: Option<String>,
    mirrored: HashSet<String>,
}

impl SlotMirror {
    /// The request id holding the slot.
    pub fn parked(&self) -> Option<&str> {
        self.parked.as_deref()
    }

    /// Handles one read batch, in order.
    pub fn batch(&mut self, messages: Vec<RecorderMessage>) -> Vec<TailEvent> {
        let answered_here: HashSet<String> = messages
            .iter()
            .filter_map(|message| match message {
                RecorderMessage::Response(response) => Some(response.id.clone()),
                _ => None,
            })
            .collect();
        let mut events = Vec::new();
        for message in messages {
            match message {
                RecorderMessage::Approval(request) => {
                    let skip = answered_here.contains(&request.id)
                        || self.parked.is_some()
                        || self.mirrored.contains(&request.id);
                    if !skip {
                        self.parked = Some(request.id.clone());
                        self.mirrored.insert(request.id.clone());
                        events.push(TailEvent::Park(request));
                    }
                }
                RecorderMessage::Response(response) => {
                    if !self.mirrored.contains(&response.id) {
                        continue;
                    }
                    let was_parked = self.parked.as_deref() == Some(response.id.as_str());
                    if was_parked {
                        self.parked = None;
                    }
                    events.push(TailEvent::Resolved {
                        response,
                        was_parked,
                    });
                }
                RecorderMessage::Other => {}
            }
        }
        events
    }

    /// The card's delivery task ended (delivered, failed, cancelled): the
    /// slot is free again even if the agent never answers.
    pub fn release(&mut self, request_id: &str) {
        if self.parked.as_deref() == Some(request_id) {
            self.parked = None;
        }
    }
}

/// The longest line kept; a longer one is garbage and skipped whole.
pub const MAX_LINE: usize = 4 << 20;
/// The most one [`RecorderFile::read`] reads; the caller reads again at once
/// while [`RecorderFile::behind`] says more is waiting, so a huge append is
/// worked through in bounded steps.
pub const READ_BUDGET: u64 = 8 << 20;

/// Reads whole new lines from the recorder, from where it last stopped,
/// in fixed blocks: only the current line (up to [`MAX_LINE`]) is held.
#[derive(Debug)]
pub struct RecorderFile {
    path: PathBuf,
    offset: u64,
    lines: LineBuffer,
    /// Skipping the rest of a line the reader started in.
    discarding: bool,
    /// The file was longer than what the last read took.
    behind: bool,
}

impl RecorderFile {
    /// Starts at the file's beginning: everything in it is read (a
    /// supervisor re-adopting a session derives its pending cards again).
    pub fn from_start(path: &Path) -> Self {
        Self {
            path: path.to_owned(),
            offset: 0,
            lines: LineBuffer::new(MAX_LINE),
            discarding: false,
            behind: false,
        }
    }

    /// Starts at the file's current end (nothing historical is replayed);
    /// a missing file starts at 0 when it appears.
    pub fn at_end(path: &Path) -> Self {
        let mut reader = Self {
            path: path.to_owned(),
            offset: 0,
            lines: LineBuffer::new(MAX_LINE),
            discarding: false,
            behind: false,
        };
        if let Ok(mut file) = open_no_follow(path) {
            if let Ok(length) = file.seek(SeekFrom::End(0)) {
                reader.offset = length;
                if length > 0 && file.seek(SeekFrom::End(-1)).is_ok() {
                    let mut last = [0u8; 1];
                    // Started inside an unfinished line: skip its rest.
                    reader.discarding = file.read_exact(&mut last).is_ok() && last[0] != b'\n';
                }
            }
        }
        reader
    }

    /// Whether more was waiting after the last read.
    pub fn behind(&self) -> bool {
        self.behind
    }

    /// Calls `each` with every whole line appended since the last call (at
    /// most [`READ_BUDGET`] bytes read). A shrunken file is read again
    /// from 0; a missing one yields nothing; an over-long line is skipped
    /// with a warning.
    fn read_with(&mut self, mut each: impl FnMut(&[u8])) -> std::io::Result<()> {
        self.behind = false;
        let mut file = match open_no_follow(&self.path) {
            Ok(file) => file,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(error) => return Err(error),
        };
        let length = file.metadata()?.len();
        if length < self.offset {
            self.offset = 0;
            self.lines.reset();
            self.discarding = false;
        }
        if length == self.offset {
            return Ok(());
        }
        file.seek(SeekFrom::Start(self.offset))?;
        let budget = (length - self.offset).min(READ_BUDGET);
        let mut file = file.take(budget);
        let mut block = vec![0u8; BLOCK];
        loop {
            let count = match file.read(&mut block) {
                Ok(0) => break,
                Ok(count) => count,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error),
            };
            self.offset += count as u64;
            let mut rest = &block[..count];
            if self.discarding {
                match memchr::memchr(b'\n', rest) {
                    Some(at) => {
                        self.discarding = false;
                        rest = &rest[at + 1..];
                    }
                    None => continue,
                }
            }
            while !rest.is_empty() {
                let (used, line) = self.lines.feed(rest);
                rest = &rest[used..];
                match line {
                    Some(Line::Text(line)) => each(&line),
                    Some(Line::TooLong(length)) => tracing::warn!(
                        "skipped a recorder line of {length} bytes (over the bound of {MAX_LINE} bytes)"
                    ),
                    None => {}
                }
            }
        }
        self.behind = self.offset < length;
        Ok(())
    }

    /// The whole lines appended since the last call (see `read_with`).
    pub fn read(&mut self) -> std::io::Result<Vec<Vec<u8>>> {
        let mut lines = Vec::new();
        self.read_with(|line| lines.push(line.to_vec()))?;
        Ok(lines)
    }

    /// Reads and parses, keeping the approvals and responses; other and
    /// unparsable lines are dropped as they are read.
    pub fn read_messages(&mut self) -> std::io::Result<Vec<RecorderMessage>> {
        let mut messages = Vec::new();
        self.read_with(|line| match parse_line(line) {
            None | Some(RecorderMessage::Other) => {}
            Some(message) => messages.push(message),
        })?;
        Ok(messages)
    }
}

fn open_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    use fs_err::os::unix::fs::OpenOptionsExt;
    fs_err::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map(fs_err::File::into_file)
        .map_err(crate::fs_error::os_cause)
        .and_then(|file| {
            // A FIFO or device in its place is not a recorder.
            if file.metadata()?.is_file() {
                Ok(file)
            } else {
                Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("`{}` is not a regular file", path.display()),
                ))
            }
        })
}

/// The slow poll behind the inotify wake-up.
pub const SAFETY_POLL: Duration = Duration::from_secs(2);

/// Wakes on changes in `folder` (inotify through `notify`) and at least
/// every `poll`. Keep the returned guard alive as long as the wake-ups are
/// wanted.
pub fn watch(
    folder: &Path,
) -> (
    Option<notify::RecommendedWatcher>,
    tokio::sync::mpsc::Receiver<()>,
) {
    use notify::Watcher;
    let (sender, receiver) = tokio::sync::mpsc::channel(1);
    let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        // Our own reads (open, access, close) are events too: reacting to
        // them would read again forever. Writes, creations and removals
        // (the recorder growing, the tmux socket going away) wake us.
        if let Ok(event) = &event {
            if matches!(event.kind, notify::EventKind::Access(_)) {
                return;
            }
        }
        // Coalesced: a full channel already means "read again".
        let _ = sender.try_send(());
    })
    .and_then(|mut watcher| {
        watcher.watch(folder, notify::RecursiveMode::NonRecursive)?;
        Ok(watcher)
    });
    match watcher {
        Ok(watcher) => (Some(watcher), receiver),
        Err(error) => {
            tracing::warn!("no inotify wake-ups for the recorder, polling only: {error}");
            (None, receiver)
        }
    }
}

#[cfg(test)]
#[path = "recorder_tail_tests.rs"]
mod tests;
