//! The run events and where they go: with `--json`, one JSON
//! object a line on stdout, flushed per line; otherwise the agent's text on
//! stdout and everything else (tool calls, plans, diagnostics) on stderr.
//! Both paths pass the credential scrubber (`crate::output`); human text
//! from the agent has its control characters replaced.

use serde::Serialize;
use serde_json::Value;

use std::io::Write;
use std::sync::Arc;

use super::fast::ChunkKind;
use crate::output;
use crate::output::OutputError;
use crate::redact::{Scrubber, StreamScrubber};

/// Who settled a permission request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ResolvedBy {
    User,
    Policy,
    Rule,
    Cancel,
}

/// One option of a permission request as shown to the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShownOption {
    pub ordinal: usize,
    pub option_id: String,
    pub label: String,
    pub label_zh: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub native_label: Option<String>,
    pub kind: String,
    pub scope: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum Event {
    SessionStarted {
        session_id: String,
        resumed: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        model: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        effort: Option<String>,
    },
    AgentMessageChunk {
        text: String,
    },
    AgentThoughtChunk {
        text: String,
    },
    ToolCall {
        tool_call_id: String,
        title: String,
        kind: Option<String>,
        status: Option<String>,
    },
    ToolCallUpdate {
        tool_call_id: String,
        status: Option<String>,
    },
    Plan {
        entries: Value,
    },
    /// Its text is card text: see `acp::shown`.
    PermissionRequest {
        id: String,
        title: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        command: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        paths: Vec<String>,
        complete: bool,
        /// The asking session, when it is a subagent's (not ours).
        #[serde(skip_serializing_if = "Option::is_none")]
        subagent: Option<String>,
        options: Vec<ShownOption>,
    },
    /// A request the written policy decided: printed in place
    /// of its `permission_request` (nobody is asked), then its
    /// `permission_resolved` as for every automatic answer. `rule` is
    /// `{"index", …the rule's own fields}` or `{"otherwise"}`; the title is
    /// card text.
    PermissionDecision {
        id: String,
        title: String,
        decision: String,
        rule: Value,
    },
    PermissionResolved {
        id: String,
        option_id: Option<String>,
        by: ResolvedBy,
    },
    UnknownUpdate {
        session_update: String,
        raw: Value,
    },
    Diagnostic {
        message: String,
    },
    TurnEnd {
        stop_reason: String,
        /// `false` when oneworks ended the turn without the agent's word (a
        /// cancel the agent did not confirm: it was stopped); omitted when
        /// the stop reason is the agent's own.
        #[serde(skip_serializing_if = "is_true")]
        confirmed: bool,
    },
    Error {
        kind: String,
        message: String,
    },
}

fn is_true(value: &bool) -> bool {
    *value
}

/// Where events go.
#[derive(Debug)]
pub struct Sink {
    json: bool,
    /// Human mode: the agent's text on stdout does not end with a newline.
    text_open: bool,
    /// The line being written (reused: chunks are the hot path).
    line: Vec<u8>,
    /// The print scrubber last seen and whether it leaves the names and
    /// tags of a chunk event alone.
    plain_tags: Option<(Arc<Scrubber>, bool)>,
    /// The message and thought streams, scrubbed as streams: a
    /// secret split across chunks is still found, even around other events
    /// (their texts are concatenated: stdout in human mode, `jq` over
    /// `--json`). Built from the print scrubber last seen.
    streams: Option<Streams>,
}

#[derive(Debug)]
struct Streams {
    scrubber: Arc<Scrubber>,
    message: StreamScrubber,
    thought: StreamScrubber,
}

impl Streams {
    fn get(&mut self, kind: ChunkKind) -> &mut StreamScrubber {
        match kind {
            ChunkKind::Message => &mut self.message,
            ChunkKind::Thought => &mut self.thought,
        }
    }
}

/// The JSON line of a chunk event, as `print_json` would write it (key
/// order `type`, `text`; the same escaping), appended to `line`.
fn chunk_line(line: &mut Vec<u8>, kind: ChunkKind, text: &str) {
    line.extend_from_slice(b"{\"type\":\"");
    line.extend_from_slice(chunk_tag(kind).as_bytes());
    line.extend_from_slice(b"\",\"text\":");
    // Writing a string into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *line, text);
    line.extend_from_slice(b"}\n");
}

