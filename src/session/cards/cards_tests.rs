#![allow(clippy::disallowed_methods)] // test fixtures use std::fs directly
//! Tests of the card book: states, the first verdict wins, terminal wins,
//! confirmation, untrusted titles and the scrubbed history.

use super::*;
use crate::output::visible::{MAX_FIELD_BYTES, MAX_PATHS};
use crate::session::refusal::{DeliveryRefusal, RefusalCode};
use crate::session::signals::recorder::tests::{line, request_message};
use crate::session::signals::recorder::{parse_line, RecorderMessage};

fn request(id: &str, title: &str) -> ApprovalRequest {
    let text = line(&request_message(id, title), true, "in");
    match parse_line(text.as_bytes()) {
        Some(RecorderMessage::Approval(request)) => request,
        other => panic!("not an approval: {other:?}"),
    }
}

fn answer(id: &str, option: Option<&str>) -> ApprovalResponse {
    ApprovalResponse {
        id: id.into(),
        option_id: option.map(str::to_owned),
    }
}

fn book() -> CardBook {
    CardBook::new("default", None, None)
}

#[test]
fn card_ids_keep_the_session_prefix_and_are_new_for_each_card() {
    let prefix = card_prefix("kiro", "default");
    let id = card_id(&prefix);
    assert!(id.starts_with("kiro_default_") && id.len() == "kiro_default_".len() + 16);
    assert_ne!(id, card_id(&prefix));
    // One request id seen by two books (two supervisor runs): two cards.
    let first = book().open(request("r1", "Running: pwd"));
    let second = book().open(request("r1", "Running: pwd"));
    assert_ne!(first.id, second.id);
}

#[test]
fn titles_are_card_text() {
    let card = book().open(request("r1", "Running: \u{1b}]0;pwned\u{7}ls\u{200B}"));
    assert_eq!(card.title, "Running: ]0;pwnedls⟨U+200B⟩");
    assert!(card.complete);
    let card = book().open(request("r2", &"é".repeat(20_000)));
    assert!(!card.complete);
    assert!(
        card.title.ends_with(" … (11808 more characters)"),
        "{}",
        &card.title[card.title.len() - 40..]
    );
}

#[test]
fn an_incomplete_card_is_refused_accept_but_may_be_declined() {
    let mut book = book();
    let mut asked = request("r1", "Running: long");
    asked.detail.command = Some("x".repeat(20 * 1024));
    let card = book.open(asked);
    assert!(!card.complete);
    assert_eq!(
        book.claim(&card.id, Verdict::Accept).map(|_| ()),
        Err(Refusal::Incomplete(card.id.clone()))
    );
    assert_eq!(
        book.card(&card.id).map(|card| card.state),
        Some(CardState::Pending)
    );
    let (claimed, _) = book.claim(&card.id, Verdict::Decline).expect("decline");
    assert_eq!(claimed.state, CardState::Delivering);
    assert_eq!(Refusal::Incomplete(card.id).code(), "incomplete");
}

#[test]
fn a_record_without_complete_reads_as_not_complete() {
    let old = r#"{"id":"kiro_default_1","title":"t","state":"pending","created_at":"2026-01-01T00:00:00Z"}"#;
    let card: Card = serde_json::from_str(old).expect("old card");
    assert!(!card.complete);
    let written = serde_json::to_value(book().open(request("r1", "t"))).expect("json");
    assert_eq!(written["complete"], true);
}

#[test]
fn accept_delivered_then_confirmed() {
    let mut book = book();
    let card = book.open(request("r1", "Running: pwd"));
    assert_eq!(card.state, CardState::Pending);
    let (card, _cancel) = book.claim(&card.id, Verdict::Accept).expect("claim");
    assert_eq!(card.state, CardState::Delivering);
    let card = book.delivery_ended(&card.id, Ok(())).expect("ended");
    assert_eq!(card.state, CardState::Delivered);
    assert_eq!(card.resolved_at, None);
    let card = book
        .resolved(answer("r1", Some("allow_once")))
        .expect("confirmed");
    assert_eq!(card.state, CardState::Accepted);
    assert!(card.resolved_at.is_some());
}

