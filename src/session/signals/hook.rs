//! The agent's own hook as an approval signal: the agent runs
//! `oneworks session hook` when it is about to ask (its hook registered by
//! the profile world, `tui.signals.hook`); that entry hands the hook's
//! stdin payload to the supervisor over the **signals socket** and exits at
//! once, printing nothing, so the agent's own prompt stays the only place
//! a decision is taken. The supervisor reads the payload through the data's
//! JSON pointers and makes the card at once, with the agent's own id and
//! the exact tool input as its text; the pane watcher later matches the
//! box on screen with it ([`attach`]), and the keystroke bridge still
//! verifies that box before every key.
//!
//! The signals socket is a second socket beside the approvals socket
//! (0600, same 0700 runtime folder, peers of another user refused) that
//! takes one thing only: `{"op":"signal","kind":"hook","payload":{…}}`, one
//! line, no reply. Its path reaches the TUI child in `ONEWORKS_SESSION_SIGNALS`;
//! every process the agent starts inherits it, so it can make a card at
//! most — never list, answer or stop (those stay on the approvals socket).
//! The payload is untrusted: bounded ([`MAX_PAYLOAD`]), its shape checked,
//! and never logged.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio::io::{AsyncBufReadExt, AsyncReadExt};
use tokio::net::UnixListener;

use crate::adapter::tui_data::TuiData;
use crate::adapter::tui_signals::HookSignalData;
use crate::session::signals::recorder::{ApprovalRequest, ToolDetail};
use crate::session::supervisor::state::SessionState;

/// The largest payload handed on; a larger one is dropped whole (the pane
/// still makes its card).
pub const MAX_PAYLOAD: usize = 256 * 1024;

/// The longest signal line the supervisor reads (the payload, re-encoded
/// compactly, and the envelope).
const MAX_LINE: u64 = MAX_PAYLOAD as u64 + 4096;

/// How long the entry tries to hand its line over before it gives up (a
/// stopped supervisor must not stall the agent, which may wait for its
/// hook before it draws the box).
const HAND_OVER: Duration = Duration::from_millis(500);

/// What one hook payload says, read through the data's pointers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookSignal {
    /// The agent's own id for this ask (the pointed values, as JSON).
    pub agent_id: String,
    /// The exact tool input: the command, else the input as compact JSON.
    pub text: String,
    pub tool: Option<String>,
    pub cwd: Option<String>,
}

