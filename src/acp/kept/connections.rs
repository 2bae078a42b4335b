//! The owner's side of its socket: connections of this user only, each
//! one's first line read (within a bound, a byte at a time so nothing
//! after it is taken), replies that cannot hold the owner for long, and
//! the served caller with a writer of its own.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::unix::OwnedReadHalf;
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::mpsc;

use super::protocol::{self, OwnerRequest, Reply};
use crate::process::lines::LineReader;

/// How long a connection may take to say what it wants.
const REQUEST_BOUND: Duration = Duration::from_secs(5);
/// How long one write to a connection or to the agent may block the owner:
/// a peer that reads nothing for that long is gone for the owner.
pub const WRITE_BOUND: Duration = Duration::from_secs(30);

/// A connection and what it asked.
pub struct Arrival {
    pub request: OwnerRequest,
    pub stream: UnixStream,
}

/// Accepts connections of this user and reads each one's request.
pub async fn accept(listener: UnixListener, arrivals: mpsc::Sender<Arrival>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let same_user = stream
            .peer_cred()
            .is_ok_and(|cred| cred.uid() == crate::fs_safety::current_uid());
        if !same_user {
            continue;
        }
        let arrivals = arrivals.clone();
        tokio::spawn(async move {
            let mut stream = stream;
            let request = tokio::time::timeout(REQUEST_BOUND, read_request(&mut stream)).await;
            if let Ok(Some(request)) = request {
                let _ = arrivals.send(Arrival { request, stream }).await;
            }
        });
    }
}

/// The first line of a connection, read a byte at a time so nothing after
/// it is taken from the stream; `None` when it is not a request.
async fn read_request(stream: &mut UnixStream) -> Option<OwnerRequest> {
    let mut line = Vec::new();
    loop {
        let byte = stream.read_u8().await.ok()?;
        if byte == b'\n' {
            break;
        }
        if line.len() >= protocol::MAX_REQUEST {
            return None;
        }
        line.push(byte);
    }
    serde_json::from_slice(&line).ok()
}

/// The served caller: its lines, and a writer of its own, so a caller that
/// reads slowly (`run … | less`) holds back the agent's output (its stdout
/// is not read while the buffer is full), never the owner's loop.
pub struct Caller {
    pub reader: LineReader<OwnedReadHalf>,
    pub lines: mpsc::Sender<Vec<u8>>,
    writer: tokio::task::JoinHandle<()>,
}

impl Caller {
    pub fn new(stream: UnixStream) -> Caller {
        let (reader, mut writer) = stream.into_split();
        let (lines, mut queued) = mpsc::channel::<Vec<u8>>(CALLER_BUFFER);
        let writer = tokio::spawn(async move {
            while let Some(line) = queued.recv().await {
                if writer.write_all(&line).await.is_err() {
                    break;
                }
            }
        });
        Caller {
            reader: LineReader::new(reader, protocol::MAX_CALLER_LINE),
            lines,
            writer,
        }
    }

    /// Whether a line can be queued for the caller now.
    pub fn has_room(&self) -> bool {
        self.lines.capacity() > 0
    }

    /// Queues one line (a newline added); `false` when the caller is gone.
    pub fn queue(&self, mut line: Vec<u8>) -> bool {
        if !line.ends_with(b"\n") {
            line.push(b'\n');
        }
        !matches!(
            self.lines.try_send(line),
            Err(mpsc::error::TrySendError::Closed(_))
        )
    }
}

impl Drop for Caller {
    fn drop(&mut self) {
        // A writer stuck on a caller that reads nothing ends with it.
        self.writer.abort();
    }
}

/// How many lines wait for a slow caller before the agent is held back.
pub const CALLER_BUFFER: usize = 256;

/// Writes a reply to a connection, within [`WRITE_BOUND`]; `false` when it
/// did not go.
pub async fn reply_to(stream: &mut UnixStream, reply: &Reply) -> bool {
    let line = protocol::line(reply);
    matches!(
        tokio::time::timeout(WRITE_BOUND, stream.write_all(&line)).await,
        Ok(Ok(()))
    )
}

/// Completes once `lines` can take a line (never without a sender).
pub async fn has_room(lines: Option<mpsc::Sender<Vec<u8>>>) {
    match lines {
        // The permit is let go at once: the loop queues the line itself.
        Some(lines) => drop(lines.reserve().await),
        None => std::future::pending().await,
    }
}
