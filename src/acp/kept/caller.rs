//! A caller's side of the owner's socket: ask for a turn (or a cancel, a
//! stop, the status), wait in the queue, receive the grant. After the
//! grant the stream is the agent's stdio for the ACP client.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixStream;

use super::protocol::{self, Grant, OwnerRequest, Reply, Status};
use crate::error::{Classify, ErrorKind};

/// How long a control request (cancel, stop, status) waits for its reply.
const CONTROL_BOUND: Duration = Duration::from_secs(5);

/// How talking to a kept session's owner failed.
#[derive(Debug, thiserror::Error)]
pub enum KeptError {
    #[error("could not reach the owner of kept session `{name}` at `{}`", path.display())]
    Connect {
        name: String,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the owner of kept session `{name}` closed the connection before answering")]
    Lost { name: String },
    #[error("the owner of kept session `{name}` did not answer within {}s", CONTROL_BOUND.as_secs())]
    Unresponsive { name: String },
    /// The session ended before this prompt's turn (stopped, or idle):
    /// the prompt was not sent; the run starts afresh.
    #[error("kept session `{name}` ended before this prompt's turn")]
    Ended { name: String },
    #[error("kept session `{name}`: {message}")]
    Refused {
        name: String,
        kind: String,
        message: String,
        hint: Option<String>,
    },
}

impl KeptError {
    /// Whether the prompt never reached the agent because the owner is
    /// gone or going: the run may start afresh (a dead owner
    /// blocks nothing).
    pub fn before_the_turn(&self) -> bool {
        matches!(
            self,
            KeptError::Connect { .. } | KeptError::Lost { .. } | KeptError::Ended { .. }
        )
    }
}

impl Classify for KeptError {
    fn kind(&self) -> ErrorKind {
        match self {
            KeptError::Refused { kind, .. } => ErrorKind::parse(kind).unwrap_or(ErrorKind::Session),
            _ => ErrorKind::Session,
        }
    }

    fn hint(&self) -> Option<String> {
        match self {
            KeptError::Refused { hint, .. } => hint.clone(),
            KeptError::Lost { name }
            | KeptError::Unresponsive { name }
            | KeptError::Ended { name } => Some(format!(
                "see `oneworks session list`; `oneworks session stop {name}` ends it"
            )),
            KeptError::Connect { .. } => None,
        }
    }
}

/// A connection to the owner.
pub struct OwnerConnection {
    name: String,
    stream: UnixStream,
}

impl OwnerConnection {
    /// Connects to the owner's socket; a peer of another user is refused
    /// (the runtime folder is checked first, but a prompt and its answers
    /// go to nobody else, whatever holds the path).
    pub async fn open(socket: &Path, name: &str) -> Result<OwnerConnection, KeptError> {
        let refused = |source| KeptError::Connect {
            name: name.to_owned(),
            path: socket.to_owned(),
            source,
        };
        let stream = UnixStream::connect(socket).await.map_err(refused)?;
        let peer = stream.peer_cred().map_err(refused)?;
        if peer.uid() != crate::fs_safety::current_uid() {
            return Err(refused(std::io::Error::other(format!(
                "its owner runs as another user (uid {})",
                peer.uid()
            ))));
        }
        Ok(OwnerConnection {
            name: name.to_owned(),
            stream,
        })
    }

    async fn send(&mut self, request: &OwnerRequest) -> Result<(), KeptError> {
        self.stream
            .write_all(&protocol::line(request))
            .await
            .map_err(|_| self.lost())
    }

    fn lost(&self) -> KeptError {
        KeptError::Lost {
            name: self.name.clone(),
        }
    }

    /// The owner's next reply, read a byte at a time: after a grant the
    /// stream is the agent's, and nothing of it may be taken here.
    async fn reply(&mut self) -> Result<Reply, KeptError> {
        let mut line = Vec::new();
        loop {
            let byte = self.stream.read_u8().await.map_err(|_| self.lost())?;
            if byte == b'\n' {
                break;
            }
            if line.len() >= protocol::MAX_REQUEST {
                return Err(self.lost());
            }
            line.push(byte);
        }
        let reply: Reply = serde_json::from_slice(&line).map_err(|_| self.lost())?;
        match reply {
            Reply::Error {
                kind,
                message,
                hint,
            } => Err(KeptError::Refused {
                name: self.name.clone(),
                kind,
                message,
                hint,
            }),
            reply => Ok(reply),
        }
    }

    /// Asks for a turn and waits for it; `queued` hears how many come
    /// first while it waits. The stream is then the agent's.
    pub async fn turn(
        mut self,
        keep: Option<Duration>,
        mut queued: impl FnMut(usize),
    ) -> Result<(Grant, UnixStream), KeptError> {
        let keep_seconds = keep.map(|keep| keep.as_secs());
        self.send(&OwnerRequest::Prompt { keep_seconds }).await?;
        loop {
            match self.reply().await? {
                Reply::Queued { ahead } => queued(ahead),
                Reply::Turn(grant) => return Ok((grant, self.stream)),
                Reply::Ended {} => {
                    return Err(KeptError::Ended {
                        name: self.name.clone(),
                    })
                }
                _ => return Err(self.lost()),
            }
        }
    }

    /// A control request and its one reply, within [`CONTROL_BOUND`].
    async fn control(mut self, request: OwnerRequest) -> Result<Reply, KeptError> {
        let name = self.name.clone();
        let exchange = async {
            self.send(&request).await?;
            self.reply().await
        };
        tokio::time::timeout(CONTROL_BOUND, exchange)
            .await
            .map_err(|_| KeptError::Unresponsive { name })?
    }

    /// `session cancel`: whether a turn was running to cancel.
    pub async fn cancel(self) -> Result<bool, KeptError> {
        let name = self.name.clone();
        match self.control(OwnerRequest::Cancel {}).await? {
            Reply::Cancel { cancelled } => Ok(cancelled),
            _ => Err(KeptError::Lost { name }),
        }
    }

    /// `session stop`: the owner is ending the session.
    pub async fn stop(self) -> Result<(), KeptError> {
        let name = self.name.clone();
        match self.control(OwnerRequest::Stop {}).await? {
            Reply::Stopping {} => Ok(()),
            _ => Err(KeptError::Lost { name }),
        }
    }

    pub async fn status(self) -> Result<Status, KeptError> {
        let name = self.name.clone();
        match self.control(OwnerRequest::Status {}).await? {
            Reply::Status(status) => Ok(status),
            _ => Err(KeptError::Lost { name }),
        }
    }
}
