//! A minimal HTTP/1.1 server on 127.0.0.1 standing in for Kiro's download
//! host: routes can be replaced while it runs, every request is counted per
//! path, and faults (status codes, truncation, stalls, slow bodies) are
//! injected per route. One thread per connection, `Connection: close`.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// What the server answers on one path.
#[derive(Debug, Clone)]
pub enum Route {
    /// 200 with a `Content-Length`.
    Ok(Arc<[u8]>),
    /// An empty answer with this status.
    Status(u16),
    /// Announces the whole body's length, sends only `send` bytes, closes.
    Truncate { body: Arc<[u8]>, send: usize },
    /// Answers `status` (with `Retry-After` when given) `times` times, then
    /// behaves as `then`.
    FailThen {
        times: usize,
        status: u16,
        retry_after: Option<u64>,
        then: Box<Route>,
    },
    /// Sends `after_bytes` of the body, then waits until the `release` file
    /// exists (or the server is dropped), then sends the rest.
    Stall {
        body: Arc<[u8]>,
        after_bytes: usize,
        release: PathBuf,
    },
    /// Reads the request and answers nothing until the `release` file
    /// exists (or the server is dropped): a server that hangs before its
    /// headers.
    Silent { release: PathBuf },
    /// 200 without a `Content-Length`: the body ends when the server
    /// closes the connection.
    NoLength(Arc<[u8]>),
    /// Sends the body `chunk` bytes at a time with `delay_ms` between chunks.
    Slow {
        body: Arc<[u8]>,
        chunk: usize,
        delay_ms: u64,
    },
}

impl Route {
    pub fn ok(body: impl Into<Vec<u8>>) -> Route {
        Route::Ok(body.into().into())
    }

    pub fn fail_then(times: usize, status: u16, retry_after: Option<u64>, then: Route) -> Route {
        Route::FailThen {
            times,
            status,
            retry_after,
            then: Box::new(then),
        }
    }
}

/// What one request gets, decided under the routes lock (a `FailThen`
/// counts down there) and then carried out without it.
enum Plan {
    Body(Arc<[u8]>),
    Status(u16, Option<u64>),
    Truncate(Arc<[u8]>, usize),
    Stall(Arc<[u8]>, usize, PathBuf),
    Slow(Arc<[u8]>, usize, u64),
    NoLength(Arc<[u8]>),
    Silent(PathBuf),
    NotFound,
}

#[derive(Default)]
struct State {
    routes: HashMap<String, Route>,
    hits: HashMap<String, usize>,
    /// Requests that reached the waiting point of a `Stall` route.
    stalled: HashMap<String, usize>,
}

struct Shared {
    state: Mutex<State>,
    stopping: AtomicBool,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panicking connection thread must not take the test down with a
        // poisoned lock; the counts stay meaningful.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

pub struct Server {
    address: std::net::SocketAddr,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

impl Server {
    pub fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let address = listener.local_addr().expect("local address");
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            stopping: AtomicBool::new(false),
        });
        let accepting = Arc::clone(&shared);
        let acceptor = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if accepting.stopping.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let connection = Arc::clone(&accepting);
                std::thread::spawn(move || serve(stream, &connection));
            }
        });
        Server {
            address,
            shared,
            acceptor: Some(acceptor),
        }
    }

    /// `http://127.0.0.1:PORT` + `path` (which starts with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.address, path)
    }

    /// Sets or replaces the route of `path`.
    pub fn route(&self, path: &str, route: Route) {
        self.shared.lock().routes.insert(path.to_owned(), route);
    }

    /// Requests for `path` so far (every method, HEAD included).
    pub fn hits(&self, path: &str) -> usize {
        self.shared.lock().hits.get(path).copied().unwrap_or(0)
    }

    /// Requests for any path so far.
    pub fn total_hits(&self) -> usize {
        self.shared.lock().hits.values().sum()
    }

    /// Requests to `path` that sent their first part and are now waiting
    /// for the release file of a `Stall` route.
    pub fn stalled(&self, path: &str) -> usize {
        self.shared.lock().stalled.get(path).copied().unwrap_or(0)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        // Wake the blocking accept so the thread sees the flag.
        let _ = TcpStream::connect(self.address);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}

fn serve(stream: TcpStream, shared: &Shared) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let Some((method, path)) = read_request_head(&stream) else {
        return;
    };
    let plan = {
        let mut state = shared.lock();
        *state.hits.entry(path.clone()).or_insert(0) += 1;
        match state.routes.get_mut(&path) {
            Some(route) => plan(route),
            None => Plan::NotFound,
        }
    };
    let head_only = method.eq_ignore_ascii_case("HEAD");
    let mut stream = stream;
    let _ = respond(&mut stream, plan, head_only, shared, &path);
    let _ = stream.flush();
    let _ = stream.shutdown(Shutdown::Both);
}

