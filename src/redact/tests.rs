//! Tests of the scrubber against SPEC §6.2.

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

// ---- property tests -------------------------------------------------------

/// Secrets of at least 8 characters, with characters that need percent
/// encoding, base64 `+`/`/`/`=` material, spaces and non-ASCII, but no JSON
/// syntax, and not inside the marker.
fn secret() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9+/=% ~._\\-éü日!?*]{8,24}".prop_filter("not inside the marker", |value| {
        !REDACTED.contains(value.as_str())
    })
}

fn secrets() -> impl Strategy<Value = Vec<String>> {
    vec(secret(), 1..4)
}

/// How a secret is written into a test document.
#[derive(Debug, Clone)]
enum Written {
    In(Encoding),
    /// Several rounds of encoding: `true` is form encoding, `false` URL.
    Rounds(Vec<bool>),
}

fn written() -> impl Strategy<Value = Written> {
    prop_oneof![
        3 => (0..Encoding::ALL.len()).prop_map(|index| Written::In(Encoding::ALL[index])),
        1 => vec(any::<bool>(), 1..=4).prop_map(Written::Rounds),
    ]
}

impl Written {
    fn apply(&self, secret: &str) -> String {
        match self {
            Written::In(encoding) => encoding.encode(secret),
            Written::Rounds(rounds) => rounds.iter().fold(secret.to_owned(), |text, &form| {
                let encoding = if form {
                    Encoding::Form
                } else {
                    Encoding::PercentUpper
                };
                encoding.encode(&text)
            }),
        }
    }
}

#[derive(Debug, Clone)]
enum Text {
    Plain(String),
    Embedded {
        secret: usize,
        written: Written,
        before: String,
        after: String,
    },
}

#[derive(Debug, Clone)]
enum Tree {
    Text(Text),
    Number(i64),
    Bool(bool),
    Null,
    Array(Vec<Tree>),
    Object(Vec<(Text, Tree)>),
}

fn filler() -> impl Strategy<Value = String> {
    "[a-z ]{0,8}"
}

fn text() -> impl Strategy<Value = Text> {
    prop_oneof![
        filler().prop_map(Text::Plain),
        (0..8usize, written(), filler(), filler()).prop_map(|(secret, written, before, after)| {
            Text::Embedded {
                secret,
                written,
                before,
                after,
            }
        }),
    ]
}

fn tree() -> impl Strategy<Value = Tree> {
    let leaf = prop_oneof![
        text().prop_map(Tree::Text),
        any::<i64>().prop_map(Tree::Number),
        any::<bool>().prop_map(Tree::Bool),
        Just(Tree::Null),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..6).prop_map(Tree::Array),
            vec((text(), inner), 0..6).prop_map(Tree::Object),
        ]
    })
}

impl Text {
    /// The text, noting in `written` what was written of a secret into it.
    fn write(&self, secrets: &[String], written: &mut Vec<String>) -> String {
        match self {
            Text::Plain(text) => text.clone(),
            Text::Embedded {
                secret,
                written: how,
                before,
                after,
            } => {
                let encoded = how.apply(&secrets[secret % secrets.len()]);
                let text = format!("{before}{encoded}{after}");
                written.push(encoded);
                text
            }
        }
    }
}

impl Tree {
    fn build(&self, secrets: &[String], written: &mut Vec<String>) -> Value {
        match self {
            Tree::Text(content) => Value::String(content.write(secrets, written)),
            Tree::Number(number) => json!(number),
            Tree::Bool(flag) => json!(flag),
            Tree::Null => Value::Null,
            Tree::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|item| item.build(secrets, written))
                    .collect(),
            ),
            Tree::Object(members) => {
                let mut map = serde_json::Map::new();
                for (name, member) in members {
                    let name = name.write(secrets, written);
                    let member = member.build(secrets, written);
                    map.insert(name, member);
                }
                Value::Object(map)
            }
        }
    }
}

/// Flips the case of the characters selected by `flips`.
fn recase(name: &str, flips: &[bool]) -> String {
    name.chars()
        .zip(flips.iter().cycle())
        .map(|(character, &flip)| {
            if flip {
                character.to_ascii_lowercase()
            } else {
                character.to_ascii_uppercase()
            }
        })
        .collect()
}

