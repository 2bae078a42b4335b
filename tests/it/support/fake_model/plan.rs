//! Which answer a request gets: the scripted turn (a call to the agent's
//! own shell tool for the person's message, a closing text after its
//! result, a short text otherwise), and the tool call's arguments filled
//! from the tool's JSON schema ([`fill`]).

use serde_json::{json, Map, Value};

use super::{Answer, State, Wire};

pub(super) fn plan(state: &mut State, body: &Value, wire: Wire) -> Answer {
    match last_turn(body, wire) {
        Last::ToolResult if !written_after_the_result(body, wire, state.trigger.as_deref()) => {
            Answer::Done
        }
        Last::ToolResult | Last::Person => {
            let wanted = match &state.trigger {
                Some(trigger) => last_item(body, wire).to_string().contains(trigger.as_str()),
                None => true,
            };
            if !wanted {
                return Answer::Other;
            }
            let shell = tools(body)
                .into_iter()
                .find(|(name, _)| state.shell.is_match(name));
            match shell {
                Some((name, schema)) => {
                    state.calls += 1;
                    let mut arguments = fill(&schema, &state.command);
                    if let Value::Object(filled) = &mut arguments {
                        for (key, value) in &state.extra {
                            if schema["properties"].get(key).is_some() {
                                filled.insert(key.clone(), value.clone());
                            }
                        }
                    }
                    let arguments = arguments.to_string();
                    Answer::ToolCall { name, arguments }
                }
                None => Answer::Other,
            }
        }
        Last::Other => Answer::Other,
    }
}

/// The last message (input item) of a request.
pub(super) fn last_item(body: &Value, wire: Wire) -> Value {
    match wire {
        Wire::Responses => body["input"]
            .as_array()
            .and_then(|items| items.last())
            .cloned()
            .unwrap_or_else(|| body["input"].clone()),
        Wire::Messages => last_message(body).cloned().unwrap_or(Value::Null),
        Wire::ChatCompletions => body["messages"]
            .as_array()
            .and_then(|m| m.last())
            .cloned()
            .unwrap_or(Value::Null),
    }
}

/// The last message of an Anthropic messages request that is not a
/// `role: system` one: Claude Code 2.1.318 puts its environment block
/// after the person's message as such a message.
fn last_message(body: &Value) -> Option<&Value> {
    body["messages"]
        .as_array()?
        .iter()
        .rev()
        .find(|message| message["role"] != "system")
}

enum Last {
    /// The last message is the person's text.
    Person,
    /// The last message carries a tool's result.
    ToolResult,
    Other,
}

fn last_turn(body: &Value, wire: Wire) -> Last {
    match wire {
        Wire::ChatCompletions => {
            let Some(last) = body["messages"].as_array().and_then(|m| m.last()) else {
                return Last::Other;
            };
            match last["role"].as_str() {
                Some("tool") | Some("function") => Last::ToolResult,
                Some("user") => Last::Person,
                _ => Last::Other,
            }
        }
        Wire::Responses => {
            let input = &body["input"];
            if input.is_string() {
                return Last::Person;
            }
            let Some(last) = input.as_array().and_then(|items| items.last()) else {
                return Last::Other;
            };
            match last["type"].as_str() {
                Some("function_call_output")
                | Some("custom_tool_call_output")
                | Some("local_shell_call_output") => Last::ToolResult,
                Some("message") | None if last["role"] == "user" => Last::Person,
                _ => Last::Other,
            }
        }
        Wire::Messages => {
            let Some(last) = last_message(body) else {
                return Last::Other;
            };
            if last["role"] != "user" {
                return Last::Other;
            }
            let results = last["content"]
                .as_array()
                .is_some_and(|blocks| blocks.iter().any(|b| b["type"] == "tool_result"));
            if results {
                Last::ToolResult
            } else {
                Last::Person
            }
        }
    }
}

