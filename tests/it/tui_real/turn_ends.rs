//! Agents whose decline ends the turn (the refusal reaches the model
//! later or never) and agents that drop keys typed in one burst: the
//! harness's variants of the standard checks for them.

use std::time::{Duration, Instant};

use super::{TuiAgent, TuiCase, DEADLINE};

impl TuiAgent {
    /// For an agent whose decline ends its turn without asking the model
    /// again (Copilot's Esc): the pane text that shows the decline landed,
    /// waited for instead of the tool result.
    pub fn declined_when_pane_shows(mut self, text: &'static str) -> TuiAgent {
        self.declined_shows = Some(text);
        self
    }

    /// After an answer: the tool result reached the model, or, for a
    /// decline of an agent with [`TuiAgent::declined_when_pane_shows`],
    /// the pane shows that text.
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
        self.type_line(name, text);
        if !self.enter_again {
            return;
        }
        for _ in 0..3 {
            let deadline = Instant::now() + Duration::from_secs(3);
            while Instant::now() < deadline {
                if self.agent.model.requests().len() > before {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
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
    /// The decline went through: the agent told the model (at once, or
    /// with the next message for a [`DeclineEndsTurn`] agent).
    pub fn wait_declined(&self, name: &str, before: usize) {
        if let Some(text) = self.declined_shows {
            return self.wait_pane(name, "the decline", text);
        }
        let Some(ends) = &self.decline_ends_turn else {
            return self.wait_tool_result(name, before);
        };
        let deadline = Instant::now() + DEADLINE;
        while self.pane(name).contains(ends.question) {
            assert!(
                Instant::now() < deadline,
                "the box stayed after the decline:\n{}",
                self.pane(name)
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        self.type_line(name, ends.next);
        loop {
            let told = self
                .agent
                .model
                .requests()
                .iter()
                .skip(before)
                .any(|r| r.text().contains(ends.refusal));
            if told {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the model never heard of the refusal ({:?}):\n{}\nmodel:\n{}",
                ends.refusal,
                self.pane(name),
                self.agent.model.describe()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// For an agent whose one "no" ends its turn instead of sending the model a
/// refusal (Codex 0.166.0: `No, and tell Codex what to do differently`
/// interrupts the turn): the standard checks, but a decline waits for the
/// pane to show `declined(command)` (the agent's own word that it did not
/// run) instead of the model's next request.
impl TuiAgent {
    pub fn standard_checks_where_no_ends_the_turn(
        &self,
        case: &TuiCase,
        declined: fn(&str) -> String,
    ) {
        let agent = self.agent.agent;
        let card = self.ask("accept", "probe-accepted.txt", case);
        let id = card["id"].as_str().expect("card id").to_owned();
        assert!(id.starts_with(&format!("{agent}_accept_")), "{id}");
        self.session(&["answer", "accept", &id, "accept"])
            .assert_success();
        self.wait_file("accept", "probe-accepted.txt");
        self.stop("accept");

        let card = self.ask("decline", "probe-declined.txt", case);
        let id = card["id"].as_str().expect("card id").to_owned();
        self.session(&["answer", "decline", &id, "decline"])
            .assert_success();
        let shown = declined("touch probe-declined.txt");
        self.wait_pane("decline", "the declined command", &shown);
        assert!(
            !self.agent.env.project.join("probe-declined.txt").exists(),
            "a declined touch ran:\n{}",
            self.pane("decline")
        );
        self.stop("decline");

        let card = self.ask("terminal", "probe-terminal.txt", case);
        let id = card["id"].as_str().expect("card id").to_owned();
        self.answer_in_terminal("terminal", case.terminal_allow);
        self.wait_card("terminal", "answered in the terminal", |c| {
            c["id"] == id.as_str() && c["state"] == "answered_in_terminal"
        });
        self.wait_file("terminal", "probe-terminal.txt");
        let late = self.session(&["answer", "terminal", &id, "accept"]);
        late.assert_code(11);
        assert!(
            late.stderr.contains("no longer pending"),
            "{}",
            late.describe()
        );
        self.stop("terminal");
        self.agent.assert_no_file_holds_the_secret();
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
