//! The approvals channel (SPEC §8.2): a Unix socket (0600, in the session's
//! 0700 runtime folder) speaking JSON lines. Requests:
//! `{"op":"list"}` → `{"cards":[…]}`; `{"op":"watch"}` → every card now and
//! each change after, one card a line; `{"op":"answer","card":…,"action":…}`
//! → `{"card":…}` once its delivery ended, or `{"error":…}`;
//! `{"op":"stop"}` → `{"stopping":true}`. Peers of another user are refused.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixListener;

use super::cards::{Card, Verdict};
use super::state::SessionState;
use super::{io_error, SessionError};

/// The longest request line the server reads.
const MAX_REQUEST: u64 = 64 * 1024;

#[derive(Debug, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase", deny_unknown_fields)]
enum Request {
    List {},
    Watch {},
    /// `by`: who answers, `cli` (the default), `page` or `link`.
    Answer {
        card: String,
        action: String,
        #[serde(default)]
        by: Option<String>,
    },
    Stop {},
}

/// Binds the socket (replacing a stale one) and makes it 0600.
pub fn bind(path: &Path) -> Result<UnixListener, SessionError> {
    use std::os::unix::fs::PermissionsExt;
    match fs_err::symlink_metadata(path).map_err(crate::fs_error::os_cause) {
        Ok(meta) if meta.file_type().is_socket_like() => {
            fs_err::remove_file(path)
                .map_err(crate::fs_error::os_cause)
                .map_err(io_error("remove stale socket", path))?;
        }
        Ok(_) => {
            return Err(SessionError::Refused(format!(
                "`{}` exists and is not a socket",
                path.display()
            )))
        }
        Err(_) => {}
    }
    let listener = UnixListener::bind(path).map_err(io_error("listen on", path))?;
    fs_err::set_permissions(path, std::fs::Permissions::from_mode(0o600))
        .map_err(crate::fs_error::os_cause)
        .map_err(io_error("restrict", path))?;
    Ok(listener)
}

trait SocketLike {
    fn is_socket_like(&self) -> bool;
}

impl SocketLike for std::fs::FileType {
    fn is_socket_like(&self) -> bool {
        std::os::unix::fs::FileTypeExt::is_socket(self)
    }
}

/// Serves connections until the listener fails.
pub async fn serve(listener: UnixListener, state: Arc<SessionState>) {
    let uid = crate::fs_safety::current_uid();
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let same_user = stream.peer_cred().is_ok_and(|cred| cred.uid() == uid);
        if !same_user {
            tracing::warn!("refused an approvals client of another user");
            continue;
        }
        tokio::spawn(connection(stream, Arc::clone(&state)));
    }
}

async fn connection(stream: tokio::net::UnixStream, state: Arc<SessionState>) {
    let (reader, mut writer) = stream.into_split();
    let mut reader = tokio::io::BufReader::new(reader.take(MAX_REQUEST));
    let mut line = Vec::new();
    if reader.read_until(b'\n', &mut line).await.is_err() {
        return;
    }
    let request = serde_json::from_slice::<Request>(&line);
    let reply = |value: Value| format!("{value}\n");
    match request {
        Err(error) => {
            let message = format!("invalid request: {error}");
            let _ = writer
                .write_all(reply(json!({"error": message})).as_bytes())
                .await;
        }
        Ok(Request::List {}) => {
            let _ = writer
                .write_all(reply(json!({"cards": state.cards()})).as_bytes())
                .await;
        }
        Ok(Request::Stop {}) => {
            let _ = writer
                .write_all(reply(json!({"stopping": true})).as_bytes())
                .await;
            state.stop.notify_one();
        }
        Ok(Request::Watch {}) => {
            let (cards, mut updates) = state.watch();
            for card in cards {
                if writer
                    .write_all(reply(json!(card)).as_bytes())
                    .await
                    .is_err()
                {
                    return;
                }
            }
            loop {
                match updates.recv().await {
                    Ok(card) => {
                        if writer
                            .write_all(reply(json!(card)).as_bytes())
                            .await
                            .is_err()
                        {
                            return;
                        }
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                }
            }
        }
        Ok(Request::Answer { card, action, by }) => {
            let by = by.as_deref().unwrap_or("cli");
            let document = match Verdict::parse(&action) {
                None => {
                    json!({"error": format!("unknown action `{action}`: use accept, decline or cancel")})
                }
                Some(_) if !["cli", "page", "link"].contains(&by) => {
                    json!({"error": "unknown answerer: use cli, page or link"})
                }
                Some(verdict) => {
                    let updates = state.subscribe();
                    match state.answer_by(&card, verdict, Some(by)) {
                        Err(refusal) => json!({"error": refusal.to_string()}),
                        Ok(_) => match state.delivery_end(&card, updates).await {
                            Some(card) => json!({"card": card}),
                            None => json!({"error": "the supervisor is stopping"}),
                        },
                    }
                }
            };
            let _ = writer.write_all(reply(document).as_bytes()).await;
        }
    }
}

/// A client connection (blocking: the commands are short-lived).
pub struct Client {
    stream: BufReader<UnixStream>,
    path: std::path::PathBuf,
}

impl Client {
    pub fn connect(path: &Path, name: &str) -> Result<Self, SessionError> {
        let stream =
            UnixStream::connect(path).map_err(|_| SessionError::SupervisorGone(name.to_owned()))?;
        Ok(Self {
            stream: BufReader::new(stream),
            path: path.to_owned(),
        })
    }

    pub fn send(&mut self, request: &Value) -> Result<(), SessionError> {
        let line = format!("{request}\n");
        self.stream
            .get_mut()
            .write_all(line.as_bytes())
            .map_err(|source| SessionError::Io {
                action: "write to",
                path: self.path.clone(),
                source,
            })
    }

    /// The next reply line; `None` when the supervisor closed it.
    pub fn next(&mut self, timeout: Option<Duration>) -> Result<Option<Value>, SessionError> {
        let _ = self.stream.get_ref().set_read_timeout(timeout);
        let mut line = String::new();
        match self.stream.read_line(&mut line) {
            Ok(0) => Ok(None),
            Ok(_) => serde_json::from_str(&line).map(Some).map_err(|_| {
                SessionError::Refused("the supervisor sent an unreadable reply".to_owned())
            }),
            Err(source) => Err(SessionError::Io {
                action: "read from",
                path: self.path.clone(),
                source,
            }),
        }
    }

    pub fn request(&mut self, request: &Value) -> Result<Value, SessionError> {
        self.send(request)?;
        self.next(None)?
            .ok_or_else(|| SessionError::Refused("the supervisor closed the channel".to_owned()))
    }
}

/// A card from a reply line.
pub fn card_of(value: &Value) -> Option<Card> {
    serde_json::from_value(value.clone()).ok()
}

#[cfg(test)]
#[path = "approvals_channel_tests.rs"]
mod tests;