#[test]
fn decline_and_cancel_are_told_apart_by_the_verdict() {
    for (verdict, expected) in [
        (Verdict::Decline, CardState::Declined),
        (Verdict::Cancel, CardState::Cancelled),
    ] {
        let mut book = book();
        let card = book.open(request("r1", "t"));
        book.claim(&card.id, verdict).expect("claim");
        book.delivery_ended(&card.id, Ok(())).expect("ended");
        let card = book
            .resolved(answer("r1", Some("reject_once")))
            .expect("confirmed");
        assert_eq!(card.state, expected);
    }
}

#[test]
fn the_first_verdict_wins_and_a_second_is_refused() {
    let mut book = book();
    let card = book.open(request("r1", "t"));
    book.claim(&card.id, Verdict::Accept).expect("first");
    let refused = book.claim(&card.id, Verdict::Decline).expect_err("second");
    assert_eq!(
        refused.to_string(),
        format!("card `{}` is no longer pending (it is delivering)", card.id)
    );
    assert!(matches!(
        book.claim("nope", Verdict::Accept),
        Err(Refusal::Unknown(_))
    ));
}

#[test]
fn the_terminal_answering_first_cancels_the_delivery() {
    let mut book = book();
    book.open(request("r1", "t"));
    let card = book.resolved(answer("r1", None)).expect("resolved");
    assert_eq!(card.state, CardState::AnsweredInTerminal);
    assert!(book.claim(&card.id, Verdict::Accept).is_err());

    // Mid-delivery: the flag stops the keys; the end says terminal.
    let card = book.open(request("r2", "t"));
    let (_, cancel) = book.claim(&card.id, Verdict::Decline).expect("claim");
    assert!(book.resolved(answer("r2", Some("allow_once"))).is_none());
    assert!(cancel.is_cancelled());
    let card = book
        .delivery_ended(&card.id, Err(DeliveryRefusal::AnsweredInTerminal))
        .expect("ended");
    assert_eq!(card.state, CardState::AnsweredInTerminal);
}

#[test]
fn a_failed_delivery_keeps_its_reason_and_late_responses_do_not_change_it() {
    let mut book = book();
    let card = book.open(request("r1", "t"));
    book.claim(&card.id, Verdict::Accept).expect("claim");
    let card = book
        .delivery_ended(
            &card.id,
            Err(DeliveryRefusal::NotThisPrompt("rm -rf /\u{1b}[2J".into())),
        )
        .expect("ended");
    assert_eq!(card.state, CardState::DeliveryFailed);
    let refused = card.refused.clone().expect("refused");
    assert_eq!(refused.code, RefusalCode::AnotherPrompt);
    assert!(!refused.message.contains('\u{1b}'), "{}", refused.message);
    assert_eq!(card.reason.as_ref(), Some(&refused.message));
    let json = serde_json::to_value(&card).expect("json");
    assert_eq!(json["refused"]["code"], "another_prompt", "{json}");
    assert_eq!(json["refused"]["message"], json["reason"], "{json}");
    assert!(book.resolved(answer("r1", Some("allow_once"))).is_none());
    assert_eq!(
        book.card(&card.id).expect("card").state,
        CardState::DeliveryFailed
    );
}

#[test]
fn the_history_is_scrubbed_and_private() {
    use std::os::unix::fs::PermissionsExt;
    let temp = tempfile::tempdir().expect("tempdir");
    let history = temp.path().join("cards.jsonl");
    let rules = crate::adapter::data::AdapterData::builtin()
        .expect("data")
        .credentials;
    let scrubber = Scrubber::new(
        vec![("KIRO_API_KEY".into(), "ksk_supersecretvalue".into())],
        &rules,
    );
    let mut book = CardBook::new("default", Some(history.clone()), Some(scrubber));
    let card = book.open(request("r1", "Running: curl -H ksk_supersecretvalue"));
    assert!(
        !card.title.contains("ksk_supersecretvalue"),
        "{}",
        card.title
    );
    let text = fs_err::read_to_string(&history).expect("history");
    assert!(!text.contains("ksk_supersecretvalue"), "{text}");
    let stored: Card = serde_json::from_str(text.lines().next().expect("line")).expect("card");
    assert_eq!(stored.id, card.id);
    let mode = fs_err::metadata(&history)
        .expect("meta")
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600);
}

