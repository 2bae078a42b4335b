//! The recorder tail (SPEC §8.1): a pure state machine ([`Mirror`]) that
//! turns batches of recorder messages into card events, and a file reader
//! ([`LineReader`]) that yields whole new lines. The supervisor drives both
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

use super::recorder::{parse_line, ApprovalRequest, ApprovalResponse, RecorderMessage};

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
pub struct Mirror {
    parked: Option<String>,
    mirrored: HashSet<String>,
}

impl Mirror {
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
    /// slot is free again even if Kiro never answers.
    pub fn release(&mut self, request_id: &str) {
        if self.parked.as_deref() == Some(request_id) {
            self.parked = None;
        }
    }
}

/// The longest line kept; a longer one is garbage and skipped whole.
pub const MAX_LINE: usize = 4 << 20;

/// Reads whole new lines from the recorder, from where it last stopped.
#[derive(Debug)]
pub struct LineReader {
    path: PathBuf,
    offset: u64,
    partial: Vec<u8>,
    /// Skipping the rest of a line (started mid-line, or too long).
    discarding: bool,
}

impl LineReader {
    /// Starts at the file's current end (nothing historical is replayed);
    /// a missing file starts at 0 when it appears.
    pub fn at_end(path: &Path) -> Self {
        let mut reader = Self {
            path: path.to_owned(),
            offset: 0,
            partial: Vec::new(),
            discarding: false,
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

    /// The whole lines appended since the last call. A shrunken file is
    /// read again from 0; a missing one yields nothing.
    pub fn read(&mut self) -> std::io::Result<Vec<Vec<u8>>> {
        let mut file = match open_no_follow(&self.path) {
            Ok(file) => file,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(error) => return Err(error),
        };
        let length = file.metadata()?.len();
        if length < self.offset {
            self.offset = 0;
            self.partial.clear();
            self.discarding = false;
        }
        if length == self.offset {
            return Ok(Vec::new());
        }
        file.seek(SeekFrom::Start(self.offset))?;
        let mut fresh = Vec::new();
        file.take(length - self.offset).read_to_end(&mut fresh)?;
        self.offset += fresh.len() as u64;
        let mut lines = Vec::new();
        let mut rest = fresh.as_slice();
        while let Some(end) = rest.iter().position(|&byte| byte == b'\n') {
            let (piece, after) = rest.split_at(end);
            rest = &after[1..];
            if self.discarding {
                self.discarding = false;
                self.partial.clear();
                continue;
            }
            let mut line = std::mem::take(&mut self.partial);
            line.extend_from_slice(piece);
            if line.len() <= MAX_LINE {
                lines.push(line);
            }
        }
        if !self.discarding {
            self.partial.extend_from_slice(rest);
            if self.partial.len() > MAX_LINE {
                self.partial.clear();
                self.discarding = true;
            }
        }
        Ok(lines)
    }

    /// Reads and parses; unparsable lines are dropped.
    pub fn read_messages(&mut self) -> std::io::Result<Vec<RecorderMessage>> {
        Ok(self
            .read()?
            .iter()
            .filter_map(|line| parse_line(line))
            .collect())
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
