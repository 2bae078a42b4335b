//! Agents whose decline ends the turn (the refusal reaches the model
//! later or never) and agents that drop keys typed in one burst: the
//! harness's variants of the standard checks for them.

use std::time::Duration;

use super::TuiAgent;
use crate::support::wait::holds_within;

/// What a declined box leads to, by agent: where the decline check
/// looks for proof that it went through.
pub enum Declined {
    /// The agent sends the model the refusal at once, as the tool's result
    /// (the default).
    ToTheModel,
    /// The turn ends at the refusal, which reaches the model only with the
    /// person's next message ([`DeclineEndsTurn`]).
    WithTheNextMessage(DeclineEndsTurn),
    /// The turn ends at the refusal: the pane shows `shows(command)` (the
    /// agent's own word that it did not run); with `silent`, the model
    /// hears nothing more of it.
    EndsTheTurn {
        shows: fn(&str) -> String,
        silent: bool,
    },
}

impl TuiAgent {
    /// Sets what a decline leads to for this agent ([`Declined`]).
    pub fn declined(mut self, declined: Declined) -> TuiAgent {
        self.declined = declined;
        self
    }

    /// For an agent that reads keys arriving in one burst as a paste
    /// (Claude Code, Qwen Code while it initializes): [`TuiAgent::submit`]
    /// presses Enter only once the pane shows the typed text.
    pub fn enter_once_shown(mut self) -> TuiAgent {
        self.enter_once_shown = true;
        self
    }

    /// After an answer: the tool result reached the model, or, for a
    /// decline, what [`TuiAgent::declined`] says a decline shows.
    pub fn wait_went_on(&self, name: &str, before: usize, declined: bool) {
        if declined {
            self.wait_declined(name, before);
        } else {
            self.wait_tool_result(name, before);
        }
    }

    /// For an agent that may drop an Enter pressed right after its input
    /// is drawn (Copilot 1.0.102 on a loaded machine: the prompt stays in
    /// its input line, nothing reaches the model): [`TuiAgent::submit`]
    /// presses Enter again, as a person would, while the model has not
    /// been asked and the pane still shows the typed line.
    pub fn enter_again_when_lost(mut self) -> TuiAgent {
        self.enter_again = true;
        self
    }

    /// Types `text` and Enter ([`TuiAgent::type_line`]); with
    /// [`TuiAgent::enter_again_when_lost`], up to 3 more Enters, each after
    /// 3 s in which the model got no request and the line still shows.
    pub fn submit(&self, name: &str, text: &str) {
        let before = self.agent.model.requests().len();
        if self.enter_once_shown {
            self.type_line_shown(name, text);
        } else {
            self.type_line(name, text);
        }
        if !self.enter_again {
            return;
        }
        for _ in 0..3 {
            if holds_within(Duration::from_secs(3), || {
                self.agent.model.requests().len() > before
            }) {
                return;
            }
            // No request: the turn did not start, so no box is up that an
            // Enter would answer.
            if !self.pane(name).contains(text) || self.agent.model.requests().len() > before {
                return;
            }
            self.press(name, &["Enter"]);
        }
    }
}

/// An agent whose turn ENDS at a declined tool call, without a request to
/// the model (opencode 1.18.33): the refusal reaches the model only with
/// the person's next message. The decline check then types `next` once
/// the pane no longer shows `question` (the box is gone), and waits for
/// the request carrying `refusal` (the agent's text for a declined call).
pub struct DeclineEndsTurn {
    pub question: &'static str,
    pub next: &'static str,
    pub refusal: &'static str,
}

impl TuiAgent {
    /// The decline of the box for the model's current command went
    /// through, as [`TuiAgent::declined`] says it shows for this agent.
    pub fn wait_declined(&self, name: &str, before: usize) {
        match &self.declined {
            Declined::ToTheModel => self.wait_tool_result(name, before),
            Declined::EndsTheTurn { shows, silent } => {
                let shown = shows(&self.agent.model.command());
                self.wait_pane(name, "the decline", &shown);
                if *silent {
                    assert_eq!(
                        self.agent.model.requests().len(),
                        before,
                        "the declined call sent the model something:\n{}",
                        self.agent.model.describe()
                    );
                }
            }
            Declined::WithTheNextMessage(ends) => {
                self.wait_told_with_next_message(name, before, ends)
            }
        }
    }

    fn wait_told_with_next_message(&self, name: &str, before: usize, ends: &DeclineEndsTurn) {
        self.wait("the box is gone after the decline", name, || {
            !self.pane(name).contains(ends.question)
        });
        self.type_line(name, ends.next);
        let what = format!("the model heard of the refusal ({:?})", ends.refusal);
        self.wait(&what, name, || {
            self.agent
                .model
                .requests()
                .iter()
                .skip(before)
                .any(|r| r.text().contains(ends.refusal))
        });
    }
}

impl TuiAgent {
    /// Types `text` literally, waits until the pane shows it, then Enter:
    /// a TUI that reads keys arriving in one burst as a paste (Claude
    /// Code) takes an Enter in that burst as a new line of the prompt, not
    /// as sending it ([`Self::type_line`] presses it at once).
    pub fn type_line_shown(&self, name: &str, text: &str) {
        let status = self
            .tmux(name)
            .args(["send-keys", "-l", text])
            .status()
            .expect("tmux send-keys -l");
        assert!(status.success(), "send-keys -l");
        self.wait_pane(name, "the typed prompt", text);
        self.press(name, &["Enter"]);
    }
}
