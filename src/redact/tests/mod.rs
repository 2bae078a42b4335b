//! Tests of the scrubber: every encoding, chunk boundaries, cuts.

use std::borrow::Cow;

use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use base64::Engine;
use proptest::collection::vec;
use proptest::prelude::*;
use serde_json::{json, Value};

use super::*;
use crate::adapter::data::AdapterData;

fn rules() -> CredentialRules {
    AdapterData::builtin()
        .expect("built-in adapter data")
        .credentials
}

fn scrubber_for(values: &[&str]) -> Scrubber {
    let secrets = values
        .iter()
        .enumerate()
        .map(|(number, value)| (format!("KIRO_TEST{number}_API_KEY"), (*value).to_owned()))
        .collect();
    Scrubber::new(secrets, &rules())
}

/// Contains a reserved ASCII character, a two-byte character, a space and
/// bytes whose base64 uses `+`/`-`; 13 bytes, so base64 pads with `==`.
const SECRET: &str = "k3y?>~é f+/!";

#[test]
fn scrubbers_can_be_shared_between_threads() {
    fn shareable<T: Clone + Send + Sync>() {}
    shareable::<Scrubber>();
}

#[test]
fn each_encoding_is_replaced_in_place() {
    let scrubber = scrubber_for(&[SECRET]);
    // Reference values computed independently with Python's urllib and base64.
    let encoded = [
        SECRET,
        "k3y%3F%3E~%C3%A9%20f%2B%2F%21",
        "k3y%3f%3e~%c3%a9%20f%2b%2f%21",
        "k3y%3F%3E~%C3%A9+f%2B%2F%21",
        "k3y%3f%3e~%c3%a9+f%2b%2f%21",
        "azN5Pz5+w6kgZisvIQ==",
        "azN5Pz5+w6kgZisvIQ",
        "azN5Pz5-w6kgZisvIQ==",
        "azN5Pz5-w6kgZisvIQ",
    ];
    for form in encoded {
        let text = format!("before <{form}> after");
        assert_eq!(
            scrubber.scrub_str(&text),
            "before <[redacted]> after",
            "{form}"
        );
    }
}

#[test]
fn every_occurrence_is_replaced() {
    let scrubber = scrubber_for(&["correct-horse-battery"]);
    assert_eq!(
        scrubber.scrub_str("a correct-horse-battery b correct-horse-battery c"),
        "a [redacted] b [redacted] c"
    );
}

#[test]
fn adjacent_and_overlapping_occurrences_leave_nothing() {
    // The second secret starts inside the first one's occurrence.
    let scrubber = scrubber_for(&["abcdefghij", "hijklmnopq"]);
    assert_eq!(scrubber.scrub_str("<abcdefghijklmnopq>"), "<[redacted]>");
    assert_eq!(scrubber.scrub_str("abcdefghijabcdefghij"), "[redacted]");
}

#[test]
fn the_marker_never_completes_another_secret() {
    // Replacing the first secret leaves `[redacted]tail-part`, which holds
    // the second.
    let scrubber = scrubber_for(&["abcdefghij", "d]tail-part"]);
    assert_eq!(scrubber.scrub_str("xx abcdefghijtail-part yy"), REDACTED);
    assert_eq!(
        scrubber.scrub_str("xx abcdefghij tail-part yy"),
        "xx [redacted] tail-part yy"
    );
}

#[test]
fn secrets_found_only_after_decoding_remove_the_whole_string() {
    let scrubber = scrubber_for(&[SECRET]);
    let twice_url = "https://host/cb?token=k3y%253F%253E~%25C3%25A9%2520f%252B%252F%2521&x=1";
    assert_eq!(scrubber.scrub_str(twice_url), REDACTED);
    let thrice_form = "q=k3y%25253F%25253E~%2525C3%2525A9%252Bf%25252B%25252F%252521";
    assert_eq!(scrubber.scrub_str(thrice_form), REDACTED);
    // Percent-encoding only the reserved characters a browser would, with a
    // `/` left alone: not one of the precomputed forms, found by decoding.
    assert_eq!(scrubber.scrub_str("k3y%3F%3E~%C3%A9%20f%2B/%21"), REDACTED);
}

