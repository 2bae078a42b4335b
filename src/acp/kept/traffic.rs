//! What the owner learns from the lines it relays: the prompt in flight,
//! the questions that wait for the caller, and the agent session once it
//! is open. The rest of the traffic passes untouched and unread (a message
//! chunk, most of a turn's lines, is recognised without parsing it).
//!
//! Ids are JSON values compared whole (`7` and `"7"` differ), as the ACP
//! client compares them.

use agent_client_protocol_schema::v1::{AGENT_METHOD_NAMES, CLIENT_METHOD_NAMES};
use serde_json::Value;

use super::protocol::OWNER_PREFIX;

/// The agent session the owner keeps.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenSession {
    pub id: String,
    /// The agent's answer to opening it.
    pub answer: Value,
}

/// What an agent line is, for the owner.
#[derive(Debug, PartialEq)]
pub enum FromAgent {
    /// Relay it (while a caller is served).
    Relay,
    /// A notification (`session/update`, a chunk…): relayed while a
    /// caller's turn runs.
    Update,
    /// A question (`session/request_permission`) with this id and params.
    Question(Value, Value),
    /// Another request of the agent's, with its id and method.
    Request(Value, String),
    /// A line the owner alone may write: dropped.
    Forged,
}

/// What a caller line is, for the owner.
#[derive(Debug, PartialEq)]
pub enum FromCaller {
    /// Relay it to the agent.
    Relay,
    /// The answer to the agent's question `id`, with the option chosen
    /// (`None`: `cancelled`).
    Answer(Value, Option<String>),
    /// An answer to `id`, which is no waiting question (another request
    /// of the agent's, or a question a card answered).
    OtherAnswer(Value),
    /// A line for the owner (`_oneworks/…`): not relayed.
    ForOwner(String, Value),
}

#[derive(Debug, Default)]
pub struct Traffic {
    /// The caller's `session/prompt` waiting for its answer.
    prompt: Option<Value>,
    /// The caller's requests opening a session: their ids, and the session
    /// id a load or resume names.
    opening: Vec<(Value, Option<String>)>,
    /// The agent's questions the caller has not answered.
    questions: Vec<Value>,
    /// Every request of the caller's the agent has not answered yet: the
    /// next caller numbers its requests from 1 again, so it is granted
    /// only once these answers came (and were dropped).
    awaiting: Vec<Value>,
    session: Option<OpenSession>,
}

fn parse(bytes: &[u8]) -> Option<serde_json::Map<String, Value>> {
    match serde_json::from_slice(bytes) {
        Ok(Value::Object(object)) => Some(object),
        _ => None,
    }
}

impl Traffic {
    /// A line from the caller to the agent.
    pub fn from_caller(&mut self, bytes: &[u8]) -> FromCaller {
        let Some(message) = parse(bytes) else {
            return FromCaller::Relay;
        };
        let id = message.get("id").cloned();
        let method = message.get("method").and_then(Value::as_str);
        if let Some(method) = method.filter(|method| method.starts_with(OWNER_PREFIX)) {
            let params = message.get("params").cloned().unwrap_or(Value::Null);
            return FromCaller::ForOwner(method.to_owned(), params);
        }
        if let (Some(_), Some(id)) = (method, &id) {
            self.awaiting.push(id.clone());
        }
        match (method, id) {
            (Some(method), Some(id)) if method == AGENT_METHOD_NAMES.session_prompt => {
                self.prompt = Some(id);
            }
            (Some(method), Some(id))
                if method == AGENT_METHOD_NAMES.session_new
                    || method == AGENT_METHOD_NAMES.session_load
                    || method == AGENT_METHOD_NAMES.session_resume =>
            {
                let named = message
                    .get("params")
                    .and_then(|params| params.get("sessionId"))
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                self.opening.push((id, named));
            }
            // An answer to one of the agent's questions.
            (None, Some(id)) => {
                if !self.take_question(&id) {
                    return FromCaller::OtherAnswer(id);
                }
                let option = message
                    .get("result")
                    .and_then(|result| result.get("outcome"))
                    .and_then(|outcome| outcome.get("optionId"))
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                return FromCaller::Answer(id, option);
            }
            _ => {}
        }
        FromCaller::Relay
    }

    /// Whether question `id` waits for an answer.
    pub fn has_question(&self, id: &Value) -> bool {
        self.questions.contains(id)
    }

    /// Forgets question `id` (answered); whether it waited.
    pub fn take_question(&mut self, id: &Value) -> bool {
        let before = self.questions.len();
        self.questions.retain(|question| question != id);
        self.questions.len() != before
    }

