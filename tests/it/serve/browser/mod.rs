//! `oneworks session serve` in a real headless Chromium (Debian's
//! `chromium` and `chromium-driver`, installed by `.ci/run`), driven over
//! WebDriver (fantoccini): the page opened from the printed `#token=` URL
//! keeps the token out of the address bar and the history; a click on
//! Accept reaches the fake TUI as Enter and a second tab sees the card
//! resolve over the fetch event stream without a reload; Decline likewise;
//! a hostile title renders as text and runs nothing; a listener on another
//! port visited by the same browser gets nothing serve accepts; `--open`'s
//! private file, opened from disk, reaches the page with its token and is
//! gone once the page has loaded; a card not shown whole shows its markers
//! and no Accept button. Screenshots (desktop and phone width) land in
//! `target/serve-screenshots/`.
//!
//! This file holds the tests; beside it, `driver` (chromedriver, the
//! Chromium session and waiting on the page) and `other_program` (the
//! listener on another port).

mod driver;
mod other_program;

use fantoccini::Locator;
use serde_json::json;

use crate::serve::{opened_file, record_opener, Serve};
use crate::session::supervisor::{request, Session};

use driver::{
    assert_history_clean, browser, runtime, screenshots, script, shown_text, wait_for, wait_script,
    Driver,
};
use other_program::{replay, Other};

const HOSTILE: &str = "Running: echo <img src=x onerror=document.title='pwned'>";

