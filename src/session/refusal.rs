//! Refusals, each a variant with a stable machine code beside its
//! sentence; control flow reads the variant, never the words:
//! - [`Refusal`]: an answer the card book refuses (unknown card, not
//!   pending, not shown whole);
//! - [`DeliveryRefusal`]: why the keystroke bridge sent nothing more,
//!   which cards, the approvals socket, `session answer`, the
//!   webhook and the page carry as `"refused": {"code", "message"}`.

use serde::{Deserialize, Serialize};

use super::SessionError;

/// Why an answer was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("no card `{0}` in this session")]
    Unknown(String),
    #[error("card `{id}` is no longer pending (it is {state})")]
    NotPending { id: String, state: &'static str },
    /// Accept of a card part of which no surface but the terminal shows.
    #[error("card `{0}` is too long to show whole: accept it in the terminal, or decline it here")]
    Incomplete(String),
}

impl Refusal {
    /// The refusal's name on the approvals socket (`refusal`), so a client
    /// tells refusals apart without reading their words.
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::Unknown(_) => "unknown",
            Refusal::NotPending { .. } => "not_pending",
            Refusal::Incomplete(_) => "incomplete",
        }
    }
}

/// A tmux call of the pane seam failed (the process did not start, or
/// exited with an error): the action and tmux's own words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tmux `{action}` failed: {detail}")]
pub struct PaneError {
    pub action: String,
    pub detail: String,
}

impl From<SessionError> for PaneError {
    fn from(error: SessionError) -> Self {
        match error {
            SessionError::Tmux { action, message } => PaneError {
                action,
                detail: message,
            },
            other => PaneError {
                action: "tmux".to_owned(),
                detail: other.to_string(),
            },
        }
    }
}

/// Why a delivery stopped before its last key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeliveryRefusal {
    #[error("the approval prompt is no longer visible")]
    PromptGone,
    /// The pane-scrape fallback found a prompt of another content hash.
    #[error("another prompt is on screen")]
    AnotherPrompt,
    /// The prompt on screen shows another tool line (untrusted: stripped
    /// of controls when read; the card scrubs it, then cuts it).
    #[error("the prompt on screen (`{0}`) is not the one of this card")]
    NotThisPrompt(String),
    #[error("the focus is on `{found}` instead of `{expected}`")]
    FocusMoved { found: String, expected: String },
    #[error("the focus is on the last row `{0}`")]
    LastRow(String),
    #[error("the focus did not move to `{to}` within {millis} ms")]
    FocusStuck { to: String, millis: u128 },
    #[error("the prompt was answered in the terminal")]
    AnsweredInTerminal,
    #[error("the prompt advertises no key for this verdict")]
    NoKey,
    /// A hook's card whose box never showed: the screen asks another
    /// request than the hook announced (a box drawn differently, a forged
    /// signal).
    #[error("the agent's box on screen shows another request than its hook announced: answer it in the terminal")]
    NotAnnounced,
    /// The pane shows a prompt, but not a box the adapter's data reads:
    /// oneworks types nothing into it.
    #[error("the prompt on screen is not one oneworks reads: answer it in the terminal")]
    NotRecognised,
    /// The screen a verdict's next key waits for (the field the key
    /// before opened) did not show.
    #[error("`{screen}` did not show within {millis} ms")]
    ScreenMissing { screen: String, millis: u128 },
    #[error(transparent)]
    Tmux(#[from] PaneError),
}

/// A refusal's machine code: what a client reads instead of the sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefusalCode {
    PromptGone,
    AnotherPrompt,
    FocusMoved,
    LastRow,
    FocusStuck,
    AnsweredInTerminal,
    NoKey,
    NotAnnounced,
    NotRecognised,
    ScreenMissing,
    TmuxFailed,
    /// A code this build does not know (a newer supervisor's record).
    #[serde(other)]
    Other,
}

impl RefusalCode {
    pub fn as_str(self) -> &'static str {
        match self {
            RefusalCode::PromptGone => "prompt_gone",
            RefusalCode::AnotherPrompt => "another_prompt",
            RefusalCode::FocusMoved => "focus_moved",
            RefusalCode::LastRow => "last_row",
            RefusalCode::FocusStuck => "focus_stuck",
            RefusalCode::AnsweredInTerminal => "answered_in_terminal",
            RefusalCode::NoKey => "no_key",
            RefusalCode::NotAnnounced => "not_announced",
            RefusalCode::NotRecognised => "not_recognised",
            RefusalCode::ScreenMissing => "screen_missing",
            RefusalCode::TmuxFailed => "tmux_failed",
            RefusalCode::Other => "other",
        }
    }
}

impl DeliveryRefusal {
    pub fn code(&self) -> RefusalCode {
        match self {
            DeliveryRefusal::PromptGone => RefusalCode::PromptGone,
            DeliveryRefusal::AnotherPrompt | DeliveryRefusal::NotThisPrompt(_) => {
                RefusalCode::AnotherPrompt
            }
            DeliveryRefusal::FocusMoved { .. } => RefusalCode::FocusMoved,
            DeliveryRefusal::LastRow(_) => RefusalCode::LastRow,
            DeliveryRefusal::FocusStuck { .. } => RefusalCode::FocusStuck,
            DeliveryRefusal::AnsweredInTerminal => RefusalCode::AnsweredInTerminal,
            DeliveryRefusal::NoKey => RefusalCode::NoKey,
            DeliveryRefusal::NotAnnounced => RefusalCode::NotAnnounced,
            DeliveryRefusal::NotRecognised => RefusalCode::NotRecognised,
            DeliveryRefusal::ScreenMissing { .. } => RefusalCode::ScreenMissing,
            DeliveryRefusal::Tmux(_) => RefusalCode::TmuxFailed,
        }
    }
}

/// A refusal as a card keeps it (`"refused": {"code", "message"}`): the
/// code, and the sentence as card text (scrubbed, stripped, cut).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refused {
    pub code: RefusalCode,
    pub message: String,
}

impl Refused {
    /// The same code, the message passed through `map` (scrub, clean).
    pub fn map_message(self, map: impl FnOnce(String) -> String) -> Refused {
        Refused {
            message: map(self.message),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_the_serialized_names() {
        for code in [
            RefusalCode::PromptGone,
            RefusalCode::AnotherPrompt,
            RefusalCode::FocusMoved,
            RefusalCode::LastRow,
            RefusalCode::FocusStuck,
            RefusalCode::AnsweredInTerminal,
            RefusalCode::NoKey,
            RefusalCode::NotAnnounced,
            RefusalCode::NotRecognised,
            RefusalCode::ScreenMissing,
            RefusalCode::TmuxFailed,
        ] {
            let json = serde_json::to_value(code).expect("serialize");
            assert_eq!(json, serde_json::json!(code.as_str()));
            assert_eq!(serde_json::from_value::<RefusalCode>(json).ok(), Some(code));
        }
        let unknown: RefusalCode = serde_json::from_str("\"from_the_future\"").expect("reads");
        assert_eq!(unknown, RefusalCode::Other);
    }

    #[test]
    fn a_tmux_failure_keeps_its_action_and_detail() {
        let error = PaneError::from(SessionError::Tmux {
            action: "send-keys".into(),
            message: "no server running".into(),
        });
        let refusal = DeliveryRefusal::from(error.clone());
        assert_eq!(refusal.code(), RefusalCode::TmuxFailed);
        assert_eq!(error.action, "send-keys");
        assert_eq!(error.detail, "no server running");
    }
}
