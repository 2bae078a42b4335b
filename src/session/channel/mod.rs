//! The approvals channel: a Unix socket (0600, in the session's
//! 0700 runtime folder) speaking JSON lines. Requests:
//! `{"op":"list"}` → `{"cards":[…]}`; `{"op":"watch"}` → every card now and
//! each change after, one card a line; `{"op":"answer","card":…,"action":…}`
//! → `{"card":…}` once its delivery ended, or `{"error":…}` (with
//! `"refusal":"unknown"|"not_pending"|"incomplete"` when the card book
//! refused it);
//! `{"op":"stop"}` → `{"stopping":true}`. Peers of another user are refused.
//!
//! Who answered (`by` on the card) is what the request can prove, never
//! what it claims ([`answerer()`](crate::session::channel::answerer::answerer)); `{"op":"link",…}` checks an
//! answer link without spending it, for the confirm form.
//!
//! A supervisor that does not answer must not hang its clients: while an
//! answer is being delivered or a watch is open, the server writes
//! `{"alive":true}` every [`HEARTBEAT`], and a client gives up after
//! [`RESPONSE_BOUND`] without a line. A request whose client has already
//! gone (it gave up while the supervisor was stopped) is not carried out.
//! A failing `accept` (out of descriptors) backs off instead of spinning.

pub mod answerer;

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
use tokio::net::unix::OwnedWriteHalf;
use tokio::net::UnixListener;

use crate::process::lines::{BlockingLines, Line};
use crate::session::cards::{Card, Verdict};
use crate::session::channel::answerer::{answerer, link_refusal, AnswerClaim, ProofKey};
use crate::session::delivery::links::LinkRefusal;
use crate::session::supervisor::state::SessionState;
use crate::session::{io_error, SessionError};

/// The longest request line the server reads.
const MAX_REQUEST: u64 = 64 * 1024;
/// How often a waiting connection hears that the supervisor is alive.
pub const HEARTBEAT: Duration = Duration::from_secs(1);
/// How long a client waits for a line (the first reply, or the next
/// heartbeat) before it gives up on the supervisor.
pub const RESPONSE_BOUND: Duration = Duration::from_secs(4);
/// The longest reply line a client reads.
const MAX_REPLY: usize = 4 << 20;
/// The first and the longest pause after a failed `accept`.
const ACCEPT_BACKOFF: (Duration, Duration) = (Duration::from_millis(10), Duration::from_secs(1));
const ALIVE: &str = "{\"alive\":true}\n";

#[derive(Debug, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase", deny_unknown_fields)]
enum Request {
    List {},
    Watch {},
    /// `by`: who answers, `cli` (the default), `page` (with `proof`) or
    /// `link` (with `capability` and `serve`).
    Answer {
        card: String,
        action: String,
        #[serde(default)]
        by: Option<String>,
        #[serde(default)]
        proof: Option<String>,
        #[serde(default)]
        capability: Option<String>,
        #[serde(default)]
        serve: Option<String>,
    },
    /// Whether `capability` (forwarded by serve instance `serve`) is card
    /// `card`'s answer link: `{"card":…}`, or `{"error":…,"link":"unknown"|"used"}`.
    Link {
        card: String,
        capability: String,
        serve: String,
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

/// Serves connections; a failing `accept` backs off (10 ms doubling up to
/// 1 s) instead of spinning, and is logged once per streak.
pub async fn serve(listener: UnixListener, state: Arc<SessionState>) {
    let uid = crate::fs_safety::current_uid();
    let proof = Arc::new(ProofKey::write(&listener));
    let mut backoff: Option<Duration> = None;
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => {
                if backoff.take().is_some() {
                    tracing::warn!("accepting approvals clients again");
                }
                stream
            }
            Err(error) => {
                let pause = match backoff {
                    None => {
                        tracing::warn!(
                            "cannot accept an approvals client ({error}); retrying with a pause of up to {} ms",
                            ACCEPT_BACKOFF.1.as_millis()
                        );
                        ACCEPT_BACKOFF.0
                    }
                    Some(pause) => (pause * 2).min(ACCEPT_BACKOFF.1),
                };
                backoff = Some(pause);
                tokio::time::sleep(pause).await;
                continue;
            }
        };
        let same_user = stream.peer_cred().is_ok_and(|cred| cred.uid() == uid);
        if !same_user {
            tracing::warn!("refused an approvals client of another user");
            continue;
        }
        tokio::spawn(connection(stream, Arc::clone(&state), Arc::clone(&proof)));
    }
}

