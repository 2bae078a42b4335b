//! The bridge against Gemini CLI's approval box, served from the panes
//! captured from the real 0.61.0 (one capture per focus position), with
//! the hostile twins: the box changes between two keys, the focus does
//! not move or lands elsewhere, the box goes away.

use super::*;
use crate::adapter::tui_data::test_data::gemini;
use crate::session::signals::pane::gemini_tests::{
    AFTER_DOWN, AFTER_DOWN_DOWN, AFTER_ENTER, BOX, HALF_DRAWN, UNTRUSTED_AFTER_DOWN, UNTRUSTED_BOX,
};

/// The card's title: the command of the box's nested command box.
const TITLE: &str = "touch probe-created.txt";

type Edit = Box<dyn Fn(&str) -> String>;

/// Real captures by focus; `Down` shows the next one, `Enter` the answered
/// screen (as the real agent does).
struct RealPane {
    screens: Vec<&'static str>,
    focus: usize,
    /// How many rows one `Down` moves (a person pressing too: 2).
    step: usize,
    /// `Down` is ignored (the agent froze).
    frozen: bool,
    answered: Option<usize>,
    keys: Vec<String>,
    /// After this many keys, every capture is edited.
    edit: Option<(usize, Edit)>,
    /// After each key, this many captures show the box half-drawn (the
    /// real agent caught mid-redraw).
    half_drawn: usize,
    half_left: usize,
}

impl RealPane {
    fn new(screens: Vec<&'static str>) -> Self {
        Self {
            screens,
            focus: 0,
            step: 1,
            frozen: false,
            answered: None,
            keys: Vec::new(),
            edit: None,
            half_drawn: 0,
            half_left: 0,
        }
    }

    fn trusted() -> Self {
        Self::new(vec![BOX, AFTER_DOWN, AFTER_DOWN_DOWN])
    }
}

impl Pane for RealPane {
    fn capture(&mut self) -> Result<String, PaneError> {
        if self.half_left > 0 {
            self.half_left -= 1;
            return Ok(HALF_DRAWN.to_owned());
        }
        let text = match self.answered {
            Some(_) => AFTER_ENTER,
            None => self.screens[self.focus],
        };
        Ok(match &self.edit {
            Some((after, edit)) if self.keys.len() >= *after => edit(text),
            _ => text.to_owned(),
        })
    }

    fn send_key(&mut self, key: &str) -> Result<(), PaneError> {
        self.keys.push(key.to_owned());
        self.half_left = self.half_drawn;
        match key {
            "Down" if !self.frozen => {
                self.focus = (self.focus + self.step).min(self.screens.len() - 1);
            }
            "Enter" => self.answered = Some(self.focus),
            _ => {}
        }
        Ok(())
    }
}

fn deliver(pane: &mut RealPane, verdict: Verdict) -> Result<(), DeliveryRefusal> {
    deliver_with(&gemini(), pane, verdict)
}

fn deliver_with(
    tui: &TuiData,
    pane: &mut RealPane,
    verdict: Verdict,
) -> Result<(), DeliveryRefusal> {
    let bridge = Bridge {
        tui,
        render_gap: Duration::ZERO,
        settle: Duration::ZERO,
        focus_wait: Duration::from_millis(200),
    };
    bridge.deliver(pane, TITLE, verdict, &CancelFlag::default())
}

#[test]
fn accept_presses_enter_on_allow_once() {
    let mut pane = RealPane::trusted();
    deliver(&mut pane, Verdict::Accept).expect("delivered");
    assert_eq!(pane.keys, ["Enter"]);
    assert_eq!(pane.answered, Some(0), "1. Allow once");
}

#[test]
fn decline_and_cancel_walk_down_to_the_no_row() {
    for verdict in [Verdict::Decline, Verdict::Cancel] {
        let mut pane = RealPane::trusted();
        deliver(&mut pane, verdict).expect("delivered");
        assert_eq!(pane.keys, ["Down", "Down", "Enter"], "{verdict:?}");
        assert_eq!(pane.answered, Some(2), "3. No, suggest changes");
    }
    // An untrusted folder: two rows, one move (the trust dialog below
    // holds a `●` too, and is not read).
    let mut pane = RealPane::new(vec![UNTRUSTED_BOX, UNTRUSTED_AFTER_DOWN]);
    deliver(&mut pane, Verdict::Decline).expect("delivered");
    assert_eq!(pane.keys, ["Down", "Enter"]);
    assert_eq!(pane.answered, Some(1));
}

#[test]
fn a_focus_that_does_not_move_sends_nothing_more() {
    let mut pane = RealPane::trusted();
    pane.frozen = true;
    let reason = deliver(&mut pane, Verdict::Decline).expect_err("must fail");
    assert_eq!(pane.keys, ["Down"]);
    assert!(
        matches!(&reason, DeliveryRefusal::FocusStuck { to, .. } if to == "Allow for this session"),
        "{reason}"
    );
    assert_eq!(pane.answered, None);
}

