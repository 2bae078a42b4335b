//! The keystroke bridge: types a verdict into the visible TUI
//! prompt, one key at a time, verifying the pane before every key and
//! again right before `Enter`. Any doubt — prompt gone, focus elsewhere,
//! title changed, the terminal answered — sends nothing more and returns
//! the reason. `Enter` is never pressed on an unverified prompt.
//!
//! It is synchronous (tmux is a process per call) and runs on a blocking
//! thread; the pane is a trait so tests can script changes between keys.

use std::time::{Duration, Instant};

use crate::adapter::tui_data::{KeyStep, TuiData, WholePattern};
use crate::session::cards::{CancelFlag, Verdict};
pub use crate::session::refusal::{DeliveryRefusal, PaneError};
use crate::session::signals::pane::{self, PromptView, Row};

/// A pane the bridge can read and type into.
pub trait Pane {
    /// The visible screen, wrapped lines joined, with the SGR escapes
    /// that carry reverse video and colours (`capture-pane -p -J -e`); a
    /// capture without escapes reads too (a focus marker needs none).
    fn capture(&mut self) -> Result<String, PaneError>;
    /// Sends exactly one key (a tmux key name).
    fn send_key(&mut self, key: &str) -> Result<(), PaneError>;
}

/// The timings and labels the bridge works with.
#[derive(Debug, Clone)]
pub struct Bridge<'a> {
    pub tui: &'a TuiData,
    pub render_gap: Duration,
    pub settle: Duration,
    pub focus_wait: Duration,
}

/// How often the pane is read while waiting for a moved focus.
const FOCUS_POLL: Duration = Duration::from_millis(25);

impl<'a> Bridge<'a> {
    pub fn new(tui: &'a TuiData) -> Self {
        Self {
            tui,
            render_gap: tui.render_gap(),
            settle: tui.settle(),
            focus_wait: tui.focus_wait(),
        }
    }

    /// Delivers `verdict` for the request titled `title`. `Ok(())` means
    /// `Enter` was sent on a verified prompt.
    pub fn deliver(
        &self,
        pane: &mut dyn Pane,
        title: &str,
        verdict: Verdict,
        cancel: &CancelFlag,
    ) -> Result<(), DeliveryRefusal> {
        if let Some(verdicts) = &self.tui.keys.verdicts {
            let steps = match verdict {
                Verdict::Accept => &verdicts.accept,
                Verdict::Decline => &verdicts.decline,
                Verdict::Cancel => verdicts.cancel.as_ref().unwrap_or(&verdicts.decline),
            };
            return self.deliver_steps(pane, title, steps, cancel);
        }
        let target = match verdict {
            Verdict::Accept => Row::Allow,
            Verdict::Decline | Verdict::Cancel => Row::Reject,
        };
        let mut view = self.wait_for_prompt(pane, title, cancel)?;
        if target == Row::Allow && view.focused != Row::Allow {
            return Err(self.focus_error(Row::Allow, view.focused));
        }
        // A reject key (`Escape`) declines from any row: no moves; the box
        // checked again after the settle, its focus where it was.
        if let (Row::Reject, Some(reject)) = (target, &self.tui.keys.reject) {
            self.pause(self.settle, cancel)?;
            self.look(pane, title, Some(view.focused), cancel)?;
            return Ok(pane.send_key(reject.as_str())?);
        }
        while view.focused != target {
            let next = view
                .below(view.focused)
                .ok_or_else(|| DeliveryRefusal::LastRow(view.focused.label(&self.tui.prompt)))?;
            // Before the move: the focus is on the row above `next`.
            self.look(pane, title, Some(view.focused), cancel)?;
            pane.send_key(self.tui.keys.next.as_str())?;
            view = self.wait_for_focus(pane, title, view.focused, next, cancel)?;
            self.pause(self.render_gap, cancel)?;
        }
        // `view` was just verified with the focus on `target` (the first
        // check, or the wait after the last move): settle, verify again,
        // Enter.
        self.pause(self.settle, cancel)?;
        self.look(pane, title, Some(target), cancel)?;
        Ok(pane.send_key(self.tui.keys.confirm.as_str())?)
    }

