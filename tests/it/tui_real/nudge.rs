//! A box that changes between two keys gets no further key: the library's keystroke bridge on a session's real pane,
//! with one more `keys.next` pressed after its first key.

use oneworks::session::delivery::keystroke_bridge::{DeliveryRefusal, PaneError};
use oneworks::session::refusal::RefusalCode;
use serde_json::Value;

use super::{TuiAgent, TuiCase, CHECKS};

/// A pane wrapper for [`assert_refuses_a_box_changed_between_keys`]: the
/// real pane of a session, through which the bridge's keys are counted,
/// and which — right after the bridge's first key (or, with
/// `after_first_look`, right after its first capture) — presses one more
/// `keys.next` itself, as a person moving the focus would.
pub struct NudgedPane {
    tmux: oneworks::session::tmux::Tmux,
    next: String,
    after_first_look: bool,
    captures: usize,
    /// The keys the bridge sent (not the nudge).
    pub sent: Vec<String>,
}

impl NudgedPane {
    /// The pane of the private tmux server at `socket`.
    pub fn new(socket: &std::path::Path, next: &str, after_first_look: bool) -> NudgedPane {
        let path = std::env::var("PATH").unwrap_or_default();
        let program = oneworks::session::tmux::find(Some(&path))
            .expect("tmux on PATH (the TUI tests need it: apt-get install tmux)");
        NudgedPane {
            tmux: oneworks::session::tmux::Tmux {
                program,
                socket: socket.to_owned(),
                env: [("PATH".to_owned(), path)].into_iter().collect(),
            },
            next: next.to_owned(),
            after_first_look,
            captures: 0,
            sent: Vec::new(),
        }
    }

    fn nudge(&self) -> Result<(), PaneError> {
        Ok(self.tmux.send_key(&self.next)?)
    }
}

impl oneworks::session::delivery::keystroke_bridge::Pane for NudgedPane {
    fn capture(&mut self) -> Result<String, PaneError> {
        let capture = self.tmux.capture_styled()?;
        self.captures += 1;
        if self.after_first_look && self.captures == 1 {
            self.nudge()?;
        }
        Ok(capture)
    }

    fn send_key(&mut self, key: &str) -> Result<(), PaneError> {
        self.sent.push(key.to_owned());
        self.tmux.send_key(key)?;
        if !self.after_first_look && self.sent.len() == 1 {
            self.nudge()?;
        }
        Ok(())
    }
}

/// A box that changes between two keys gets no further key:
/// with a card pending on the session's real pane at `socket`
/// (the supervisor sends nothing until it is answered), the library's
/// keystroke bridge delivers a decline for the card titled `title` with
/// the adapter's `tui` data, through a [`NudgedPane`]. The bridge must
/// fail closed with a focus refusal after its first key: one more
/// `next` moved the focus past the row it aimed at (or wrapped, for a
/// box with a single move to reject). An agent declined by one
/// `keys.reject` has no second key: there the focus moves between the
/// bridge's first look and the one before its key, and no key at all may
/// be sent. Returns the refusal.
pub fn assert_refuses_a_box_changed_between_keys(
    socket: &std::path::Path,
    tui: &oneworks::adapter::tui_data::TuiData,
    title: &str,
) -> DeliveryRefusal {
    use oneworks::session::cards::{CancelFlag, Verdict};
    use oneworks::session::delivery::keystroke_bridge::Bridge;
    let next = tui.keys.next.as_str();
    let one_key = tui.keys.reject.is_some();
    let mut pane = NudgedPane::new(socket, next, one_key);
    let result =
        Bridge::new(tui).deliver(&mut pane, title, Verdict::Decline, &CancelFlag::default());
    let reason = match result {
        Ok(()) => panic!(
            "the bridge answered a box whose focus moved between its keys: keys {:?}",
            pane.sent
        ),
        Err(reason) => reason,
    };
    let expected: &[&str] = if one_key { &[] } else { &[next] };
    assert_eq!(
        pane.sent, expected,
        "the bridge sent a further key ({reason})"
    );
    assert!(
        matches!(
            reason.code(),
            RefusalCode::FocusMoved | RefusalCode::FocusStuck
        ),
        "not a focus refusal: {reason}"
    );
    reason
}

impl TuiAgent {
    /// The standard checks, then a fourth box in the same session (an agent
    /// starts once): once the decline's box is gone and the TUI takes a
    /// prompt again, the agent asks for `touch FILE`, its card pending, and
    /// [`assert_refuses_a_box_changed_between_keys`] runs the bridge on the
    /// real pane with the agent's built-in `tui` data; the card stays
    /// pending, nothing ran; then the session stops and no file holds the
    /// key. Returns the refusal.
    pub fn standard_checks_then_a_box_changed_between_keys(
        &self,
        file: &str,
        case: &TuiCase,
    ) -> DeliveryRefusal {
        let name = CHECKS;
        self.three_boxes(case);
        self.wait_ready_again(name, case);
        let card = self.ask_again(name, file, case);
        let reason = self.refused_after_a_nudge(name, &card);
        assert!(
            !self.agent.env.project.join(file).exists(),
            "the refused box's command ran:\n{}",
            self.pane(name)
        );
        self.stop(name);
        self.agent.assert_no_file_holds_the_secret();
        reason
    }

    /// [`assert_refuses_a_box_changed_between_keys`] on the box of the
    /// pending `card` of session `name`, with the agent's built-in `tui`
    /// data; the card stays pending (the supervisor sent nothing).
    fn refused_after_a_nudge(&self, name: &str, card: &Value) -> DeliveryRefusal {
        let title = card["title"].as_str().expect("card title");
        let tui = oneworks::adapter::registry::Registry::builtin()
            .load(self.agent.agent)
            .expect("the agent's built-in data")
            .tui;
        let reason = assert_refuses_a_box_changed_between_keys(&self.socket(name), &tui, title);
        assert_eq!(
            self.cards(name)
                .iter()
                .find(|c| c["id"] == card["id"])
                .map(|c| c["state"].clone()),
            Some(Value::from("pending")),
            "the card stays pending: the supervisor sent nothing"
        );
        reason
    }
}
