#![allow(clippy::disallowed_methods)] // test fixtures use std::fs directly
//! The bridge against a simulated Kiro prompt whose screen the tests change
//! between two keys or two captures (the hostile twins of the happy paths).

use super::*;
use crate::session::refusal::RefusalCode;
use crate::session::signals::pane::tests::spec_prompt;

#[derive(Debug, Clone)]
struct Screen {
    tool: String,
    trust: bool,
    focus: usize,
    visible: bool,
    /// A moved focus shows only after this many more captures (rendering).
    render_lag: usize,
    pending_focus: Option<usize>,
}

type Hook = Box<dyn FnMut(&mut Screen)>;

struct SimPane {
    screen: Screen,
    keys: Vec<String>,
    captures: usize,
    after_capture: Vec<(usize, Hook)>,
    after_key: Vec<(usize, Hook)>,
    /// Answered row (like Kiro on Enter).
    answered: Option<usize>,
}

impl SimPane {
    fn new(trust: bool) -> Self {
        Self {
            screen: Screen {
                tool: "Shell pwd".into(),
                trust,
                focus: 0,
                visible: true,
                render_lag: 0,
                pending_focus: None,
            },
            keys: Vec::new(),
            captures: 0,
            after_capture: Vec::new(),
            after_key: Vec::new(),
            answered: None,
        }
    }

    fn rows(&self) -> usize {
        if self.screen.trust {
            3
        } else {
            2
        }
    }
}

impl Pane for SimPane {
    fn capture(&mut self) -> Result<String, PaneError> {
        self.captures += 1;
        if let Some(focus) = self.screen.pending_focus {
            if self.screen.render_lag == 0 {
                self.screen.focus = focus;
                self.screen.pending_focus = None;
            } else {
                self.screen.render_lag -= 1;
            }
        }
        let text = if self.screen.visible {
            spec_prompt(&self.screen.tool, self.screen.trust, self.screen.focus)
        } else {
            "> \n".to_owned()
        };
        for (at, hook) in &mut self.after_capture {
            if *at == self.captures {
                hook(&mut self.screen);
            }
        }
        Ok(text)
    }

    fn send_key(&mut self, key: &str) -> Result<(), PaneError> {
        self.keys.push(key.to_owned());
        match key {
            "Down" => {
                let next = (self.screen.focus + 1).min(self.rows() - 1);
                self.screen.pending_focus = Some(next);
            }
            "Enter" => {
                self.answered = Some(self.screen.focus);
                self.screen.visible = false;
            }
            _ => {}
        }
        let count = self.keys.len();
        for (at, hook) in &mut self.after_key {
            if *at == count {
                hook(&mut self.screen);
            }
        }
        Ok(())
    }
}

fn tui() -> TuiData {
    crate::adapter::data::AdapterData::builtin()
        .expect("data")
        .tui
}

fn fast(tui: &TuiData) -> Bridge<'_> {
    Bridge {
        tui,
        render_gap: Duration::ZERO,
        settle: Duration::ZERO,
        focus_wait: Duration::from_millis(500),
    }
}

fn deliver(pane: &mut SimPane, verdict: Verdict) -> Result<(), DeliveryRefusal> {
    let tui = tui();
    fast(&tui).deliver(pane, "Running: pwd", verdict, &CancelFlag::default())
}

#[test]
fn accept_sends_exactly_enter_on_the_allow_row() {
    let mut pane = SimPane::new(true);
    deliver(&mut pane, Verdict::Accept).expect("delivered");
    assert_eq!(pane.keys, ["Enter"]);
    assert_eq!(pane.answered, Some(0));
}

#[test]
fn decline_moves_one_row_at_a_time_with_and_without_the_trust_row() {
    let mut pane = SimPane::new(true);
    // The first move renders late: the bridge waits for it.
    pane.screen.render_lag = 3;
    deliver(&mut pane, Verdict::Decline).expect("delivered");
    assert_eq!(pane.keys, ["Down", "Down", "Enter"]);
    assert_eq!(pane.answered, Some(2));

    let mut pane = SimPane::new(false);
    deliver(&mut pane, Verdict::Cancel).expect("delivered");
    assert_eq!(pane.keys, ["Down", "Enter"]);
    assert_eq!(pane.answered, Some(1));
}

#[test]
fn a_title_change_between_two_keys_stops_before_enter() {
    let mut pane = SimPane::new(true);
    pane.after_key.push((
        1,
        Box::new(|screen: &mut Screen| screen.tool = "Shell rm -rf /".into()),
    ));
    let reason = deliver(&mut pane, Verdict::Decline).expect_err("must fail");
    assert_eq!(pane.keys, ["Down"], "nothing more was sent");
    assert!(
        matches!(reason, DeliveryRefusal::NotThisPrompt(_)),
        "{reason}"
    );
}

