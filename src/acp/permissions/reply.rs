//! Matching a reply to a choice: the ordinal, the shown label (English or
//! Chinese), the agent's native label or its option id. An exact match (ignoring
//! case) wins; otherwise a prefix that names exactly one choice. A reply
//! that fits several choices is refused with the candidates listed — never
//! guessed.

use super::Choice;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Matched {
    /// The index into the choices.
    One(usize),
    /// Several choices fit; their display lines.
    Ambiguous(Vec<String>),
    NoMatch,
}

fn names(choice: &Choice) -> Vec<&str> {
    let shown = &choice.shown;
    let mut names = vec![
        shown.option_id.as_str(),
        shown.label.as_str(),
        shown.label_zh.as_str(),
    ];
    if let Some(native) = &shown.native_label {
        names.push(native);
    }
    names
}

fn fold(text: &str) -> String {
    text.trim().to_lowercase()
}

pub fn match_reply(choices: &[Choice], reply: &str) -> Matched {
    let reply = fold(reply);
    if reply.is_empty() {
        return Matched::NoMatch;
    }
    if let Ok(ordinal) = reply.parse::<usize>() {
        return match choices
            .iter()
            .position(|choice| choice.shown.ordinal == ordinal)
        {
            Some(index) => Matched::One(index),
            None => Matched::NoMatch,
        };
    }
    let pick = |accept: &dyn Fn(&str) -> bool| -> Vec<usize> {
        choices
            .iter()
            .enumerate()
            .filter(|(_, choice)| names(choice).into_iter().any(|name| accept(&fold(name))))
            .map(|(index, _)| index)
            .collect()
    };
    let exact = pick(&|name| name == reply);
    let found = if exact.is_empty() {
        pick(&|name| name.starts_with(&reply))
    } else {
        exact
    };
    match found.as_slice() {
        [] => Matched::NoMatch,
        [one] => Matched::One(*one),
        many => Matched::Ambiguous(
            many.iter()
                .map(|index| {
                    format!(
                        "{}. {}",
                        choices[*index].shown.ordinal,
                        choices[*index].display()
                    )
                })
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::{choices, PermissionAsk};
    use super::*;

    fn sample() -> Vec<Choice> {
        choices(
            &PermissionAsk::parse(&json!({
                "toolCall": {"title":"Run ls","kind":"execute"},
                "options": [
                    {"optionId":"proceed_once","name":"Yes, run it","kind":"allow_once"},
                    {"optionId":"proceed_always","name":"Yes, always","kind":"allow_always"},
                    {"optionId":"cancel","name":"No","kind":"reject_once"}
                ]
            })),
            "Acme Agent",
        )
    }

    #[test]
    fn every_accepted_form_finds_its_choice() {
        let choices = sample();
        for (reply, index) in [
            ("Allow once", 0),
            ("allow ONCE", 0),
            ("允许一次", 0),
            ("始终允许", 1),
            ("Yes, always", 1),
            ("proceed_always", 1),
            ("3", 2),
            (" cancel ", 2),
            ("Reject", 2),
            ("本项目内允许", 5),
        ] {
            assert_eq!(match_reply(&choices, reply), Matched::One(index), "{reply}");
        }
    }

    #[test]
    fn ambiguous_and_unknown_replies_are_refused() {
        let choices = sample();
        let Matched::Ambiguous(candidates) = match_reply(&choices, "allow") else {
            panic!("`allow` fits several choices");
        };
        assert!(candidates.len() >= 2, "{candidates:?}");
        assert!(candidates[0].starts_with("1. Allow once"), "{candidates:?}");
        assert!(matches!(
            match_reply(&choices, "yes"),
            Matched::Ambiguous(_)
        ));
        assert_eq!(match_reply(&choices, "maybe"), Matched::NoMatch);
        assert_eq!(match_reply(&choices, "99"), Matched::NoMatch);
        assert_eq!(match_reply(&choices, "  "), Matched::NoMatch);
    }
}
