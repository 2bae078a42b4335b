//! Answer links that cannot come back, and who
//! answered as the approvals socket can prove it: through the
//! real binary, real supervisors of the fake TUI, a recording webhook and
//! `session serve --public-url`.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use serde_json::{json, Value};

use crate::serve::flood::LimitedServe;
use crate::session::supervisor::{mode, request, Session, DEADLINE};
use crate::session::webhook::{with_webhook, Hook};
use crate::support::wait::wait_until;

/// Answer links need no low descriptor limit.
const DESCRIPTORS: u32 = 1024;

/// One answer link a webhook POST carried.
#[derive(Debug, Clone)]
struct Link {
    card: String,
    /// `https://…/ow`, the public URL it was published under.
    public: String,
    capability: String,
}

impl Link {
    fn path(&self) -> String {
        format!("/a/{}/{}", self.card, self.capability)
    }
}

/// The answer link of the `n`th webhook POST (1-based), once it came.
fn posted(hook: &Hook, n: usize) -> Link {
    wait_until("the webhook was called", DEADLINE, || {
        hook.requests().len() >= n
    });
    let text = hook.requests()[n - 1].clone();
    let body: Value =
        serde_json::from_str(&text[text.find("{\"").expect("a body")..]).expect("JSON body");
    let card = body["card"]["id"].as_str().expect("card id").to_owned();
    let url = body["answer_url"].as_str().expect("answer_url");
    let (public, rest) = url.split_once("/a/").expect("URL/a/{card}/{capability}");
    let (in_url, capability) = rest.split_once('/').expect("card/capability");
    assert_eq!(in_url, card);
    assert_eq!(capability.len(), 64, "{url}");
    Link {
        card,
        public: public.to_owned(),
        capability: capability.to_owned(),
    }
}

fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(DEADLINE)
        .build()
        .expect("client")
}

/// The link's confirm form (a preview): status and page.
fn preview(serve: &LimitedServe, path: &str) -> (u16, String) {
    let response = client()
        .get(format!("http://{}{path}", serve.address()))
        .send()
        .expect("GET");
    (response.status().as_u16(), response.text().expect("page"))
}

/// The confirm form's POST, as a browser sends it (no `Origin` needed).
fn answer(serve: &LimitedServe, path: &str, action: &str) -> (u16, String) {
    let response = client()
        .post(format!("http://{}{path}", serve.address()))
        .form(&[("action", action)])
        .send()
        .expect("POST");
    (response.status().as_u16(), response.text().expect("page"))
}

fn pending(session: &Session, id: &str) -> bool {
    session
        .cards()
        .iter()
        .any(|card| card["id"] == id && card["state"] == "pending")
}

const PUBLIC: &str = "https://phone.example/ow";

#[test]
fn a_link_from_an_earlier_supervisor_run_answers_nothing_of_a_later_one() {
    let hook = Hook::start(Some("{}"));
    let mut session = Session::new(|_| json!({"requests": [request("r1", "Running: pwd")]}));
    with_webhook(&mut session, &hook);
    let serve = LimitedServe::start(&session.env, &["--public-url", PUBLIC], DESCRIPTORS);
    session.start();
    let earlier = posted(&hook, 1);
    session.stop_and_check();

    // The agent of the next run asks with the same request id.
    session.start();
    let later = posted(&hook, 2);
    assert!(pending(&session, &later.card));
    assert_ne!(later.capability, earlier.capability);
    let revived = Link {
        card: later.card.clone(),
        ..earlier.clone()
    };
    for link in [&earlier, &revived] {
        assert_eq!(preview(&serve, &link.path()).0, 404, "{link:?}");
        assert_eq!(answer(&serve, &link.path(), "accept").0, 404, "{link:?}");
    }
    assert!(pending(&session, &later.card));
    assert!(session.keys().is_empty(), "an old link typed keys");

    let (status, page) = answer(&serve, &later.path(), "accept");
    assert_eq!(status, 200, "{page}");
    session.assert_keys(&["Enter"]);
    let accepted = session.wait_card("accepted", |card| card["state"] == "accepted");
    assert_eq!(accepted["by"], "link");
    session.stop_and_check();
}

