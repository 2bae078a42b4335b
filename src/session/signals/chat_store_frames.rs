//! What the rows of an agent's chat store say: the JSON objects
//! embedded in each row — a row may be one JSON document or a binary
//! checkpoint frame with JSON inside it, so every row is scanned for
//! objects rather than parsed whole — and the call and result parts in
//! them, read through the data's pointers ([`ChatStoreSignalData`]).
//! [`StoreMirror`] turns successive looks into the calls to make cards for:
//! seen waiting (the data's `pending` marker), never seen committed (the
//! same part without it), never answered (a result part with its id).

use std::collections::{BTreeMap, HashSet};

use serde_json::Value;

use crate::adapter::chat_store_data::ChatStoreSignalData;
use crate::adapter::tui_signals::JsonPointer;
use crate::session::signals::recorder::{ApprovalRequest, ToolDetail};

/// The longest embedded object looked for: an opening brace whose object
/// has not closed within this many bytes is not one.
const MAX_OBJECT: usize = 4 << 20;

/// A call waiting for its approval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreCall {
    /// The agent's id for the call: the card's identity.
    pub id: String,
    /// What the card shows and the box must name.
    pub text: String,
    pub tool: Option<String>,
}

impl StoreCall {
    /// The request a card is opened for.
    pub fn request(&self) -> ApprovalRequest {
        ApprovalRequest {
            id: String::new(),
            tool_call_id: self.id.clone(),
            title: self.text.clone(),
            options: Vec::new(),
            detail: ToolDetail {
                kind: self.tool.clone(),
                ..Default::default()
            },
        }
    }
}

/// What one store's rows say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoreLook {
    /// Calls seen with the pending marker, in the order found.
    pub pending: Vec<StoreCall>,
    /// Ids of calls seen without it.
    pub committed: HashSet<String>,
    /// Ids some result part answers.
    pub answered: HashSet<String>,
}

impl StoreLook {
    /// Reads one row into the look.
    pub fn row(&mut self, bytes: &[u8], data: &ChatStoreSignalData) {
        for object in embedded_objects(bytes) {
            self.walk(&object, data);
        }
    }

    fn walk(&mut self, value: &Value, data: &ChatStoreSignalData) {
        match value {
            Value::Object(map) => {
                self.part(value, data);
                map.values().for_each(|inner| self.walk(inner, data));
            }
            Value::Array(items) => items.iter().for_each(|inner| self.walk(inner, data)),
            _ => {}
        }
    }

    fn part(&mut self, part: &Value, data: &ChatStoreSignalData) {
        if requires(part, &data.call.require) {
            let Some(id) = id_of(part, &data.call.id) else {
                return;
            };
            if data.call.pending.get(part).is_none_or(Value::is_null) {
                self.committed.insert(id);
                return;
            }
            let text = data
                .call
                .text
                .iter()
                .find_map(|pointer| match pointer.get(part)? {
                    Value::String(text) => Some(text.clone()),
                    Value::Null => None,
                    other => Some(other.to_string()),
                });
            let Some(text) = text.filter(|text| !text.trim().is_empty()) else {
                return;
            };
            let tool = data
                .call
                .tool
                .as_ref()
                .and_then(|pointer| pointer.get(part))
                .and_then(Value::as_str)
                .map(str::to_owned);
            if !self.pending.iter().any(|call| call.id == id) {
                self.pending.push(StoreCall { id, text, tool });
            }
        } else if requires(part, &data.result.require) {
            if let Some(id) = id_of(part, &data.result.id) {
                self.answered.insert(id);
            }
        }
    }
}

fn requires(part: &Value, require: &BTreeMap<JsonPointer, String>) -> bool {
    !require.is_empty()
        && require
            .iter()
            .all(|(pointer, wanted)| pointer.get(part).and_then(Value::as_str) == Some(wanted))
}

fn id_of(part: &Value, pointer: &JsonPointer) -> Option<String> {
    pointer
        .get(part)
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
}

/// The JSON objects embedded in `bytes`, outermost only, in order: each
/// `{` that opens an object (`{"` or `{}`, blanks allowed between) is
/// matched with its closing brace (strings and escapes respected) and the
/// slice parsed; what does not parse is skipped a byte at a time.
pub fn embedded_objects(bytes: &[u8]) -> Vec<Value> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(offset) = memchr::memchr(b'{', &bytes[at..]) {
        let start = at + offset;
        let parsed = opens_object(&bytes[start + 1..])
            .then(|| closing_brace(&bytes[start..]))
            .flatten()
            .and_then(|length| {
                serde_json::from_slice::<Value>(&bytes[start..start + length])
                    .ok()
                    .map(|value| (value, length))
            });
        match parsed {
            Some((value, length)) => {
                found.push(value);
                at = start + length;
            }
            None => at = start + 1,
        }
    }
    found
}

fn opens_object(rest: &[u8]) -> bool {
    rest.iter()
        .find(|byte| !byte.is_ascii_whitespace())
        .is_some_and(|byte| matches!(byte, b'"' | b'}'))
}

/// The length of the object starting at `bytes[0] == b'{'`, if it closes
/// within [`MAX_OBJECT`].
fn closing_brace(bytes: &[u8]) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (index, byte) in bytes.iter().take(MAX_OBJECT).enumerate() {
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(index + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Which calls get a card: each once, when it is seen waiting and was
/// never seen committed or answered, across every look so far.
#[derive(Debug, Default)]
pub struct StoreMirror {
    committed: HashSet<String>,
    answered: HashSet<String>,
    signalled: HashSet<String>,
}

impl StoreMirror {
    /// The calls of `looks` (the latest look of every store) to make a
    /// card for now.
    pub fn observe<'a>(
        &mut self,
        looks: impl IntoIterator<Item = &'a StoreLook>,
    ) -> Vec<StoreCall> {
        let looks: Vec<&StoreLook> = looks.into_iter().collect();
        for look in &looks {
            self.committed.extend(look.committed.iter().cloned());
            self.answered.extend(look.answered.iter().cloned());
        }
        let mut new = Vec::new();
        for call in looks.iter().flat_map(|look| &look.pending) {
            let settled = self.committed.contains(&call.id) || self.answered.contains(&call.id);
            if !settled && self.signalled.insert(call.id.clone()) {
                new.push(call.clone());
            }
        }
        new
    }
}