    /// The data's keys of a verdict (`tui.keys.verdicts`), one per send
    /// with the render gap between them. Before the first: the box shows
    /// this card's request (waited for, like any first check), settle,
    /// the same again. Before each next one: its `screen` line (the field
    /// the key before opened) shows, waited for up to `focusWaitMs`; a
    /// step without one checks the box again. A box that is not one the
    /// data reads fails at once ([`DeliveryRefusal::NotRecognised`]).
    fn deliver_steps(
        &self,
        pane: &mut dyn Pane,
        title: &str,
        steps: &[KeyStep],
        cancel: &CancelFlag,
    ) -> Result<(), DeliveryRefusal> {
        let Some((first, rest)) = steps.split_first() else {
            return Err(DeliveryRefusal::NoKey);
        };
        self.recognised(self.wait_for_prompt(pane, title, cancel), pane)?;
        self.pause(self.settle, cancel)?;
        self.recognised(self.look(pane, title, None, cancel), pane)?;
        pane.send_key(first.key.as_str())?;
        for step in rest {
            self.pause(self.render_gap, cancel)?;
            match &step.screen {
                Some(screen) => self.wait_for_screen(pane, screen, cancel)?,
                None => drop(self.recognised(self.look(pane, title, None, cancel), pane)?),
            }
            pane.send_key(step.key.as_str())?;
        }
        Ok(())
    }

    /// A check that found no box of the data's: when the pane shows a
    /// prompt all the same (the generic detector's), it is one oneworks
    /// does not read — left to the terminal, said so.
    fn recognised(
        &self,
        checked: Result<PromptView, DeliveryRefusal>,
        pane: &mut dyn Pane,
    ) -> Result<PromptView, DeliveryRefusal> {
        match checked {
            Err(DeliveryRefusal::PromptGone) => {
                let capture = pane::styled::plain(&pane.capture()?);
                match crate::session::signals::pane_fallback::detect(&capture, self.tui) {
                    Some(_) => Err(DeliveryRefusal::NotRecognised),
                    None => Err(DeliveryRefusal::PromptGone),
                }
            }
            other => other,
        }
    }

    /// Waits (bounded by `focusWaitMs`) until a line of the screen,
    /// trimmed, matches `screen` whole.
    fn wait_for_screen(
        &self,
        pane: &mut dyn Pane,
        screen: &WholePattern,
        cancel: &CancelFlag,
    ) -> Result<(), DeliveryRefusal> {
        let deadline = Instant::now() + self.focus_wait;
        loop {
            if cancel.is_cancelled() {
                return Err(DeliveryRefusal::AnsweredInTerminal);
            }
            let capture = pane::styled::plain(&pane.capture()?);
            if capture.lines().any(|line| screen.matches(line.trim())) {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(DeliveryRefusal::ScreenMissing {
                    screen: screen.shown(),
                    millis: self.focus_wait.as_millis(),
                });
            }
            self.pause(FOCUS_POLL, cancel)?;
        }
    }

    /// The pane-scrape fallback's delivery: one advertised `key`, sent
    /// only while the same prompt (by content hash) is on screen, checked
    /// before and after the settle.
    pub fn deliver_key(
        &self,
        pane: &mut dyn Pane,
        hash: &str,
        key: &str,
        cancel: &CancelFlag,
    ) -> Result<(), DeliveryRefusal> {
        let check = |pane: &mut dyn Pane| -> Result<(), DeliveryRefusal> {
            if cancel.is_cancelled() {
                return Err(DeliveryRefusal::AnsweredInTerminal);
            }
            let capture = crate::session::signals::pane::styled::plain(&pane.capture()?);
            match crate::session::signals::pane_fallback::detect(&capture, self.tui) {
                Some(prompt) if prompt.hash == hash => Ok(()),
                Some(_) => Err(DeliveryRefusal::AnotherPrompt),
                None => Err(DeliveryRefusal::PromptGone),
            }
        };
        check(pane)?;
        self.pause(self.settle, cancel)?;
        check(pane)?;
        Ok(pane.send_key(key)?)
    }

