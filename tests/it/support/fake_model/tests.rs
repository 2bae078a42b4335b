//! The fake model API on its own: each wire format, streamed and not; a
//! streamed tool call reassembles to the arguments the schema asked for;
//! tool results end the turn; other requests get a harmless text; every
//! request is recorded with its credential.

use serde_json::{json, Value};

use super::{fill, parse_sse, Answer, FakeModel, Wire, DONE_TEXT, OTHER_TEXT};

const KEY: &str = "fake-model-key-0123456789";
const COMMAND: &str = "touch probe.txt";

/// A shell tool's schema the way the agents write them: the command, a
/// required description and timeout, an optional flag.
fn shell_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "the command"},
            "description": {"type": "string"},
            "timeout": {"type": "number", "maximum": 600000},
            "is_background": {"type": "boolean"},
            "mode": {"type": "string", "enum": ["sync", "async"]},
        },
        "required": ["command", "description", "timeout", "mode"],
    })
}

fn expected_arguments() -> Value {
    json!({
        "command": COMMAND,
        "description": format!("Run `{COMMAND}`"),
        "timeout": 30000,
        "mode": "sync",
    })
}

fn post(model: &FakeModel, path: &str, body: &Value) -> (String, String) {
    let response = reqwest::blocking::Client::new()
        .post(model.url(path))
        .header("authorization", format!("Bearer {KEY}"))
        .header("x-api-key", KEY)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .expect("post to the fake model");
    assert_eq!(response.status(), 200, "{path}");
    let kind = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    (kind, response.text().expect("body"))
}

fn chat_tools() -> Value {
    json!([
        {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}},
        {"type": "function", "function": {"name": "run_shell_command", "parameters": shell_schema()}},
    ])
}