#[test]
fn five_rounds_of_encoding_are_beyond_the_limit() {
    let mut encoded = "Secret-Value_1!".to_owned();
    for _ in 0..5 {
        encoded = Encoding::PercentUpper.encode(&encoded);
    }
    let scrubber = scrubber_for(&["Secret-Value_1!"]);
    // Four rounds undo all but one round: the single-round pattern then matches.
    assert_eq!(scrubber.scrub_str(&encoded), REDACTED);
    for _ in 0..2 {
        encoded = Encoding::PercentUpper.encode(&encoded);
    }
    assert_eq!(scrubber.scrub_str(&encoded), encoded);
}

#[test]
fn short_secrets_remove_only_strings_equal_to_them() {
    let scrubber = scrubber_for(&["hunter2", "on", "e"]);
    for equal in [
        "hunter2",
        "aHVudGVyMg==",
        "aHVudGVyMg",
        "on",
        "e",
        "%6F%6E",
        "%256f%256e",
    ] {
        assert_eq!(scrubber.scrub_str(equal), REDACTED, "{equal}");
        assert!(scrubber.contains_secret(equal), "{equal}");
    }
    for kept in [
        "my password is hunter2, see",
        "oneworks",
        "One Works managed Kiro agent",
    ] {
        assert_eq!(scrubber.scrub_str(kept), kept);
        assert!(!scrubber.contains_secret(kept), "{kept}");
    }
    let mut document = json!({"name": "oneworks", "on": "x", "flag": "on", "n": 7});
    scrubber.scrub_json(&mut document);
    assert_eq!(
        document,
        json!({"name": "oneworks", "flag": REDACTED, "n": 7})
    );
}

#[test]
fn short_is_counted_in_characters_not_bytes() {
    // Seven characters, fourteen bytes.
    let scrubber = scrubber_for(&["ééééééé"]);
    assert_eq!(scrubber.scrub_str("x ééééééé y"), "x ééééééé y");
    assert_eq!(scrubber.scrub_str("ééééééé"), REDACTED);
}

#[test]
fn malformed_percent_fragments_are_kept() {
    let scrubber = scrubber_for(&[SECRET]);
    let text = "100%zz done, 50% off, %4";
    assert!(matches!(scrubber.scrub_str(text), Cow::Borrowed(kept) if kept == text));
    assert_eq!(
        scrubber.scrub_str("%zz then k3y%3F%3E~%C3%A9%20f%2B%2F%21 then %G1"),
        "%zz then [redacted] then %G1"
    );
}

#[test]
fn text_without_secrets_is_borrowed() {
    let scrubber = scrubber_for(&[SECRET]);
    let text = "plain text with + and %20 and base64 YWJjZA==";
    assert!(matches!(scrubber.scrub_str(text), Cow::Borrowed(kept) if std::ptr::eq(kept, text)));
}

#[test]
fn empty_secret_values_are_skipped() {
    let scrubber = scrubber_for(&["", ""]);
    assert!(scrubber.is_empty());
    assert_eq!(scrubber.scrub_str("anything"), "anything");
    assert!(!scrubber_for(&["", "value"]).is_empty());
}

#[test]
fn debug_output_does_not_show_secrets() {
    let scrubber = scrubber_for(&["super-secret-value"]);
    let shown = format!("{scrubber:?}");
    assert!(!shown.contains("super-secret-value"), "{shown}");
    assert!(
        !shown.contains(&STANDARD.encode("super-secret-value")),
        "{shown}"
    );
}

#[test]
fn json_drops_credential_names_and_names_holding_secrets() {
    let scrubber = scrubber_for(&["s3cr3t-t0ken-value"]);
    let mut value = json!({
        "aws_secret_access_key": "not even a known value",
        "Kiro_Github_Token": 1,
        "KIRO_TEST0_API_KEY": "x",
        "url?s3cr3t-t0ken-value": "the name holds the secret",
        "czNjcjN0LXQwa2VuLXZhbHVl": "the name holds it in base64",
        "kept": ["s3cr3t-t0ken-value", {"AWS_SESSION_TOKEN": "y", "region": "us-east-1"}],
        "count": 3,
    });
    scrubber.scrub_json(&mut value);
    assert_eq!(
        value,
        json!({"kept": ["[redacted]", {"region": "us-east-1"}], "count": 3})
    );
}

#[test]
fn json_names_are_dropped_even_without_secret_values() {
    let scrubber = Scrubber::new(Vec::new(), &rules());
    assert!(scrubber.is_empty());
    let mut value = json!({"AWS_ACCESS_KEY_ID": "AKIA...", "aws_region": "eu-west-1"});
    scrubber.scrub_json(&mut value);
    assert_eq!(value, json!({"aws_region": "eu-west-1"}));
}

