//! Chromium over WebDriver for the real-browser tests: chromedriver on a
//! free port ([`Driver`]), a headless Chromium session with a private
//! profile, and waiting on and reading the page (a selector matched, a
//! script true, the history free of the token), with screenshots.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};

use crate::session::supervisor::DEADLINE;
use crate::support::wait::{wait_for_async, wait_until};

/// chromedriver on a free port, its log in a file of its own; killed (and
/// the log removed) on drop.
pub(super) struct Driver {
    child: Child,
    url: String,
    log: tempfile::NamedTempFile,
}

impl Driver {
    /// `None` (with a loud message) when chromedriver is not installed.
    pub(super) fn start() -> Option<Driver> {
        let program = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"]
            .into_iter()
            .map(PathBuf::from)
            .find(|path| path.exists())?;
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let log = tempfile::Builder::new()
            .prefix("chromedriver-")
            .suffix(".log")
            .tempfile()
            .expect("chromedriver's log file");
        let child = Command::new(program)
            .arg(format!("--port={port}"))
            .arg(format!("--log-path={}", log.path().display()))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        wait_until("chromedriver listens", DEADLINE, || {
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        Some(Driver {
            child,
            url: format!("http://127.0.0.1:{port}"),
            log,
        })
    }

    /// The last lines of chromedriver's log (what it saw of Chromium).
    fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(self.log.path()).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(super) async fn browser(driver: &Driver, profile: &std::path::Path) -> Client {
    let mut capabilities = serde_json::Map::new();
    let args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        &format!("--user-data-dir={}", profile.display()),
    ];
    capabilities.insert(
        "goog:chromeOptions".to_owned(),
        json!({"args": args, "binary": "/usr/bin/chromium"}),
    );
    // Chromium is the test's instrument, not its subject: a start that
    // exits at once (seen once in a loaded CI run, "Chrome instance
    // exited") is tried a second time, each failure printed with
    // chromedriver's log.
    let mut failures = Vec::new();
    for _ in 0..2 {
        match ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(capabilities.clone())
            .connect(&driver.url)
            .await
        {
            Ok(client) => return client,
            Err(error) => {
                let failure = format!("{error}\nchromedriver's log:\n{}", driver.log_tail());
                eprintln!("a Chromium session did not start: {failure}");
                failures.push(failure);
            }
        }
    }
    panic!(
        "no Chromium session in two tries:\n{}",
        failures.join("\n---\n")
    );
}

/// Waits until `selector` matches in the current tab; returns when it does.
pub(super) async fn wait_for(browser: &Client, selector: &str) {
    wait_for_async(&format!("{selector} matches"), DEADLINE, || async move {
        if browser.find(Locator::Css(selector)).await.is_ok() {
            return Ok(());
        }
        Err(browser.source().await.unwrap_or_default())
    })
    .await;
}

/// The text of the element `selector` matches, once it is displayed. The
/// page redraws a card when an update arrives: an element found just
/// before is then stale, and the look is taken again on the new one.
pub(super) async fn shown_text(browser: &Client, selector: &str) -> String {
    let what = format!("{selector} shows its text");
    wait_for_async(&what, DEADLINE, || async move {
        match browser.find(Locator::Css(selector)).await {
            Ok(element) => match (element.is_displayed().await, element.text().await) {
                (Ok(true), Ok(text)) => Ok(text),
                (displayed, text) => Err(format!("displayed {displayed:?}, text {text:?}")),
            },
            Err(error) => Err(error.to_string()),
        }
    })
    .await
}

/// The value of `script` run in the current tab.
pub(super) async fn script(browser: &Client, script: &str) -> Value {
    browser
        .execute(script, Vec::new())
        .await
        .unwrap_or_else(|error| panic!("{script}: {error}"))
}

/// Waits until `script` returns `true` in the current tab.
pub(super) async fn wait_script(browser: &Client, what: &str, test: &str) {
    wait_for_async(what, DEADLINE, || async move {
        if script(browser, test).await == json!(true) {
            return Ok(());
        }
        Err(browser.source().await.unwrap_or_default())
    })
    .await;
}

/// The tab's address bar and every entry of its history hold no `secret`:
/// walks back to the first entry and forward again (the page reloads from
/// serve: `no-store`), reading `location.href` at each.
pub(super) async fn assert_history_clean(browser: &Client, secret: &str, page: &str) {
    let length = script(browser, "return history.length;").await;
    let length = length.as_u64().expect("history.length");
    let mut seen = Vec::new();
    for step in 0..length {
        if step > 0 {
            browser.back().await.expect("back");
        }
        seen.push(script(browser, "return location.href;").await);
    }
    for _ in 1..length {
        browser.forward().await.expect("forward");
        seen.push(script(browser, "return location.href;").await);
    }
    for href in &seen {
        let href = href.as_str().expect("href");
        assert!(!href.contains(secret), "a history entry holds it: {seen:?}");
    }
    assert_eq!(seen.last(), Some(&json!(page)), "{seen:?}");
}

pub(super) fn screenshots() -> PathBuf {
    let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/serve-screenshots");
    std::fs::create_dir_all(&folder).expect("screenshot folder");
    folder
}

pub(super) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}
