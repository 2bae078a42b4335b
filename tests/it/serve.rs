//! `oneworks session serve` (SPEC §8.5) through the real binary: the token
//! and its cookie, the Host and Origin checks, the security headers, and
//! real supervised sessions (the fake TUI in tmux) answered from the page,
//! the JSON API and an answer link.

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use reqwest::blocking::{Client, Response};
use reqwest::header;
use serde_json::{json, Value};

use crate::supervisor::{request, Session, DEADLINE};
use crate::supervisor_webhook::{with_webhook, Hook};
use crate::support::TestEnv;

/// A running `session serve --json`; killed on drop.
pub struct Serve {
    child: Child,
    /// `http://127.0.0.1:PORT`
    pub base: String,
    port: u16,
    token: String,
    client: Client,
}

impl Serve {
    pub fn start(env: &TestEnv, extra: &[&str]) -> Serve {
        let mut args = vec!["session", "serve", "--json"];
        args.extend_from_slice(extra);
        let mut child = env
            .cmd(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("read the URL");
        let printed: Value = serde_json::from_str(&line).expect("one JSON line");
        let url = url::Url::parse(printed["url"].as_str().expect("url")).expect("a URL");
        assert_eq!(url.host_str(), Some("127.0.0.1"), "{url}");
        let token = url
            .query_pairs()
            .find(|(name, _)| name == "token")
            .map(|(_, value)| value.into_owned())
            .expect("the URL carries the token");
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
        }
    }

    /// The URL as printed: it carries the token.
    pub fn url(&self) -> String {
        format!("{}/?token={}", self.base, self.token)
    }

    fn cookie(&self) -> String {
        format!("oneworks_serve_{}={}", self.port, self.token)
    }

    pub fn get(&self, path: &str) -> Response {
        self.client
            .get(format!("{}{path}", self.base))
            .header(header::COOKIE, self.cookie())
            .send()
            .expect("GET")
    }