#[test]
fn a_focus_that_lands_elsewhere_sends_nothing_more() {
    let mut pane = RealPane::trusted();
    pane.step = 2;
    let reason = deliver(&mut pane, Verdict::Decline).expect_err("must fail");
    assert_eq!(pane.keys, ["Down"]);
    assert_eq!(
        reason,
        DeliveryRefusal::FocusMoved {
            found: "No, suggest changes (esc)".into(),
            expected: "Allow for this session".into(),
        }
    );
    assert_eq!(pane.answered, None);
}

#[test]
fn a_box_that_changes_between_two_keys_gets_no_enter() {
    let mut pane = RealPane::trusted();
    pane.edit = Some((
        1,
        Box::new(|text: &str| text.replace("touch probe-created.txt", "rm -rf probe-created.txt")),
    ));
    let reason = deliver(&mut pane, Verdict::Decline).expect_err("must fail");
    assert_eq!(pane.keys, ["Down"]);
    assert!(
        matches!(&reason, DeliveryRefusal::NotThisPrompt(shown) if shown.contains("rm -rf")),
        "the card says what is on screen: {reason}"
    );
}

#[test]
fn a_box_of_another_command_is_never_answered() {
    let tui = gemini();
    let bridge = Bridge {
        tui: &tui,
        render_gap: Duration::ZERO,
        settle: Duration::ZERO,
        focus_wait: Duration::from_millis(200),
    };
    for title in [
        "touch other.txt",
        "Shell touch probe-created.txt",
        "touch probe-created.txt; rm -rf ~",
    ] {
        let mut pane = RealPane::trusted();
        let reason = bridge
            .deliver(&mut pane, title, Verdict::Accept, &CancelFlag::default())
            .expect_err("must fail");
        assert!(pane.keys.is_empty(), "{title}: sent {:?}", pane.keys);
        assert!(
            matches!(reason, DeliveryRefusal::NotThisPrompt(_)),
            "{reason}"
        );
    }
}

#[test]
fn a_long_command_is_checked_whole_from_its_box() {
    use crate::session::signals::pane::gemini_tests::LONG_BOX;
    let long = crate::session::signals::pane::gemini_tests::long_command();
    let mut pane = RealPane::new(vec![LONG_BOX]);
    let tui = gemini();
    let bridge = Bridge {
        tui: &tui,
        render_gap: Duration::ZERO,
        settle: Duration::ZERO,
        focus_wait: Duration::from_millis(200),
    };
    bridge
        .deliver(&mut pane, &long, Verdict::Accept, &CancelFlag::default())
        .expect("delivered");
    assert_eq!(pane.keys, ["Enter"]);
    // The tool line shows only the model's description: not a title.
    let mut pane = RealPane::new(vec![LONG_BOX]);
    let reason = bridge
        .deliver(
            &mut pane,
            "Shell Create a file",
            Verdict::Accept,
            &CancelFlag::default(),
        )
        .expect_err("must fail");
    assert!(pane.keys.is_empty());
    assert!(
        matches!(&reason, DeliveryRefusal::NotThisPrompt(shown) if shown.contains("> long.txt")),
        "shows the command: {reason}"
    );
}

#[test]
fn a_box_answered_in_the_terminal_gets_no_key() {
    let mut pane = RealPane::trusted();
    pane.edit = Some((0, Box::new(|_: &str| AFTER_ENTER.to_owned())));
    let reason = deliver(&mut pane, Verdict::Accept).expect_err("must fail");
    assert!(pane.keys.is_empty(), "sent {:?}", pane.keys);
    assert_eq!(reason, DeliveryRefusal::PromptGone);
}

#[test]
fn a_box_caught_half_drawn_after_a_key_is_looked_at_again() {
    let mut pane = RealPane::trusted();
    pane.half_drawn = 3;
    deliver(&mut pane, Verdict::Decline).expect("delivered");
    assert_eq!(pane.keys, ["Down", "Down", "Enter"]);
    assert_eq!(pane.answered, Some(2));

    // Without the adapter's redraw bound, the same half-drawn capture ends
    // the delivery at once, before Enter.
    let mut tui = gemini();
    tui.redraw_ms = 0;
    let mut pane = RealPane::trusted();
    pane.half_drawn = 1;
    let reason = deliver_with(&tui, &mut pane, Verdict::Decline).expect_err("must fail");
    assert_eq!(pane.keys, ["Down"]);
    assert_eq!(reason, DeliveryRefusal::PromptGone);
}

#[test]
fn a_box_that_stays_half_drawn_gets_no_enter() {
    let mut pane = RealPane::trusted();
    pane.half_drawn = usize::MAX;
    let started = std::time::Instant::now();
    let reason = deliver(&mut pane, Verdict::Decline).expect_err("must fail");
    assert_eq!(pane.keys, ["Down"]);
    assert_eq!(reason, DeliveryRefusal::PromptGone);
    assert!(
        started.elapsed() >= Duration::from_millis(gemini().redraw_ms),
        "looked again for the whole bound"
    );
}