fn plan(route: &mut Route) -> Plan {
    match route {
        Route::Ok(body) => Plan::Body(Arc::clone(body)),
        Route::NoLength(body) => Plan::NoLength(Arc::clone(body)),
        Route::Silent { release } => Plan::Silent(release.clone()),
        Route::Status(code) => Plan::Status(*code, None),
        Route::Truncate { body, send } => Plan::Truncate(Arc::clone(body), *send),
        Route::FailThen {
            times,
            status,
            retry_after,
            then,
        } => {
            if *times > 0 {
                *times -= 1;
                Plan::Status(*status, *retry_after)
            } else {
                plan(then)
            }
        }
        Route::Stall {
            body,
            after_bytes,
            release,
        } => Plan::Stall(Arc::clone(body), *after_bytes, release.clone()),
        Route::Slow {
            body,
            chunk,
            delay_ms,
        } => Plan::Slow(Arc::clone(body), (*chunk).max(1), *delay_ms),
    }
}

/// Reads the request line and headers; returns the method and the path
/// without its query string.
fn read_request_head(stream: &TcpStream) -> Option<(String, String)> {
    let mut reader = BufReader::new(stream);
    let mut request_line = String::new();
    reader.read_line(&mut request_line).ok()?;
    let mut parts = request_line.split_whitespace();
    let method = parts.next()?.to_owned();
    let target = parts.next()?;
    let path = target.split('?').next().unwrap_or(target).to_owned();
    loop {
        let mut header = String::new();
        let read = reader.read_line(&mut header).ok()?;
        if read == 0 || header == "\r\n" || header == "\n" {
            break;
        }
    }
    Some((method, path))
}

fn reason(code: u16) -> &'static str {
    match code {
        200 => "OK",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

fn write_head(
    stream: &mut TcpStream,
    code: u16,
    length: usize,
    retry_after: Option<u64>,
) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {code} {}\r\nContent-Length: {length}\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n",
        reason(code)
    );
    if let Some(seconds) = retry_after {
        head.push_str(&format!("Retry-After: {seconds}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())
}

fn respond(
    stream: &mut TcpStream,
    plan: Plan,
    head_only: bool,
    shared: &Shared,
    path: &str,
) -> std::io::Result<()> {
    match plan {
        Plan::NotFound => write_head(stream, 404, 0, None),
        Plan::Status(code, retry_after) => write_head(stream, code, 0, retry_after),
        Plan::Body(body) => {
            write_head(stream, 200, body.len(), None)?;
            if !head_only {
                stream.write_all(&body)?;
            }
            Ok(())
        }
        Plan::Silent(release) => {
            *shared.lock().stalled.entry(path.to_owned()).or_insert(0) += 1;
            while !release.exists() {
                if shared.stopping.load(Ordering::SeqCst) {
                    return Ok(());
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            write_head(stream, 503, 0, None)
        }
        Plan::NoLength(body) => {
            stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n",
            )?;
            if !head_only {
                stream.write_all(&body)?;
            }
            Ok(())
        }
        Plan::Truncate(body, send) => {
            write_head(stream, 200, body.len(), None)?;
            if !head_only {
                stream.write_all(&body[..send.min(body.len())])?;
            }
            Ok(())
        }
        Plan::Slow(body, chunk, delay_ms) => {
            write_head(stream, 200, body.len(), None)?;
            if head_only {
                return Ok(());
            }
            for piece in body.chunks(chunk) {
                stream.write_all(piece)?;
                stream.flush()?;
                if shared.stopping.load(Ordering::SeqCst) {
                    return Ok(());
                }
                std::thread::sleep(Duration::from_millis(delay_ms));
            }
            Ok(())
        }
        Plan::Stall(body, after_bytes, release) => {
            write_head(stream, 200, body.len(), None)?;
            if head_only {
                return Ok(());
            }
            let split = after_bytes.min(body.len());
            stream.write_all(&body[..split])?;
            stream.flush()?;
            *shared.lock().stalled.entry(path.to_owned()).or_insert(0) += 1;
            // Polling a marker file is the release signal; it also lets the
            // thread notice that the server was dropped.
            while !release.exists() {
                if shared.stopping.load(Ordering::SeqCst) {
                    return Ok(());
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            stream.write_all(&body[split..])
        }
    }
}