fn keys(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (name, member) in map {
                out.push(name.clone());
                keys(member, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| keys(item, out)),
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_encoders_round_trip(secret in secret()) {
        let decode_url = |text: &str| {
            percent_encoding::percent_decode_str(text).decode_utf8().map(|decoded| decoded.into_owned())
        };
        prop_assert_eq!(decode_url(&Encoding::PercentUpper.encode(&secret)).ok(), Some(secret.clone()));
        prop_assert_eq!(decode_url(&Encoding::PercentLower.encode(&secret)).ok(), Some(secret.clone()));
        let form = Encoding::Form.encode(&secret);
        prop_assert!(!form.contains(' '));
        prop_assert_eq!(decode_url(&form.replace('+', " ")).ok(), Some(secret.clone()));
        for (encoding, engine) in [
            (Encoding::Base64, &STANDARD),
            (Encoding::Base64NoPad, &STANDARD_NO_PAD),
            (Encoding::Base64Url, &URL_SAFE),
            (Encoding::Base64UrlNoPad, &URL_SAFE_NO_PAD),
        ] {
            let decoded = engine.decode(encoding.encode(&secret)).ok();
            prop_assert_eq!(decoded, Some(secret.clone().into_bytes()));
        }
    }

    #[test]
    fn no_secret_survives_in_any_encoding(secrets in secrets(), document in tree()) {
        let mut written = Vec::new();
        let mut value = document.build(&secrets, &mut written);
        let scrubber = scrubber_for(&secrets.iter().map(String::as_str).collect::<Vec<_>>());
        scrubber.scrub_json(&mut value);
        let out = serde_json::to_string(&value).expect("serializes");
        for secret in &secrets {
            for encoding in Encoding::ALL {
                let encoded = encoding.encode(secret);
                prop_assert!(!out.contains(&encoded), "{} of {:?} in {}", encoding.name(), secret, out);
            }
        }
        for encoded in &written {
            prop_assert!(!out.contains(encoded.as_str()), "{:?} in {}", encoded, out);
        }
        // The same document scrubbed as text gives the same result.
        let original = serde_json::to_string(&document.build(&secrets, &mut Vec::new())).expect("serializes");
        let as_text: Value = serde_json::from_str(&scrubber.scrub_json_text(&original)).expect("still JSON");
        prop_assert_eq!(as_text, value);
    }

    #[test]
    fn a_secret_inside_longer_base64_is_cut_out_at_every_alignment(
        secret in secret(),
        before in vec(any::<u8>(), 0..10),
        after in vec(any::<u8>(), 0..10),
        url_safe in any::<bool>(),
        padded in any::<bool>(),
    ) {
        let engine = match (url_safe, padded) {
            (false, true) => &STANDARD,
            (false, false) => &STANDARD_NO_PAD,
            (true, true) => &URL_SAFE,
            (true, false) => &URL_SAFE_NO_PAD,
        };
        let mut bytes = before.clone();
        bytes.extend_from_slice(secret.as_bytes());
        bytes.extend_from_slice(&after);
        let blob = engine.encode(&bytes);
        let scrubber = scrubber_for(&[&secret]);
        let out = scrubber.scrub_str(&blob);
        // Base64 character i carries input bits 6i..6i+6. Every character
        // carrying a bit of the secret must go; every other one must stay.
        let secret_bits = 8 * before.len()..8 * (before.len() + secret.len());
        let kept_before = secret_bits.start / 6;
        let kept_after = secret_bits.end.div_ceil(6);
        let expected = format!("{}{REDACTED}{}", &blob[..kept_before], &blob[kept_after..]);
        // Padding after a secret at the very end goes with it.
        prop_assert_eq!(out.trim_end_matches('='), expected.trim_end_matches('='), "lead {}", before.len() % 3);
    }

    #[test]
    fn credential_names_are_dropped_in_any_case(
        pick in any::<prop::sample::Index>(),
        flips in vec(any::<bool>(), 1..8),
        depth in 0..4usize,
        middle in "[A-Z]{1,6}",
        suffix in prop::sample::select(vec!["API_KEY", "TOKEN", "SECRET", "PASSWORD"]),
    ) {
        let rules = rules();
        let listed = rules.names[pick.index(rules.names.len())].clone();
        let prefixed = format!("KIRO_{middle}_{suffix}");
        let mut value = json!({"keep": "kept"});
        for name in [&listed, &prefixed] {
            value[recase(name, &flips)] = json!("v");
        }
        for level in 0..depth {
            let mut map = serde_json::Map::new();
            map.insert(format!("level{level}"), json!([value]));
            map.insert(recase(&listed, &flips), json!({"x": 1}));
            value = Value::Object(map);
        }
        Scrubber::new(Vec::new(), &rules).scrub_json(&mut value);
        let mut names = Vec::new();
        keys(&value, &mut names);
        prop_assert!(names.iter().all(|name| !rules.is_credential_name(name)), "{:?}", names);
        prop_assert!(names.iter().any(|name| name == "keep"));
        prop_assert_eq!(names.len(), depth + 1);
    }

    #[test]
    fn short_secrets_replace_only_equal_strings(
        secret in "[a-zA-Z0-9+/=% é]{1,7}",
        before in "[a-z ]{1,20}",
        after in "[a-z ]{1,20}",
    ) {
        let scrubber = scrubber_for(&[&secret]);
        for encoding in Encoding::ALL {
            let encoded = encoding.encode(&secret);
            prop_assert_eq!(scrubber.scrub_str(&encoded), REDACTED);
        }
        let text = format!("{before}{secret}{after}");
        let is_an_encoding = Encoding::ALL.iter().any(|encoding| encoding.encode(&secret) == text);
        prop_assume!(!is_an_encoding && !text.contains(['%', '+']));
        prop_assert_eq!(scrubber.scrub_str(&text), text.as_str());
    }

    #[test]
    fn text_without_a_secret_is_borrowed_unchanged(
        secret in "[A-Z0-9]{8,16}",
        text in "[a-z %+]{0,60}",
    ) {
        let scrubber = scrubber_for(&[&secret]);
        let out = scrubber.scrub_str(&text);
        prop_assert!(matches!(out, Cow::Borrowed(kept) if std::ptr::eq(kept, text.as_str())));
    }

    #[test]
    fn a_lone_malformed_fragment_survives(
        secret in secret(),
        before in "[a-z ]{0,10}",
        fragment in "%[g-z][g-z]|%[0-9a-f]?",
    ) {
        let scrubber = scrubber_for(&[&secret]);
        let text = format!("{before}{fragment}");
        prop_assert_eq!(scrubber.scrub_str(&text), text.as_str());
        let with_secret = format!("{text} {secret}");
        prop_assert_eq!(scrubber.scrub_str(&with_secret), format!("{text} {REDACTED}"));
    }
}