#[test]
fn a_title_change_during_the_settle_stops_enter() {
    let mut pane = SimPane::new(true);
    // Capture 1: the check before the settle; the title changes during
    // the settle, and the check before Enter sees it.
    pane.after_capture.push((
        1,
        Box::new(|screen: &mut Screen| screen.tool = "Shell pwd2".into()),
    ));
    let reason = deliver(&mut pane, Verdict::Accept).expect_err("must fail");
    assert!(pane.keys.is_empty(), "sent {:?}", pane.keys);
    assert!(
        matches!(reason, DeliveryRefusal::NotThisPrompt(_)),
        "{reason}"
    );
}

#[test]
fn focus_moved_by_someone_else_fails_closed() {
    // Accept with the focus already moved off the allow row.
    let mut pane = SimPane::new(true);
    pane.screen.focus = 1;
    let reason = deliver(&mut pane, Verdict::Accept).expect_err("must fail");
    assert!(pane.keys.is_empty());
    assert_eq!(reason.code(), RefusalCode::FocusMoved);
    assert!(
        matches!(&reason, DeliveryRefusal::FocusMoved { expected, .. } if expected == "Yes, single permission"),
        "{reason}"
    );

    // A Down lands two rows further (a person pressed Down too).
    let mut pane = SimPane::new(true);
    pane.after_key.push((
        1,
        Box::new(|screen: &mut Screen| screen.pending_focus = Some(2)),
    ));
    let reason = deliver(&mut pane, Verdict::Decline).expect_err("must fail");
    assert_eq!(pane.keys, ["Down"]);
    assert!(
        matches!(&reason, DeliveryRefusal::FocusMoved { expected, .. } if expected.starts_with("Trust")),
        "{reason}"
    );
}

#[test]
fn a_focus_that_never_moves_times_out() {
    let mut pane = SimPane::new(true);
    pane.screen.render_lag = usize::MAX;
    let reason = deliver(&mut pane, Verdict::Decline).expect_err("must fail");
    assert_eq!(pane.keys, ["Down"]);
    assert_eq!(reason.code(), RefusalCode::FocusStuck, "{reason}");
}

#[test]
fn a_prompt_drawn_after_the_verdict_arrived_is_waited_for_then_verified() {
    let mut pane = SimPane::new(true);
    pane.screen.visible = false;
    pane.after_capture
        .push((3, Box::new(|screen: &mut Screen| screen.visible = true)));
    deliver(&mut pane, Verdict::Accept).expect("delivered once drawn");
    assert_eq!(pane.keys, ["Enter"]);
    assert!(pane.captures >= 4, "it looked until the prompt was drawn");
}

#[test]
fn a_prompt_of_another_request_is_not_waited_for() {
    let mut pane = SimPane::new(true);
    pane.screen.tool = "Shell rm -rf /".into();
    let reason = deliver(&mut pane, Verdict::Accept).expect_err("must fail");
    assert_eq!(pane.captures, 1, "failed at the first look");
    assert!(
        matches!(&reason, DeliveryRefusal::NotThisPrompt(shown) if shown.ends_with("Shell rm -rf /")),
        "names what is on screen: {reason}"
    );
    assert!(pane.keys.is_empty());
}

#[test]
fn a_vanished_prompt_gets_no_key() {
    let mut pane = SimPane::new(true);
    pane.after_key
        .push((1, Box::new(|screen: &mut Screen| screen.visible = false)));
    let reason = deliver(&mut pane, Verdict::Decline).expect_err("must fail");
    assert_eq!(pane.keys, ["Down"]);
    assert_eq!(reason, DeliveryRefusal::PromptGone);

    let mut pane = SimPane::new(true);
    pane.screen.visible = false;
    assert_eq!(
        deliver(&mut pane, Verdict::Accept),
        Err(DeliveryRefusal::PromptGone)
    );
    assert!(pane.keys.is_empty());
}

#[test]
fn a_cancel_stops_the_delivery_before_the_next_key() {
    let tui = tui();
    let bridge = Bridge {
        settle: Duration::from_secs(5),
        ..fast(&tui)
    };
    let cancel = CancelFlag::default();
    let mut pane = SimPane::new(true);
    let remote = cancel.clone();
    // The terminal answers during the settle before Enter.
    pane.after_capture
        .push((1, Box::new(move |_: &mut Screen| remote.cancel())));
    let started = Instant::now();
    let reason = bridge
        .deliver(&mut pane, "Running: pwd", Verdict::Accept, &cancel)
        .expect_err("cancelled");
    assert!(pane.keys.is_empty());
    assert_eq!(reason, DeliveryRefusal::AnsweredInTerminal);
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "the settle was not cut short"
    );
}