/// Reads `payload` as a signal of `data`; `None` when it is not one (not
/// an object, a required field differs, no text).
pub fn read(payload: &Value, data: &HookSignalData) -> Option<HookSignal> {
    if !payload.is_object() {
        return None;
    }
    let required = data
        .require
        .iter()
        .all(|(pointer, wanted)| pointer.get(payload).and_then(Value::as_str) == Some(wanted));
    if !required {
        return None;
    }
    let text = data
        .text
        .iter()
        .find_map(|pointer| match pointer.get(payload)? {
            Value::String(text) => Some(text.clone()),
            Value::Null => None,
            other => Some(other.to_string()),
        })?;
    if text.trim().is_empty() {
        return None;
    }
    let parts: Vec<&Value> = data
        .agent_id
        .iter()
        .map(|pointer| pointer.get(payload).unwrap_or(&Value::Null))
        .collect();
    let agent_id = serde_json::to_string(&parts).ok()?;
    let string = |pointer: &Option<crate::adapter::tui_signals::JsonPointer>| {
        pointer
            .as_ref()
            .and_then(|pointer| pointer.get(payload))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    Some(HookSignal {
        agent_id: hex::encode(Sha256::digest(agent_id.as_bytes())),
        text,
        tool: string(&data.tool),
        cwd: string(&data.cwd),
    })
}

impl HookSignal {
    /// The request a card is opened for: the text is both what the card
    /// shows and what the bridge verifies on screen.
    pub fn request(&self) -> ApprovalRequest {
        ApprovalRequest {
            id: String::new(),
            tool_call_id: String::new(),
            title: self.text.clone(),
            options: Vec::new(),
            detail: ToolDetail {
                kind: self.tool.clone(),
                cwd: self.cwd.clone(),
                ..Default::default()
            },
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase", deny_unknown_fields)]
enum SignalLine {
    Signal { kind: String, payload: Value },
}

/// Serves the signals socket until the task is aborted: one line per
/// connection, no reply.
pub async fn serve(listener: UnixListener, state: Arc<SessionState>, tui: TuiData) {
    let Some(data) = tui.signals.hook.clone() else {
        return;
    };
    let data = Arc::new(data);
    let uid = crate::fs_safety::current_uid();
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            // Out of descriptors: the pane still makes cards.
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        if !stream.peer_cred().is_ok_and(|cred| cred.uid() == uid) {
            tracing::warn!("refused a signal from another user");
            continue;
        }
        let state = Arc::clone(&state);
        let data = Arc::clone(&data);
        tokio::spawn(async move {
            let mut reader = tokio::io::BufReader::new(stream.take(MAX_LINE));
            let mut line = Vec::new();
            let read = tokio::time::timeout(Duration::from_secs(5), async {
                reader.read_until(b'\n', &mut line).await
            });
            if !matches!(read.await, Ok(Ok(_))) {
                return;
            }
            receive(&state, &data, &line);
        });
    }
}

/// One signal line: a hook signal of this adapter makes its card.
pub fn receive(state: &SessionState, data: &HookSignalData, line: &[u8]) {
    let signal = match serde_json::from_slice::<SignalLine>(line) {
        Ok(SignalLine::Signal { kind, payload }) if kind == "hook" => read(&payload, data),
        _ => None,
    };
    match signal {
        Some(signal) => state.hook_signal(signal.request(), &signal.agent_id),
        // Its size only: the payload is the agent's and may hold anything.
        None => tracing::warn!(
            "dropped a signal that is not this agent's hook ({} bytes)",
            line.len()
        ),
    }
}

/// The pane watcher sees its adapter's own box (occurrence
/// `pane_request`): a pending signal card (of the hook or the chat store)
/// whose text the box shows (the bridge's own check) takes it — or, when
/// none, one just answered through its card before the watcher looked.
/// A hook's card is waited for up to the data's `paneWaitMs`. A chat
/// store's is waited for until a look at the store that began after the
/// box was seen has ended (the agent writes its call before it draws the
/// box), `paneWaitMs` bounding a store reader that never looks again.
/// `false`: no such card — the pane makes its own, and a lone signal card
/// still waiting is not this box's text ([`SessionState::signal_not_shown`]).
pub async fn attach(
    state: &SessionState,
    tui: &TuiData,
    capture: &str,
    pane_request: &str,
) -> bool {
    // Any signal source (this hook, the chat store) makes such cards.
    let Some(pane_wait) = tui.signals.pane_wait() else {
        return false;
    };
    let Some(view) = crate::session::signals::pane::parse(capture, &tui.prompt) else {
        return false;
    };
    let deadline = tokio::time::Instant::now() + pane_wait;
    // The look under way now may have begun before the call was written;
    // the one after it began after the box was seen.
    let store_looked_after = (tui.signals.hook.is_none() && tui.signals.chat_store.is_some())
        .then(|| state.store_looks() + 2);
    loop {
        let arrived = state.signals.notified();
        tokio::pin!(arrived);
        arrived.as_mut().enable();
        {
            let mut inner = state.lock();
            let shows = |(_, title): &(String, String)| {
                crate::session::signals::pane::view_matches(&view, title, &tui.prompt)
            };
            // A card still waiting first; else one answered before this
            // box was looked at (its box, still up: no second card).
            let matched = inner
                .book
                .unattached_signals()
                .into_iter()
                .find(shows)
                .or_else(|| {
                    inner
                        .book
                        .answered_unattached_signals()
                        .into_iter()
                        .find(shows)
                });
            if let Some((id, _)) = matched {
                let attached = inner.book.attach_pane(&id, pane_request);
                if attached {
                    tracing::info!("card `{id}`: its box is on screen ({pane_request})");
                }
                return attached;
            }
        }
        if store_looked_after.is_some_and(|looks| state.store_looks() >= looks) {
            state.signal_not_shown();
            return false;
        }
        if tokio::time::timeout_at(deadline, arrived).await.is_err() {
            state.signal_not_shown();
            return false;
        }
    }
}

/// `oneworks session hook`: hands the hook payload on `input` to the
/// supervisor at `socket` (from `ONEWORKS_SESSION_SIGNALS`) and returns, deciding
/// nothing. Every failure is silent: no socket, a payload over
/// [`MAX_PAYLOAD`] or not JSON, a supervisor that does not take it within
/// `HAND_OVER`.
pub fn forward(input: impl Read, socket: Option<&Path>) {
    let Some(socket) = socket.filter(|path| path.is_absolute()) else {
        return;
    };
    let mut bytes = Vec::new();
    if input
        .take(MAX_PAYLOAD as u64 + 1)
        .read_to_end(&mut bytes)
        .is_err()
        || bytes.len() > MAX_PAYLOAD
    {
        return;
    }
    let Ok(payload) = serde_json::from_slice::<Value>(&bytes) else {
        return;
    };
    let mut line =
        serde_json::json!({"op": "signal", "kind": "hook", "payload": payload}).to_string();
    line.push('\n');
    let socket: PathBuf = socket.to_owned();
    let (done, finished) = std::sync::mpsc::channel();
    // A connect blocks while a stopped supervisor's backlog is full.
    std::thread::spawn(move || {
        let sent = std::os::unix::net::UnixStream::connect(&socket).and_then(|mut stream| {
            stream.set_write_timeout(Some(HAND_OVER))?;
            stream.write_all(line.as_bytes())
        });
        let _ = done.send(sent.is_ok());
    });
    let _ = finished.recv_timeout(HAND_OVER);
}

#[cfg(test)]
#[path = "hook_tests.rs"]
mod tests;