fn chunk_tag(kind: ChunkKind) -> &'static str {
    match kind {
        ChunkKind::Message => "agent_message_chunk",
        ChunkKind::Thought => "agent_thought_chunk",
    }
}

impl Sink {
    pub fn new(json: bool) -> Self {
        Self {
            json,
            text_open: false,
            line: Vec::new(),
            plain_tags: None,
            streams: None,
        }
    }

    /// A message or thought chunk: the same output as [`emit`](Self::emit)
    /// of its event, without building a JSON tree per chunk. The text goes
    /// through the stream scrubber of its kind: what could still begin a
    /// secret waits for the next chunk of its kind, across other events, so
    /// chunk boundaries may move.
    pub fn chunk(&mut self, kind: ChunkKind, text: &str) -> Result<(), OutputError> {
        let Some(scrubber) = output::scrubber() else {
            return self.write_chunk(kind, text, None);
        };
        let streams = match &mut self.streams {
            Some(streams) if Arc::ptr_eq(&streams.scrubber, &scrubber) => streams,
            _ => {
                self.release_held()?;
                self.streams.insert(Streams {
                    message: scrubber.stream(),
                    thought: scrubber.stream(),
                    scrubber: Arc::clone(&scrubber),
                })
            }
        };
        let released = streams.get(kind).push(text);
        if released.is_empty() {
            return Ok(());
        }
        self.write_chunk(kind, &released, Some(&scrubber))
    }

    /// Releases the text the stream scrubbers hold back (before a terminal
    /// prompt, and at the end).
    pub fn release_held(&mut self) -> Result<(), OutputError> {
        let Some(streams) = &mut self.streams else {
            return Ok(());
        };
        let scrubber = Arc::clone(&streams.scrubber);
        for kind in [ChunkKind::Message, ChunkKind::Thought] {
            let Some(streams) = &mut self.streams else {
                break;
            };
            if streams.get(kind).is_holding() {
                let held = streams.get(kind).finish();
                if !held.is_empty() {
                    self.write_chunk(kind, &held, Some(&scrubber))?;
                }
            }
        }
        Ok(())
    }

    /// Writes a chunk whose text the stream scrubber already scrubbed
    /// (`scrubber` is `None` when there is no print scrubber).
    fn write_chunk(
        &mut self,
        kind: ChunkKind,
        text: &str,
        scrubber: Option<&Arc<Scrubber>>,
    ) -> Result<(), OutputError> {
        if !self.json {
            match kind {
                ChunkKind::Message => {
                    if !text.is_empty() {
                        output::print_bytes(output::sanitize(text).as_bytes())?;
                        self.text_open = !text.ends_with('\n');
                    }
                }
                ChunkKind::Thought => {
                    tracing::debug!("thought: {}", output::sanitize(text));
                }
            }
            return Ok(());
        }
        if !self.plain_tags(scrubber) {
            let text = text.to_owned();
            return output::print_json(&match kind {
                ChunkKind::Message => Event::AgentMessageChunk { text },
                ChunkKind::Thought => Event::AgentThoughtChunk { text },
            });
        }
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        chunk_line(&mut line, kind, text);
        let mut stdout = std::io::stdout().lock();
        let written = stdout
            .write_all(&line)
            .and_then(|()| stdout.flush())
            .map_err(output::stdout_error);
        self.line = line;
        written
    }

    /// Whether `scrubber` would leave the fixed parts of a chunk event
    /// (`type`, `text` and the tag) alone, as it does unless a secret is
    /// one of those words; remembered per scrubber.
    fn plain_tags(&mut self, scrubber: Option<&Arc<Scrubber>>) -> bool {
        let Some(scrubber) = scrubber else {
            return true;
        };
        if let Some((seen, plain)) = &self.plain_tags {
            if Arc::ptr_eq(seen, scrubber) {
                return *plain;
            }
        }
        let plain = [
            "type",
            "text",
            chunk_tag(ChunkKind::Message),
            chunk_tag(ChunkKind::Thought),
        ]
        .iter()
        .all(|word| !scrubber.contains_secret(word));
        self.plain_tags = Some((Arc::clone(scrubber), plain));
        plain
    }

    pub fn json(&self) -> bool {
        self.json
    }

