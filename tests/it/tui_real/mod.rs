//! Every agent's own terminal UI, supervised for real and offline (issue
//! 21 item 3): the real agent, prepared by `oneworks adapter prepare` from
//! the loopback registry of [`crate::agents_real`] (into the installs the
//! tests share: [`RealAgent::sharing_installs`]), runs in
//! `oneworks session start`'s private tmux against the loopback fake model
//! API; the test types a prompt into the pane as a person would, the model
//! asks for the agent's own shell tool with `touch FILE`, and the agent's
//! real approval box comes up. The checks every agent passes
//! ([`TuiAgent::standard_checks`]):
//! - the card shows the exact command;
//! - `session answer … accept` runs it; `decline` does not;
//! - answered in the terminal, the card resolves `answered_in_terminal`.
//!
//! At most two real agents at a time (tmux and a 200 MB Node process each,
//! on 2 cores): [`crate::support::heavy`].

// Used by the agents' files as they land; removed once all do.
#![allow(dead_code)]

mod claude;
mod codex;
mod copilot;
pub mod measure;
mod nudge;
mod opencode;
mod qwen;
mod turn_ends;

pub use nudge::assert_refuses_a_box_changed_between_keys;
pub use turn_ends::{DeclineEndsTurn, Declined};

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use crate::agents_real::RealAgent;
use crate::support::wait::{holds_within, wait_card, wait_for_every};

/// The session of the standard checks (its folder holds the agent's world).
pub const CHECKS: &str = "checks";

/// How long an agent may take to show its prompt, its box, its answer.
pub const DEADLINE: Duration = Duration::from_secs(120);

/// How often a wait looks again (a look may spawn tmux beside the agent).
const PACE: Duration = Duration::from_millis(100);

/// What differs between agents in the standard checks.
pub struct TuiCase {
    /// Text the pane shows once the TUI is ready for a prompt.
    pub ready: &'static str,
    /// Text the pane shows again once a turn is over and the TUI takes the
    /// next prompt; `None`: the input stays open (opencode shows its
    /// placeholder only on the home screen), the box gone is enough.
    pub ready_again: Option<&'static str>,
    /// The tmux keys a person presses in the terminal to allow once
    /// (e.g. `["Enter"]`): the `answered_in_terminal` check.
    pub terminal_allow: &'static [&'static str],
    /// The card's title for `touch FILE`, from the command (most agents
    /// show the command itself).
    pub title: fn(&str) -> String,
    /// Arguments after `session start AGENT --detach --name NAME`
    /// (`--trust-workspace` where the agent asks about folder trust).
    pub start_args: &'static [&'static str],
}

/// A prepared real agent whose TUI sessions the test starts.
pub struct TuiAgent {
    pub agent: RealAgent,
    /// See [`TuiAgent::declined`].
    pub declined: Declined,
    /// See [`TuiAgent::enter_again_when_lost`].
    pub enter_again: bool,
    /// See [`TuiAgent::enter_once_shown`].
    pub enter_once_shown: bool,
}

impl TuiAgent {
    pub fn new(agent: RealAgent) -> TuiAgent {
        TuiAgent {
            agent,
            declined: Declined::ToTheModel,
            enter_again: false,
            enter_once_shown: false,
        }
    }

    pub fn session(&self, args: &[&str]) -> crate::support::Outcome {
        let mut all = vec!["session"];
        all.extend_from_slice(args);
        self.agent.env.run(&all)
    }

    /// `session start AGENT --detach --name NAME EXTRA…`.
    pub fn start(&self, name: &str, extra: &[&str]) {
        let mut args = vec!["start", self.agent.agent, "--detach", "--name", name];
        args.extend_from_slice(extra);
        self.session(&args).assert_success();
    }

    pub fn stop(&self, name: &str) {
        self.session(&["stop", name]).assert_success();
    }

    /// The session's supervisor record.
    pub fn record(&self, name: &str) -> Value {
        self.agent
            .env
            .session_record(name)
            .unwrap_or_else(|| panic!("no supervisor record of session `{name}`"))
    }

    /// The private tmux server's socket of session `name`.
    pub fn socket(&self, name: &str) -> PathBuf {
        PathBuf::from(self.record(name)["tmux"].as_str().expect("tmux socket"))
    }

