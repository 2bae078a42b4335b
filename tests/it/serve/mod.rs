//! `oneworks session serve` through the real binary: the
//! [`Serve`] harness (also used by `output::card_text` and `browser`), the
//! security headers, and below it `access` (the token only as a bearer
//! header, `--open`'s private file, the Host and Origin checks) and
//! `cards` (real supervised sessions answered through the JSON API and an
//! answer link).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::Duration;

use reqwest::blocking::{Client, Response};
use reqwest::header;
use serde_json::{json, Value};

use crate::session::supervisor::{request, Session, DEADLINE};
use crate::session::webhook::{with_webhook, Hook};
use crate::support::wait::{wait_card, wait_for, wait_until};
use crate::support::TestEnv;

mod access;
mod browser;
mod cards;
mod flood;
mod links;
mod recovery;

/// A running `session serve --json`; killed on drop.
pub struct Serve {
    child: Child,
    /// `http://127.0.0.1:PORT`
    pub base: String,
    port: u16,
    pub token: String,
    client: Client,
    /// Serve's stderr (`-vv` when started with [`Serve::start_logged`]).
    log: Option<PathBuf>,
}

impl Serve {
    pub fn start(env: &TestEnv, extra: &[&str]) -> Serve {
        Serve::spawn(env, extra, None)
    }

    /// With `-vv`, its stderr kept in `log`.
    pub fn start_logged(env: &TestEnv, extra: &[&str], log: &Path) -> Serve {
        let mut args = vec!["-vv"];
        args.extend_from_slice(extra);
        Serve::spawn(env, &args, Some(log.to_path_buf()))
    }

    fn spawn(env: &TestEnv, extra: &[&str], log: Option<PathBuf>) -> Serve {
        let serve = env
            .oneworks()
            .args(["session", "serve", "--json"])
            .args(extra)
            .stdin_null();
        let mut child = match &log {
            Some(path) => serve.stderr_to(path),
            None => serve.stderr_null(),
        }
        .spawn();
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("read the URL");
        let printed: Value = serde_json::from_str(&line).expect("one JSON line");
        let url = url::Url::parse(printed["url"].as_str().expect("url")).expect("a URL");
        assert_eq!(url.host_str(), Some("127.0.0.1"), "{url}");
        assert_eq!(url.path(), "/", "{url}");
        assert_eq!(
            url.query(),
            None,
            "a query would reach request lines: {url}"
        );
        let token = url
            .fragment()
            .and_then(|fragment| fragment.strip_prefix("token="))
            .map(str::to_owned)
            .expect("the URL's fragment carries the token");
        assert_eq!(token.len(), 64, "{url}");
        let port = url.port().expect("port");
        Serve {
            child,
            base: format!("http://127.0.0.1:{port}"),
            port,
            token,
            client: Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("client"),
            log,
        }
    }

    /// The URL as printed: the token in its fragment.
    pub fn url(&self) -> String {
        format!("{}/#token={}", self.base, self.token)
    }

    /// What serve wrote on stderr so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.log.as_ref().expect("started logged")).expect("log")
    }

    pub fn get(&self, path: &str) -> Response {
        self.client
            .get(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .send()
            .expect("GET")
    }

    pub fn post(&self, path: &str, body: Value) -> Response {
        self.client
            .post(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .header(header::ORIGIN, &self.base)
            .header(header::CONTENT_TYPE, "application/json")
            .body(body.to_string())
            .send()
            .expect("POST")
    }

    /// A request exactly as given: no credential added.
    pub fn raw(&self, method: reqwest::Method, path: &str) -> reqwest::blocking::RequestBuilder {
        self.client.request(method, format!("{}{path}", self.base))
    }

    fn cards(&self) -> Vec<Value> {
        let response = self.get("/api/cards");
        assert_eq!(response.status(), 200);
        match json_of(response) {
            Value::Array(cards) => cards,
            other => panic!("not an array: {other}"),
        }
    }

    #[track_caller]
    pub fn wait_card(&self, what: &str, test: impl Fn(&Value) -> bool) -> Value {
        let pace = Duration::from_millis(10);
        let what = format!("is {what}");
        wait_card(pace, &what, DEADLINE, || self.cards(), test, String::new)
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A stand-in `xdg-open` first on `env`'s PATH: it records its argv and
/// its environment in the returned file, and exits.
pub fn record_opener(env: &TestEnv) -> PathBuf {
    let record = env.base().join("xdg-open.record");
    let script = format!(
        "#!/bin/sh\n{{ printf 'argv: %s\\n' \"$0\" \"$@\"; env; }} > '{0}.tmp' && mv '{0}.tmp' '{0}'\n",
        record.display()
    );
    let opener = env.bin.join("xdg-open");
    std::fs::write(&opener, script).expect("write xdg-open");
    crate::support::set_mode(&opener, 0o755);
    record
}

/// The arguments the stand-in opener was given (its `$0` left out), once
/// it ran, and all it recorded.
pub fn opener_args(record: &Path) -> (Vec<String>, String) {
    wait_until("xdg-open was run", DEADLINE, || record.exists());
    let text = std::fs::read_to_string(record).expect("record");
    let args = text
        .lines()
        .filter_map(|line| line.strip_prefix("argv: "))
        .skip(1)
        .map(str::to_owned)
        .collect();
    (args, text)
}

/// The one thing `--open` hands its opener: the path of its file.
pub fn opened_file(record: &Path) -> (PathBuf, String) {
    let (args, text) = opener_args(record);
    match args.as_slice() {
        [path] => (PathBuf::from(path), text),
        _ => panic!("the opener was not given one path: {text}"),
    }
}

/// `secret` with its first character changed: wrong whatever it holds
/// (overwriting the first two with `00` was the secret itself when it
/// began with them, one run in 256).
fn one_character_off(secret: &str) -> String {
    let mut chars = secret.chars();
    let first = chars.next().expect("a secret of one character or more");
    let other = if first == '0' { '1' } else { '0' };
    let wrong: String = std::iter::once(other).chain(chars).collect();
    assert_ne!(wrong, secret);
    wrong
}

fn json_of(response: Response) -> Value {
    let text = response.text().expect("body");
    serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"))
}

fn env_with_project() -> TestEnv {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.project.join(".oneworks")).expect("project");
    env
}

const SECURITY_HEADERS: [(&str, &str); 4] = [
    (
        "content-security-policy",
        "default-src 'self'; frame-ancestors 'none'",
    ),
    ("cache-control", "no-store"),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),
];

#[track_caller]
fn assert_no_cookie_no_redirect(response: &Response, what: &str) {
    assert!(
        !response.status().is_redirection(),
        "{what}: {}",
        response.status()
    );
    assert!(
        response.headers().get(header::LOCATION).is_none(),
        "{what}: a Location"
    );
    assert!(
        response.headers().get(header::SET_COOKIE).is_none(),
        "{what}: a cookie"
    );
}
