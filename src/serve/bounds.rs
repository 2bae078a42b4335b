//! Serve's resource bounds: no unauthenticated client can
//! starve or bloat serve. The accept loop is ours (axum's `serve` hides
//! hyper's connection options); each connection is hyper's HTTP/1.
//!
//! - hyper's own limits: the request head must arrive within [`HEAD`]
//!   (`header_read_timeout`, which also closes a kept-alive connection that
//!   sends no next request in time), and a connection buffers at most
//!   [`MAX_BUFFER`] (`max_buf_size`: a longer head is refused).
//! - a connection that moves no byte either way for [`IDLE`] is closed
//!   (hyper has no idle timeout: every read and write stamps the
//!   connection, one sleep per connection checks the stamp).
//! - at most [`connection_cap`] connections, below the process's
//!   descriptor limit with headroom for the supervisors' sockets and files.
//!   When full, a newcomer sheds the oldest connection that never
//!   authenticated; when every one has, the newcomer is closed. A failed
//!   `accept` (out of descriptors) sheds one too and backs off.
//! - bodies: the routes check `Content-Length` before any body is read
//!   and read at most [`UNAUTHENTICATED_BODY`] of an answer link's body,
//!   after its capability was checked; an authenticated body is capped at
//!   [`AUTHENTICATED_BODY`] (axum's `DefaultBodyLimit`).

use std::collections::BTreeMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::Notify;

use super::auth::TokenVerified;

/// A request head must arrive within this.
pub const HEAD: Duration = Duration::from_secs(10);
/// A connection that moves no byte for this long is closed.
pub const IDLE: Duration = Duration::from_secs(60);
/// The most a connection buffers (hyper's read buffer: the head).
pub const MAX_BUFFER: usize = 16 * 1024;
/// The most of an unauthenticated request's body ever read.
pub const UNAUTHENTICATED_BODY: usize = 4 * 1024;
/// The most of an authenticated request's body read (a verdict is tiny).
pub const AUTHENTICATED_BODY: usize = 64 * 1024;
/// Never more connections than this, whatever the descriptor limit.
const MOST_CONNECTIONS: u64 = 4096;
/// The first and the longest pause after a failed `accept`.
const ACCEPT_BACKOFF: (Duration, Duration) = (Duration::from_millis(10), Duration::from_secs(1));

/// The connection cap for a descriptor limit: a quarter (at least 64) is
/// left for the supervisors' sockets, files and the runtime.
pub fn connection_cap(descriptors: Option<u64>) -> usize {
    let limit = descriptors.unwrap_or(MOST_CONNECTIONS * 2);
    let headroom = (limit / 4).max(64);
    let cap = limit.saturating_sub(headroom).clamp(16, MOST_CONNECTIONS);
    usize::try_from(cap).unwrap_or(16)
}

/// The process's soft descriptor limit (`None`: unlimited).
pub fn descriptor_limit() -> Option<u64> {
    rustix::process::getrlimit(rustix::process::Resource::Nofile).current
}

/// One open connection, as the cap sees it.
pub struct TrackedConnection {
    id: u64,
    opened: Instant,
    authenticated: AtomicBool,
    /// Milliseconds after `opened` of the last byte moved.
    active: AtomicU64,
    shed: Notify,
}

impl TrackedConnection {
    /// A request on it passed the token check: it is shed last.
    pub fn authenticated(&self) {
        self.authenticated.store(true, Ordering::Relaxed);
    }

    fn touch(&self) {
        let now = u64::try_from(self.opened.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.active.store(now, Ordering::Relaxed);
    }

    fn quiet_for(&self) -> Duration {
        let active = Duration::from_millis(self.active.load(Ordering::Relaxed));
        self.opened.elapsed().saturating_sub(active)
    }

    /// Completes once the connection moved no byte for [`IDLE`].
    async fn idle(&self) {
        loop {
            let quiet = self.quiet_for();
            if quiet >= IDLE {
                return;
            }
            tokio::time::sleep(IDLE - quiet).await;
        }
    }
}

/// The open connections, up to a cap.
pub struct Connections {
    cap: usize,
    open: Mutex<BTreeMap<u64, Arc<TrackedConnection>>>,
    next: AtomicU64,
}

/// A place in [`Connections`]; given back on drop.
pub struct Admitted {
    connections: Arc<Connections>,
    connection: Arc<TrackedConnection>,
    /// Another connection was shed to make room.
    shed: bool,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        self.connections.table().remove(&self.connection.id);
    }
}

impl Connections {
    pub fn new(cap: usize) -> Arc<Self> {
        Arc::new(Self {
            cap,
            open: Mutex::new(BTreeMap::new()),
            next: AtomicU64::new(0),
        })
    }