#[test]
fn a_link_dies_when_its_card_is_answered_elsewhere_and_when_serve_restarts() {
    let hook = Hook::start(Some("{}"));
    let mut session = Session::new(|markers| {
        json!({"requests": [
            request("r1", "Running: pwd"),
            {"id": "r2", "title": "Running: ls", "waitFor": markers.join("next")},
        ]})
    });
    with_webhook(&mut session, &hook);
    let serve = LimitedServe::start(&session.env, &["--public-url", PUBLIC], DESCRIPTORS);
    session.start();
    let first = posted(&hook, 1);
    // Answered from the terminal's side (the CLI) before the link is used.
    session
        .answer(&session.pending_card(), "accept")
        .assert_success();
    session.wait_card("accepted", |card| card["state"] == "accepted");
    let (status, page) = preview(&serve, &first.path());
    assert_eq!(status, 409, "{page}");
    assert!(page.contains("Already answered by cli"), "{page}");
    // The form answer that lost the race says so instead of vanishing.
    let (status, page) = answer(&serve, &first.path(), "decline");
    assert_eq!(status, 409, "{page}");
    assert!(page.contains("Already answered by cli"), "{page}");
    assert_eq!(session.keys(), ["Enter"]);

    session.touch("next");
    let second = posted(&hook, 2);
    assert_ne!(second.card, first.card);
    drop(serve);
    let restarted = LimitedServe::start(&session.env, &["--public-url", PUBLIC], DESCRIPTORS);
    assert_eq!(preview(&restarted, &second.path()).0, 404);
    assert_eq!(answer(&restarted, &second.path(), "accept").0, 404);
    assert!(pending(&session, &second.card));
    assert_eq!(session.keys(), ["Enter"], "a dead link typed keys");
    session.stop_and_check();
}

/// A card not shown whole is never accepted through its link,
/// and the refused accept does not spend the link, so it can still decline.
#[test]
fn a_links_accept_of_an_incomplete_card_is_refused_and_the_link_still_declines() {
    let hook = Hook::start(Some("{}"));
    let mut asked = request("r1", "Running: pwd");
    asked["toolCall"] = json!({
        "kind": "execute",
        "rawInput": {"command": format!("echo hi; {}", "x".repeat(20 * 1024))},
    });
    let mut session = Session::new(|_| json!({"requests": [asked]}));
    with_webhook(&mut session, &hook);
    let serve = LimitedServe::start(&session.env, &["--public-url", PUBLIC], DESCRIPTORS);
    session.start();
    let link = posted(&hook, 1);
    let card = session.wait_card("pending", |card| card["state"] == "pending");
    assert_eq!(card["complete"], false, "{card}");

    let (status, page) = answer(&serve, &link.path(), "accept");
    assert_eq!(status, 409, "{page}");
    assert!(page.contains("accept it in the terminal"), "{page}");
    assert!(pending(&session, &link.card));
    assert!(
        session.keys().is_empty(),
        "an incomplete card got keys: {:?}",
        session.keys()
    );

    let (status, page) = answer(&serve, &link.path(), "decline");
    assert_eq!(status, 200, "{page}");
    let declined = session.wait_card("declined", |card| card["state"] == "declined");
    assert_eq!(declined["by"], "link");
    // Spent by the answer that was taken: it answers nothing more.
    assert_ne!(answer(&serve, &link.path(), "cancel").0, 200);
    session.stop_and_check();
}

