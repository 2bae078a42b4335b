//! `oneworks run <adapter>` through the real binary against the fake agent
//! (`src/bin/fake-kiro-cli`) over real stdio, one file per feature. Every
//! run through [`AcpEnv::run`](crate::acp_support::AcpEnv::run) and
//! [`AcpEnv::live`](crate::acp_support::AcpEnv::live) also checks by pid
//! that no agent is left behind. The terminal channel, the end of a run and
//! the bounds on what the agent sends have files of their own
//! (`acp_terminal.rs`, `shutdown.rs`, `bounds.rs`).

mod cancel;
mod environment;
mod events;
mod modes;
mod permissions;
mod policy;
mod protocol;
mod races;
mod secrets;
mod setup;

use serde_json::{json, Value};

use crate::acp_support::AcpEnv;

const PROMPT: &[&str] = &["--prompt", "Say hello"];

/// `--prompt "Say hello"` followed by `extra`.
fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut all: Vec<&str> = PROMPT.to_vec();
    all.extend_from_slice(extra);
    all
}

fn text_of(events: &[Value]) -> String {
    events
        .iter()
        .filter(|event| event["type"] == "agent_message_chunk")
        .filter_map(|event| event["text"].as_str())
        .collect()
}

fn wire_answer(acp: &AcpEnv, id: &Value) -> Value {
    acp.received()
        .into_iter()
        .find(|message| message.get("method").is_none() && &message["id"] == id)
        .map(|message| message["result"]["outcome"].clone())
        .unwrap_or_else(|| panic!("no answer to {id} on the wire"))
}

/// The index on the wire of our answer to request `id`, and of the first
/// `session/cancel`.
fn answer_and_cancel_positions(acp: &AcpEnv, id: &Value) -> (usize, usize) {
    let received = acp.received();
    let answer = received
        .iter()
        .position(|message| message.get("method").is_none() && &message["id"] == id)
        .expect("an answer to the permission request");
    let cancel = received
        .iter()
        .position(|message| message["method"] == "session/cancel")
        .expect("a session/cancel");
    assert_eq!(
        received[answer]["result"]["outcome"],
        json!({"outcome": "cancelled"})
    );
    (answer, cancel)
}