#[test]
fn a_title_and_a_reason_are_scrubbed_before_they_are_cut() {
    let secret = "AkiaSecretValueXyz0123456";
    let rules = crate::adapter::data::AdapterData::builtin()
        .expect("data")
        .credentials;
    let scrubber = Scrubber::new(vec![("KIRO_API_KEY".into(), secret.into())], &rules);
    let mut book = CardBook::new("default", None, Some(scrubber));
    let across_the_cut = format!("{}{secret} tail", "x".repeat(MAX_FIELD_BYTES - 24));
    let card = book.open(request("r1", &across_the_cut));
    assert!(!card.title.contains(&secret[..10]), "{}", card.title);
    assert!(
        card.title.ends_with("[redacted] tail"),
        "{}",
        &card.title[card.title.len() - 40..]
    );
    book.claim(&card.id, Verdict::Accept).expect("claimed");
    let failed = book
        .delivery_ended(
            &card.id,
            Err(DeliveryRefusal::NotThisPrompt(across_the_cut.clone())),
        )
        .expect("ended");
    let reason = failed.reason.expect("a reason");
    assert!(!reason.contains(&secret[..10]), "{reason}");
    let refused = failed.refused.expect("refused");
    assert!(
        !refused.message.contains(&secret[..10]),
        "{}",
        refused.message
    );
}

#[test]
fn tool_details_are_scrubbed_before_they_are_cut_and_paths_are_bounded() {
    let secret = "AkiaSecretValueXyz0123456";
    let rules = crate::adapter::data::AdapterData::builtin()
        .expect("data")
        .credentials;
    let scrubber = Scrubber::new(vec![("KIRO_API_KEY".into(), secret.into())], &rules);
    let mut book = CardBook::new("default", None, Some(scrubber));
    let across_the_cut = format!("{}{secret} tail", "x".repeat(MAX_FIELD_BYTES - 24));
    let mut asked = request("r1", "Running: ls");
    asked.detail.command = Some(across_the_cut.clone());
    asked.detail.cwd = Some(across_the_cut.clone());
    asked.detail.kind = Some(across_the_cut.clone());
    asked.detail.paths = vec![across_the_cut.clone(); MAX_PATHS + 7];
    let card = book.open(asked);
    let mut texts = vec![card.command.clone(), card.cwd.clone(), card.kind.clone()];
    texts.extend(card.paths.iter().cloned().map(Some));
    for text in texts.into_iter().flatten() {
        assert!(!text.contains(&secret[..10]), "{text}");
    }
    assert_eq!(card.paths.len(), MAX_PATHS + 1, "{:?}", card.paths.last());
    assert_eq!(card.paths.last().map(String::as_str), Some("… and 7 more"));
}

#[test]
fn the_book_forgets_the_oldest_resolved_cards_beyond_its_bound() {
    let mut book = book();
    let first = book.open(request("r0", "Running: first"));
    book.resolved(answer("r0", Some("allow")))
        .expect("resolved");
    let pending = book.open(request("p", "Running: still waiting"));
    let mut newest = None;
    for index in 1..=MAX_CARDS + 5 {
        let id = format!("r{index}");
        newest = Some(book.open(request(&id, "Running: ls")));
        book.resolved(answer(&id, Some("allow"))).expect("resolved");
    }
    let newest = newest.expect("a card");
    let cards = book.cards();
    assert!(cards.len() <= MAX_CARDS, "{} cards kept", cards.len());
    assert!(
        book.card(&first.id).is_none(),
        "the oldest resolved card goes"
    );
    assert!(book.card(&pending.id).is_some(), "a pending card stays");
    assert!(book.card(&newest.id).is_some());
}
