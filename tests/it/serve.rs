//! `oneworks session serve` (SPEC §8.5) through the real binary: the token
//! in the URL's fragment and only as a bearer header (no cookie, no
//! redirect), `--open`'s single-use code, the Host and Origin checks, the
//! security headers, and real supervised sessions (the fake TUI in tmux)
//! answered through the JSON API and an answer link.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

use reqwest::blocking::{Client, Response};
use reqwest::header;
use serde_json::{json, Value};

use crate::supervisor::{request, Session, DEADLINE};
use crate::supervisor_webhook::{with_webhook, Hook};
use crate::support::wait::{wait_for, wait_until};
use crate::support::TestEnv;

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
        let mut args = vec!["session", "serve", "--json"];
        args.extend_from_slice(extra);
        let stderr = match &log {
            Some(path) => Stdio::from(std::fs::File::create(path).expect("log file")),
            None => Stdio::null(),
        };
        let mut child = env
            .cmd(&args)
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("spawn serve");
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

    /// `POST /api/exchange {"code"}` from the page's origin.
    pub fn exchange(&self, code: &str) -> Response {
        self.client
            .post(format!("{}/api/exchange", self.base))
            .header(header::ORIGIN, &self.base)
            .header(header::CONTENT_TYPE, "application/json")
            .body(json!({"code": code}).to_string())
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
        wait_for(&format!("a card is {what}"), DEADLINE, || {
            let cards = self.cards();
            let card = cards.iter().find(|card| test(card)).cloned();
            card.ok_or_else(|| format!("{cards:?}"))
        })
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

/// The URL the stand-in opener was given, once it ran.
pub fn opened_url(record: &Path) -> (String, String) {
    wait_until("xdg-open was run", DEADLINE, || record.exists());
    let text = std::fs::read_to_string(record).expect("record");
    let url = text
        .lines()
        .filter_map(|line| line.strip_prefix("argv: "))
        .find(|arg| arg.starts_with("http"))
        .unwrap_or_else(|| panic!("no URL in the opener's argv: {text}"))
        .to_owned();
    (url, text)
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

#[test]
fn only_a_bearer_header_opens_the_api_never_a_cookie_or_a_query() {
    let env = env_with_project();
    let serve = Serve::start(&env, &[]);
    let cookie = format!("oneworks_serve_{}={}", serve.port, serve.token);
    let attempts: Vec<(&str, reqwest::blocking::RequestBuilder)> = vec![
        ("nothing", serve.raw(reqwest::Method::GET, "/api/cards")),
        (
            "a query",
            serve.raw(
                reqwest::Method::GET,
                &format!("/api/cards?token={}", serve.token),
            ),
        ),
        (
            "the old cookie",
            serve
                .raw(reqwest::Method::GET, "/api/cards")
                .header(header::COOKIE, &cookie),
        ),
        (
            "a wrong bearer",
            serve
                .raw(reqwest::Method::GET, "/api/cards")
                .bearer_auth(format!("00{}", &serve.token[2..])),
        ),
        (
            "the token as Basic",
            serve
                .raw(reqwest::Method::GET, "/api/cards")
                .header(header::AUTHORIZATION, format!("Basic {}", serve.token)),
        ),
        (
            "the view with a query",
            serve.raw(
                reqwest::Method::GET,
                &format!("/view?token={}", serve.token),
            ),
        ),
        ("the events", serve.raw(reqwest::Method::GET, "/events")),
    ];
    for (what, attempt) in attempts {
        let response = attempt.send().expect("GET");
        assert_eq!(response.status(), 401, "{what}");
        assert_no_cookie_no_redirect(&response, what);
        for (name, value) in SECURITY_HEADERS {
            assert_eq!(response.headers()[name], value, "{what}: {name}");
        }
        assert_eq!(response.text().expect("body"), "Unauthorized", "{what}");
    }

    // The shell is open to all, with or without the old `?token=`: no data,
    // no cookie, no redirect.
    for path in ["/", &format!("/?token={}", serve.token)] {
        let shell = serve.raw(reqwest::Method::GET, path).send().expect("GET");
        assert_eq!(shell.status(), 200, "{path}");
        assert_no_cookie_no_redirect(&shell, path);
        for (name, value) in SECURITY_HEADERS {
            assert_eq!(shell.headers()[name], value, "{path}: {name}");
        }
        let html = shell.text().expect("body");
        assert!(html.contains("<script src=\"/assets/serve.js\""), "{html}");
        assert!(html.contains("<noscript>"), "{html}");
        assert!(html.contains("needs JavaScript"), "{html}");
        assert!(!html.contains("<script>"), "inline script: {html}");
        assert!(!html.contains("style="), "inline style: {html}");
        assert!(!html.contains("No session in this project"), "data: {html}");
        assert!(!html.contains(&serve.token), "{html}");
    }
    for (path, kind) in [
        ("/assets/serve.js", "text/javascript"),
        ("/assets/serve.css", "text/css"),
    ] {
        let asset = serve.raw(reqwest::Method::GET, path).send().expect("GET");
        assert_eq!(asset.status(), 200, "{path}");
        assert_eq!(asset.headers()[header::CONTENT_TYPE], kind, "{path}");
    }

    let view = serve.get("/view");
    assert_eq!(view.status(), 200);
    assert_no_cookie_no_redirect(&view, "the view");
    assert!(view
        .text()
        .expect("body")
        .contains("No session in this project"));
    let sessions = serve.get("/api/sessions");
    assert_eq!(sessions.status(), 200);
    assert_no_cookie_no_redirect(&sessions, "the API");
    assert_eq!(json_of(sessions), json!([]));
    // The page's old form route is gone: the page answers through the API.
    let form = serve
        .raw(reqwest::Method::POST, "/cards/x/answer")
        .bearer_auth(&serve.token)
        .header(header::ORIGIN, &serve.base)
        .form(&[("action", "accept")])
        .send()
        .expect("POST");
    assert_eq!(form.status(), 404);
}

#[test]
fn no_path_redirects_to_another_host() {
    let env = env_with_project();
    let serve = Serve::start(&env, &[]);
    let token = &serve.token;
    for path in [
        format!("//evil.example/x?token={token}"),
        "//evil.example/x".to_owned(),
        format!("///evil.example/x?token={token}"),
        format!("/%2F%2Fevil.example/x?token={token}"),
        format!("/\\evil.example/x?token={token}"),
        format!("/api/cards?token={token}"),
        format!("/?token={token}&next=//evil.example"),
    ] {
        for bearer in [false, true] {
            let mut get = serve.raw(reqwest::Method::GET, &path);
            if bearer {
                get = get.bearer_auth(token);
            }
            let response = get.send().expect("GET");
            assert_no_cookie_no_redirect(&response, &path);
            let status = response.status().as_u16();
            assert!([200, 401, 404].contains(&status), "{path}: {status}");
            let body = response.text().expect("body");
            assert!(!body.contains("evil.example"), "{path}: {body}");
        }
    }
}

#[test]
fn open_hands_the_opener_a_single_use_code_never_the_token() {
    let env = env_with_project();
    let record = record_opener(&env);
    let serve = Serve::start(&env, &["--open"]);
    let (opened, recorded) = opened_url(&record);
    assert!(
        !recorded.contains(&serve.token),
        "the token reached the opener's argv or environment: {recorded}"
    );
    assert!(
        recorded.contains("PATH="),
        "the environment was recorded: {recorded}"
    );
    let prefix = format!("{}/#code=", serve.base);
    let code = opened
        .strip_prefix(&prefix)
        .expect("URL/#code=…")
        .to_owned();
    assert_eq!(code.len(), 64, "{opened}");
    assert!(code.chars().all(|c| c.is_ascii_hexdigit()), "{opened}");
    // No process on the machine has the token in its argv.
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        if let Ok(argv) = std::fs::read(entry.path().join("cmdline")) {
            let argv = String::from_utf8_lossy(&argv);
            assert!(!argv.contains(&serve.token), "argv {argv}");
        }
    }

    // The code is worth nothing but one exchange: not as a bearer, not
    // from another origin (which does not spend it), not twice.
    let as_bearer = serve
        .raw(reqwest::Method::GET, "/api/cards")
        .bearer_auth(&code)
        .send()
        .expect("GET");
    assert_eq!(as_bearer.status(), 401);
    for origin in [Some("http://evil.example"), None] {
        let mut post = serve
            .raw(reqwest::Method::POST, "/api/exchange")
            .header(header::CONTENT_TYPE, "application/json")
            .body(json!({"code": code}).to_string());
        if let Some(origin) = origin {
            post = post.header(header::ORIGIN, origin);
        }
        assert_eq!(post.send().expect("POST").status(), 403, "{origin:?}");
    }
    let wrong = serve.exchange(&format!("00{}", &code[2..]));
    assert_eq!(wrong.status(), 401);
    let traded = serve.exchange(&code);
    assert_eq!(traded.status(), 200);
    assert_no_cookie_no_redirect(&traded, "the exchange");
    assert_eq!(json_of(traded), json!({"token": serve.token}));
    let again = serve.exchange(&code);
    assert_eq!(again.status(), 401, "a code traded twice");
    assert!(again.headers().get(header::SET_COOKIE).is_none());
    let huge = serve.exchange(&"a".repeat(64 * 1024));
    assert_eq!(huge.status(), 413);
}

#[test]
fn a_foreign_host_or_origin_is_refused() {
    let env = env_with_project();
    let serve = Serve::start(&env, &[]);
    for host in ["evil.example", "evil.example:80", "localhost:1"] {
        let response = serve
            .client
            .get(format!("{}/", serve.base))
            .header(header::HOST, host)
            .bearer_auth(&serve.token)
            .send()
            .expect("GET");
        assert_eq!(response.status(), 421, "{host}");
    }
    let localhost = serve
        .client
        .get(format!("{}/", serve.base))
        .header(header::HOST, format!("localhost:{}", serve.port))
        .bearer_auth(&serve.token)
        .send()
        .expect("GET");
    assert_eq!(localhost.status(), 200);

    let path = format!("{}/api/cards/no-such-card/answer", serve.base);
    let body = json!({"action": "accept"});
    for origin in [Some("http://evil.example"), Some("null"), None] {
        let mut post = serve
            .client
            .post(&path)
            .bearer_auth(&serve.token)
            .header(header::CONTENT_TYPE, "application/json")
            .body(body.to_string());
        if let Some(origin) = origin {
            post = post.header(header::ORIGIN, origin);
        }
        assert_eq!(post.send().expect("POST").status(), 403, "{origin:?}");
    }
    // The page's own origin passes the check (and finds no such card).
    assert_eq!(
        serve.post("/api/cards/no-such-card/answer", body).status(),
        404
    );
}

#[test]
fn a_card_is_shown_escaped_to_the_bearer_only_and_accepted_through_the_api() {
    let session = Session::new(|markers| {
        json!({"requests": [
            request("r1", "Running: pwd"),
            {"id": "r2", "title": "Running: echo <img src=x onerror=alert(1)>", "waitFor": markers.join("next")},
        ]})
    });
    session.start();
    let serve = Serve::start(&session.env, &[]);
    let card = serve.wait_card("pending", |card| card["state"] == "pending");
    assert_eq!(card["title"], "Running: pwd");
    assert_eq!(card["session"], "default");
    // The shell holds no data, whoever asks.
    let shell = serve.get("/").text().expect("shell");
    assert!(!shell.contains("Running: pwd"), "{shell}");
    assert!(!shell.contains("default"), "{shell}");
    let html = serve.get("/view").text().expect("view");
    assert!(html.contains("Running: pwd"), "{html}");
    let id = card["id"].as_str().expect("id");
    assert!(
        html.contains(&format!("action=\"/cards/{id}/answer\"")),
        "{html}"
    );
    assert!(
        !html.to_lowercase().contains("trust"),
        "trust offered: {html}"
    );
    assert!(
        html.contains("data-session=\"default\""),
        "no screen button: {html}"
    );
    let screen = json_of(serve.get("/api/sessions/default/pane"));
    let text = screen["text"].as_str().expect("the screen's text");
    assert!(text.contains("requires approval"), "{screen}");
    let nobody = serve.get("/api/sessions/nobody/pane");
    assert_eq!(nobody.status(), 200);
    assert_eq!(json_of(nobody)["text"], Value::Null);
    assert_eq!(
        serve
            .raw(reqwest::Method::GET, "/api/sessions/default/pane")
            .send()
            .expect("GET")
            .status(),
        401
    );

    // What the page's script sends for the Accept button.
    let response = serve.post(
        &format!("/api/cards/{id}/answer"),
        json!({"action": "accept"}),
    );
    assert_eq!(response.status(), 200);
    session.assert_keys(&["Enter"]);
    let accepted = serve.wait_card("accepted", |card| {
        card["id"] == id && card["state"] == "accepted"
    });
    assert_eq!(accepted["by"], "page");

    session.touch("next");
    let hostile = serve.wait_card("hostile", |card| card["state"] == "pending");
    assert!(hostile["title"].as_str().expect("title").contains("<img"));
    let html = serve.get("/view").text().expect("view");
    assert!(!html.contains("<img"), "unescaped title: {html}");
    assert!(
        html.contains("Running: echo &lt;img src=x onerror=alert(1)&gt;"),
        "{html}"
    );
    session.stop_and_check();
}

#[test]
fn decline_through_the_api_then_a_second_answer_is_refused() {
    let session = Session::new(|_| {
        let mut first = request("r1", "Running: ls -la");
        first["toolCall"] = json!({
            "kind": "execute",
            "rawInput": {"command": "ls -la", "cwd": "/srv/app\u{202e}"},
            "locations": [{"path": "/srv/app/<b>x</b>"}],
        });
        json!({"requests": [first]})
    });
    session.start();
    let serve = Serve::start(&session.env, &[]);
    let card = serve.wait_card("pending", |card| card["state"] == "pending");
    assert_eq!(card["kind"], "execute");
    assert_eq!(card["command"], "ls -la");
    assert_eq!(card["cwd"], "/srv/app", "the bidi override stays out");
    assert_eq!(card["paths"], json!(["/srv/app/<b>x</b>"]));
    let html = serve.get("/view").text().expect("view");
    for shown in [
        "<dd class=\"kind\">execute</dd>",
        "<code class=\"command\">ls -la</code>",
        "<code class=\"cwd\">/srv/app</code>",
        "<code class=\"path\">/srv/app/&lt;b&gt;x&lt;/b&gt;</code>",
    ] {
        assert!(html.contains(shown), "{shown} missing: {html}");
    }
    let id = card["id"].as_str().expect("id");
    let response = serve.post(
        &format!("/api/cards/{id}/answer"),
        json!({"action": "decline"}),
    );
    assert_eq!(response.status(), 200);
    let answered = json_of(response);
    assert!(
        ["delivered", "declined"].contains(&answered["card"]["state"].as_str().expect("state")),
        "{answered}"
    );
    session.assert_keys(&["Down", "Down", "Enter"]);
    serve.wait_card("declined", |card| card["state"] == "declined");
    let again = serve.post(
        &format!("/api/cards/{id}/answer"),
        json!({"action": "accept"}),
    );
    assert_eq!(again.status(), 409);
    assert_eq!(session.keys().len(), 3, "a second answer typed keys");
    let sessions = json_of(serve.get("/api/sessions"));
    assert_eq!(sessions[0]["name"], "default");
    assert_eq!(sessions[0]["state"], "running");
    session.stop_and_check();
}

#[test]
fn an_answer_link_answers_its_card_once() {
    let hook = Hook::start(Some("{}"));
    let mut session = Session::new(|_| json!({"requests": [request("r1", "Running: pwd")]}));
    with_webhook(&mut session, &hook);
    let serve = Serve::start(&session.env, &["--public-url", "https://phone.example/ow"]);
    session.start();
    let card = serve.wait_card("pending", |card| card["state"] == "pending");
    let id = card["id"].as_str().expect("id");
    wait_until("the webhook was called", DEADLINE, || {
        !hook.requests().is_empty()
    });
    let posted = hook.requests()[0].clone();
    // The hook keeps the head's lines, then the body.
    let body: Value =
        serde_json::from_str(&posted[posted.find("{\"").expect("body")..]).expect("JSON body");
    let link = body["answer_url"].as_str().expect("answer_url");
    let prefix = format!("https://phone.example/ow/a/{id}/");
    let capability = link.strip_prefix(&prefix).expect("URL/a/{card}/{cap}");
    assert_eq!(capability.len(), 64);
    let path = format!("/a/{id}/{capability}");
    let unauthenticated = |method: reqwest::Method, path: &str| {
        serve
            .client
            .request(method, format!("{}{path}", serve.base))
            .form(&[("action", "accept")])
    };

    // A preview (GET) only shows the confirm form.
    let preview = unauthenticated(reqwest::Method::GET, &path)
        .send()
        .expect("GET");
    assert_eq!(preview.status(), 200);
    assert!(preview.text().expect("page").contains("Running: pwd"));
    assert_eq!(serve.cards()[0]["state"], "pending");
    // Another card's path, a changed capability: nothing.
    let other = format!("/a/{}x/{capability}", id);
    let flipped = if capability.ends_with('0') { '1' } else { '0' };
    let changed = format!("/a/{id}/{}{flipped}", &capability[..63]);
    for path in [&other, &changed] {
        let response = unauthenticated(reqwest::Method::POST, path)
            .send()
            .expect("POST");
        assert_eq!(response.status(), 404, "{path}");
    }
    assert!(session.keys().is_empty());

    let answered = unauthenticated(reqwest::Method::POST, &path)
        .send()
        .expect("POST");
    assert_eq!(answered.status(), 200);
    session.assert_keys(&["Enter"]);
    let again = unauthenticated(reqwest::Method::POST, &path)
        .send()
        .expect("POST");
    assert_eq!(again.status(), 409);
    let accepted = serve.wait_card("accepted", |card| card["state"] == "accepted");
    assert_eq!(accepted["by"], "link");
    assert_eq!(session.keys(), ["Enter"]);
    session.stop_and_check();
}

#[test]
fn card_changes_stream_over_server_sent_events_to_the_bearer_only() {
    let session = Session::new(|_| json!({"requests": [request("r1", "Running: pwd")]}));
    let serve = Serve::start(&session.env, &[]);
    let streaming = Client::builder().timeout(DEADLINE).build().expect("client");
    let refused = streaming
        .get(format!("{}/events", serve.base))
        .send()
        .expect("GET");
    assert_eq!(refused.status(), 401);
    let with_cookie = streaming
        .get(format!("{}/events", serve.base))
        .header(
            header::COOKIE,
            format!("oneworks_serve_{}={}", serve.port, serve.token),
        )
        .send()
        .expect("GET");
    assert_eq!(with_cookie.status(), 401);
    let events = streaming
        .get(format!("{}/events", serve.base))
        .bearer_auth(&serve.token)
        .send()
        .expect("GET");
    assert_eq!(events.status(), 200);
    assert_eq!(events.headers()[header::CONTENT_TYPE], "text/event-stream");
    session.start();
    let mut lines = BufReader::new(events).lines();
    let mut next_change = |state: &str| loop {
        let line = lines.next().expect("the stream ended").expect("read");
        if let Some(data) = line.strip_prefix("data: ") {
            let change: Value = serde_json::from_str(data).expect("JSON");
            if change["card"]["state"] == state {
                return change;
            }
        }
    };
    let pending = next_change("pending");
    assert_eq!(pending["session"], "default");
    assert_eq!(pending["card"]["title"], "Running: pwd");
    session.answer(&pending["card"], "accept").assert_success();
    next_change("delivering");
    let accepted = next_change("accepted");
    assert_eq!(accepted["card"]["id"], pending["card"]["id"]);
    assert_eq!(accepted["card"]["by"], "cli");
    session.stop_and_check();
}

#[test]
fn an_interrupt_stops_serve_with_a_stream_open_and_the_session_runs_on() {
    let session = Session::new(|_| json!({"requests": [request("r1", "Running: pwd")]}));
    session.start();
    let mut serve = Serve::start(&session.env, &[]);
    serve.wait_card("pending", |card| card["state"] == "pending");
    let events = Client::builder()
        .timeout(DEADLINE)
        .build()
        .expect("client")
        .get(format!("{}/events", serve.base))
        .bearer_auth(&serve.token)
        .send()
        .expect("GET");
    assert_eq!(events.status(), 200);
    let pid = serve.child.id().to_string();
    let status = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("kill");
    assert!(status.success());
    let code = wait_for("serve stopped", DEADLINE, || {
        serve
            .child
            .try_wait()
            .expect("wait")
            .ok_or_else(String::new)
    })
    .code();
    assert_eq!(code, Some(0));
    drop(events);
    assert_eq!(session.cards()[0]["state"], "pending");
    session.stop_and_check();
}