#[test]
fn chat_completions_streamed_tool_call_reassembles_then_the_result_ends_the_turn() {
    let model = FakeModel::start("run_shell_command", COMMAND);
    let user = json!({"role": "user", "content": "make the file"});
    let (kind, text) = post(
        &model,
        "/v1/chat/completions",
        &json!({"model": "m", "stream": true, "stream_options": {"include_usage": true},
            "messages": [{"role": "system", "content": "s"}, user], "tools": chat_tools()}),
    );
    assert!(kind.starts_with("text/event-stream"), "{kind}");
    let events = parse_sse(&text);
    assert_eq!(events.last().map(|(_, d)| d.as_str()), Some("[DONE]"));
    let mut name = String::new();
    let mut id = String::new();
    let mut arguments = String::new();
    let mut finish = Value::Null;
    let mut usage = false;
    for (_, data) in &events[..events.len() - 1] {
        let chunk: Value = serde_json::from_str(data).expect("chunk json");
        usage |= chunk["usage"].is_object();
        let Some(choice) = chunk["choices"].get(0) else {
            continue;
        };
        if !choice["finish_reason"].is_null() {
            finish = choice["finish_reason"].clone();
        }
        for call in choice["delta"]["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
        {
            assert_eq!(call["index"], 0);
            if let Some(n) = call["function"]["name"].as_str() {
                name.push_str(n);
            }
            if let Some(i) = call["id"].as_str() {
                id.push_str(i);
            }
            arguments.push_str(call["function"]["arguments"].as_str().unwrap_or_default());
        }
    }
    assert_eq!(name, "run_shell_command");
    assert_eq!(finish, "tool_calls");
    assert!(usage, "include_usage asked for a usage chunk");
    let arguments: Value = serde_json::from_str(&arguments).expect("arguments reassemble");
    assert_eq!(arguments, expected_arguments());

    // The tool result → the closing text and a normal stop.
    let (_, text) = post(
        &model,
        "/v1/chat/completions",
        &json!({"model": "m", "stream": true, "tools": chat_tools(), "messages": [
            user,
            {"role": "assistant", "tool_calls": [{"id": id, "type": "function",
                "function": {"name": "run_shell_command", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": id, "content": "done"},
        ]}),
    );
    let mut content = String::new();
    let mut finish = Value::Null;
    for (_, data) in parse_sse(&text) {
        let Ok(chunk) = serde_json::from_str::<Value>(&data) else {
            continue;
        };
        content.push_str(
            chunk["choices"][0]["delta"]["content"]
                .as_str()
                .unwrap_or_default(),
        );
        if !chunk["choices"][0]["finish_reason"].is_null() {
            finish = chunk["choices"][0]["finish_reason"].clone();
        }
    }
    assert_eq!(content, DONE_TEXT);
    assert_eq!(finish, "stop");

    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests.iter().all(|r| r.carries(KEY)));
    assert!(!requests[0].carries("another-key"));
    assert_eq!(requests[0].wire, Some(Wire::ChatCompletions));
    assert_eq!(requests[1].answer, Answer::Done);
    assert_eq!(model.tool_calls().len(), 1);
    assert!(requests[0].text().contains("make the file"));
    assert_eq!(requests[0].tool_names(), ["read_file", "run_shell_command"]);
    assert!(
        model
            .describe()
            .contains("POST /v1/chat/completions stream=true"),
        "{}",
        model.describe()
    );
}

#[test]
fn chat_completions_non_streamed_and_requests_without_the_tool_get_plain_text() {
    let model = FakeModel::start("run_shell_command", COMMAND);
    let (kind, text) = post(
        &model,
        "/chat/completions",
        &json!({"model": "m", "messages": [{"role": "user", "content": "x"}], "tools": chat_tools()}),
    );
    assert!(kind.starts_with("application/json"), "{kind}");
    let answer: Value = serde_json::from_str(&text).expect("json");
    let call = &answer["choices"][0]["message"]["tool_calls"][0];
    assert_eq!(call["function"]["name"], "run_shell_command");
    let arguments: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().expect("string"))
            .expect("arguments");
    assert_eq!(arguments, expected_arguments());
    assert_eq!(answer["choices"][0]["finish_reason"], "tool_calls");

    // With a trigger, only the person's message holding it asks for the
    // tool; a background request offering the tool gets text.
    model.set_trigger(Some("probe.txt"));
    let (_, text) = post(
        &model,
        "/v1/chat/completions",
        &json!({"model": "m", "tools": chat_tools(),
            "messages": [{"role": "user", "content": "[SUGGESTION MODE] what next?"}]}),
    );
    let answer: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(answer["choices"][0]["message"]["content"], OTHER_TEXT);
    let (_, text) = post(
        &model,
        "/v1/chat/completions",
        &json!({"model": "m", "tools": chat_tools(),
            "messages": [{"role": "user", "content": "please create probe.txt"}]}),
    );
    let answer: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(answer["choices"][0]["finish_reason"], "tool_calls");
    model.set_trigger(None);

    // A classifier or title request: no shell tool offered.
    let (_, text) = post(
        &model,
        "/v1/chat/completions",
        &json!({"model": "m", "messages": [{"role": "user", "content": "title?"}]}),
    );
    let answer: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(answer["choices"][0]["message"]["content"], OTHER_TEXT);
    assert_eq!(answer["choices"][0]["finish_reason"], "stop");
    assert_eq!(model.requests()[3].answer, Answer::Other);
    assert!(model.requests()[1].last_message().contains("SUGGESTION"));
}

#[test]
fn responses_streamed_function_call_reassembles_and_the_output_ends_the_turn() {
    let model = FakeModel::start("(?i)shell|exec_command", COMMAND);
    model.set_command("touch second.txt");
    let tools = json!([
        {"type": "function", "name": "apply_patch", "parameters": {"type": "object"}},
        {"type": "function", "name": "shell", "parameters": {
            "type": "object",
            "properties": {"command": {"type": "array", "items": {"type": "string"}},
                "workdir": {"type": "string"}, "timeout_ms": {"type": "number"}},
            "required": ["command"]}},
    ]);
    let user = json!({"type": "message", "role": "user",
        "content": [{"type": "input_text", "text": "make it"}]});
    let (_, text) = post(
        &model,
        "/v1/responses",
        &json!({"model": "m", "stream": true, "input": [user], "tools": tools}),
    );
    let events = parse_sse(&text);
    let names: Vec<&str> = events.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names.first(), Some(&"response.created"));
    assert_eq!(names.last(), Some(&"response.completed"));
    assert!(names.contains(&"response.output_item.added"), "{names:?}");
    let mut arguments = String::new();
    let mut call_id = Value::Null;
    for (name, data) in &events {
        let event: Value = serde_json::from_str(data).expect("event json");
        assert_eq!(event["type"], name.as_str());
        match name.as_str() {
            "response.function_call_arguments.delta" => {
                arguments.push_str(event["delta"].as_str().expect("delta"));
            }
            "response.output_item.done" => {
                assert_eq!(event["item"]["type"], "function_call");
                assert_eq!(event["item"]["name"], "shell");
                call_id = event["item"]["call_id"].clone();
            }
            "response.completed" => {
                assert_eq!(event["response"]["status"], "completed");
                assert!(event["response"]["usage"]["total_tokens"].is_number());
            }
            _ => {}
        }
    }
    let arguments: Value = serde_json::from_str(&arguments).expect("arguments reassemble");
    assert_eq!(
        arguments,
        json!({"command": ["bash", "-lc", "touch second.txt"]})
    );

    let (_, text) = post(
        &model,
        "/v1/responses",
        &json!({"model": "m", "stream": true, "tools": tools, "input": [
            user,
            {"type": "function_call", "call_id": call_id, "name": "shell", "arguments": "{}"},
            {"type": "function_call_output", "call_id": call_id, "output": "ok"},
        ]}),
    );
    let said: String = parse_sse(&text)
        .iter()
        .filter(|(name, _)| name == "response.output_text.delta")
        .map(|(_, data)| {
            let event: Value = serde_json::from_str(data).expect("json");
            event["delta"].as_str().expect("delta").to_owned()
        })
        .collect();
    assert_eq!(said, DONE_TEXT);

    // Not streamed: one response object.
    let (_, text) = post(
        &model,
        "/v1/responses",
        &json!({"model": "m", "input": "a title please"}),
    );
    let answer: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(answer["object"], "response");
    assert_eq!(answer["output"][0]["content"][0]["text"], OTHER_TEXT);
}

#[test]
fn anthropic_messages_streamed_tool_use_reassembles_with_beta_and_the_result_ends_the_turn() {
    let model = FakeModel::start("Bash", COMMAND);
    let tools = json!([
        {"name": "Read", "input_schema": {"type": "object"}},
        {"name": "Bash", "input_schema": shell_schema()},
    ]);
    let user = json!({"role": "user", "content": [{"type": "text", "text": "make it"}]});
    let (_, text) = post(
        &model,
        "/v1/messages?beta=true",
        &json!({"model": "m", "stream": true, "max_tokens": 100, "messages": [user], "tools": tools}),
    );
    let events = parse_sse(&text);
    let names: Vec<&str> = events.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names
            .iter()
            .filter(|n| **n != "content_block_delta")
            .collect::<Vec<_>>(),
        [
            &"message_start",
            &"content_block_start",
            &"content_block_stop",
            &"message_delta",
            &"message_stop"
        ]
    );
    let mut json_text = String::new();
    let mut tool_id = Value::Null;
    let mut stop = Value::Null;
    for (name, data) in &events {
        let event: Value = serde_json::from_str(data).expect("json");
        assert_eq!(event["type"], name.as_str());
        match name.as_str() {
            "content_block_start" => {
                assert_eq!(event["content_block"]["type"], "tool_use");
                assert_eq!(event["content_block"]["name"], "Bash");
                tool_id = event["content_block"]["id"].clone();
            }
            "content_block_delta" => {
                assert_eq!(event["delta"]["type"], "input_json_delta");
                json_text.push_str(event["delta"]["partial_json"].as_str().expect("partial"));
            }
            "message_delta" => stop = event["delta"]["stop_reason"].clone(),
            _ => {}
        }
    }
    assert_eq!(stop, "tool_use");
    let input: Value = serde_json::from_str(&json_text).expect("input reassembles");
    assert_eq!(input, expected_arguments());
    let first = &model.requests()[0];
    assert_eq!(first.path, "/v1/messages");
    assert_eq!(first.query.as_deref(), Some("beta=true"));
    assert_eq!(first.header("x-api-key"), Some(KEY));

    let (_, text) = post(
        &model,
        "/v1/messages",
        &json!({"model": "m", "max_tokens": 100, "tools": tools, "messages": [
            user,
            {"role": "assistant", "content": [{"type": "tool_use", "id": tool_id, "name": "Bash", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": "ok"}]},
        ]}),
    );
    let answer: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(answer["type"], "message");
    assert_eq!(answer["content"][0]["text"], DONE_TEXT);
    assert_eq!(answer["stop_reason"], "end_turn");
}

#[test]
fn model_lists_and_token_counts_are_answered_and_unknown_paths_are_404() {
    let model = FakeModel::start("bash", COMMAND);
    model.set_model("fake-1");
    let client = reqwest::blocking::Client::new();
    let list: Value = client
        .get(model.url("/v1/models"))
        .send()
        .expect("models")
        .text()
        .map(|text| serde_json::from_str(&text).expect("json"))
        .expect("body");
    assert_eq!(list["data"][0]["id"], "fake-1");
    let count: Value = client
        .post(model.url("/v1/messages/count_tokens"))
        .body("{}")
        .send()
        .expect("count")
        .text()
        .map(|text| serde_json::from_str(&text).expect("json"))
        .expect("body");
    assert!(count["input_tokens"].is_number());
    let missing = client.get(model.url("/v2/other")).send().expect("other");
    assert_eq!(missing.status(), 404);
    // A model request that is not JSON is refused, not answered.
    let bad = client
        .post(model.url("/v1/chat/completions"))
        .body("{not json")
        .send()
        .expect("bad");
    assert_eq!(bad.status(), 400);
    let answers: Vec<Answer> = model.requests().into_iter().map(|r| r.answer).collect();
    assert_eq!(
        answers,
        [
            Answer::Meta,
            Answer::Meta,
            Answer::NotFound,
            Answer::BadRequest
        ]
    );
    assert!(model.tool_calls().is_empty());
}

#[test]
fn the_filled_arguments_follow_the_schema() {
    // A command property under another name, a nullable type, a minimum.
    let schema = json!({
        "type": "object",
        "properties": {
            "cmd": {"type": "string"},
            "yield_time_ms": {"type": ["integer", "null"], "minimum": 0, "maximum": 10000},
            "workdir": {"type": "string"},
            "with_escalated_permissions": {"type": "boolean", "default": true},
        },
        "required": ["cmd", "yield_time_ms", "workdir", "with_escalated_permissions"],
    });
    assert_eq!(
        fill(&schema, COMMAND),
        json!({"cmd": COMMAND, "yield_time_ms": 10000, "workdir": ".",
            "with_escalated_permissions": true})
    );
    // No schema at all: nothing to fill.
    assert_eq!(fill(&json!({}), COMMAND), json!({}));
}

#[test]
fn compressed_and_chunked_request_bodies_are_read() {
    use std::io::{Read as _, Write as _};
    let model = FakeModel::start("run_shell_command", COMMAND);
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "x"}],
        "tools": chat_tools()})
    .to_string();
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gzip.write_all(body.as_bytes()).expect("gzip");
    let gzip = gzip.finish().expect("gzip");
    let response = reqwest::blocking::Client::new()
        .post(model.url("/v1/chat/completions"))
        .header("content-encoding", "gzip")
        .body(gzip)
        .send()
        .expect("gzip post");
    assert_eq!(response.status(), 200);
    // Chunked, by hand: reqwest sends a Content-Length for a known body.
    let mut stream =
        std::net::TcpStream::connect(model.url("").trim_start_matches("http://")).expect("tcp");
    let chunked = format!(
        "POST /v1/responses HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{body}\r\n0\r\n\r\n",
        body.len()
    );
    stream.write_all(chunked.as_bytes()).expect("write");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("read");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests.iter().all(|r| r.body["model"] == "m"));
    assert!(matches!(requests[0].answer, Answer::ToolCall { .. }));
}