#[test]
fn a_click_in_chromium_answers_and_a_second_tab_sees_it_live() {
    let Some(driver) = Driver::start() else {
        crate::support::missing(
            "chromedriver is not installed: the real-browser serve tests cannot run",
        );
        return;
    };
    let session = Session::new(|markers| {
        json!({"requests": [
            request("r1", "Running: pwd"),
            {"id": "r2", "title": HOSTILE, "waitFor": markers.join("next")},
        ]})
    });
    session.start();
    let log = session.env.base().join("serve.log");
    let serve = Serve::start_logged(&session.env, &[], &log);
    let first = serve.wait_card("pending", |card| card["state"] == "pending");
    let id = first["id"].as_str().expect("id").to_owned();
    let profile = tempfile::tempdir().expect("profile");
    let page = format!("{}/", serve.base);
    runtime().block_on(async {
        let browser = browser(&driver, profile.path()).await;
        browser.set_window_size(1100, 800).await.expect("size");
        browser.goto(&serve.url()).await.expect("open the URL");
        let pending = format!("article[data-card='{id}'][data-state='pending']");
        wait_for(&browser, &pending).await;
        // The token left the address bar and the history entry; it is in
        // this origin's sessionStorage, in no cookie.
        assert_eq!(script(&browser, "return location.href;").await, json!(page));
        assert_eq!(
            script(
                &browser,
                "return sessionStorage.getItem('oneworks-serve-token');"
            )
            .await,
            json!(serve.token)
        );
        assert_eq!(script(&browser, "return document.cookie;").await, json!(""));
        assert_history_clean(&browser, &serve.token, &page).await;
        // After the walk the page came back from serve with the stored key.
        wait_for(&browser, &pending).await;
        let shot = browser.screenshot().await.expect("screenshot");
        std::fs::write(screenshots().join("page-desktop.png"), shot).expect("write");
        // The screen on demand: fetched with the key, shown as text.
        browser
            .find(Locator::Css("button.pane[data-session='default']"))
            .await
            .expect("Show the screen")
            .click()
            .await
            .expect("click");
        wait_script(
            &browser,
            "the screen shown",
            "var s = document.getElementById('screen'); return !s.hidden && s.querySelector('pre').textContent.includes('requires approval');",
        )
        .await;
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
        // sessionStorage is per tab: the second one opens the printed URL.
        browser.goto(&serve.url()).await.expect("open");
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
        assert_eq!(shown_text(&browser, hostile).await, HOSTILE);
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

    // Serve's own log (`-vv`) names every request: none carried the token
    // or any query (the fragment never leaves the browser).
    let log = serve.log();
    for seen in [
        "serve: GET / → 200",
        "serve: GET /assets/serve.js → 200",
        "serve: GET /view → 200",
        "serve: GET /events → 200",
        "serve: POST /api/cards/",
    ] {
        assert!(log.contains(seen), "{seen} missing: {log}");
    }
    assert!(!log.contains(&serve.token), "the token in the log: {log}");
    assert!(!log.contains("query withheld"), "a query came: {log}");
    let refused: Vec<&str> = log
        .lines()
        .filter(|line| line.contains("→ 401") && !line.contains("/favicon.ico"))
        .collect();
    assert!(
        refused.is_empty(),
        "the page asked without its key: {refused:?}"
    );
}

#[test]
fn a_listener_on_another_port_gets_nothing_serve_accepts() {
    let Some(driver) = Driver::start() else {
        crate::support::missing(
            "chromedriver is not installed: the real-browser serve tests cannot run",
        );
        return;
    };
    let env = crate::support::TestEnv::new();
    let serve = Serve::start(&env, &[]);
    let other = Other::start();
    let profile = tempfile::tempdir().expect("profile");
    let visits = [
        format!("http://127.0.0.1:{}/same-tab", other.port),
        format!("http://127.0.0.1:{}/new-tab", other.port),
        format!("http://localhost:{}/by-name", other.port),
    ];
    runtime().block_on(async {
        let browser = browser(&driver, profile.path()).await;
        browser.goto(&serve.url()).await.expect("open the URL");
        wait_for(&browser, "body[data-auth='ok'] #sessions .empty").await;
        browser.goto(&visits[0]).await.expect("visit");
        wait_for(&browser, "#other").await;
        let tab = browser.new_window(true).await.expect("new tab").handle;
        browser.switch_to_window(tab).await.expect("switch");
        browser.goto(&visits[1]).await.expect("visit");
        wait_for(&browser, "#other").await;
        browser.goto(&visits[2]).await.expect("visit");
        wait_for(&browser, "#other").await;
        // The other program's page asks serve itself, with whatever the
        // browser attaches on its own: serve refuses it.
        let asked = format!(
            "return fetch('{}/api/cards', {{credentials: 'include'}}).then(r => r.status).catch(() => 'blocked');",
            serve.base
        );
        let status = script(&browser, &asked).await;
        assert!(status == json!(401) || status == json!("blocked"), "{status}");
        browser.close().await.expect("close");
    });
    let heads = other.heads();
    for visit in &visits {
        let path = visit.rsplit_once('/').expect("path").1;
        assert!(
            heads
                .iter()
                .any(|head| head.starts_with(&format!("GET /{path} "))),
            "never visited {visit}: {heads:?}"
        );
    }
    for head in &heads {
        assert!(
            !head.contains(&serve.token),
            "the token went elsewhere: {head}"
        );
        for path in ["/api/cards", "/view", "/events"] {
            assert_eq!(replay(&serve, head, path), 401, "{path} took {head}");
        }
    }
}

#[test]
fn the_open_file_reaches_the_page_in_chromium() {
    let Some(driver) = Driver::start() else {
        crate::support::missing(
            "chromedriver is not installed: the real-browser serve tests cannot run",
        );
        return;
    };
    let env = crate::support::TestEnv::new();
    let record = record_opener(&env);
    let serve = Serve::start(&env, &["--open"]);
    let (file, recorded) = opened_file(&record);
    assert!(!recorded.contains(&serve.token), "{recorded}");
    let profile = tempfile::tempdir().expect("profile");
    let page = format!("{}/", serve.base);
    let opened = url::Url::from_file_path(&file).expect("a file URL");
    runtime().block_on(async {
        let browser = browser(&driver, profile.path()).await;
        // What the desktop's opener does with the path: the browser opens
        // the file, whose refresh goes on to the page.
        browser.goto(opened.as_str()).await.expect("open the file");
        wait_for(&browser, "body[data-auth='ok'] #sessions .empty").await;
        assert_eq!(
            script(
                &browser,
                "return sessionStorage.getItem('oneworks-serve-token');"
            )
            .await,
            json!(serve.token)
        );
        assert_eq!(script(&browser, "return location.href;").await, json!(page));
        assert!(!file.exists(), "the file outlived the page's load");
        assert_history_clean(&browser, &serve.token, &page).await;
        wait_for(&browser, "body[data-auth='ok'] #sessions .empty").await;

        // Hostile and wrong fragments: refused, nothing made, nothing kept.
        for fragment in [
            "token=%3Cimg%20src%3Dx%20onerror%3Ddocument.title%3D'pwned'%3E%0A".to_owned(),
            format!("token={}", "0".repeat(64)),
            "token=%0D%0AX-Evil:%201".to_owned(),
        ] {
            let tab = browser.new_window(true).await.expect("new tab").handle;
            browser.switch_to_window(tab).await.expect("switch");
            browser
                .goto(&format!("{page}#{fragment}"))
                .await
                .expect("open");
            wait_for(&browser, "body[data-auth='refused']").await;
            assert_eq!(script(&browser, "return location.href;").await, json!(page));
            assert!(
                browser.find(Locator::Css("img")).await.is_err(),
                "{fragment}"
            );
            assert_ne!(browser.title().await.expect("title"), "pwned");
            assert_eq!(
                script(&browser, "return sessionStorage.length;").await,
                json!(0),
                "{fragment}"
            );
        }
        browser.close().await.expect("close");
    });
}

/// A card whose command is padded, spelled in part in tag
/// characters and longer than card text keeps whole shows its markers in
/// Chromium, is not complete, has no Accept button and says why; Decline
/// still answers it.
#[test]
fn an_incomplete_card_in_chromium_shows_its_markers_and_no_accept() {
    let Some(driver) = Driver::start() else {
        crate::support::missing(
            "chromedriver is not installed: the real-browser serve tests cannot run",
        );
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
        let text = shown_text(&browser, &format!("{pending} .command")).await;
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
