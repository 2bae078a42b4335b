//! `session serve` under floods, through the real
//! binary with `ulimit -n 256`: idle sockets that send nothing, slow-loris
//! heads dribbled a byte at a time, and POSTs that announce a large body
//! (sending nearly all of it) and hold the rest. Each leaves serve answering an authenticated request
//! within seconds, closes the flood's connections by itself, and keeps its
//! peak RSS (VmHWM) under 64 MiB. Loopback only, bounded in count and time.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::wait::wait_until;
use crate::support::TestEnv;

/// Floods run one at a time: each holds hundreds of sockets.
static SERIAL: Mutex<()> = Mutex::new(());

/// The descriptor limit serve runs under.
const DESCRIPTORS: u32 = 256;
/// The peak RSS serve must stay under.
const MOST_RSS_KIB: u64 = 64 * 1024;
/// How long an authenticated request may take during or after a flood.
const ANSWERED_WITHIN: Duration = Duration::from_secs(5);

/// The token of a printed serve URL: in its fragment (`#token=`) or, from
/// older builds, its query.
pub fn token_of(url: &url::Url) -> String {
    let pairs = |text: &str| {
        url::form_urlencoded::parse(text.as_bytes())
            .find(|(name, _)| name == "token")
            .map(|(_, value)| value.into_owned())
    };
    url.fragment()
        .and_then(pairs)
        .or_else(|| url.query().and_then(pairs))
        .expect("the URL carries the token")
}

/// A `session serve --json` under a descriptor limit; killed on drop.
pub struct LimitedServe {
    child: Child,
    pub port: u16,
    pub token: String,
}

impl LimitedServe {
    /// `oneworks session serve --json EXTRA…` under `ulimit -n descriptors`.
    pub fn start(env: &TestEnv, extra: &[&str], descriptors: u32) -> LimitedServe {
        let mut child = env
            .program("sh")
            .arg("-c")
            .arg(format!("ulimit -n {descriptors} && exec \"$0\" \"$@\""))
            .args([crate::support::ONEWORKS, "session", "serve", "--json"])
            .args(extra)
            .stdin_null()
            .stderr_null()
            .spawn();
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("read the URL");
        let printed: Value = serde_json::from_str(&line).expect("one JSON line");
        let url = url::Url::parse(printed["url"].as_str().expect("url")).expect("a URL");
        let limits =
            std::fs::read_to_string(format!("/proc/{}/limits", child.id())).expect("limits");
        assert!(
            limits.lines().any(|line| line.starts_with("Max open files")
                && line.contains(&format!(" {descriptors} "))),
            "{limits}"
        );
        LimitedServe {
            port: url.port().expect("port"),
            token: token_of(&url),
            child,
        }
    }

    pub fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Ctrl-C: serve stops by itself (exit 0).
    pub fn interrupt(&mut self) {
        let status = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
        let mut code = None;
        wait_until("serve stopped", Duration::from_secs(30), || {
            code = self
                .child
                .try_wait()
                .expect("wait")
                .map(|status| status.code());
            code.is_some()
        });
        assert_eq!(code, Some(Some(0)));
    }

    /// Serve's peak resident set (VmHWM), KiB.
    pub fn peak_rss_kib(&self) -> u64 {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).expect("status");
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmHWM")
    }

    /// Serve's open descriptors.
    pub fn descriptors(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.child.id()))
            .map(|entries| entries.count())
            .unwrap_or(0)
    }

    /// An authenticated `GET /api/sessions` on a fresh connection: how
    /// long until it was answered 200.
    #[track_caller]
    pub fn answered_in(&self) -> Duration {
        let started = Instant::now();
        let response = reqwest::blocking::Client::builder()
            .timeout(ANSWERED_WITHIN)
            .pool_max_idle_per_host(0)
            .build()
            .expect("client")
            .get(format!("http://{}/api/sessions", self.address()))
            .bearer_auth(&self.token)
            .send()
            .unwrap_or_else(|error| panic!("serve did not answer: {error}"));
        assert_eq!(response.status(), 200);
        started.elapsed()
    }
}

