//! Every agent's own terminal UI, supervised for real and offline (issue
//! 21 item 3): the real agent, prepared by `oneworks adapter prepare` from
//! the loopback registry of [`crate::agents_real`], runs in
//! `oneworks session start`'s private tmux against the loopback fake model
//! API; the test types a prompt into the pane as a person would, the model
//! asks for the agent's own shell tool with `touch FILE`, and the agent's
//! real approval box comes up. The checks every agent passes
//! ([`TuiAgent::standard_checks`]):
//! - the card shows the exact command;
//! - `session answer … accept` runs it; `decline` does not;
//! - answered in the terminal, the card resolves `answered_in_terminal`.
//!
//! One agent at a time (tmux and a 200 MB Node process each, on 2 cores):
//! they share [`crate::agents_real::SERIAL`].

// Used by the agents' files as they land (issue 21); removed once all do.
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
pub use turn_ends::DeclineEndsTurn;

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::agents_real::RealAgent;

/// How long an agent may take to show its prompt, its box, its answer.
pub const DEADLINE: Duration = Duration::from_secs(120);

/// What differs between agents in the standard checks.
pub struct TuiCase {
    /// Text the pane shows once the TUI is ready for a prompt.
    pub ready: &'static str,
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
    /// See [`TuiAgent::declined_when_pane_shows`].
    pub declined_shows: Option<&'static str>,
    /// See [`TuiAgent::enter_again_when_lost`].
    pub enter_again: bool,
    /// Set for an agent whose turn ends at a declined tool call
    /// ([`DeclineEndsTurn`]).
    pub decline_ends_turn: Option<DeclineEndsTurn>,
}

impl TuiAgent {
    pub fn new(agent: RealAgent) -> TuiAgent {
        TuiAgent {
            agent,
            declined_shows: None,
            enter_again: false,
            decline_ends_turn: None,
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
        let path = self
            .agent
            .env
            .project
            .join(".oneworks/sessions")
            .join(name)
            .join("supervisor.json");
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        serde_json::from_slice(&bytes).expect("supervisor record json")
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
    pub fn wait_pane(&self, name: &str, what: &str, needle: &str) {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let pane = self.pane(name);
            if pane.contains(needle) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the pane never showed {what} ({needle:?}):\n{pane}\nmodel:\n{}",
                self.agent.model.describe()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
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
        let deadline = Instant::now() + DEADLINE;
        while !measure::box_on_screen(&self.pane(name), &questions) {
            assert!(
                Instant::now() < deadline,
                "the box never showed:\n{}",
                self.pane(name)
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        self.press(name, keys);
        let again = Instant::now() + Duration::from_secs(5);
        while Instant::now() < again {
            if !measure::box_on_screen(&self.pane(name), &questions) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        self.press(name, keys);
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
    pub fn wait_card(&self, name: &str, what: &str, test: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + DEADLINE;
        loop {
            if let Some(card) = self.cards(name).into_iter().find(|card| test(card)) {
                return card;
            }
            assert!(
                Instant::now() < deadline,
                "no card {what} in session `{name}`: {:#?}\npane:\n{}\nmodel:\n{}",
                self.cards(name),
                self.pane(name),
                self.agent.model.describe()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Starts session `name`, waits for the TUI, asks for `touch FILE`
    /// and waits for its pending card, checked to show the command.
    pub fn ask(&self, name: &str, file: &str, case: &TuiCase) -> Value {
        self.agent.model.set_command(&format!("touch {file}"));
        self.agent.model.set_trigger(Some(file));
        self.start(name, case.start_args);
        self.wait_pane(name, "the TUI ready for a prompt", case.ready);
        self.submit(
            name,
            &format!("Create the file {file} with the shell tool."),
        );
        let card = self.wait_card(name, "pending", |card| card["state"] == "pending");
        assert_eq!(
            card["title"].as_str(),
            Some((case.title)(&format!("touch {file}")).as_str()),
            "{card:#}\npane:\n{}",
            self.pane(name)
        );
        card
    }

    /// Waits until `file` exists in the project.
    pub fn wait_file(&self, name: &str, file: &str) {
        let path = self.agent.env.project.join(file);
        let deadline = Instant::now() + DEADLINE;
        while !path.is_file() {
            assert!(
                Instant::now() < deadline,
                "{file} never appeared:\n{}\nmodel:\n{}",
                self.pane(name),
                self.agent.model.describe()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until the agent has sent the model the result of its tool
    /// call (the turn went on after the box closed): a request answered
    /// with the closing text.
    pub fn wait_tool_result(&self, name: &str, before: usize) {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let done = self
                .agent
                .model
                .requests()
                .iter()
                .skip(before)
                .any(|r| matches!(r.answer, crate::support::fake_model::Answer::Done));
            if done {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the agent never went on after the box:\n{}\nmodel:\n{}",
                self.pane(name),
                self.agent.model.describe()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// accept runs the command; decline does not (the turn goes on to the
    /// model with the refusal, and no file appears); an allow pressed in
    /// the terminal resolves the card `answered_in_terminal`.
    pub fn standard_checks(&self, case: &TuiCase) {
        let agent = self.agent.agent;
        // accept
        let card = self.ask("accept", "probe-accepted.txt", case);
        let id = card["id"].as_str().expect("card id").to_owned();
        assert!(id.starts_with(&format!("{agent}_accept_")), "{id}");
        self.session(&["answer", "accept", &id, "accept"])
            .assert_success();
        self.wait_file("accept", "probe-accepted.txt");
        self.stop("accept");

        // decline
        let before = self.agent.model.requests().len();
        let card = self.ask("decline", "probe-declined.txt", case);
        let id = card["id"].as_str().expect("card id").to_owned();
        self.session(&["answer", "decline", &id, "decline"])
            .assert_success();
        self.wait_declined("decline", before);
        assert!(
            !self.agent.env.project.join("probe-declined.txt").exists(),
            "a declined touch ran:\n{}",
            self.pane("decline")
        );
        self.stop("decline");

        // answered in the terminal
        let card = self.ask("terminal", "probe-terminal.txt", case);
        let id = card["id"].as_str().expect("card id").to_owned();
        self.answer_in_terminal("terminal", case.terminal_allow);
        let card = self.wait_card("terminal", "answered in the terminal", |c| {
            c["id"] == id.as_str() && c["state"] == "answered_in_terminal"
        });
        assert_eq!(card["state"], "answered_in_terminal");
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
