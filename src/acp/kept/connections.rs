//! The owner's side of its socket: connections of this user only, each
//! one's first line read (within a bound, a byte at a time so nothing
//! after it is taken), and writes that cannot hold the owner for long.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::unix::OwnedWriteHalf;
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::mpsc;

use super::protocol::{self, Request};

/// How long a connection may take to say what it wants.
const REQUEST_BOUND: Duration = Duration::from_secs(5);
/// How long one write to a caller or to the agent may block the owner: a
/// peer that reads nothing for that long is gone for the owner.
pub const WRITE_BOUND: Duration = Duration::from_secs(30);

/// A connection and what it asked.
pub struct Arrival {
    pub request: Request,
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
async fn read_request(stream: &mut UnixStream) -> Option<Request> {
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

/// Writes one line to a caller, within [`WRITE_BOUND`]; `false` when the
/// caller is gone for the owner.
pub async fn write_to(writer: &mut OwnedWriteHalf, line: &[u8]) -> bool {
    let written = async {
        writer.write_all(line).await?;
        if !line.ends_with(b"\n") {
            writer.write_all(b"\n").await?;
        }
        writer.flush().await
    };
    matches!(tokio::time::timeout(WRITE_BOUND, written).await, Ok(Ok(())))
}
