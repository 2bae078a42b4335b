#![allow(clippy::disallowed_methods)] // test fixtures use std::fs directly
//! Tests of the recorder tail: the mirror's race rules and the line reader.

use std::io::Write;

use super::*;
use crate::session::signals::recorder::tests::{line, request_message, response_message};

fn approval(id: &str) -> RecorderMessage {
    parse_line(line(&request_message(id, "Running: pwd"), true, "in").as_bytes()).expect("approval")
}

fn response(id: &str, option: Option<&str>) -> RecorderMessage {
    parse_line(line(&response_message(id, option), false, "out").as_bytes()).expect("response")
}

fn parked_ids(events: &[TailEvent]) -> Vec<&str> {
    events
        .iter()
        .filter_map(|event| match event {
            TailEvent::Park(request) => Some(request.id.as_str()),
            TailEvent::Resolved { .. } => None,
        })
        .collect()
}

#[test]
fn a_request_answered_in_the_same_batch_parks_nothing() {
    let mut mirror = SlotMirror::default();
    let events = mirror.batch(vec![approval("r1"), response("r1", Some("allow_once"))]);
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(mirror.parked(), None);
    // The next request is mirrored as usual.
    assert_eq!(parked_ids(&mirror.batch(vec![approval("r2")])), ["r2"]);
}

#[test]
fn one_parked_card_and_further_requests_stay_terminal_only() {
    let mut mirror = SlotMirror::default();
    assert_eq!(parked_ids(&mirror.batch(vec![approval("r1")])), ["r1"]);
    assert!(mirror.batch(vec![approval("r2")]).is_empty(), "not queued");
    assert_eq!(mirror.parked(), Some("r1"));
    // A response to the terminal-only request updates nothing.
    assert!(mirror
        .batch(vec![response("r2", Some("allow_once"))])
        .is_empty());
    // The terminal answers r1: the card resolves and the slot frees.
    let events = mirror.batch(vec![response("r1", None)]);
    assert_eq!(
        events,
        [TailEvent::Resolved {
            response: ApprovalResponse {
                id: "r1".into(),
                option_id: None
            },
            was_parked: true
        }]
    );
    assert_eq!(parked_ids(&mirror.batch(vec![approval("r3")])), ["r3"]);
}

#[test]
fn the_slot_is_released_when_delivery_ends_and_late_responses_only_update() {
    let mut mirror = SlotMirror::default();
    mirror.batch(vec![approval("r1")]);
    mirror.release("r1");
    assert_eq!(mirror.parked(), None);
    // Releasing another id changes nothing.
    mirror.batch(vec![approval("r2")]);
    mirror.release("r1");
    assert_eq!(mirror.parked(), Some("r2"));
    // The late response for r1 parks nothing, only updates r1's record.
    let events = mirror.batch(vec![response("r1", Some("allow_once"))]);
    assert!(matches!(
        events.as_slice(),
        [TailEvent::Resolved { was_parked: false, response }] if response.id == "r1"
    ));
    assert_eq!(mirror.parked(), Some("r2"));
    // A request id seen before is never mirrored twice.
    mirror.release("r2");
    assert!(mirror.batch(vec![approval("r1")]).is_empty());
}

fn append(path: &Path, bytes: &[u8]) {
    let mut file = fs_err::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .expect("open recorder");
    file.write_all(bytes).expect("append");
}

#[test]
fn the_reader_starts_at_the_end_and_reads_whole_lines_only() {
    let temp = tempfile::tempdir().expect("tempdir");
    let path = temp.path().join("recorder.jsonl");
    let old = line(&request_message("old", "Running: ls"), true, "in");
    append(&path, format!("{old}\n").as_bytes());
    let mut reader = RecorderFile::at_end(&path);
    assert!(reader.read().expect("read").is_empty(), "history replayed");

    let new = line(&request_message("new", "Running: pwd"), false, "in");
    let (head, tail) = new.split_at(new.len() / 2);
    append(&path, head.as_bytes());
    assert!(reader.read().expect("read").is_empty(), "partial line read");
    append(&path, format!("{tail}\n").as_bytes());
    let messages = reader.read_messages().expect("read");
    assert!(
        matches!(messages.as_slice(), [RecorderMessage::Approval(request)] if request.id == "new"),
        "{messages:?}"
    );
}

#[test]
fn garbage_and_truncation_do_not_stop_the_reader() {
    let temp = tempfile::tempdir().expect("tempdir");
    let path = temp.path().join("recorder.jsonl");
    // Starting inside an unfinished historical line skips its rest.
    append(&path, b"{\"ts\":1,\"msg\":");
    let mut reader = RecorderFile::at_end(&path);
    append(&path, b"\"rest of the old line\"}\n");
    append(&path, b"garbage\n\xff\xfe\n");
    append(
        &path,
        format!("{}\n", line(&request_message("a", "t"), true, "in")).as_bytes(),
    );
    let messages = reader.read_messages().expect("read");
    assert_eq!(messages.len(), 1, "{messages:?}");

    // Kiro starts the file over: read again from 0.
    fs_err::write(
        &path,
        format!("{}\n", line(&request_message("b", "t"), true, "in")),
    )
    .expect("truncate");
    let messages = reader.read_messages().expect("read");
    assert!(
        matches!(messages.as_slice(), [RecorderMessage::Approval(request)] if request.id == "b"),
        "{messages:?}"
    );
}

#[test]
fn an_overlong_line_is_skipped_whole() {
    let temp = tempfile::tempdir().expect("tempdir");
    let path = temp.path().join("recorder.jsonl");
    let mut reader = RecorderFile::at_end(&path);
    append(&path, &vec![b'x'; MAX_LINE + 10]);
    assert!(reader.read().expect("read").is_empty());
    append(
        &path,
        format!("tail\n{}\n", line(&request_message("c", "t"), true, "in")).as_bytes(),
    );
    let messages = reader.read_messages().expect("read");
    assert_eq!(messages.len(), 1, "{messages:?}");
}

#[test]
fn a_fifo_or_link_is_not_read() {
    let temp = tempfile::tempdir().expect("tempdir");
    let target = temp.path().join("elsewhere.jsonl");
    append(&target, b"");
    let path = temp.path().join("recorder.jsonl");
    fs_err::os::unix::fs::symlink(&target, &path).expect("symlink");
    let mut reader = RecorderFile::at_end(&path);
    append(
        &target,
        format!("{}\n", line(&request_message("d", "t"), true, "in")).as_bytes(),
    );
    assert!(reader.read().is_err(), "followed a symlink");
}

#[test]
fn a_huge_append_is_read_in_bounded_steps_and_the_next_approval_found() {
    let temp = tempfile::tempdir().expect("tempdir");
    let path = temp.path().join("recorder.jsonl");
    let mut reader = RecorderFile::at_end(&path);
    // Short garbage lines worth three budgets, then an approval.
    let garbage = "garbage\n".repeat(usize::try_from(READ_BUDGET).expect("budget") * 3 / 8);
    append(&path, garbage.as_bytes());
    append(
        &path,
        format!("{}\n", line(&request_message("e", "t"), true, "in")).as_bytes(),
    );
    let mut steps = 0;
    let mut found = Vec::new();
    loop {
        found.extend(reader.read_messages().expect("read"));
        steps += 1;
        if !reader.behind() {
            break;
        }
    }
    assert!(steps >= 3, "read in {steps} steps");
    assert!(
        matches!(found.as_slice(), [RecorderMessage::Approval(request)] if request.id == "e"),
        "{found:?}"
    );
}