impl Drop for LimitedServe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Whether serve closed `socket` (end of stream or reset; a socket still
/// open has nothing to read).
fn closed_by_peer(socket: &mut TcpStream) -> bool {
    socket.set_nonblocking(true).expect("nonblocking");
    let mut byte = [0u8; 512];
    loop {
        match socket.read(&mut byte) {
            Ok(0) => return true,
            // A response (413, 408): read on to its end.
            Ok(_) => continue,
            Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => return false,
            Err(_) => return true,
        }
    }
}

#[track_caller]
fn assert_all_closed(sockets: &mut [TcpStream], within: Duration) {
    wait_until("serve closed every flood connection", within, || {
        sockets.iter_mut().all(closed_by_peer)
    });
}

#[test]
fn an_idle_flood_leaves_serve_answering_and_is_closed_by_the_head_timeout() {
    let _serial = serial();
    let env = TestEnv::new();
    let serve = LimitedServe::start(&env, &[], DESCRIPTORS);
    let before = serve.answered_in();
    // More idle sockets than serve has descriptors: none sends a byte.
    let mut flood: Vec<TcpStream> = (0..300)
        .map(|_| TcpStream::connect(serve.address()).expect("connect"))
        .collect();
    let during = serve.answered_in();
    assert!(during < ANSWERED_WITHIN, "{during:?}");
    assert!(
        serve.descriptors() < DESCRIPTORS as usize,
        "serve at its descriptor limit"
    );
    // The head timeout (10 s) closes the ones not shed already.
    let flood_started = Instant::now();
    assert_all_closed(&mut flood, Duration::from_secs(20));
    let closed_after = flood_started.elapsed();
    assert!(closed_after >= Duration::from_secs(5), "{closed_after:?}");
    let after = serve.answered_in();
    let peak = serve.peak_rss_kib();
    assert!(peak < MOST_RSS_KIB, "peak RSS {peak} KiB");
    eprintln!(
        "idle flood: answered in {before:?} before, {during:?} during, {after:?} after; all closed {closed_after:?}; peak RSS {peak} KiB"
    );
}

#[test]
fn a_slow_loris_flood_leaves_serve_answering_and_its_heads_time_out() {
    let _serial = serial();
    let env = TestEnv::new();
    let serve = LimitedServe::start(&env, &[], DESCRIPTORS);
    let head = format!(
        "GET /api/sessions HTTP/1.1\r\nHost: {}\r\nX-Padding: {}",
        serve.address(),
        "a".repeat(64)
    );
    let head = head.as_bytes();
    let mut flood: Vec<TcpStream> = (0..500)
        .map(|_| {
            let mut socket = TcpStream::connect(serve.address()).expect("connect");
            socket.write_all(&head[..1]).expect("first byte");
            socket
        })
        .collect();
    let mut sent = 1;
    let mut worst = Duration::ZERO;
    // One more byte on every socket each half second, 24 times (12 s): no
    // head ever completes. The pace is the attack's, not a wait.
    for _ in 0..24 {
        for socket in &mut flood {
            let _ = socket.write_all(&head[sent..=sent]);
        }
        sent = (sent + 1).min(head.len() - 1);
        worst = worst.max(serve.answered_in());
        std::thread::sleep(Duration::from_millis(500));
    }
    assert!(worst < ANSWERED_WITHIN, "{worst:?}");
    assert_all_closed(&mut flood, Duration::from_secs(10));
    let after = serve.answered_in();
    let peak = serve.peak_rss_kib();
    assert!(peak < MOST_RSS_KIB, "peak RSS {peak} KiB");
    eprintln!(
        "slow-loris flood: worst answer {worst:?} during, {after:?} after; peak RSS {peak} KiB"
    );
}

#[test]
fn a_held_body_flood_reads_no_body_before_the_capability_and_stays_small() {
    let _serial = serial();
    let env = TestEnv::new();
    let serve = LimitedServe::start(
        &env,
        &["--public-url", "https://phone.example/ow"],
        DESCRIPTORS,
    );
    let announced = 1_900_000;
    let well_formed = format!("/a/kiro_default_0123456789abcdef/{}", "ab".repeat(32));
    // Nearly all of it: a serve that read bodies before checking would
    // hold 100 × 1.8 MB.
    let chunk = vec![b'a'; 1_800_000];
    let mut statuses = std::collections::BTreeMap::<String, usize>::new();
    let mut flood = Vec::new();
    for index in 0..100 {
        let mut socket = TcpStream::connect(serve.address()).expect("connect");
        socket
            .set_write_timeout(Some(Duration::from_secs(2)))
            .expect("timeout");
        let path = if index % 2 == 0 {
            "/a/x/y"
        } else {
            &well_formed
        };
        let framing = if index % 4 == 3 {
            // Chunked: no length to check, bounded while read.
            "Transfer-Encoding: chunked\r\n".to_owned()
        } else {
            format!("Content-Length: {announced}\r\n")
        };
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/x-www-form-urlencoded\r\n{framing}\r\n",
            serve.address()
        );
        socket.write_all(head.as_bytes()).expect("head");
        if framing.starts_with("Transfer") {
            let _ = socket.write_all(format!("{:x}\r\n", announced).as_bytes());
        }
        // Some of the body, then hold the rest.
        let _ = socket.write_all(&chunk);
        flood.push(socket);
    }
    let during = serve.answered_in();
    assert!(during < ANSWERED_WITHIN, "{during:?}");
    // Each got a refusal, none a body read to its end.
    for socket in &mut flood {
        socket
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        let mut status = [0u8; 12];
        let status = match socket.read_exact(&mut status) {
            Ok(()) => String::from_utf8_lossy(&status[9..12]).into_owned(),
            Err(error) => format!("{:?}", error.kind()),
        };
        *statuses.entry(status).or_default() += 1;
    }
    // The 75 with a Content-Length over 4 KiB: 413 before anything else.
    // The 25 chunked ones (a well-formed capability, unknown): 404 once
    // checked, or 503 beyond the 8 checked at once — which of the two
    // depends on how many are in flight, both are refusals without a body.
    for status in statuses.keys() {
        assert!(
            ["404", "413", "503"].contains(&status.as_str()),
            "{statuses:?}"
        );
    }
    assert_eq!(statuses.get("413"), Some(&75), "{statuses:?}");
    assert_eq!(
        statuses.get("404").unwrap_or(&0) + statuses.get("503").unwrap_or(&0),
        25,
        "{statuses:?}"
    );
    assert_all_closed(&mut flood, Duration::from_secs(15));
    let after = serve.answered_in();
    let peak = serve.peak_rss_kib();
    assert!(peak < MOST_RSS_KIB, "peak RSS {peak} KiB");
    eprintln!(
        "held-body flood: {statuses:?}; answered in {during:?} during, {after:?} after; peak RSS {peak} KiB"
    );
}
