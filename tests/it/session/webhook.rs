//! The approvals webhook: a verdict from the endpoint is delivered like
//! one from the channel; a timeout leaves the card pending; the bearer
//! token reaches the endpoint and no file.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;

use crate::session::supervisor::{request, Session, DEADLINE};

const TOKEN: &str = "hook-token-5f2e9c1a7b";

/// A one-route HTTP endpoint that records requests and answers `answer`
/// (or never answers, holding the connection, when it is `None`).
pub struct Hook {
    pub url: String,
    requests: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
}

impl Hook {
    pub fn start(answer: Option<&str>) -> Hook {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}/hook", listener.local_addr().expect("address"));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (seen, stopping) = (Arc::clone(&requests), Arc::clone(&stop));
        let answer = answer.map(str::to_owned);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let mut reader = BufReader::new(stream);
                let mut head = String::new();
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = value.trim().parse().unwrap_or(0);
                    }
                    head.push_str(&line);
                }
                let mut body = vec![0; length];
                let _ = reader.read_exact(&mut body);
                head.push_str(&String::from_utf8_lossy(&body));
                seen.lock().expect("requests").push(head);
                match &answer {
                    Some(text) => {
                        let reply = format!(
                            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
                            text.len()
                        );
                        let _ = reader.get_mut().write_all(reply.as_bytes());
                    }
                    None => {
                        while !stopping.load(Ordering::SeqCst) {
                            std::thread::sleep(Duration::from_millis(20));
                        }
                    }
                }
            }
        });
        Hook {
            url,
            requests,
            stop,
        }
    }

    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().expect("requests").clone()
    }
}

impl Drop for Hook {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

pub fn with_webhook(session: &mut Session, hook: &Hook) {
    session.env.write_config(&format!(
        "adapters:\n  kiro:\n    cli:\n      source: system\n    approvals:\n      webhook: {}\n      webhookAuthEnv: HOOK_TOKEN\n",
        hook.url
    ));
    session.env.set_env("HOOK_TOKEN", TOKEN);
}

/// Every file below `dir` that holds `needle`.
fn files_holding(dir: &Path, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            found.extend(files_holding(&path, needle));
        } else if kind.is_file()
            && std::fs::read(&path)
                .is_ok_and(|bytes| String::from_utf8_lossy(&bytes).contains(needle))
        {
            found.push(path.display().to_string());
        }
    }
    found
}

#[test]
fn a_webhook_verdict_is_delivered_and_its_token_is_in_no_file() {
    let hook = Hook::start(Some(r#"{"action":"accept"}"#));
    let mut session = Session::new(|_| json!({"requests": [request("r1", "Running: pwd")]}));
    with_webhook(&mut session, &hook);
    session.start();
    let card = session.wait_card("accepted", |card| card["state"] == "accepted");
    session.assert_keys(&["Enter"]);
    let requests = hook.requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert!(
        requests[0].to_ascii_lowercase().contains(&format!(
            "authorization: bearer {}",
            TOKEN.to_ascii_lowercase()
        )),
        "{}",
        requests[0]
    );
    assert!(
        requests[0].contains(card["id"].as_str().expect("id")),
        "{}",
        requests[0]
    );
    let holding = files_holding(&session.env.base(), TOKEN);
    assert!(holding.is_empty(), "the token was written to {holding:?}");
    session.stop_and_check();
}

#[test]
fn a_webhook_that_times_out_leaves_the_card_pending() {
    let hook = Hook::start(None);
    let mut session = Session::new(|_| json!({"requests": [request("r1", "Running: pwd")]}));
    with_webhook(&mut session, &hook);
    session.env.set_env("ONEWORKS_HTTP_TIMEOUT", "1");
    session.start();
    let card = session.pending_card();
    let log = session.session_root().join("supervisor.log");
    crate::support::wait::wait_until("the webhook timed out", DEADLINE, || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .contains("stays pending")
    });
    assert_eq!(hook.requests().len(), 1);
    assert_eq!(session.cards()[0]["state"], "pending");
    assert!(session.keys().is_empty());
    // Still answerable from the channel.
    session.answer(&card, "accept").assert_success();
    session.assert_keys(&["Enter"]);
    session.stop_and_check();
}

/// Every buffer fed from outside has a ceiling: a
/// webhook answer over the bound is refused, not read whole; the card stays
/// pending and the log says why.
#[test]
fn a_webhook_answer_over_the_bound_is_refused() {
    let answer = format!("{}{}", " ".repeat(1024 * 1024), r#"{"action":"accept"}"#);
    let hook = Hook::start(Some(&answer));
    let mut session = Session::new(|_| json!({"requests": [request("r1", "Running: pwd")]}));
    with_webhook(&mut session, &hook);
    session.start();
    let card = session.pending_card();
    let log = session.session_root().join("supervisor.log");
    crate::support::wait::wait_until("the answer was refused", DEADLINE, || {
        let cards = session.cards();
        assert_eq!(
            cards[0]["state"], "pending",
            "the answer was taken: {cards:?}"
        );
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .contains("stays pending")
    });
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(text.contains("over the bound"), "{text}");
    assert_eq!(session.cards()[0]["state"], "pending");
    assert!(session.keys().is_empty());
    session.answer(&card, "decline").assert_success();
    session.stop_and_check();
}