/// Whether the client already hung up (it gave up while the supervisor
/// was stopped, and its request is still queued): a peek that does not
/// wait sees the end of the stream.
fn client_gone(stream: &tokio::net::UnixStream) -> bool {
    use rustix::net::{recv, RecvFlags};
    let mut byte = [0u8; 1];
    matches!(
        recv(stream, &mut byte, RecvFlags::PEEK | RecvFlags::DONTWAIT),
        Ok((_, 0))
    )
}

/// One request on one connection: read, answer, close.
async fn connection(
    stream: tokio::net::UnixStream,
    state: Arc<SessionState>,
    proof: Arc<ProofKey>,
) {
    let (reader, mut writer) = stream.into_split();
    let mut reader = tokio::io::BufReader::new(reader.take(MAX_REQUEST));
    let mut line = Vec::new();
    if reader.read_until(b'\n', &mut line).await.is_err() {
        return;
    }
    let request = serde_json::from_slice::<Request>(&line);
    if matches!(request, Ok(Request::Stop {} | Request::Answer { .. }))
        && client_gone(reader.get_ref().get_ref().as_ref())
    {
        tracing::warn!("dropped a request whose client had gone");
        return;
    }
    let document = match request {
        Err(error) => json!({"error": format!("invalid request: {error}")}),
        Ok(Request::List {}) => json!({"cards": state.cards()}),
        Ok(Request::Stop {}) => {
            // Answered before the stop begins: the client hears it.
            let _ = writer
                .write_all(reply(json!({"stopping": true})).as_bytes())
                .await;
            state.stop.notify_one();
            return;
        }
        Ok(Request::Watch {}) => return watch(&mut writer, &state).await,
        Ok(Request::Link {
            card,
            capability,
            serve,
        }) => {
            let found = state.lock().book.card(&card);
            match state.links.check(&card, &capability, &serve) {
                Ok(()) => json!({"card": found}),
                Err(LinkRefusal::Used) => json!({"card": found, "link": "used"}),
                Err(refusal) => link_refusal(refusal),
            }
        }
        Ok(Request::Answer {
            card,
            action,
            by,
            proof: given,
            capability,
            serve,
        }) => {
            let claim = AnswerClaim {
                by: by.as_deref(),
                proof: given.as_deref(),
                capability: capability.as_deref(),
                serve: serve.as_deref(),
            };
            match answer(&mut writer, &state, &proof, &card, &action, &claim).await {
                Some(document) => document,
                // The client hung up while the delivery ran.
                None => return,
            }
        }
    };
    let _ = writer.write_all(reply(document).as_bytes()).await;
}

/// One JSON document as a line.
fn reply(value: Value) -> String {
    format!("{value}\n")
}

/// `watch`: every card now, then each change as it happens, with a
/// heartbeat between, until the client hangs up or the supervisor stops.
async fn watch(writer: &mut OwnedWriteHalf, state: &SessionState) {
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
    let mut beat = tokio::time::interval(HEARTBEAT);
    loop {
        let line = tokio::select! {
            update = updates.recv() => match update {
                Ok(card) => reply(json!(card)),
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            },
            _ = beat.tick() => ALIVE.to_owned(),
        };
        if writer.write_all(line.as_bytes()).await.is_err() {
            return;
        }
    }
}

/// `answer`: who answers checked ([`answerer`]), the verdict claimed, then
/// the delivery's end awaited with a heartbeat to the client. The
/// document to send back; `None` when the client hung up meanwhile.
async fn answer(
    writer: &mut OwnedWriteHalf,
    state: &Arc<SessionState>,
    proof: &ProofKey,
    card: &str,
    action: &str,
    claim: &AnswerClaim<'_>,
) -> Option<Value> {
    let Some(verdict) = Verdict::parse(action) else {
        return Some(
            json!({"error": format!("unknown action `{action}`: use accept, decline or cancel")}),
        );
    };
    let by = match answerer(state, proof, card, claim) {
        Ok(by) => by,
        Err(refusal) => return Some(refusal),
    };
    let updates = state.subscribe();
    if let Err(refusal) = state.answer_by(card, verdict, Some(by)) {
        // `refusal` names it for clients (serve maps it to a status)
        // without reading its words.
        return Some(json!({"error": refusal.to_string(), "refusal": refusal.code()}));
    }
    if let (Some(capability), Some(serve), "link") = (claim.capability, claim.serve, by) {
        // The first verdict won: its link answers once.
        let _ = state.links.spend(card, capability, serve);
    }
    let end = state.delivery_end(card, updates);
    tokio::pin!(end);
    let mut beat = tokio::time::interval(HEARTBEAT);
    loop {
        tokio::select! {
            card = &mut end => return Some(match card {
                Some(card) => json!({"card": card}),
                None => json!({"error": "the supervisor is stopping"}),
            }),
            _ = beat.tick() => {
                if writer.write_all(ALIVE.as_bytes()).await.is_err() {
                    return None;
                }
            }
        }
    }
}

