//! The run events' wire shape and the chunk fast path's bytes.

use serde_json::json;

use super::*;

#[test]
fn a_chunk_line_is_byte_for_byte_what_print_json_writes() {
    for text in [
        "",
        "plain",
        "quote \" backslash \\ slash / tab \t newline \n",
        "\u{1b}[2J bell \u{7} nul \u{0} del \u{7f}",
        "é 中文 🦀 \u{2028}",
    ] {
        for kind in [ChunkKind::Message, ChunkKind::Thought] {
            let event = match kind {
                ChunkKind::Message => Event::AgentMessageChunk { text: text.into() },
                ChunkKind::Thought => Event::AgentThoughtChunk { text: text.into() },
            };
            let expected = format!("{}\n", serde_json::to_value(&event).expect("json"));
            let mut line = Vec::new();
            chunk_line(&mut line, kind, text);
            assert_eq!(String::from_utf8(line).expect("utf-8"), expected);
        }
    }
}

#[test]
fn a_secret_among_the_fixed_words_of_a_chunk_takes_the_general_path() {
    let rules = crate::adapter::data::AdapterData::builtin()
        .expect("adapter data")
        .credentials;
    let mut sink = Sink::new(true);
    let plain = Arc::new(Scrubber::new(
        vec![("AGENT_API_KEY".into(), "a-long-secret-value".into())],
        &rules,
    ));
    assert!(sink.plain_tags(Some(&plain)));
    let odd = Arc::new(Scrubber::new(
        vec![("AGENT_API_KEY".into(), "text".into())],
        &rules,
    ));
    assert!(!sink.plain_tags(Some(&odd)));
    assert!(sink.plain_tags(None));
}

#[test]
fn events_serialize_as_the_spec_names_them() {
    let event = Event::PermissionResolved {
        id: "p1".into(),
        option_id: None,
        by: ResolvedBy::Cancel,
    };
    assert_eq!(
        serde_json::to_value(&event).expect("json"),
        json!({"type":"permission_resolved","id":"p1","optionId":null,"by":"cancel"})
    );
    let event = Event::PermissionDecision {
        id: "p2".into(),
        title: "Run ls".into(),
        decision: "deny".into(),
        rule: json!({"index": 0, "decide": "deny"}),
    };
    assert_eq!(
        serde_json::to_value(&event).expect("json"),
        json!({"type":"permission_decision","id":"p2","title":"Run ls","decision":"deny","rule":{"index":0,"decide":"deny"}})
    );
    let event = Event::ToolCall {
        tool_call_id: "t".into(),
        title: "Edit".into(),
        kind: Some("edit".into()),
        status: None,
    };
    assert_eq!(
        serde_json::to_value(&event).expect("json"),
        json!({"type":"tool_call","toolCallId":"t","title":"Edit","kind":"edit","status":null})
    );
    let event = Event::UnknownUpdate {
        session_update: "x".into(),
        raw: json!({}),
    };
    assert_eq!(
        serde_json::to_value(&event).expect("json")["sessionUpdate"],
        "x"
    );
}