/// Whether the person wrote the trigger after the tool result the last
/// message carries: Claude Code sends the person's next message in the
/// same user message as the result of a tool call the person declined in
/// its terminal (`[tool_result, …, text]`). Only for Anthropic messages;
/// only a text block after the last `tool_result` holding the trigger.
fn written_after_the_result(body: &Value, wire: Wire, trigger: Option<&str>) -> bool {
    let (Wire::Messages, Some(trigger)) = (wire, trigger) else {
        return false;
    };
    let Some(blocks) = last_message(body).and_then(|last| last["content"].as_array()) else {
        return false;
    };
    let after = blocks
        .iter()
        .rposition(|block| block["type"] == "tool_result")
        .map_or(0, |last_result| last_result + 1);
    blocks[after..].iter().any(|block| {
        block["type"] == "text"
            && block["text"]
                .as_str()
                .is_some_and(|text| text.contains(trigger))
    })
}

/// `(name, JSON schema of its arguments)` of every function tool offered,
/// in any of the three formats.
pub(super) fn tools(body: &Value) -> Vec<(String, Value)> {
    let Some(list) = body["tools"].as_array() else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|tool| {
            // Chat completions: {type: function, function: {name, parameters}};
            // responses: {type: function, name, parameters};
            // messages: {name, input_schema}.
            let function = if tool["function"].is_object() {
                &tool["function"]
            } else {
                tool
            };
            let name = function["name"].as_str()?.to_owned();
            let schema = [
                &function["parameters"],
                &function["input_schema"],
                &function["inputSchema"],
            ]
            .into_iter()
            .find(|schema| schema.is_object())
            .cloned()
            .unwrap_or_else(|| json!({}));
            Some((name, schema))
        })
        .collect()
}

/// Which property of an object schema takes the command: a well-known
/// name, else the first string property whose name mentions a command.
fn command_property(properties: &Map<String, Value>) -> Option<String> {
    for name in ["command", "cmd", "script", "commandLine", "shell_command"] {
        if properties.contains_key(name) {
            return Some(name.to_owned());
        }
    }
    properties
        .iter()
        .find(|(name, schema)| {
            let name = name.to_ascii_lowercase();
            (name.contains("command") || name.contains("cmd")) && schema["type"] == "string"
        })
        .map(|(name, _)| name.clone())
}

/// The shell tool's arguments: `command` in its command property (a string,
/// or `["bash", "-lc", command]` where the schema wants an array), every
/// other required property a sensible value from its schema.
pub fn fill(schema: &Value, command: &str) -> Value {
    let empty = Map::new();
    let properties = schema["properties"].as_object().unwrap_or(&empty);
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut arguments = Map::new();
    if let Some(name) = command_property(properties) {
        let value = if properties[&name]["type"] == "array" {
            json!(["bash", "-lc", command])
        } else {
            json!(command)
        };
        arguments.insert(name, value);
    }
    for name in required {
        if arguments.contains_key(name) {
            continue;
        }
        let property = properties.get(name).cloned().unwrap_or(Value::Null);
        arguments.insert(name.to_owned(), sensible(name, &property, command));
    }
    Value::Object(arguments)
}

/// A harmless value for one required property.
fn sensible(name: &str, schema: &Value, command: &str) -> Value {
    if let Some(default) = schema.get("default") {
        return default.clone();
    }
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    if let Some(constant) = schema.get("const") {
        return constant.clone();
    }
    let kind = match &schema["type"] {
        Value::Array(kinds) => kinds
            .iter()
            .find(|kind| *kind != "null")
            .cloned()
            .unwrap_or(Value::Null),
        kind => kind.clone(),
    };
    let lower = name.to_ascii_lowercase();
    match kind.as_str() {
        Some("string") => {
            if lower.contains("desc") || lower.contains("reason") || lower.contains("title") {
                json!(format!("Run `{command}`"))
            } else if lower.contains("dir") || lower.contains("cwd") || lower.contains("path") {
                json!(".")
            } else {
                json!("default")
            }
        }
        Some("integer") | Some("number") => {
            let wanted = if lower.contains("time") || lower.contains("wait") {
                30_000
            } else {
                1
            };
            let low = schema["minimum"].as_i64().unwrap_or(i64::MIN);
            let high = schema["maximum"].as_i64().unwrap_or(i64::MAX);
            json!(wanted.clamp(low, high))
        }
        Some("boolean") => json!(false),
        Some("array") => json!([]),
        Some("object") => json!({}),
        _ => json!("default"),
    }
}