    fn tmux(&self, name: &str) -> Command {
        let mut command = Command::new("tmux");
        command.arg("-S").arg(self.socket(name));
        command
    }

    /// The pane as text (`capture-pane -p -J`).
    pub fn pane(&self, name: &str) -> String {
        let output = self
            .tmux(name)
            .args(["capture-pane", "-p", "-J"])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Waits until the pane shows `needle`.
    #[track_caller]
    pub fn wait_pane(&self, name: &str, what: &str, needle: &str) {
        self.wait(&format!("the pane shows {what} ({needle:?})"), name, || {
            self.pane(name).contains(needle)
        });
    }

    /// Polls `check` every 100 ms (each look may spawn tmux) until it
    /// holds; past [`DEADLINE`], fails naming `what` with the pane of
    /// session `name` and what the model saw.
    #[track_caller]
    pub fn wait(&self, what: &str, name: &str, mut check: impl FnMut() -> bool) {
        wait_for_every(PACE, what, DEADLINE, || {
            if check() {
                Ok(())
            } else {
                Err(format!(
                    "pane:\n{}\nmodel:\n{}",
                    self.pane(name),
                    self.agent.model.describe()
                ))
            }
        });
    }

    /// Presses tmux `keys` in the pane, one per call, as a person would.
    pub fn press(&self, name: &str, keys: &[&str]) {
        for key in keys {
            let status = self
                .tmux(name)
                .args(["send-keys", key])
                .status()
                .expect("tmux send-keys");
            assert!(status.success(), "send-keys {key}");
        }
    }

    /// Presses `keys` in the terminal as a person answering the box would:
    /// once the box is on screen (a card may come before it: the agent's
    /// hook fires while the box is drawn), and once more if the box is
    /// still up 5 s later (a key that reached the agent before its box
    /// took input is lost, as it would be for a person, who presses again).
    pub fn answer_in_terminal(&self, name: &str, keys: &[&str]) {
        let questions = measure::questions(self.agent.agent);
        self.wait("the box is on screen", name, || {
            measure::box_on_screen(&self.pane(name), &questions)
        });
        self.press(name, keys);
        let gone = holds_within(Duration::from_secs(5), || {
            !measure::box_on_screen(&self.pane(name), &questions)
        });
        if !gone {
            self.press(name, keys);
        }
    }

    /// Types `text` literally, then Enter.
    pub fn type_line(&self, name: &str, text: &str) {
        let status = self
            .tmux(name)
            .args(["send-keys", "-l", text])
            .status()
            .expect("tmux send-keys -l");
        assert!(status.success(), "send-keys -l");
        self.press(name, &["Enter"]);
    }

    /// The cards of session `name`.
    pub fn cards(&self, name: &str) -> Vec<Value> {
        let outcome = self.session(&["approvals", name, "--json"]);
        outcome.assert_success();
        outcome.json().as_array().cloned().unwrap_or_default()
    }

    /// Waits for a card of session `name` that passes `test`.
    #[track_caller]
    pub fn wait_card(&self, name: &str, what: &str, test: impl Fn(&Value) -> bool) -> Value {
        let what = format!("{what} in session `{name}`");
        let context = || {
            format!(
                "\npane:\n{}\nmodel:\n{}",
                self.pane(name),
                self.agent.model.describe()
            )
        };
        wait_card(PACE, &what, DEADLINE, || self.cards(name), test, context)
    }

    /// Starts session `name`, waits for the TUI, asks for `touch FILE`
    /// and waits for its pending card, checked to show the command.
    pub fn ask(&self, name: &str, file: &str, case: &TuiCase) -> Value {
        self.start(name, case.start_args);
        self.wait_pane(name, "the TUI ready for a prompt", case.ready);
        self.ask_again(name, file, case)
    }

    /// In the running session `name`, ready for a prompt: asks the agent
    /// to create `file` with its shell tool and returns the pending card
    /// (its title checked against `case`).
    pub fn ask_again(&self, name: &str, file: &str, case: &TuiCase) -> Value {
        self.agent.model.set_command(&format!("touch {file}"));
        self.agent.model.set_trigger(Some(file));
        self.submit(
            name,
            &format!("Create the file {file} with the shell tool."),
        );
        // The title names this box's file: never an earlier box's card.
        let card = self.wait_card(name, "pending", |card| card["state"] == "pending");
        assert_eq!(
            card["title"].as_str(),
            Some((case.title)(&format!("touch {file}")).as_str()),
            "{card:#}\npane:\n{}",
            self.pane(name)
        );
        card
    }

    /// After a box was answered and the agent went on: the box gone from
    /// the pane and the TUI ready for the next prompt.
    pub fn wait_ready_again(&self, name: &str, case: &TuiCase) {
        let questions = measure::questions(self.agent.agent);
        self.wait("the box gone and the TUI ready again", name, || {
            let pane = self.pane(name);
            !measure::box_on_screen(&pane, &questions)
                && case.ready_again.is_none_or(|ready| pane.contains(ready))
        });
    }

    /// Waits until `file` exists in the project.
    #[track_caller]
    pub fn wait_file(&self, name: &str, file: &str) {
        let path = self.agent.env.project.join(file);
        self.wait(&format!("{file} exists"), name, || path.is_file());
    }

    /// Waits until the agent has sent the model the result of its tool
    /// call (the turn went on after the box closed): a request answered
    /// with the closing text.
    #[track_caller]
    pub fn wait_tool_result(&self, name: &str, before: usize) {
        self.wait("the agent went on after the box", name, || {
            self.agent
                .model
                .requests()
                .iter()
                .skip(before)
                .any(|r| matches!(r.answer, crate::support::fake_model::Answer::Done))
        });
    }

    /// accept runs the command (and the agent sends the model its
    /// result); decline does not (what the decline shows is the agent's:
    /// [`TuiAgent::declined`]); an allow pressed in the terminal resolves
    /// the card `answered_in_terminal`, and a late answer to it exits 11;
    /// no file holds the key.
    pub fn standard_checks(&self, case: &TuiCase) {
        self.three_boxes(case);
        self.stop(CHECKS);
        self.agent.assert_no_file_holds_the_secret();
    }

    /// The three boxes of [`TuiAgent::standard_checks`] in session
    /// [`CHECKS`], which is left running (the decline's box gone).
    fn three_boxes(&self, case: &TuiCase) {
        let agent = self.agent.agent;
        // One session, three boxes: accept, then the terminal's answer,
        // then decline (last: for some agents a decline ends the turn).
        let name = CHECKS;
        // accept
        let card = self.ask(name, "probe-accepted.txt", case);
        let id = card["id"].as_str().expect("card id").to_owned();
        assert!(id.starts_with(&format!("{agent}_{name}_")), "{id}");
        let before = self.agent.model.requests().len();
        self.session(&["answer", name, &id, "accept"])
            .assert_success();
        self.wait_file(name, "probe-accepted.txt");
        self.wait_tool_result(name, before);
        self.wait_ready_again(name, case);

        // answered in the terminal
        let card = self.ask_again(name, "probe-terminal.txt", case);
        let id = card["id"].as_str().expect("card id").to_owned();
        let before = self.agent.model.requests().len();
        self.answer_in_terminal(name, case.terminal_allow);
        self.wait_card(name, "answered in the terminal", |c| {
            c["id"] == id.as_str() && c["state"] == "answered_in_terminal"
        });
        self.wait_file(name, "probe-terminal.txt");
        let late = self.session(&["answer", name, &id, "accept"]);
        late.assert_code(11);
        late.assert_stderr_contains("no longer pending");
        self.wait_tool_result(name, before);
        self.wait_ready_again(name, case);

        // decline
        let card = self.ask_again(name, "probe-declined.txt", case);
        let id = card["id"].as_str().expect("card id").to_owned();
        let before = self.agent.model.requests().len();
        self.session(&["answer", name, &id, "decline"])
            .assert_success();
        self.wait_declined(name, before);
        self.wait_card(name, "declined", |c| {
            c["id"] == id.as_str() && c["state"] != "pending"
        });
        assert!(
            !self.agent.env.project.join("probe-declined.txt").exists(),
            "a declined touch ran:\n{}",
            self.pane(name)
        );
    }
}