    /// A line from the agent.
    pub fn from_agent(&mut self, bytes: &[u8]) -> FromAgent {
        if crate::acp::fast::chunk(bytes).is_some() {
            return FromAgent::Update;
        }
        let Some(message) = parse(bytes) else {
            return FromAgent::Relay;
        };
        let id = message.get("id").cloned();
        match (message.get("method").and_then(Value::as_str), id) {
            (Some(method), _) if method.starts_with(OWNER_PREFIX) => FromAgent::Forged,
            (Some(method), Some(id))
                if method == CLIENT_METHOD_NAMES.session_request_permission =>
            {
                self.questions.push(id.clone());
                let params = message.get("params").cloned().unwrap_or(Value::Null);
                FromAgent::Question(id, params)
            }
            (Some(method), Some(id)) => FromAgent::Request(id, method.to_owned()),
            (None, Some(id)) => {
                self.on_answer(&id, &message);
                FromAgent::Relay
            }
            (Some(_), None) => FromAgent::Update,
            _ => FromAgent::Relay,
        }
    }

    fn on_answer(&mut self, id: &Value, message: &serde_json::Map<String, Value>) {
        if let Some(index) = self.awaiting.iter().position(|awaited| awaited == id) {
            self.awaiting.remove(index);
        }
        if self.prompt.as_ref() == Some(id) {
            self.prompt = None;
            // The turn is over: nothing it asked waits any more.
            self.questions.clear();
            return;
        }
        let Some(index) = self.opening.iter().position(|(opening, _)| opening == id) else {
            return;
        };
        let (_, named) = self.opening.remove(index);
        let Some(result) = message.get("result") else {
            return;
        };
        let id = result
            .get("sessionId")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or(named);
        if let Some(id) = id {
            self.session = Some(OpenSession {
                id,
                answer: result.clone(),
            });
        }
    }

    /// Whether a prompt waits for its answer.
    pub fn in_turn(&self) -> bool {
        self.prompt.is_some()
    }

    /// Whether any request of the caller's waits for its answer.
    pub fn awaiting(&self) -> bool {
        !self.awaiting.is_empty()
    }

    /// The questions still waiting for an answer (taken).
    pub fn take_questions(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.questions)
    }

    pub fn session(&self) -> Option<&OpenSession> {
        self.session.as_ref()
    }

    /// The agent is gone: its turn, questions and requests with it (the
    /// session stays known, to be loaded again).
    pub fn agent_gone(&mut self) {
        self.prompt = None;
        self.questions.clear();
        self.opening.clear();
        self.awaiting.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(value: Value) -> Vec<u8> {
        serde_json::to_vec(&value).expect("json")
    }

    #[test]
    fn a_turn_its_questions_and_the_session_are_followed() {
        let mut traffic = Traffic::default();
        traffic.from_caller(&line(
            json!({"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/p"}}),
        ));
        traffic.from_agent(&line(
            json!({"jsonrpc":"2.0","id":2,"result":{"sessionId":"s-1","models":{}}}),
        ));
        assert_eq!(traffic.session().map(|s| s.id.as_str()), Some("s-1"));
        traffic.from_caller(&line(
            json!({"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{}}),
        ));
        assert!(traffic.in_turn());
        // `7` and `"7"` are two questions.
        for id in [json!(7), json!("7")] {
            let asked = traffic.from_agent(&line(
                json!({"jsonrpc":"2.0","id":id,"method":"session/request_permission","params":{}}),
            ));
            assert_eq!(asked, FromAgent::Question(id, json!({})));
        }
        let answer = traffic.from_caller(&line(json!({"jsonrpc":"2.0","id":7,"result":{}})));
        assert_eq!(answer, FromCaller::Answer(json!(7), None));
        let again = traffic.from_caller(&line(json!({"jsonrpc":"2.0","id":7,"result":{}})));
        assert_eq!(again, FromCaller::OtherAnswer(json!(7)));
        let asking = traffic.from_caller(&line(
            json!({"jsonrpc":"2.0","method":"_oneworks/asking","params":{"id":"7"}}),
        ));
        assert_eq!(
            asking,
            FromCaller::ForOwner("_oneworks/asking".to_owned(), json!({"id": "7"}))
        );
        assert_eq!(traffic.take_questions(), vec![json!("7")]);
        // The prompt's answer ends the turn; an answer to another id does not.
        traffic.from_agent(&line(json!({"jsonrpc":"2.0","id":"3","result":{}})));
        assert!(traffic.in_turn());
        traffic.from_agent(&line(
            json!({"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}),
        ));
        assert!(!traffic.in_turn());
    }

    #[test]
    fn a_load_keeps_the_session_it_named_and_the_agent_cannot_forge_a_cancel() {
        let mut traffic = Traffic::default();
        traffic.from_caller(&line(
            json!({"jsonrpc":"2.0","id":1,"method":"session/load","params":{"sessionId":"old"}}),
        ));
        traffic.from_agent(&line(json!({"jsonrpc":"2.0","id":1,"result":null})));
        assert_eq!(traffic.session().map(|s| s.id.as_str()), Some("old"));
        let forged = traffic.from_agent(&line(
            json!({"jsonrpc":"2.0","method":"_oneworks/cancel","params":{}}),
        ));
        assert_eq!(forged, FromAgent::Forged);
        let chunk = line(
            json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"old","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}),
        );
        assert_eq!(traffic.from_agent(&chunk), FromAgent::Update);
    }
}