#[test]
fn two_serves_of_one_project_each_keep_their_links() {
    let hook = Hook::start(Some("{}"));
    let mut session = Session::new(|markers| {
        json!({"requests": [
            request("r1", "Running: pwd"),
            {"id": "r2", "title": "Running: ls", "waitFor": markers.join("two")},
            {"id": "r3", "title": "Running: id", "waitFor": markers.join("three")},
        ]})
    });
    with_webhook(&mut session, &hook);
    let links_files = |env: &crate::support::TestEnv| -> Vec<String> {
        let runtime = env.runtime_dir.join("oneworks");
        std::fs::read_dir(&runtime)
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with("links-"))
            .collect()
    };
    let first_serve = LimitedServe::start(
        &session.env,
        &["--public-url", "https://a.example/ow"],
        DESCRIPTORS,
    );
    session.start();
    let first = posted(&hook, 1);
    assert_eq!(first.public, "https://a.example/ow");
    let mut second_serve = LimitedServe::start(
        &session.env,
        &["--public-url", "https://b.example/ow"],
        DESCRIPTORS,
    );
    let files = links_files(&session.env);
    assert_eq!(files.len(), 2, "{files:?}");
    // The first serve's link still answers with a second serve running.
    assert_eq!(answer(&first_serve, &first.path(), "accept").0, 200);
    session.assert_keys(&["Enter"]);

    session.touch("two");
    let second = posted(&hook, 2);
    assert_eq!(second.public, "https://b.example/ow", "the newest serve");
    // Each serve answers only its own links.
    assert_eq!(answer(&first_serve, &second.path(), "accept").0, 404);
    assert_eq!(answer(&second_serve, &second.path(), "accept").0, 200);
    session.assert_keys(&["Enter", "Enter"]);

    // Stopping the second leaves the first's file and links.
    second_serve.interrupt();
    let files = links_files(&session.env);
    assert_eq!(files.len(), 1, "{files:?}");
    session.touch("three");
    let third = posted(&hook, 3);
    assert_eq!(third.public, "https://a.example/ow");
    assert_eq!(answer(&first_serve, &third.path(), "accept").0, 200);
    session.assert_keys(&["Enter", "Enter", "Enter"]);
    let cards = session.cards();
    assert!(cards.iter().all(|card| card["by"] == "link"), "{cards:?}");
    session.stop_and_check();
}

/// One request on the approvals socket; the reply line (heartbeats skipped).
fn socket_request(session: &Session, request: &Value) -> Value {
    let record = session.record().expect("record");
    let mut stream =
        UnixStream::connect(record["approvals"].as_str().expect("socket")).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    stream
        .write_all(format!("{request}\n").as_bytes())
        .expect("write");
    let mut lines = BufReader::new(stream).lines();
    loop {
        let line = lines.next().expect("a reply").expect("read");
        let value: Value = serde_json::from_str(&line).expect("JSON");
        if value.get("alive").is_none() {
            return value;
        }
    }
}

#[test]
fn a_plain_socket_client_cannot_claim_to_be_the_page_a_link_or_the_webhook() {
    let session = Session::new(|_| json!({"requests": [request("r1", "Running: pwd")]}));
    session.start();
    let card = session.pending_card();
    let id = card["id"].as_str().expect("id");
    let key = session.runtime().join("approvals.key");
    assert_eq!(mode(&key), 0o600);
    let forged = "ab".repeat(32);
    for claim in [
        json!({"by": "page"}),
        json!({"by": "page", "proof": forged}),
        json!({"by": "link", "capability": forged, "serve": "0".repeat(32)}),
        json!({"by": "webhook"}),
        json!({"by": "terminal"}),
    ] {
        let mut request = json!({"op": "answer", "card": id, "action": "accept"});
        for (name, value) in claim.as_object().expect("object") {
            request[name] = value.clone();
        }
        let reply = socket_request(&session, &request);
        assert!(reply["error"].is_string(), "{claim}: {reply}");
        assert!(reply.get("card").is_none(), "{claim}: {reply}");
    }
    assert!(pending(&session, id));
    assert!(session.keys().is_empty(), "a forged claim typed keys");

    // Without a claim the socket answers as the CLI does.
    let reply = socket_request(
        &session,
        &json!({"op": "answer", "card": id, "action": "accept"}),
    );
    assert_eq!(reply["card"]["by"], "cli", "{reply}");
    session.assert_keys(&["Enter"]);
    let runtime = session.runtime();
    session.stop_and_check();
    assert!(
        !runtime.join("approvals.key").exists(),
        "the proof key left behind"
    );
}