    fn table(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Arc<TrackedConnection>>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn len(&self) -> usize {
        self.table().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sheds the oldest connection that never authenticated; `false` when
    /// there is none.
    fn shed_one(table: &mut BTreeMap<u64, Arc<TrackedConnection>>) -> bool {
        let victim = table
            .values()
            .find(|connection| !connection.authenticated.load(Ordering::Relaxed))
            .map(|connection| connection.id);
        match victim.and_then(|id| table.remove(&id)) {
            Some(connection) => {
                connection.shed.notify_one();
                true
            }
            None => false,
        }
    }

    /// A place for a new connection, shedding one when at the cap (then
    /// `shed` is set); `None` when every open connection is authenticated.
    pub fn admit(self: &Arc<Self>) -> Option<Admitted> {
        let mut table = self.table();
        let shed = table.len() >= self.cap;
        if shed && !Self::shed_one(&mut table) {
            return None;
        }
        let connection = Arc::new(TrackedConnection {
            id: self.next.fetch_add(1, Ordering::Relaxed),
            opened: Instant::now(),
            authenticated: AtomicBool::new(false),
            active: AtomicU64::new(0),
            shed: Notify::new(),
        });
        table.insert(connection.id, Arc::clone(&connection));
        Some(Admitted {
            connections: Arc::clone(self),
            connection,
            shed,
        })
    }
}

/// A TCP stream that stamps its connection on every byte moved.
struct Watched {
    stream: TcpStream,
    connection: Arc<TrackedConnection>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.connection.touch();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(written)) if written > 0) {
            self.connection.touch();
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// Marks the connection of a request whose token the guard verified (the
/// layer sits inside the guard, which puts [`TokenVerified`] on it). A
/// header merely sent — to the open shell, say — marks nothing; answer
/// links carry a capability, not the token: they stay unauthenticated.
pub async fn mark_authenticated(request: Request, next: Next) -> Response {
    if request.extensions().get::<TokenVerified>().is_some() {
        if let Some(connection) = request.extensions().get::<Arc<TrackedConnection>>() {
            connection.authenticated();
        }
    }
    next.run(request).await
}

/// Accepts and serves connections within the bounds until `stop`
/// completes; then lets open requests end (a few seconds at most).
pub async fn run(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    stop: impl std::future::Future<Output = ()>,
) {
    let connections = Connections::new(connection_cap(descriptor_limit()));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(HEAD)
        .max_buf_size(MAX_BUFFER);
    tokio::pin!(stop);
    let mut backoff: Option<Duration> = None;
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut stop => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => {
                backoff = None;
                stream
            }
            Err(error) => {
                // Out of descriptors (or a passing failure): free one, pause.
                Connections::shed_one(&mut connections.table());
                let pause = match backoff {
                    None => {
                        tracing::warn!("cannot accept a connection ({error}); pausing");
                        ACCEPT_BACKOFF.0
                    }
                    Some(pause) => (pause * 2).min(ACCEPT_BACKOFF.1),
                };
                backoff = Some(pause);
                tokio::time::sleep(pause).await;
                continue;
            }
        };
        let Some(admitted) = connections.admit() else {
            // Every place is held by an authenticated client.
            drop(stream);
            continue;
        };
        let connection = Arc::clone(&admitted.connection);
        let per_request = Arc::clone(&connection);
        let router = router.clone();
        let service = hyper::service::service_fn(move |mut request: Request<_>| {
            request.extensions_mut().insert(Arc::clone(&per_request));
            let mut router = router.clone();
            async move {
                tower_service::Service::call(&mut router, request.map(axum::body::Body::new)).await
            }
        });
        let io = hyper_util::rt::TokioIo::new(Watched {
            stream,
            connection: Arc::clone(&connection),
        });
        let served = graceful.watch(builder.serve_connection(io, service));
        let shed = admitted.shed;
        tokio::spawn(async move {
            tokio::select! {
                _ = served => {}
                () = connection.shed.notified() => {}
                () = connection.idle() => {}
            }
            drop(admitted);
        });
        if shed {
            // Let the shed connection close (free its descriptor) before
            // the next accept: a burst must not outrun the closing.
            tokio::task::yield_now().await;
        }
    }
    drop(listener);
    let _ = tokio::time::timeout(Duration::from_secs(5), graceful.shutdown()).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_leaves_room_below_the_descriptor_limit() {
        assert_eq!(connection_cap(Some(256)), 192);
        assert_eq!(connection_cap(Some(1024)), 768);
        assert_eq!(connection_cap(Some(100)), 36);
        assert_eq!(connection_cap(Some(20)), 16);
        assert_eq!(connection_cap(Some(1 << 20)), 4096);
        assert_eq!(connection_cap(None), 4096);
    }

    #[test]
    fn a_connection_is_idle_after_a_minute_without_a_byte() {
        let connection = |quiet: Duration| TrackedConnection {
            id: 0,
            opened: Instant::now()
                .checked_sub(quiet)
                .expect("an earlier instant"),
            authenticated: AtomicBool::new(false),
            active: AtomicU64::new(0),
            shed: Notify::new(),
        };
        let runtime = crate::process::runtime().expect("runtime");
        runtime.block_on(async {
            let idle = connection(IDLE + Duration::from_secs(1));
            assert!(futures_util::FutureExt::now_or_never(idle.idle()).is_some());
            // A byte just now: not idle.
            idle.touch();
            assert!(idle.quiet_for() < Duration::from_secs(1));
            assert!(futures_util::FutureExt::now_or_never(idle.idle()).is_none());
            let recent = connection(Duration::from_secs(30));
            assert!(recent.quiet_for() >= Duration::from_secs(30));
            assert!(futures_util::FutureExt::now_or_never(recent.idle()).is_none());
        });
    }

    #[test]
    fn at_the_cap_the_oldest_unauthenticated_connection_is_shed() {
        let connections = Connections::new(3);
        let first = connections.admit().expect("first");
        let second = connections.admit().expect("second");
        let third = connections.admit().expect("third");
        first.connection.authenticated();
        let fourth = connections.admit().expect("sheds one");
        assert_eq!(connections.len(), 3);
        let table = connections.table();
        assert!(table.contains_key(&first.connection.id), "authenticated");
        assert!(!table.contains_key(&second.connection.id), "oldest shed");
        assert!(table.contains_key(&third.connection.id));
        drop(table);
        // The shed connection's task hears it.
        {
            let notified = second.connection.shed.notified();
            tokio::pin!(notified);
            assert!(futures_util::FutureExt::now_or_never(notified).is_some());
        }
        drop(second);
        assert_eq!(connections.len(), 3);

        third.connection.authenticated();
        fourth.connection.authenticated();
        assert!(connections.admit().is_none(), "every place authenticated");
        drop(fourth);
        assert!(connections.admit().is_some());
    }
}
