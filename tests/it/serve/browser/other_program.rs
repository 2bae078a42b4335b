//! Another local program for the real-browser tests: a loopback HTTP
//! listener ([`Other`]) that records each request's head, and replaying
//! such a head to serve ([`replay`]).

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::serve::Serve;

/// A loopback HTTP listener standing in for another local program: it
/// records each request's head and answers a small page.
pub(super) struct Other {
    pub(super) port: u16,
    heads: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Other {
    pub(super) fn start() -> Other {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("address").port();
        let heads = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (seen, stopping) = (Arc::clone(&heads), Arc::clone(&stop));
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(stream) = stream else { continue };
                // Its own thread: Chromium opens connections it may never
                // send on (preconnects), which must not hold up the rest.
                let seen = Arc::clone(&seen);
                std::thread::spawn(move || answer_other(stream, &seen));
            }
        });
        Other {
            port,
            heads,
            stop,
            thread: Some(thread),
        }
    }

    pub(super) fn heads(&self) -> Vec<String> {
        self.heads.lock().expect("heads").clone()
    }
}

/// One connection to [`Other`]: its head recorded (if any came), a small
/// page answered.
fn answer_other(mut stream: std::net::TcpStream, seen: &Mutex<Vec<String>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 64 * 1024 {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => break,
        }
    }
    if head.is_empty() {
        return;
    }
    seen.lock()
        .expect("heads")
        .push(String::from_utf8_lossy(&head).into_owned());
    let body = "<!doctype html><title>other</title><p id=other>another program</p>";
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

impl Drop for Other {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = std::net::TcpStream::connect(("127.0.0.1", self.port));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Every header of `head` (but the connection's own), sent to serve on
/// `path`; the status serve answered.
pub(super) fn replay(serve: &Serve, head: &str, path: &str) -> u16 {
    let mut request = serve.raw(reqwest::Method::GET, path);
    for line in head.lines().skip(1) {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let name = name.trim();
        if ["host", "connection", "content-length"].contains(&&*name.to_ascii_lowercase()) {
            continue;
        }
        request = request.header(name, value.trim());
    }
    request.send().expect("replay").status().as_u16()
}