    /// A diagnostic: an event with `--json`, a `note:` line otherwise.
    pub fn diagnostic(&mut self, message: impl Into<String>) -> Result<(), OutputError> {
        self.emit(&Event::Diagnostic {
            message: message.into(),
        })
    }

    pub fn emit(&mut self, event: &Event) -> Result<(), OutputError> {
        match event {
            Event::AgentMessageChunk { text } => return self.chunk(ChunkKind::Message, text),
            Event::AgentThoughtChunk { text } => return self.chunk(ChunkKind::Thought, text),
            // The end of the turn ends the streams; other events do not:
            // a secret split around a tool call or a thought must not come
            // out whole in the concatenated text.
            Event::TurnEnd { .. } | Event::Error { .. } => self.release_held()?,
            _ => {}
        }
        if self.json {
            return output::print_json(event);
        }
        self.human(event)
    }

    /// Ends an open line of agent text so stderr lines start clean.
    fn close_text(&mut self) -> Result<(), OutputError> {
        let holding = self
            .streams
            .as_ref()
            .is_some_and(|streams| streams.message.is_holding());
        if holding {
            // The line break goes through the message stream, after the
            // text it holds: that text ends here, on stdout as on screen.
            self.chunk(ChunkKind::Message, "\n")?;
            self.text_open = false;
            return Ok(());
        }
        if self.text_open {
            self.text_open = false;
            output::print_text("\n")?;
        }
        Ok(())
    }

    fn human(&mut self, event: &Event) -> Result<(), OutputError> {
        if let Event::UnknownUpdate { session_update, .. } = event {
            tracing::debug!("unknown update kind `{}`", output::clean(session_update));
            return Ok(());
        }
        self.close_text()?;
        match event {
            Event::SessionStarted {
                session_id,
                resumed,
                ..
            } => tracing::info!(resumed, "session `{}`", output::clean(session_id)),
            Event::ToolCall {
                title,
                kind,
                status,
                ..
            } => output::human(format_args!(
                "tool: {title}{}{}",
                kind.as_deref()
                    .map(|kind| format!(" [{kind}]"))
                    .unwrap_or_default(),
                status
                    .as_deref()
                    .map(|status| format!(" ({status})"))
                    .unwrap_or_default(),
            )),
            Event::ToolCallUpdate {
                tool_call_id,
                status: Some(status),
            } => output::human(format_args!("tool {tool_call_id}: {status}")),
            Event::Plan { entries } => {
                let mut text = String::from("plan:");
                for entry in entries.as_array().into_iter().flatten() {
                    let status = entry.get("status").and_then(Value::as_str).unwrap_or("-");
                    let content = entry.get("content").and_then(Value::as_str).unwrap_or("");
                    text.push_str(&format!("\n  [{status}] {content}"));
                }
                output::human(text);
            }
            Event::PermissionResolved { id, option_id, by } => output::human(format_args!(
                "permission {id}: {} ({})",
                option_id.as_deref().unwrap_or("cancelled"),
                serde_json::to_value(by)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default()
            )),
            Event::PermissionDecision {
                id,
                title,
                decision,
                rule,
            } => output::human(format_args!(
                "permission {id}: {decision} by the policy ({}): {title}",
                match rule.get("index").and_then(Value::as_u64) {
                    Some(index) => format!("rule {index}"),
                    None => "otherwise".to_owned(),
                }
            )),
            Event::Diagnostic { message } => output::human(format_args!("note: {message}")),
            Event::TurnEnd {
                stop_reason,
                confirmed: false,
            } => output::human(format_args!(
                "turn ended: {stop_reason} (the agent did not confirm; it was stopped)"
            )),
            Event::TurnEnd { stop_reason, .. } if stop_reason != "end_turn" => {
                output::human(format_args!("turn ended: {stop_reason}"))
            }
            // Errors are printed once by the command edge; the TTY prompt
            // shows permission requests itself.
            _ => {}
        }
        Ok(())
    }

    /// Ends the human stream cleanly (a final newline after agent text).
    pub fn finish(&mut self) -> Result<(), OutputError> {
        self.release_held()?;
        if self.json {
            return Ok(());
        }
        self.close_text()
    }
}

#[cfg(test)]
#[path = "events_tests.rs"]
mod tests;
