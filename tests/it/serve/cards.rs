//! Cards through `session serve` with real supervised sessions (the fake
//! TUI in tmux): shown escaped to the bearer only, accepted or declined
//! through the API (a second answer refused), answered once through an
//! answer link, streamed over server-sent events, and an interrupt that
//! stops serve while the session runs on.

use super::*;

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