#[test]
fn credential_names_holding_only_a_reference_are_kept() {
    let scrubber = scrubber_for(&["s3cr3t-t0ken-value"]);
    let mut value = json!({"env": {
        "KIRO_API_KEY": "${KIRO_API_KEY}",
        "kiro_test0_api_key": "${OTHER_NAME}",
        "AWS_SESSION_TOKEN": "${AWS_SESSION_TOKEN}x",
        "AWS_SECRET_ACCESS_KEY": "prefix ${AWS_SECRET_ACCESS_KEY}",
        "AWS_ACCESS_KEY_ID": "${not a name}",
        "KIRO_DB_PASSWORD": {"nested": "${KIRO_DB_PASSWORD}"},
        "s3cr3t-t0ken-value": "${KIRO_API_KEY}",
        "region": "${AWS_REGION}",
    }});
    scrubber.scrub_json(&mut value);
    assert_eq!(
        value,
        json!({"env": {
            "KIRO_API_KEY": "${KIRO_API_KEY}",
            "kiro_test0_api_key": "${OTHER_NAME}",
            "region": "${AWS_REGION}",
        }})
    );
}

#[test]
fn json_numbers_holding_a_numeric_secret_are_replaced() {
    let scrubber = scrubber_for(&["12345678901"]);
    let mut value = json!({"id": 9_912_345_678_901_u64, "other": 42});
    scrubber.scrub_json(&mut value);
    assert_eq!(value, json!({"id": "[redacted]", "other": 42}));
}

#[test]
fn json_text_without_changes_keeps_its_bytes() {
    let scrubber = scrubber_for(&[SECRET]);
    let text = "{\n    \"a\": [1,2],   \"b\": \"c\"\n}\n";
    assert_eq!(scrubber.scrub_json_text(text), text);
}

#[test]
fn json_text_with_changes_is_reserialized_in_its_layout() {
    let scrubber = scrubber_for(&[SECRET]);
    let compact = format!("{{\"a\":\"x {SECRET}\",\"AWS_SESSION_TOKEN\":\"t\"}}");
    assert_eq!(
        scrubber.scrub_json_text(&compact),
        r#"{"a":"x [redacted]"}"#
    );
    // The secret with its first character written as a JSON escape.
    let pretty = "{\n  \"a\": \"\\u006b3y?>~\u{e9} f+/!\",\n  \"b\": 1\n}\n";
    assert_eq!(
        scrubber.scrub_json_text(pretty),
        "{\n  \"a\": \"[redacted]\",\n  \"b\": 1\n}\n"
    );
}

#[test]
fn json_lines_are_scrubbed_line_by_line() {
    let scrubber = scrubber_for(&[SECRET]);
    let text = format!(
        "{{\"n\":1}}\n{{\"kiro_api_key\":\"v\",\"m\":\"{SECRET}\"}}\r\nplain {SECRET} line\n{{\"n\": 2}}"
    );
    assert_eq!(
        scrubber.scrub_json_text(&text),
        "{\"n\":1}\n{\"m\":\"[redacted]\"}\r\nplain [redacted] line\n{\"n\": 2}"
    );
}

#[test]
fn non_json_text_is_scrubbed_as_text() {
    let scrubber = scrubber_for(&[SECRET]);
    let text = format!("export KIRO_API_KEY='{SECRET}'");
    assert_eq!(
        scrubber.scrub_json_text(&text),
        "export KIRO_API_KEY='[redacted]'"
    );
}

mod properties;

#[test]
fn a_string_redacted_whole_keeps_its_line_ending() {
    let scrubber = scrubber_for(&["hunter2", SECRET]);
    assert_eq!(scrubber.scrub_str("hunter2\n"), format!("{REDACTED}\n"));
    assert_eq!(scrubber.scrub_str("hunter2\r\n"), format!("{REDACTED}\r\n"));
    let twice = Encoding::PercentUpper.encode(&Encoding::PercentUpper.encode(SECRET));
    assert_eq!(
        scrubber.scrub_str(&format!("url {twice}\n")),
        format!("{REDACTED}\n")
    );
    assert_eq!(
        scrubber.scrub_str(&format!("{SECRET}\n")),
        format!("{REDACTED}\n")
    );
}