/// Claude Code sends the person's next message in the same user message as
/// the result of a tool call the person declined (`[tool_result, text]`):
/// with the trigger in a text block after the result it is the person's
/// request (a tool call); a result alone, or followed by text without the
/// trigger, or the trigger only inside the result, ends the turn.
#[test]
fn anthropic_a_message_after_a_declined_result_is_the_persons() {
    let model = FakeModel::start("Bash", COMMAND);
    model.set_trigger(Some("probe-next.txt"));
    let tools = json!([{"name": "Bash", "input_schema": shell_schema()}]);
    let ask = |last: Value| {
        post(
            &model,
            "/v1/messages",
            &json!({"model": "m", "max_tokens": 100, "tools": tools, "messages": [
                {"role": "user", "content": [{"type": "text", "text": "first"}]},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]},
                {"role": "user", "content": last},
            ]}),
        );
    };
    let declined = json!({"type": "tool_result", "tool_use_id": "t1", "is_error": true,
        "content": "The user doesn't want to proceed with this tool use."});
    ask(json!([declined, {"type": "text", "text": "Create the file probe-next.txt."}]));
    ask(json!([declined]));
    ask(json!([declined, {"type": "text", "text": "[Request interrupted by user]"}]));
    ask(json!([{"type": "tool_result", "tool_use_id": "t1", "content": "probe-next.txt"}]));
    let answers: Vec<Answer> = model.requests().iter().map(|r| r.answer.clone()).collect();
    assert!(matches!(answers[0], Answer::ToolCall { .. }), "{answers:?}");
    assert_eq!(answers[1..], [Answer::Done, Answer::Done, Answer::Done]);
}
