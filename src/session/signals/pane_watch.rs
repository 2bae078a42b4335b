//! Drives the pane-scrape fallback in a running supervisor:
//! captures the pane when it changed ([`tmux_control`]), feeds the detector and its
//! single-prompt tracker, and turns what appears and vanishes into cards.
//! The adapter's own prompt (its grammar in the data file) is answered
//! through the keystroke bridge; any other prompt through the one key its
//! rows advertise.

use std::sync::Arc;
use std::time::Duration;

use crate::adapter::tui_data::TuiData;
use crate::session::signals::pane_fallback::{self, DetectedPrompt, FallbackEvent, Tracker};
use crate::session::signals::recorder::ApprovalRequest;
use crate::session::supervisor::state::{Delivery, SessionState};
use crate::session::tmux::Tmux;
use crate::session::tmux_control::{self, LookReason};

/// Runs until the task is aborted. The pane is looked at when tmux's
/// control mode says it changed ([`tmux_control`]: idle costs nothing);
/// without control mode, every `every` (the data's `pollMs`).
pub async fn run(tmux: Tmux, state: Arc<SessionState>, tui: TuiData, every: Duration) {
    let control = match tmux_control::Control::attach(&tmux) {
        Ok(control) => Some(control),
        Err(error) => {
            tracing::warn!(
                "cannot start tmux control mode ({error}): reading the pane every {} ms",
                every.as_millis()
            );
            None
        }
    };
    let mut pace = tmux_control::Pace::new(control, every);
    let mut tracker = Tracker::default();
    // The capture the tracker last observed: the same screen again (a
    // safety look, output that changed nothing drawn) would observe the
    // same and change nothing, so it is not parsed again.
    let mut observed = String::new();
    loop {
        if pace.next().await == LookReason::SourceEnded {
            control_ended(&tmux, every).await;
        }
        let Some(mut capture) = read_pane(&tmux).await else {
            continue;
        };
        if capture == observed {
            continue;
        }
        let mut seen = pane_fallback::detect_any(&capture, &tui);
        // The active prompt missing may be a redraw caught half-way: it
        // is gone only when it stays missing for the adapter's bound.
        let deadline = tokio::time::Instant::now() + tui.redraw();
        while seen.is_none() && tracker.active().is_some() && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(REDRAW_POLL).await;
            if let Some(again) = read_pane(&tmux).await {
                seen = pane_fallback::detect_any(&again, &tui);
                capture = again;
            }
        }
        observed.clone_from(&capture);
        for event in tracker.observe(seen) {
            match event {
                FallbackEvent::Appeared { occurrence, prompt } => {
                    let (request, delivery) = card_for(occurrence, &prompt, &capture, &tui);
                    // The agent's hook made this box's card already.
                    let pane_request = request_id(occurrence);
                    let attached = delivery == Delivery::Bridge
                        && crate::session::signals::hook::attach(
                            &state,
                            &tui,
                            &capture,
                            &pane_request,
                        )
                        .await;
                    if !attached {
                        state.pane_prompt(request, delivery);
                    }
                }
                FallbackEvent::Vanished { occurrence, .. } => {
                    state.pane_vanished(&request_id(occurrence));
                }
            }
        }
    }
}

/// How often a missing prompt is looked for again within `redrawMs`.
const REDRAW_POLL: Duration = Duration::from_millis(25);

/// Logged once: the control client ended while the server still runs (at
/// the session's end both go, and that is no news).
async fn control_ended(tmux: &Tmux, every: Duration) {
    let probe = tmux.clone();
    let server_up = matches!(
        tokio::task::spawn_blocking(move || probe.server_pid()).await,
        Ok(Ok(_))
    );
    if server_up {
        tracing::warn!(
            "tmux control mode ended: reading the pane every {} ms from now on",
            every.as_millis()
        );
    } else {
        tracing::debug!("tmux control mode ended with the tmux server");
    }
}

async fn read_pane(tmux: &Tmux) -> Option<String> {
    let reader = tmux.clone();
    match tokio::task::spawn_blocking(move || reader.capture_styled()).await {
        Ok(Ok(capture)) => Some(capture),
        _ => None,
    }
}

fn request_id(occurrence: u64) -> String {
    format!("pane-{occurrence}")
}

