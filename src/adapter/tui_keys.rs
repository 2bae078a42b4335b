//! `tui.keys` of an adapter data file: the tmux keys that move
//! the focus of the approval box and confirm, the key that declines from
//! any row, and the keys typed for each verdict of a box answered by its
//! own keys. Each name is checked when read: one tmux knows.

use serde::Deserialize;

use super::tui_grammar::{shown, GrammarError, WholePattern, NAMED_KEYS};

/// The keys of the keystroke bridge.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "KeyFields")]
pub struct KeyNames {
    /// Moves the focus one row towards reject (`Down`; `Right` for a
    /// `line` layout).
    pub next: KeyName,
    /// Chooses the focused row (`Enter`).
    pub confirm: KeyName,
    /// Declines at once from whichever row has the focus (`Escape`), for
    /// a box whose reject row does not answer on `confirm` (a text field):
    /// decline and cancel then verify the box, settle, verify, and press
    /// this one key; no moves.
    pub reject: Option<KeyName>,
    /// The keys typed for each verdict, for a box answered by its own
    /// keys rather than by moving the focus (`y`; `Escape`, then `Enter`
    /// on the reason field it opens). When given, they replace the moves
    /// above.
    pub verdicts: Option<VerdictKeys>,
}

/// The keys of each verdict, sent one per `send-keys` with the render gap
/// between them (an agent that reads a burst in one read drops keys).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VerdictKeys {
    pub accept: Vec<KeyStep>,
    pub decline: Vec<KeyStep>,
    /// Absent: cancel types decline's keys.
    #[serde(default)]
    pub cancel: Option<Vec<KeyStep>>,
}

/// One key of a verdict and what the screen must show before it is sent.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KeyStep {
    pub key: KeyName,
    /// A line of the screen (trimmed) matching this whole must show (the
    /// field the previous key opened), waited for up to `focusWaitMs`.
    /// Absent: the box itself, showing the card's request, with its focus
    /// where it was.
    #[serde(default)]
    pub screen: Option<WholePattern>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct KeyFields {
    next: String,
    confirm: String,
    #[serde(default)]
    reject: Option<String>,
    #[serde(default)]
    verdicts: Option<VerdictKeys>,
}

impl TryFrom<KeyFields> for KeyNames {
    type Error = GrammarError;

    /// Each name checked, the error naming its field.
    fn try_from(fields: KeyFields) -> Result<Self, GrammarError> {
        let named = |field: &'static str, name: &str| {
            KeyName::new(name).map_err(|reason| GrammarError::Key {
                field,
                reason: Box::new(reason),
            })
        };
        Ok(KeyNames {
            next: named("next", &fields.next)?,
            confirm: named("confirm", &fields.confirm)?,
            reject: fields
                .reject
                .map(|name| named("reject", &name))
                .transpose()?,
            verdicts: fields.verdicts,
        })
    }
}

/// A tmux key name the bridge may send: `Up Down Left Right Tab BTab Enter
/// Escape Space`, a digit, a single lowercase letter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyName(String);

impl KeyName {
    pub fn new(name: &str) -> Result<KeyName, GrammarError> {
        let single = {
            let mut chars = name.chars();
            matches!((chars.next(), chars.next()), (Some(c), None) if c.is_ascii_digit() || c.is_ascii_lowercase())
        };
        if single || NAMED_KEYS.contains(&name) {
            Ok(KeyName(name.to_owned()))
        } else {
            Err(GrammarError::UnknownKey(shown(name)))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for KeyName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        KeyName::new(&text).map_err(serde::de::Error::custom)
    }
}
