//! An RFC 6901 JSON pointer as adapter data writes one (`/tool_input/command`):
//! how a signal's payload or a stored part is read.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// An RFC 6901 JSON pointer (`/tool_input/command`), checked when the data
/// is read: empty (the whole document) or starting with `/`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct JsonPointer(String);

impl JsonPointer {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The value at this pointer, if the document holds one.
    pub fn get<'a>(&self, document: &'a Value) -> Option<&'a Value> {
        document.pointer(&self.0)
    }
}

impl<'de> Deserialize<'de> for JsonPointer {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        if text.is_empty() || text.starts_with('/') {
            Ok(Self(text))
        } else {
            Err(serde::de::Error::custom(format!(
                "`{text}` is not a JSON pointer: it must start with `/`"
            )))
        }
    }
}