    pub fn post(&self, path: &str, body: Value) -> Response {
        self.client
            .post(format!("{}{path}", self.base))
            .header(header::COOKIE, self.cookie())
            .header(header::ORIGIN, &self.base)
            .header(header::CONTENT_TYPE, "application/json")
            .body(body.to_string())
            .send()
            .expect("POST")
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
        let deadline = Instant::now() + DEADLINE;
        loop {
            let cards = self.cards();
            if let Some(card) = cards.iter().find(|card| test(card)) {
                return card.clone();
            }
            assert!(Instant::now() < deadline, "no card {what}: {cards:?}");
            std::thread::sleep(Duration::from_millis(30));
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
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

#[test]
fn the_token_is_traded_for_a_cookie_and_nothing_answers_without_it() {
    let env = env_with_project();
    let serve = Serve::start(&env, &[]);
    let bare = serve
        .client
        .get(format!("{}/", serve.base))
        .send()
        .expect("GET");
    assert_eq!(bare.status(), 401);
    assert_eq!(bare.text().expect("body"), "Unauthorized");
    let wrong = serve
        .client
        .get(format!(
            "{}/api/cards?token=00{}",
            serve.base,
            &serve.token[2..]
        ))
        .send()
        .expect("GET");
    assert_eq!(wrong.status(), 401);

    let traded = serve
        .client
        .get(format!("{}/api/cards?token={}", serve.base, serve.token))
        .send()
        .expect("GET");
    assert_eq!(traded.status(), 303);
    assert_eq!(traded.headers()[header::LOCATION], "/api/cards");
    let cookie = traded.headers()[header::SET_COOKIE]
        .to_str()
        .expect("cookie");
    assert_eq!(
        cookie,
        format!("{}; HttpOnly; SameSite=Strict; Path=/", serve.cookie())
    );

    let page = serve.get("/");
    assert_eq!(page.status(), 200);
    for (name, value) in [
        (
            "content-security-policy",
            "default-src 'self'; frame-ancestors 'none'",
        ),
        ("cache-control", "no-store"),
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "no-referrer"),
    ] {
        assert_eq!(page.headers()[name], value, "{name}");
    }
    let html = page.text().expect("body");
    assert!(html.contains("/assets/serve.js"), "{html}");
    assert!(!html.contains("<script>"), "inline script: {html}");
    assert!(!html.contains("style="), "inline style: {html}");

    let bearer = serve
        .client
        .get(format!("{}/api/sessions", serve.base))
        .bearer_auth(&serve.token)
        .send()
        .expect("GET");
    assert_eq!(bearer.status(), 200);
    assert_eq!(json_of(bearer), json!([]));
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
            .header(header::COOKIE, serve.cookie())
            .send()
            .expect("GET");
        assert_eq!(response.status(), 421, "{host}");
    }
    let localhost = serve
        .client
        .get(format!("{}/", serve.base))
        .header(header::HOST, format!("localhost:{}", serve.port))
        .header(header::COOKIE, serve.cookie())
        .send()
        .expect("GET");
    assert_eq!(localhost.status(), 200);

    let path = format!("{}/api/cards/no-such-card/answer", serve.base);
    let body = json!({"action": "accept"});
    for origin in [Some("http://evil.example"), Some("null"), None] {
        let mut post = serve
            .client
            .post(&path)
            .header(header::COOKIE, serve.cookie())
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
fn a_card_is_shown_escaped_and_accepted_from_the_page_form() {
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
    let html = serve.get("/").text().expect("page");
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
    let screen = serve.get("/sessions/default/pane").text().expect("screen");
    assert!(screen.contains("requires approval"), "{screen}");
    assert_eq!(serve.get("/sessions/nobody/pane").status(), 200);

    // The page's form, as a browser without script sends it.
    let response = serve
        .client
        .post(format!("{}/cards/{id}/answer", serve.base))
        .header(header::COOKIE, serve.cookie())
        .header(header::ORIGIN, &serve.base)
        .form(&[("action", "accept")])
        .send()
        .expect("POST");
    assert_eq!(response.status(), 303);
    assert_eq!(response.headers()[header::LOCATION], "/");
    session.assert_keys(&["Enter"]);
    let accepted = serve.wait_card("accepted", |card| {
        card["id"] == id && card["state"] == "accepted"
    });
    assert_eq!(accepted["by"], "page");

    session.touch("next");
    let hostile = serve.wait_card("hostile", |card| card["state"] == "pending");
    assert!(hostile["title"].as_str().expect("title").contains("<img"));
    let html = serve.get("/").text().expect("page");
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
    let html = serve.get("/").text().expect("page");
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
    let deadline = Instant::now() + DEADLINE;
    while hook.requests().is_empty() {
        assert!(Instant::now() < deadline, "the webhook was never called");
        std::thread::sleep(Duration::from_millis(20));
    }
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
fn card_changes_stream_over_server_sent_events() {
    let session = Session::new(|_| json!({"requests": [request("r1", "Running: pwd")]}));
    let serve = Serve::start(&session.env, &[]);
    let streaming = Client::builder().timeout(DEADLINE).build().expect("client");
    let refused = streaming
        .get(format!("{}/events", serve.base))
        .send()
        .expect("GET");
    assert_eq!(refused.status(), 401);
    let events = streaming
        .get(format!("{}/events", serve.base))
        .header(header::COOKIE, serve.cookie())
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
        .header(header::COOKIE, serve.cookie())
        .send()
        .expect("GET");
    assert_eq!(events.status(), 200);
    let pid = serve.child.id().to_string();
    let status = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("kill");
    assert!(status.success());
    let deadline = Instant::now() + DEADLINE;
    let code = loop {
        if let Some(status) = serve.child.try_wait().expect("wait") {
            break status.code();
        }
        assert!(Instant::now() < deadline, "serve did not stop");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(code, Some(0));
    drop(events);
    assert_eq!(session.cards()[0]["state"], "pending");
    session.stop_and_check();
}
