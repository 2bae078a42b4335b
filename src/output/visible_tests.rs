//! Tests of card text: the hostile titles and properties over any
//! input — no invisible character survives, the length is bounded, and
//! nothing is lost silently (the shown text plus its "N more" accounts
//! for every input character that is not a stripped control).

use proptest::prelude::*;

use super::*;

/// How many input characters `shown` stands for, read back from its
/// escapes, markers and cut; `None` when it is not card text.
fn accounted(shown: &Shown) -> Option<usize> {
    let mut text = shown.text.as_str();
    let mut count = 0;
    if !shown.complete {
        let (head, tail) = text.rsplit_once(" … (")?;
        count += tail
            .strip_suffix(" more characters)")?
            .parse::<usize>()
            .ok()?;
        text = head;
    }
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != OPEN {
            count += 1;
            continue;
        }
        let inner: String = chars.by_ref().take_while(|&c| c != CLOSE).collect();
        if let Some(hex) = inner.strip_prefix("U+") {
            u32::from_str_radix(hex, 16).ok()?;
            count += 1;
        } else {
            let (length, kind) = inner.split_once(' ')?;
            let length: usize = length.parse().ok()?;
            let kinds = ["spaces", "tabs", "newlines", "whitespace characters"];
            if length <= MAX_WHITESPACE_RUN || !kinds.contains(&kind) {
                return None;
            }
            count += length;
        }
    }
    Some(count)
}

fn not_stripped(text: &str) -> usize {
    text.chars().filter(|&c| !is_stripped(c)).count()
}

#[test]
fn a_padded_tail_is_shown_behind_one_marker() {
    let command = format!("echo hi{}; curl x | sh", " ".repeat(1100));
    let shown = visible(&command);
    assert_eq!(shown.text, "echo hi⟨1100 spaces⟩; curl x | sh");
    assert!(shown.complete);
    // Eight are kept as they are; a mixed run is named as such.
    assert_eq!(visible("a        b").text, "a        b");
    assert_eq!(visible("a\t\t\t\t\t\t\t\t\tb").text, "a⟨9 tabs⟩b");
    assert_eq!(
        visible(&format!("a{}b", "\n".repeat(20))).text,
        "a⟨20 newlines⟩b"
    );
    assert_eq!(
        visible(&format!("a{}\n\tb", " ".repeat(10))).text,
        "a⟨12 whitespace characters⟩b"
    );
    // A short run keeps one line one line.
    assert_eq!(visible("a\nb\tc").text, "a⟨U+000A⟩b⟨U+0009⟩c");
}

#[test]
fn tag_characters_and_other_invisibles_are_escaped_not_dropped() {
    let hidden: String = " ; rm -rf ~"
        .chars()
        .map(|c| char::from_u32(0xE0000 + u32::from(c)).expect("tag"))
        .collect();
    let shown = visible(&format!("ls{hidden}"));
    assert!(shown
        .text
        .starts_with("ls⟨U+E0020⟩⟨U+E003B⟩⟨U+E0020⟩⟨U+E0072⟩⟨U+E006D⟩"));
    assert_eq!(shown.text.matches(OPEN).count(), 11);
    for (c, escape) in [
        ('\u{200B}', "⟨U+200B⟩"),
        ('\u{2060}', "⟨U+2060⟩"),
        ('\u{2064}', "⟨U+2064⟩"),
        ('\u{FEFF}', "⟨U+FEFF⟩"),
        ('\u{00AD}', "⟨U+00AD⟩"),
        ('\u{2028}', "⟨U+2028⟩"),
        ('\u{2029}', "⟨U+2029⟩"),
        ('\u{E007F}', "⟨U+E007F⟩"),
        ('\u{00A0}', "⟨U+00A0⟩"),
        ('⟨', "⟨U+27E8⟩"),
    ] {
        assert_eq!(visible(&format!("a{c}b")).text, format!("a{escape}b"));
    }
}

#[test]
fn controls_and_bidi_controls_are_stripped() {
    let shown = visible("Running: \u{1b}]0;pwned\u{7}ls\u{202E}cba\u{2066}\u{9b}");
    assert_eq!(shown.text, "Running: ]0;pwnedlscba");
    assert!(shown.complete);
}

#[test]
fn a_long_field_is_cut_with_a_count_and_is_not_complete() {
    let long = "x".repeat(20 * 1024);
    let shown = visible(&long);
    assert!(!shown.complete);
    assert_eq!(
        shown.text,
        format!("{} … (4096 more characters)", "x".repeat(MAX_FIELD_BYTES))
    );
    let exact = visible(&"y".repeat(MAX_FIELD_BYTES));
    assert!(exact.complete && exact.text.len() == MAX_FIELD_BYTES);
    // A cut never splits an escape.
    let shown = visible_within("ab\u{200B}cd", 5);
    assert_eq!(shown.text, "ab … (3 more characters)");
}

#[test]
fn paths_are_all_shown_up_to_the_bound() {
    let paths: Vec<String> = (0..5000).map(|n| format!("/w/{n}")).collect();
    let (shown, complete) = visible_paths(&paths);
    assert!(!complete);
    assert_eq!(shown.len(), MAX_PATHS + 1);
    assert_eq!(shown[255], "/w/255");
    assert_eq!(shown[256], "… and 4744 more");
    let (shown, complete) = visible_paths(&paths[..MAX_PATHS]);
    assert!(complete && shown.len() == MAX_PATHS);
    let long = vec!["p".repeat(MAX_FIELD_BYTES + 1)];
    assert!(!visible_paths(&long).1);
}

fn hostile_char() -> impl Strategy<Value = char> {
    prop_oneof![
        any::<char>(),
        Just(' '),
        Just('\t'),
        Just('\n'),
        Just('\u{200B}'),
        Just('\u{E0072}'),
        Just('\u{202E}'),
        Just('\u{1b}'),
        Just('⟨'),
        Just('⟩'),
        Just('é'),
        Just('a'),
    ]
}

proptest! {
    #[test]
    fn no_invisible_character_survives(text in proptest::collection::vec(hostile_char(), 0..300)) {
        let text: String = text.into_iter().collect();
        let shown = visible(&text);
        for c in shown.text.chars() {
            prop_assert!(c == OPEN || c == CLOSE || c == '…' || shown_as_itself(c), "{c:?} in {:?}", shown.text);
            prop_assert!(c == ' ' || !c.is_whitespace(), "{c:?} in {:?}", shown.text);
        }
    }

    #[test]
    fn the_length_is_bounded_and_every_character_is_accounted_for(
        text in proptest::collection::vec(hostile_char(), 0..400),
        bound in 1usize..200,
    ) {
        let text: String = text.into_iter().collect();
        let shown = visible_within(&text, bound);
        let marker = " … ( more characters)".len() + 20;
        prop_assert!(shown.text.len() <= bound + marker, "{} > {bound}", shown.text.len());
        prop_assert_eq!(accounted(&shown), Some(not_stripped(&text)), "{:?}", shown.text);
        if shown.complete {
            prop_assert!(shown.text.len() <= bound);
        }
    }
}
