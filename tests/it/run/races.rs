//! Races of a run: questions that overlap or meet a cancel: each
//! permission request is one `permission_request` event, answered once on
//! the wire; a Ctrl-C while a question is pending answers it
//! `cancelled`, then sends `session/cancel`, in that order, on every try
//! and with the machine busy. Each race is tried [`TRIES`]
//! times under artificial load; each failed within its first tries before
//! its fix.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::run::acp_env::{options_full, types, AcpEnv, EVENT_DEADLINE};

use super::args;
use crate::support::wait::{wait_exit, wait_until};
use crate::support::{signal, stopped};

/// How often each race is tried in one test (each try is one run).
const TRIES: usize = 10;

/// Busy threads for as long as the value lives: the races below must hold
/// with the cores taken, not only on an idle machine.
struct Load {
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Load {
    fn start(threads: usize) -> Load {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..threads)
            .map(|_| {
                let stop = Arc::clone(&stop);
                std::thread::spawn(move || {
                    let mut spin = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        spin = std::hint::black_box(spin.wrapping_add(1));
                    }
                })
            })
            .collect();
        Load { stop, threads }
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// The messages oneworks sent that answer the agent's request `id`.
fn answers_to(acp: &AcpEnv, id: &Value) -> Vec<Value> {
    acp.received()
        .into_iter()
        .filter(|message| message.get("method").is_none() && &message["id"] == id)
        .collect()
}

/// On the wire, in order: our `cancelled` answer to `id`, then one
/// `session/cancel`; `context` says which try failed.
#[track_caller]
fn assert_cancelled_then_session_cancel(acp: &AcpEnv, id: &Value, context: &str) {
    let received = acp.received();
    let answer = received
        .iter()
        .position(|message| message.get("method").is_none() && &message["id"] == id);
    let cancel = received
        .iter()
        .position(|message| message["method"] == "session/cancel");
    let (Some(answer), Some(cancel)) = (answer, cancel) else {
        panic!("{context}: the answer ({answer:?}) or session/cancel ({cancel:?}) is missing from the wire: {received:#?}");
    };
    assert!(
        answer < cancel,
        "{context}: session/cancel went out before the question was answered: {received:#?}"
    );
    assert_eq!(
        received[answer]["result"]["outcome"],
        json!({"outcome": "cancelled"}),
        "{context}"
    );
    assert_eq!(answers_to(acp, id).len(), 1, "{context}: answered twice");
    assert_eq!(acp.sent("session/cancel").len(), 1, "{context}");
}

#[test]
fn each_overlapping_permission_request_is_one_event_and_one_answer() {
    // Three questions at once; the agent then waits for each answer.
    let ids = ["p1", "p2", "p3"];
    let mut turn: Vec<Value> = ids
        .iter()
        .map(|id| {
            json!({"askPermission": {"id": id, "title": format!("Run step {id}"), "kind": "execute", "options": options_full()}})
        })
        .collect();
    turn.extend(ids.iter().map(|id| json!({"awaitAnswer": id})));
    turn.push(json!({"text": "all answered"}));
    let acp = AcpEnv::new(json!({ "turn": turn }));
    let mut live = acp.live(&args(&["--json"]));
    // A client that answers every `permission_request` event it sees.
    loop {
        let event = live.next_event();
        match event["type"].as_str() {
            Some("permission_request") => {
                let id = event["id"].as_str().expect("an id");
                live.send(&json!({"id": id, "reply": "Allow once"}).to_string());
            }
            Some("turn_end") => break,
            _ => {}
        }
    }
    let (code, seen, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}\n{seen:#?}");
    let of_type = |kind: &str| -> Vec<Value> {
        seen.iter()
            .filter(|event| event["type"] == kind)
            .map(|event| event["id"].clone())
            .collect()
    };
    assert_eq!(of_type("permission_request"), ids, "{seen:#?}");
    assert_eq!(of_type("permission_resolved"), ids, "{seen:#?}");
    // No second reply went unanswered (nothing was asked twice).
    assert!(
        !seen.iter().any(|event| event["type"] == "diagnostic"),
        "{seen:#?}"
    );
    for id in ids {
        let answers = answers_to(&acp, &json!(id));
        assert_eq!(answers.len(), 1, "{id} answered {answers:#?}");
        assert_eq!(
            answers[0]["result"]["outcome"],
            json!({"outcome": "selected", "optionId": "proceed_once"})
        );
    }
    assert!(types(&seen).contains(&"agent_message_chunk".to_owned()));
}

#[test]
fn a_reply_that_fits_no_option_does_not_repeat_the_event() {
    let acp = AcpEnv::new(json!({
        "turn": [
            {"permission": {"id": "p1", "title": "Run ls", "kind": "execute", "options": options_full()}},
            {"text": "done"}
        ]
    }));
    let mut live = acp.live(&args(&["--json"]));
    live.expect("permission_request");
    live.send(r#"{"id":"p1","reply":"nonsense"}"#);
    let refusal = live.expect("diagnostic");
    assert!(
        refusal["message"]
            .as_str()
            .is_some_and(|message| message.contains("`p1`") && message.contains("Answer again")),
        "{refusal}"
    );
    live.send(r#"{"id":"p1","reply":"Allow once"}"#);
    live.expect("permission_resolved");
    let (code, seen, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");
    let asked = seen
        .iter()
        .filter(|event| event["type"] == "permission_request")
        .count();
    assert_eq!(asked, 1, "{seen:#?}");
}

#[test]
fn sigint_together_with_a_question_answers_it_before_session_cancel_every_time() {
    // The fake stops oneworks (SIGSTOP), writes the question, sends SIGINT
    // and lets oneworks go on (SIGCONT): it wakes to find both waiting,
    // which is when the interrupt could be taken before the question was
    // read (then `session/cancel` went first).
    let _load = Load::start(2);
    for attempt in 1..=TRIES {
        let context = format!("try {attempt} of {TRIES}");
        let acp = AcpEnv::new(json!({
            "turn": [
                "freezeParent",
                {"askPermission": {"id": "q1", "title": "Run ls", "kind": "execute", "options": options_full()}},
                "interruptParent",
                "waitForCancel"
            ]
        }));
        let live = acp.live(&args(&["--json"]));
        let (code, seen, stderr) = live.finish();
        assert_eq!(code, Some(130), "{context}: {stderr}\n{seen:#?}");
        assert_cancelled_then_session_cancel(&acp, &json!("q1"), &context);
        // The question was shown once and resolved by the cancel; the
        // agent confirmed the cancel.
        let requests = seen
            .iter()
            .filter(|event| event["type"] == "permission_request")
            .count();
        assert_eq!(requests, 1, "{context}: {seen:#?}");
        let resolved: Vec<&Value> = seen
            .iter()
            .filter(|event| event["type"] == "permission_resolved")
            .collect();
        assert_eq!(resolved.len(), 1, "{context}: {seen:#?}");
        assert_eq!(resolved[0]["by"], "cancel", "{context}");
        let ends: Vec<&Value> = seen
            .iter()
            .filter(|event| event["type"] == "turn_end")
            .collect();
        assert_eq!(ends.len(), 1, "{context}: {seen:#?}");
        assert_eq!(ends[0]["stopReason"], "cancelled", "{context}");
        assert_eq!(ends[0].get("confirmed"), None, "{context}: {seen:#?}");
    }
}

/// A human run on a pty whose prompt for question `p1` gets `keys` (none:
/// the run is not waited on for a prompt); the exit code and everything
/// the terminal showed.
fn terminal_run_with_keys(acp: &AcpEnv, keys: &[u8]) -> (Option<i32>, String) {
    let mut child = acp
        .oneworks(&["--prompt", "Say hello"])
        .terminal()
        .stderr_null()
        .spawn();
    let output: Arc<Mutex<Vec<u8>>> = crate::support::capture_stdout(&mut child);
    let shown = || String::from_utf8_lossy(&output.lock().expect("lock")).into_owned();
    let mut stdin = child.stdin.take().expect("stdin");
    if !keys.is_empty() {
        // Every label drawn: the prompt is reading keys.
        wait_until("the prompt", EVENT_DEADLINE, || {
            let text = shown();
            ["Run ls", "Allow once", "Always allow", "允许一次"]
                .iter()
                .all(|label| text.contains(label))
        });
        stdin.write_all(keys).expect("type");
        stdin.flush().expect("flush");
    }
    let status = wait_exit(
        "oneworks finished",
        crate::support::RUN_DEADLINE,
        &mut child,
        shown,
    );
    drop(stdin);
    // The capture thread lets go of its handle at the output's end.
    wait_until("the end of the terminal output", EVENT_DEADLINE, || {
        Arc::strong_count(&output) == 1
    });
    (status.code(), shown())
}

#[test]
fn ctrl_c_in_the_terminal_prompt_is_one_cancel_the_agent_confirms() {
    // In the prompt, Ctrl-C is read as a key and the prompt library raises
    // SIGINT itself: one key press must be one cancel, never the "second
    // interrupt" that kills the agent before it reads the answer.
    let _load = Load::start(2);
    for attempt in 1..=TRIES {
        let context = format!("try {attempt} of {TRIES}");
        let acp = AcpEnv::new(json!({
            "turn": [
                {"permission": {"id": "p1", "title": "Run ls", "kind": "execute", "options": options_full()}},
                "waitForCancel"
            ]
        }));
        let (code, text) = terminal_run_with_keys(&acp, b"\x03");
        assert_eq!(code, Some(130), "{context}:\n{text}");
        assert_cancelled_then_session_cancel(&acp, &json!("p1"), &context);
        assert!(text.contains("turn ended: cancelled"), "{context}:\n{text}");
        assert!(
            !text.contains("did not confirm"),
            "{context}: the agent was stopped before it confirmed the cancel:\n{text}"
        );
    }
}

#[test]
fn sigint_together_with_a_question_on_a_terminal_answers_it_first_every_time() {
    // The race of the `--json` test above, in human mode on a terminal.
    let _load = Load::start(2);
    for attempt in 1..=TRIES {
        let context = format!("try {attempt} of {TRIES}");
        let acp = AcpEnv::new(json!({
            "turn": [
                "freezeParent",
                {"askPermission": {"id": "p1", "title": "Run ls", "kind": "execute", "options": options_full()}},
                "interruptParent",
                "waitForCancel"
            ]
        }));
        let (code, text) = terminal_run_with_keys(&acp, b"");
        assert_eq!(code, Some(130), "{context}:\n{text}");
        assert_cancelled_then_session_cancel(&acp, &json!("p1"), &context);
        assert!(
            text.contains("permission p1: cancelled (cancel)"),
            "{context}:\n{text}"
        );
        assert!(
            text.contains("turn ended: cancelled") && !text.contains("did not confirm"),
            "{context}:\n{text}"
        );
    }
}

#[test]
fn a_cancel_reaches_the_agent_even_when_stdout_is_gone() {
    // `oneworks run --json | reader`, and the Ctrl-C ends the reader too:
    // the events of the cancel cannot be printed, but the agent must still
    // get the `cancelled` answer and `session/cancel`.
    let acp = AcpEnv::new(json!({
        "turn": [
            {"permission": {"id": "p1", "title": "Run ls", "kind": "execute", "options": options_full()}},
            "waitForCancel"
        ]
    }));
    let mut child = acp.oneworks(&args(&["--json"])).stderr_null().spawn();
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
    let asked = lines.by_ref().map_while(Result::ok).any(|line| {
        serde_json::from_str::<Value>(&line)
            .is_ok_and(|event| event["type"] == "permission_request")
    });
    assert!(asked, "no permission_request event");
    drop(lines);
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let status = wait_exit(
        "oneworks finished",
        crate::support::RUN_DEADLINE,
        &mut child,
        String::new,
    );
    assert_cancelled_then_session_cancel(&acp, &json!("p1"), "stdout closed");
    // A closed stdout ends the run quietly (not the agent's failure).
    assert_eq!(status.code(), Some(0));
    assert!(crate::run::acp_env::gone(acp.agent_pid()));
}

#[test]
fn sigint_and_the_end_of_stdin_together_are_one_cancel_in_either_order() {
    // Ctrl-C in `producer | oneworks run --json` kills the writer too: the
    // interrupt and the end of stdin arrive together. Sent one right after
    // the other in both orders, and also to a stopped oneworks (SIGSTOP)
    // that wakes (SIGCONT) to find both waiting — there the runtime, not
    // the order sent, decides which it takes first. Every way the agent
    // gets the `cancelled` answer, then `session/cancel`, and confirms the
    // cancel before it is stopped.
    let _load = Load::start(2);
    let ways = [(true, false), (false, false), (true, true), (false, true)];
    for (interrupt_first, frozen) in ways {
        for attempt in 1..=TRIES {
            let order = match (interrupt_first, frozen) {
                (true, false) => "SIGINT, then the end of stdin",
                (false, false) => "the end of stdin, then SIGINT",
                (true, true) => "SIGINT, then the end of stdin, while stopped",
                (false, true) => "the end of stdin, then SIGINT, while stopped",
            };
            let context = format!("{order}, try {attempt} of {TRIES}");
            let acp = AcpEnv::new(json!({
                "turn": [
                    {"permission": {"id": "p1", "title": "Run ls", "kind": "execute", "options": options_full()}},
                    "waitForCancel"
                ]
            }));
            let mut live = acp.live(&args(&["--json"]));
            live.expect("permission_request");
            let pid = live.pid();
            if frozen {
                signal(pid, "-STOP");
                wait_until("oneworks is stopped", EVENT_DEADLINE, || stopped(pid));
            }
            if interrupt_first {
                signal(pid, "-INT");
                live.close_stdin();
            } else {
                live.close_stdin();
                signal(pid, "-INT");
            }
            if frozen {
                signal(pid, "-CONT");
            }
            let (code, seen, stderr) = live.finish();
            // Found waiting together, they are the person's cancel (130).
            // Sent one after the other, the end of stdin may have refused
            // the question and the agent confirmed before the interrupt
            // came: a refusal (10), with the same wire.
            let codes: &[i32] = if frozen { &[130] } else { &[130, 10] };
            assert!(
                code.is_some_and(|code| codes.contains(&code)),
                "{context}: exit {code:?}: {stderr}\n{seen:#?}"
            );
            assert_cancelled_then_session_cancel(&acp, &json!("p1"), &context);
            let ends: Vec<&Value> = seen
                .iter()
                .filter(|event| event["type"] == "turn_end")
                .collect();
            assert_eq!(ends.len(), 1, "{context}: {seen:#?}");
            assert_eq!(ends[0]["stopReason"], "cancelled", "{context}");
            // Confirmed by the agent: not stopped before it read the cancel.
            assert_eq!(ends[0].get("confirmed"), None, "{context}: {seen:#?}");
        }
    }
}

#[test]
fn the_end_of_stdin_answers_every_pending_question_before_session_cancel() {
    // Two questions pending when stdin ends: both answered `cancelled`,
    // then one `session/cancel` — never the cancel between the answers.
    let acp = AcpEnv::new(json!({
        "turn": [
            {"askPermission": {"id": "p1", "title": "Run ls", "kind": "execute", "options": options_full()}},
            {"askPermission": {"id": "p2", "title": "Run pwd", "kind": "execute", "options": options_full()}},
            "waitForCancel"
        ]
    }));
    let mut live = acp.live(&args(&["--json"]));
    live.expect("permission_request");
    live.expect("permission_request");
    live.close_stdin();
    let (code, seen, stderr) = live.finish();
    assert_eq!(code, Some(10), "{stderr}\n{seen:#?}");
    for id in ["p1", "p2"] {
        assert_cancelled_then_session_cancel(&acp, &json!(id), id);
    }
    assert!(
        stderr.contains("`Run ls`, `Run pwd` was not answered before stdin closed"),
        "{stderr}"
    );
}