    /// Capture and check: prompt visible, focus on `focus` (if given),
    /// tool line matches `title`; the terminal has not answered.
    fn verify(
        &self,
        pane: &mut dyn Pane,
        title: &str,
        focus: Option<Row>,
        cancel: &CancelFlag,
    ) -> Result<PromptView, DeliveryRefusal> {
        if cancel.is_cancelled() {
            return Err(DeliveryRefusal::AnsweredInTerminal);
        }
        let capture = pane.capture()?;
        let labels = &self.tui.prompt;
        let view = pane::parse(&capture, labels).ok_or(DeliveryRefusal::PromptGone)?;
        if !pane::view_matches(&view, title, labels) {
            return Err(DeliveryRefusal::NotThisPrompt(
                // Whole: the card scrubs the reason, then cuts it.
                crate::output::sanitize_line(view.command.as_deref().unwrap_or(&view.tool_line))
                    .into_owned(),
            ));
        }
        match focus {
            Some(expected) if expected != view.focused => {
                Err(self.focus_error(expected, view.focused))
            }
            _ => Ok(view),
        }
    }

    /// [`Self::verify`], where a capture without the prompt is taken again
    /// (bounded by the adapter's `redrawMs`) before the prompt counts as
    /// gone: it may have been caught half-drawn. Only a capture that passes
    /// every check is ever acted on.
    fn look(
        &self,
        pane: &mut dyn Pane,
        title: &str,
        focus: Option<Row>,
        cancel: &CancelFlag,
    ) -> Result<PromptView, DeliveryRefusal> {
        let deadline = Instant::now() + self.tui.redraw();
        loop {
            match self.verify(pane, title, focus, cancel) {
                Err(DeliveryRefusal::PromptGone) if Instant::now() < deadline => {
                    self.pause(FOCUS_POLL, cancel)?;
                }
                other => return other,
            }
        }
    }

    /// The first check: the agent writes the recorder line before it draws the
    /// prompt, so a verdict that arrives at once (a webhook) may find no
    /// prompt yet. Wait (bounded, like a moved focus) only while no prompt
    /// is on screen; any other finding — another title, the focus elsewhere,
    /// the terminal answered — fails at once, as before.
    fn wait_for_prompt(
        &self,
        pane: &mut dyn Pane,
        title: &str,
        cancel: &CancelFlag,
    ) -> Result<PromptView, DeliveryRefusal> {
        let deadline = Instant::now() + self.focus_wait;
        loop {
            match self.verify(pane, title, None, cancel) {
                Err(DeliveryRefusal::PromptGone) if Instant::now() < deadline => {
                    self.pause(FOCUS_POLL, cancel)?;
                }
                other => return other,
            }
        }
    }

    /// After a move from `from`: wait (bounded) until the focus shows on
    /// `to`. Still on `from` = not rendered yet; anything else fails.
    fn wait_for_focus(
        &self,
        pane: &mut dyn Pane,
        title: &str,
        from: Row,
        to: Row,
        cancel: &CancelFlag,
    ) -> Result<PromptView, DeliveryRefusal> {
        let deadline = Instant::now() + self.focus_wait;
        loop {
            let view = self.look(pane, title, None, cancel)?;
            if view.focused == to {
                return Ok(view);
            }
            if view.focused != from {
                return Err(self.focus_error(to, view.focused));
            }
            if Instant::now() >= deadline {
                return Err(DeliveryRefusal::FocusStuck {
                    to: to.label(&self.tui.prompt),
                    millis: self.focus_wait.as_millis(),
                });
            }
            self.pause(FOCUS_POLL, cancel)?;
        }
    }

    fn focus_error(&self, expected: Row, found: Row) -> DeliveryRefusal {
        let labels = &self.tui.prompt;
        DeliveryRefusal::FocusMoved {
            found: found.label(labels),
            expected: expected.label(labels),
        }
    }

    /// Sleeps `duration`, ending early (with an error) on a cancel.
    fn pause(&self, duration: Duration, cancel: &CancelFlag) -> Result<(), DeliveryRefusal> {
        let deadline = Instant::now() + duration;
        loop {
            if cancel.is_cancelled() {
                return Err(DeliveryRefusal::AnsweredInTerminal);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(());
            }
            std::thread::sleep(left.min(Duration::from_millis(20)));
        }
    }
}

#[cfg(test)]
#[path = "keystroke_bridge_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "keystroke_bridge_gemini_tests.rs"]
mod gemini_tests;