/// A client connection (blocking: the commands are short-lived). Every
/// wait is bounded: a supervisor that is stopped or wedged makes the
/// client give up with [`SessionError::Unresponsive`].
pub struct Client {
    stream: UnixStream,
    lines: BlockingLines<UnixStream>,
    path: std::path::PathBuf,
    name: String,
    /// When the supervisor was last heard from (or the connect began).
    heard: Instant,
}

impl Client {
    pub fn connect(path: &Path, name: &str) -> Result<Self, SessionError> {
        let heard = Instant::now();
        // A connect blocks while the listener's backlog is full (a stopped
        // supervisor): try on a thread, wait a bounded time.
        let (sender, receiver) = std::sync::mpsc::channel();
        let target = path.to_owned();
        std::thread::spawn(move || {
            let _ = sender.send(UnixStream::connect(target));
        });
        let stream = match receiver.recv_timeout(RESPONSE_BOUND) {
            Ok(Ok(stream)) => stream,
            Ok(Err(_)) => return Err(SessionError::SupervisorGone(name.to_owned())),
            Err(_) => return Err(unresponsive(name)),
        };
        let reader = stream.try_clone().map_err(|source| SessionError::Io {
            action: "read from",
            path: path.to_owned(),
            source,
        })?;
        Ok(Self {
            stream,
            lines: BlockingLines::new(reader, MAX_REPLY),
            path: path.to_owned(),
            name: name.to_owned(),
            heard,
        })
    }

    fn left(&self) -> Duration {
        RESPONSE_BOUND
            .saturating_sub(self.heard.elapsed())
            .max(Duration::from_millis(1))
    }

    pub fn send(&mut self, request: &Value) -> Result<(), SessionError> {
        let line = format!("{request}\n");
        let _ = self.stream.set_write_timeout(Some(self.left()));
        self.stream
            .write_all(line.as_bytes())
            .map_err(|source| match source.kind() {
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
                    unresponsive(&self.name)
                }
                _ => SessionError::Io {
                    action: "write to",
                    path: self.path.clone(),
                    source,
                },
            })
    }

    /// The next reply line; `None` when the supervisor closed it.
    /// Heartbeats are skipped; without any line for `timeout` (default
    /// [`RESPONSE_BOUND`]) the supervisor is unresponsive.
    pub fn next(&mut self, timeout: Option<Duration>) -> Result<Option<Value>, SessionError> {
        let bound = timeout.unwrap_or(RESPONSE_BOUND);
        loop {
            let left = bound
                .saturating_sub(self.heard.elapsed())
                .max(Duration::from_millis(1));
            let _ = self.stream.set_read_timeout(Some(left));
            let line = match self.lines.next_line() {
                Ok(None) => return Ok(None),
                Ok(Some(line)) => line,
                Err(error)
                    if matches!(
                        error.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    return Err(unresponsive(&self.name))
                }
                Err(source) => {
                    return Err(SessionError::Io {
                        action: "read from",
                        path: self.path.clone(),
                        source,
                    })
                }
            };
            self.heard = Instant::now();
            let unreadable =
                || SessionError::Refused("the supervisor sent an unreadable reply".to_owned());
            let Line::Text(bytes) = line else {
                return Err(unreadable());
            };
            let value: Value = serde_json::from_slice(&bytes).map_err(|_| unreadable())?;
            if value.get("alive") == Some(&Value::Bool(true)) {
                continue;
            }
            return Ok(Some(value));
        }
    }

    pub fn request(&mut self, request: &Value) -> Result<Value, SessionError> {
        self.send(request)?;
        self.next(None)?
            .ok_or_else(|| SessionError::Refused("the supervisor closed the channel".to_owned()))
    }
}

fn unresponsive(name: &str) -> SessionError {
    SessionError::Unresponsive {
        name: name.to_owned(),
        seconds: RESPONSE_BOUND.as_secs(),
    }
}

/// A card from a reply line.
pub fn card_of(value: &Value) -> Option<Card> {
    serde_json::from_value(value.clone()).ok()
}

#[cfg(test)]
#[path = "channel_tests.rs"]
mod tests;