#[test]
fn the_render_gap_and_settle_are_waited() {
    let tui = tui();
    let bridge = Bridge {
        render_gap: Duration::from_millis(60),
        settle: Duration::from_millis(80),
        ..fast(&tui)
    };
    let mut pane = SimPane::new(false);
    let started = Instant::now();
    bridge
        .deliver(
            &mut pane,
            "Running: pwd",
            Verdict::Decline,
            &CancelFlag::default(),
        )
        .expect("delivered");
    assert!(started.elapsed() >= Duration::from_millis(140));
}

/// A generic TUI prompt the tests can swap.
struct GenericPane {
    screen: String,
    keys: Vec<String>,
    swap_after_capture: Option<(usize, String)>,
    captures: usize,
}

impl Pane for GenericPane {
    fn capture(&mut self) -> Result<String, PaneError> {
        self.captures += 1;
        let shown = self.screen.clone();
        if let Some((at, next)) = &self.swap_after_capture {
            if *at == self.captures {
                self.screen = next.clone();
            }
        }
        Ok(shown)
    }
    fn send_key(&mut self, key: &str) -> Result<(), PaneError> {
        self.keys.push(key.to_owned());
        Ok(())
    }
}

const GENERIC: &str =
    " $ echo probe\n Run this command?\n  → Run (once) (y)\n    Skip (esc or n)\n";

#[test]
fn a_fallback_key_is_sent_only_to_the_same_prompt() {
    let tui = tui();
    let hash = crate::session::signals::pane_fallback::detect(GENERIC, &tui)
        .expect("prompt")
        .hash;
    let mut pane = GenericPane {
        screen: GENERIC.into(),
        keys: Vec::new(),
        swap_after_capture: None,
        captures: 0,
    };
    fast(&tui)
        .deliver_key(&mut pane, &hash, "y", &CancelFlag::default())
        .expect("delivered");
    assert_eq!(pane.keys, ["y"]);

    // The prompt changes during the settle: nothing is sent.
    let mut pane = GenericPane {
        screen: GENERIC.into(),
        keys: Vec::new(),
        swap_after_capture: Some((1, GENERIC.replace("echo probe", "rm -rf /"))),
        captures: 0,
    };
    let reason = fast(&tui)
        .deliver_key(&mut pane, &hash, "y", &CancelFlag::default())
        .expect_err("must fail");
    assert!(pane.keys.is_empty());
    assert_eq!(reason, DeliveryRefusal::AnotherPrompt);
}

/// The data with a reject key (a box whose reject row is a text field).
fn with_reject_key() -> TuiData {
    let mut tui = tui();
    tui.keys.reject = Some(crate::adapter::tui_data::KeyName::new("Escape").expect("key"));
    tui
}

#[test]
fn a_reject_key_declines_from_the_focused_row_without_moves() {
    let tui = with_reject_key();
    for verdict in [Verdict::Decline, Verdict::Cancel] {
        let mut pane = SimPane::new(true);
        fast(&tui)
            .deliver(&mut pane, "Running: pwd", verdict, &CancelFlag::default())
            .expect("delivered");
        assert_eq!(pane.keys, ["Escape"]);
        assert!(pane.captures >= 2, "checked before and after the settle");
    }
    let mut pane = SimPane::new(true);
    fast(&tui)
        .deliver(
            &mut pane,
            "Running: pwd",
            Verdict::Accept,
            &CancelFlag::default(),
        )
        .expect("delivered");
    assert_eq!(pane.keys, ["Enter"], "accept still confirms the allow row");
}

#[test]
fn a_reject_key_is_not_sent_to_a_box_that_changed_during_the_settle() {
    let tui = with_reject_key();
    // The title, then the focus, changes between the first check and the
    // one before the key.
    let mut pane = SimPane::new(true);
    pane.after_capture.push((
        1,
        Box::new(|screen: &mut Screen| screen.tool = "Shell rm -rf /".into()),
    ));
    let reason = fast(&tui)
        .deliver(
            &mut pane,
            "Running: pwd",
            Verdict::Decline,
            &CancelFlag::default(),
        )
        .expect_err("must fail");
    assert!(pane.keys.is_empty(), "sent {:?}", pane.keys);
    assert!(
        matches!(reason, DeliveryRefusal::NotThisPrompt(_)),
        "{reason}"
    );
    let mut pane = SimPane::new(true);
    pane.after_capture
        .push((1, Box::new(|screen: &mut Screen| screen.focus = 2)));
    let reason = fast(&tui)
        .deliver(
            &mut pane,
            "Running: pwd",
            Verdict::Cancel,
            &CancelFlag::default(),
        )
        .expect_err("must fail");
    assert!(pane.keys.is_empty(), "sent {:?}", pane.keys);
    assert_eq!(reason.code(), RefusalCode::FocusMoved, "{reason}");
}
