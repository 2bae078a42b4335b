//! Property tests of the scrubber.

use super::*;

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

#[path = "stream_properties.rs"]
mod stream_properties;