/// The card's request and how a verdict reaches the prompt.
pub fn card_for(
    occurrence: u64,
    prompt: &DetectedPrompt,
    capture: &str,
    tui: &TuiData,
) -> (ApprovalRequest, Delivery) {
    let id = request_id(occurrence);
    let request = |title: String| ApprovalRequest {
        id: id.clone(),
        tool_call_id: format!("pane:{}", prompt.hash),
        title,
        options: Vec::new(),
        detail: Default::default(),
    };
    // The adapter's own prompt: the verified row-by-row bridge.
    if let Some(view) = crate::session::signals::pane::parse(capture, &tui.prompt) {
        let title = crate::session::signals::pane::card_title(&view);
        let mut request = request(title);
        request.detail.command = view.command;
        return (request, Delivery::Bridge);
    }
    let first = prompt.options.first();
    let last = prompt.options.last();
    let accept = first
        .and_then(|row| row.keys.first().cloned())
        .or_else(|| first.filter(|row| row.focused).map(|_| "enter".to_owned()));
    let is_esc = |key: &&String| matches!(key.as_str(), "esc" | "escape");
    let decline = last.and_then(|row| {
        row.keys
            .iter()
            .find(|key| !is_esc(key))
            .or_else(|| row.keys.first())
            .cloned()
    });
    let cancel = last
        .and_then(|row| row.keys.iter().find(is_esc).cloned())
        .or_else(|| decline.clone());
    (
        request(prompt.preview()),
        Delivery::Key {
            hash: prompt.hash.clone(),
            accept: accept.map(|key| tmux_key(&key)),
            decline: decline.map(|key| tmux_key(&key)),
            cancel: cancel.map(|key| tmux_key(&key)),
        },
    )
}

/// A key as the detector read it (`esc`, `shift+tab`, `y`) → tmux's name.
pub fn tmux_key(key: &str) -> String {
    match key {
        "esc" | "escape" => "Escape".to_owned(),
        "enter" | "return" => "Enter".to_owned(),
        "tab" => "Tab".to_owned(),
        "shift+tab" => "BTab".to_owned(),
        "space" => "Space".to_owned(),
        "backspace" => "BSpace".to_owned(),
        "up" => "Up".to_owned(),
        "down" => "Down".to_owned(),
        "left" => "Left".to_owned(),
        "right" => "Right".to_owned(),
        other => match other.split_once('+') {
            Some(("ctrl", key)) => format!("C-{key}"),
            Some(("alt" | "meta", key)) => format!("M-{key}"),
            _ => other.to_owned(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::signals::pane::tests::spec_prompt;

    fn tui() -> TuiData {
        crate::adapter::data::AdapterData::builtin()
            .expect("data")
            .tui
    }

    #[test]
    fn generic_prompts_are_answered_by_their_advertised_keys() {
        let tui = tui();
        let screen = " $  echo probe > out.txt in .\n Run this command?\n Shell allowlist is empty\n  → Run (once) (y)\n    Run Everything (shift+tab)\n    Skip (esc or n)\n";
        let prompt = pane_fallback::detect(screen, &tui).expect("prompt");
        let (request, delivery) = card_for(1, &prompt, screen, &tui);
        assert_eq!(
            request.title,
            "$ echo probe > out.txt in . — Run this command?"
        );
        let Delivery::Key {
            accept,
            decline,
            cancel,
            ..
        } = delivery
        else {
            panic!("not a key delivery");
        };
        assert_eq!(accept.as_deref(), Some("y"));
        assert_eq!(decline.as_deref(), Some("n"));
        assert_eq!(cancel.as_deref(), Some("Escape"));
    }

    #[test]
    fn kiro_prompts_use_the_bridge_with_the_tool_line_as_title() {
        let tui = tui();
        let screen = spec_prompt("Shell pwd", true, 0);
        let prompt = pane_fallback::detect(&screen, &tui).expect("prompt");
        let (request, delivery) = card_for(2, &prompt, &screen, &tui);
        assert_eq!(request.title, "Shell pwd");
        assert!(matches!(delivery, Delivery::Bridge));
        assert!(crate::session::signals::pane::title_matches(
            "↓ Shell pwd",
            &request.title,
            &tui.prompt
        ));
    }
}
