//! The fake model's reply in each of the three wire formats: one JSON
//! document ([`document`]) or the streamed events ([`events`]) of a tool
//! call or a text, each cut into pieces a client must reassemble.

use serde_json::{json, Value};

use super::Wire;

pub(super) enum Reply {
    Tool {
        call_id: String,
        name: String,
        arguments: String,
    },
    Text(String),
}

/// Splits `text` into a few pieces so that a client must reassemble them.
fn pieces(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let size = chars.len().div_ceil(3).max(1);
    chars
        .chunks(size)
        .map(|piece| piece.iter().collect())
        .collect()
}

fn usage_chat() -> Value {
    json!({"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17})
}

fn usage_responses() -> Value {
    json!({
        "input_tokens": 12, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 17,
    })
}

/// The non-streamed answer.
pub(super) fn document(wire: Wire, reply: &Reply, model: &str, id: usize) -> Value {
    match wire {
        Wire::ChatCompletions => {
            let (message, finish) = match reply {
                Reply::Tool {
                    call_id,
                    name,
                    arguments,
                } => (
                    json!({"role": "assistant", "content": null, "tool_calls": [{
                        "id": call_id, "type": "function",
                        "function": {"name": name, "arguments": arguments},
                    }]}),
                    "tool_calls",
                ),
                Reply::Text(text) => (json!({"role": "assistant", "content": text}), "stop"),
            };
            json!({
                "id": format!("chatcmpl-{id}"), "object": "chat.completion",
                "created": 1_767_225_600, "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": usage_chat(),
            })
        }
        Wire::Responses => {
            let item = responses_item(reply, id, true);
            responses_object(id, model, "completed", vec![item])
        }
        Wire::Messages => {
            let (block, stop) = match reply {
                Reply::Tool {
                    call_id,
                    name,
                    arguments,
                } => (
                    json!({"type": "tool_use", "id": format!("toolu_{call_id}"), "name": name,
                        "input": serde_json::from_str::<Value>(arguments).unwrap_or(json!({}))}),
                    "tool_use",
                ),
                Reply::Text(text) => (json!({"type": "text", "text": text}), "end_turn"),
            };
            json!({
                "id": format!("msg_{id}"), "type": "message", "role": "assistant",
                "model": model, "content": [block], "stop_reason": stop,
                "stop_sequence": null,
                "usage": {"input_tokens": 12, "output_tokens": 5},
            })
        }
    }
}

fn responses_object(id: usize, model: &str, status: &str, output: Vec<Value>) -> Value {
    json!({
        "id": format!("resp_{id}"), "object": "response", "created_at": 1_767_225_600,
        "status": status, "model": model, "output": output,
        "parallel_tool_calls": true, "tool_choice": "auto", "tools": [],
        "usage": if status == "completed" { usage_responses() } else { Value::Null },
        "error": null, "incomplete_details": null,
    })
}

fn responses_item(reply: &Reply, id: usize, done: bool) -> Value {
    let status = if done { "completed" } else { "in_progress" };
    match reply {
        Reply::Tool {
            call_id,
            name,
            arguments,
        } => json!({
            "type": "function_call", "id": format!("fc_{id}"), "call_id": call_id,
            "name": name, "arguments": if done { arguments.as_str() } else { "" },
            "status": status,
        }),
        Reply::Text(text) => json!({
            "type": "message", "id": format!("msg_{id}"), "role": "assistant",
            "status": status,
            "content": if done {
                json!([{"type": "output_text", "text": text, "annotations": []}])
            } else {
                json!([])
            },
        }),
    }
}

/// The streamed answer: `(event name or "", data)` pairs.
pub(super) fn events(
    wire: Wire,
    reply: &Reply,
    model: &str,
    id: usize,
    body: &Value,
) -> Vec<(String, String)> {
    let data = |value: Value| value.to_string();
    let mut out: Vec<(String, String)> = Vec::new();
    match wire {
        Wire::ChatCompletions => {
            let chunk = |delta: Value, finish: Value| {
                data(json!({
                    "id": format!("chatcmpl-{id}"), "object": "chat.completion.chunk",
                    "created": 1_767_225_600, "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                }))
            };
            let finish = match reply {
                Reply::Tool {
                    call_id,
                    name,
                    arguments,
                } => {
                    out.push((
                        String::new(),
                        chunk(
                            json!({"role": "assistant", "content": null, "tool_calls": [{
                                "index": 0, "id": call_id, "type": "function",
                                "function": {"name": name, "arguments": ""},
                            }]}),
                            Value::Null,
                        ),
                    ));
                    for piece in pieces(arguments) {
                        out.push((
                            String::new(),
                            chunk(
                                json!({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}),
                                Value::Null,
                            ),
                        ));
                    }
                    "tool_calls"
                }
                Reply::Text(text) => {
                    out.push((
                        String::new(),
                        chunk(json!({"role": "assistant", "content": ""}), Value::Null),
                    ));
                    for piece in pieces(text) {
                        out.push((String::new(), chunk(json!({"content": piece}), Value::Null)));
                    }
                    "stop"
                }
            };
            out.push((String::new(), chunk(json!({}), json!(finish))));
            if body["stream_options"]["include_usage"] == true {
                out.push((
                    String::new(),
                    data(json!({
                        "id": format!("chatcmpl-{id}"), "object": "chat.completion.chunk",
                        "created": 1_767_225_600, "model": model, "choices": [],
                        "usage": usage_chat(),
                    })),
                ));
            }
            out.push((String::new(), "[DONE]".to_owned()));
        }
        Wire::Responses => {
            let mut sequence = 0;
            let mut event = |out: &mut Vec<(String, String)>, kind: &str, mut value: Value| {
                value["type"] = json!(kind);
                value["sequence_number"] = json!(sequence);
                sequence += 1;
                out.push((kind.to_owned(), data(value)));
            };
            let started = responses_object(id, model, "in_progress", Vec::new());
            event(&mut out, "response.created", json!({"response": started}));
            event(
                &mut out,
                "response.in_progress",
                json!({"response": started}),
            );
            let item_id = responses_item(reply, id, false)["id"].clone();
            event(
                &mut out,
                "response.output_item.added",
                json!({"output_index": 0, "item": responses_item(reply, id, false)}),
            );
            match reply {
                Reply::Tool { arguments, .. } => {
                    for piece in pieces(arguments) {
                        event(
                            &mut out,
                            "response.function_call_arguments.delta",
                            json!({"item_id": item_id, "output_index": 0, "delta": piece}),
                        );
                    }
                    event(
                        &mut out,
                        "response.function_call_arguments.done",
                        json!({"item_id": item_id, "output_index": 0, "arguments": arguments}),
                    );
                }
                Reply::Text(text) => {
                    let part = |text: &str| json!({"type": "output_text", "text": text, "annotations": []});
                    event(
                        &mut out,
                        "response.content_part.added",
                        json!({"item_id": item_id, "output_index": 0, "content_index": 0, "part": part("")}),
                    );
                    for piece in pieces(text) {
                        event(
                            &mut out,
                            "response.output_text.delta",
                            json!({"item_id": item_id, "output_index": 0, "content_index": 0, "delta": piece, "logprobs": []}),
                        );
                    }
                    event(
                        &mut out,
                        "response.output_text.done",
                        json!({"item_id": item_id, "output_index": 0, "content_index": 0, "text": text, "logprobs": []}),
                    );
                    event(
                        &mut out,
                        "response.content_part.done",
                        json!({"item_id": item_id, "output_index": 0, "content_index": 0, "part": part(text)}),
                    );
                }
            }
            let done = responses_item(reply, id, true);
            event(
                &mut out,
                "response.output_item.done",
                json!({"output_index": 0, "item": done}),
            );
            event(
                &mut out,
                "response.completed",
                json!({"response": responses_object(id, model, "completed", vec![done])}),
            );
        }
        Wire::Messages => {
            let mut event = |kind: &str, mut value: Value| {
                value["type"] = json!(kind);
                out.push((kind.to_owned(), data(value)));
            };
            event(
                "message_start",
                json!({"message": {
                    "id": format!("msg_{id}"), "type": "message", "role": "assistant",
                    "model": model, "content": [], "stop_reason": null, "stop_sequence": null,
                    "usage": {"input_tokens": 12, "output_tokens": 1},
                }}),
            );
            let stop = match reply {
                Reply::Tool {
                    call_id,
                    name,
                    arguments,
                } => {
                    event(
                        "content_block_start",
                        json!({"index": 0, "content_block": {
                            "type": "tool_use", "id": format!("toolu_{call_id}"), "name": name, "input": {},
                        }}),
                    );
                    for piece in pieces(arguments) {
                        event(
                            "content_block_delta",
                            json!({"index": 0, "delta": {"type": "input_json_delta", "partial_json": piece}}),
                        );
                    }
                    "tool_use"
                }
                Reply::Text(text) => {
                    event(
                        "content_block_start",
                        json!({"index": 0, "content_block": {"type": "text", "text": ""}}),
                    );
                    for piece in pieces(text) {
                        event(
                            "content_block_delta",
                            json!({"index": 0, "delta": {"type": "text_delta", "text": piece}}),
                        );
                    }
                    "end_turn"
                }
            };
            event("content_block_stop", json!({"index": 0}));
            event(
                "message_delta",
                json!({"delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 5}}),
            );
            event("message_stop", json!({}));
        }
    }
    out
}
