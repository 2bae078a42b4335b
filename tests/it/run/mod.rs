//! `oneworks run <adapter>` through the real binary against the fake agent
//! (`src/bin/fake-kiro-cli`) over real stdio, one file per feature; the
//! harness is [`acp_env`]. Every run through
//! [`AcpEnv::run`](crate::run::acp_env::AcpEnv::run) and
//! [`AcpEnv::live`](crate::run::acp_env::AcpEnv::live) also checks by pid
//! that no agent is left behind. Beside the protocol and the policy: the
//! terminal channel, the end of a run, the bounds on what the agent sends,
//! kept sessions and their cards, conformance against the official ACP
//! SDK, Kiro as the field reports it, Cursor over ACP and a third adapter
//! known only from a data file.

pub mod acp_env;
mod bounds;
mod cancel;
mod conformance;
mod cursor;
mod environment;
mod events;
mod kept;
mod kept_cards;
mod kiro_field;
mod modes;
mod permissions;
mod policy;
mod protocol;
mod races;
mod secrets;
mod setup;
mod shutdown;
mod terminal;
mod third_adapter;

use serde_json::{json, Value};

use crate::run::acp_env::AcpEnv;

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
