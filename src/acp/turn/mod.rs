//! The message loop of one run: every call we make waits here while the
//! agent's notifications and requests, the person's replies, signals and
//! deadlines are handled as they come. The turn is finalized exactly once
//! (turn end, error, EOF, cancel, timeout); after that a late request or
//! notification creates no event and no interaction.
//!
//! Cancel sequence (Zed's order): answer every pending permission request
//! `cancelled`, then send `session/cancel`, then wait — bounded — for the
//! prompt to answer `stopReason: cancelled`. A second interrupt ends the
//! wait at once; the owner then kills the agent. The cancel itself, and
//! the races it once lost, are in `cancel`.

use std::time::Instant;

use agent_client_protocol_schema::v1::{
    ContentBlock, PromptRequest, PromptResponse, StopReason, TextContent, AGENT_METHOD_NAMES,
    CLIENT_METHOD_NAMES,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};

use super::answer_input::{self, ChannelKind, Input, InputReceiver, InputSender};
use super::events::{Event, Sink};
use super::permissions::decide::Mode;
use super::permissions::remembered::Rules;
use super::permissions::{Choice, PermissionAsk};
use super::quirks::{standard, Quirks};
use super::rpc::{self, Incoming, RequestId};
use super::AcpError;
use crate::adapter::acp_data::AcpData;
use crate::process::interrupts::Interrupts;
use crate::process::lines::{Line, LineReader};
use crate::redact::Scrubber;

mod cancel;
mod decisions;
mod kept_turn;
mod questions;

use cancel::Trigger;

/// Where the agent's messages come from: its stdout, or a kept session's
/// owner relaying them (`acp::kept`).
pub type AgentReader = Box<dyn AsyncRead + Send + Unpin>;
/// Where our messages to the agent go: its stdin, or the owner's socket.
pub type AgentWriter = Box<dyn AsyncWrite + Send + Unpin>;
pub type Reader = LineReader<AgentReader>;

const NO_CHANNEL_HINT: &str = "run with `--json` and answer on stdin, run on a terminal, \
    or choose a `--mode` that decides by itself (`acceptEdits`, `dontAsk`)";
const POLICY_HINT: &str = "only a person may grant persistent trust: answer this question \
    yourself (`--mode default` with `--json` or on a terminal)";

/// Why the turn is being cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cause {
    User,
    Timeout,
    Refused,
}

struct Pending {
    id: RequestId,
    key: String,
    request: PermissionAsk,
    choices: Vec<Choice>,
}

pub struct Turn<'a> {
    writer: Option<AgentWriter>,
    reader: Reader,
    next_id: u64,
    pub sink: Sink,
    inputs: InputReceiver,
    input_sender: InputSender,
    channel: ChannelKind,
    input_closed: bool,
    interrupts: &'a mut Interrupts,
    mode: Mode,
    rules: Rules,
    /// The written policy and the decision record.
    decisions: decisions::Book,
    scrubber: &'a Scrubber,
    data: &'a AcpData,
    /// The vendor's rewrites around the typed messages.
    quirks: &'static dyn Quirks,
    /// The adapter's display name, for the prompts a person sees.
    agent: String,
    pub session_id: Option<String>,
    /// While `session/load` replays history: updates are not events.
    pub replaying: bool,
    pending: Vec<Pending>,
    /// The terminal prompt currently open (its request key).
    prompting: Option<String>,
    in_prompt: bool,
    finished: bool,
    cancel: Option<(Cause, Instant)>,
    deadline: Option<Instant>,
    timeout_text: String,
    failure: Option<AcpError>,
    /// A second interrupt arrived: the owner must kill the agent now.
    pub kill_now: bool,
    /// The agent is reached through a kept session's owner, which may ask
    /// for a cancel (`session cancel NAME` from another process) with this
    /// token, which only the owner and this caller know.
    pub relayed: Option<String>,
    /// The owner asked for a cancel; the loop begins it.
    owner_cancel: bool,
}

#[allow(clippy::too_many_arguments)]
impl<'a> Turn<'a> {
    pub fn new(
        stdin: AgentWriter,
        stdout: AgentReader,
        sink: Sink,
        channel: ChannelKind,
        interrupts: &'a mut Interrupts,
        mode: Mode,
        rules: Rules,
        scrubber: &'a Scrubber,
        data: &'a AcpData,
        quirks: &'static dyn Quirks,
        agent: String,
        timeout: Option<crate::acp::RunTimeout>,
    ) -> Self {
        let (input_sender, inputs) = answer_input::input_channel();
        if channel == ChannelKind::Json {
            answer_input::spawn_json_reader(input_sender.clone());
        }
        Self {
            writer: Some(stdin),
            reader: LineReader::new(stdout, data.max_message_bytes),
            next_id: 0,
            sink,
            inputs,
            input_sender,
            channel,
            input_closed: false,
            interrupts,
            mode,
            rules,
            decisions: decisions::Book::default(),
            scrubber,
            data,
            quirks,
            agent,
            session_id: None,
            replaying: false,
            pending: Vec::new(),
            prompting: None,
            in_prompt: false,
            finished: false,
            cancel: None,
            deadline: timeout
                .as_ref()
                .map(|timeout| Instant::now() + timeout.limit),
            timeout_text: timeout.map(|timeout| timeout.written).unwrap_or_default(),
            failure: None,
            kill_now: false,
            relayed: None,
            owner_cancel: false,
        }
    }

    /// Gives up the connection: stdin (closing it asks the agent to exit) and
    /// the reader (drained and ignored by the owner).
    /// The permission rules, for another start of the agent.
    pub fn take_rules(&mut self) -> Rules {
        std::mem::take(&mut self.rules)
    }

    pub fn into_parts(self) -> (Option<AgentWriter>, Reader) {
        (self.writer, self.reader)
    }

    async fn send(&mut self, line: &str) -> Result<(), AcpError> {
        let gone = || AcpError::AgentGone {
            when: "while oneworks was writing to it".to_owned(),
            tail: String::new(),
        };
        let writer = self.writer.as_mut().ok_or_else(gone)?;
        writer
            .write_all(line.as_bytes())
            .await
            .map_err(|_| gone())?;
        writer.flush().await.map_err(|_| gone())
    }

    pub async fn notify(&mut self, method: &str, params: &impl Serialize) -> Result<(), AcpError> {
        let line = rpc::notification(method, params).map_err(|e| AcpError::Io(e.into()))?;
        self.send(&line).await
    }

    /// Sends a request (one of the schema's typed params) and runs the loop
    /// until its answer arrives.
    pub async fn call(&mut self, method: &str, params: &impl Serialize) -> Result<Value, AcpError> {
        self.next_id += 1;
        let id = self.next_id;
        let line = rpc::request(id, method, params).map_err(|e| AcpError::Io(e.into()))?;
        self.send(&line).await?;
        loop {
            let cancel_deadline = self.cancel.map(|(_, at)| at);
            let trigger = tokio::select! {
                line = self.reader.next_line() => match line {
                    Ok(Some(Line::TooLong(length))) => {
                        tracing::warn!("skipped a line of {length} bytes from the agent (over the bound of {})", self.data.max_message_bytes);
                        continue;
                    }
                    Ok(Some(Line::Text(bytes))) => match self.on_line(&bytes, id).await? {
                        Some(outcome) => return answered(method, outcome),
                        None if std::mem::take(&mut self.owner_cancel) => Trigger::Cancel(Cause::User),
                        None => continue,
                    },
                    Ok(None) => {
                        return Err(AcpError::AgentGone {
                            when: if self.in_prompt { "mid-turn".to_owned() } else { format!("while oneworks waited for `{method}`") },
                            tail: String::new(),
                        })
                    }
                    Err(error) => return Err(AcpError::Io(error)),
                },
                Some(input) = self.inputs.recv() => match input {
                    Input::Cancel => Trigger::Cancel(Cause::User),
                    other => {
                        self.on_input(other).await?;
                        continue;
                    }
                },
                _ = self.interrupts.recv() => Trigger::Interrupt,
                _ = sleep_until(self.deadline) => {
                    self.deadline = None;
                    Trigger::Cancel(Cause::Timeout)
                }
                _ = sleep_until(cancel_deadline) => return Err(self.cancel_error()),
            };
            if let Some(outcome) = self.on_trigger(trigger, id).await? {
                return answered(method, outcome);
            }
        }
    }

    /// Sends the prompt and waits for the turn to end; finalizes it.
    pub async fn prompt(&mut self, session_id: &str, text: &str) -> Result<(), AcpError> {
        self.in_prompt = true;
        let params = PromptRequest::new(
            session_id.to_owned(),
            vec![ContentBlock::Text(TextContent::new(text))],
        );
        let answer = self.call(AGENT_METHOD_NAMES.session_prompt, &params).await;
        self.in_prompt = false;
        self.join_an_interrupt_that_arrived().await;
        // `null` or any non-object is not a turn that ended: a protocol error.
        let answer = answer.and_then(|result| match result {
            Value::Object(_) => Ok(result),
            _ => Err(AcpError::Malformed {
                method: "session/prompt".to_owned(),
                what: "a result object".to_owned(),
            }),
        });
        match answer {
            Ok(result) => {
                // Typed; a stop reason the schema does not know is kept as
                // the agent sent it.
                let typed = PromptResponse::deserialize(&result)
                    .ok()
                    .map(|answer| answer.stop_reason);
                let cancelled = matches!(typed, Some(StopReason::Cancelled));
                let stop = typed
                    .and_then(|stop| serde_json::to_value(stop).ok())
                    .or_else(|| result.get("stopReason").cloned())
                    .and_then(|stop| stop.as_str().map(str::to_owned))
                    .unwrap_or_else(|| "unknown".to_owned());
                self.finish(Event::TurnEnd {
                    stop_reason: stop.clone(),
                    confirmed: true,
                })
                .map_err(AcpError::Output)?;
                if self.cancel.is_some() {
                    return Err(self.cancel_error());
                }
                if let Some(title) = self.decisions.rejected.take().filter(|_| cancelled) {
                    return Err(AcpError::PermissionRefused {
                        reason: format!("`{title}` was rejected, and the agent ended its turn"),
                        hint: "allow it to let the agent go on".to_owned(),
                    });
                }
                if cancelled {
                    return Err(AcpError::Rejected {
                        method: "session/prompt".to_owned(),
                        message: "the agent cancelled the turn by itself".to_owned(),
                    });
                }
                Ok(())
            }
            Err(error) => {
                let (event, error) = if self.cancel.is_some() {
                    // The agent did not answer the cancel: the grace ran
                    // out, a second interrupt stopped it, or it died. The
                    // turn is still the cancel the person asked for.
                    let error = match error {
                        AcpError::AgentGone { .. } => self.cancel_error(),
                        other => other,
                    };
                    let event = Event::TurnEnd {
                        stop_reason: "cancelled".to_owned(),
                        confirmed: false,
                    };
                    (event, error)
                } else {
                    let event = Event::Error {
                        kind: crate::error::Classify::kind(&error).as_str().to_owned(),
                        // The whole chain, as the final error prints it.
                        message: crate::error::message(&error),
                    };
                    (event, error)
                };
                // The error itself matters more than a closed stdout here.
                let _ = self.finish(event);
                Err(error)
            }
        }
    }

    /// Ends the turn once; later calls do nothing.
    fn finish(&mut self, event: Event) -> Result<(), crate::output::OutputError> {
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        self.prompting = None;
        // A terminal prompt may still be open: its raw mode must not
        // outlive the turn (nor garble what is printed next).
        crate::process::terminal::restore();
        self.sink.emit(&event)?;
        self.sink.finish()
    }

    fn emit(&mut self, event: &Event) -> Result<(), AcpError> {
        // A closed stdout is not the agent's failure: it ends the run
        // quietly (exit 0), a full disk plainly.
        self.sink.emit(event).map_err(AcpError::Output)
    }

    fn diagnostic(&mut self, message: String) -> Result<(), AcpError> {
        self.emit(&Event::Diagnostic { message })
    }

    async fn on_line(
        &mut self,
        bytes: &[u8],
        waiting: u64,
    ) -> Result<Option<Result<Value, rpc::RpcError>>, AcpError> {
        if let Some(chunk) = super::fast::chunk(bytes) {
            let method = self
                .quirks
                .standard_notification(&chunk.method)
                .unwrap_or(&chunk.method);
            if self.wants_update(method, chunk.session_id.as_deref()) {
                let kind = chunk.kind;
                self.sink
                    .chunk(kind, &chunk.text)
                    .map_err(AcpError::Output)?;
            }
            return Ok(None);
        }
        let message = match rpc::parse_line(bytes) {
            Ok(Some(message)) => message,
            Ok(None) => return Ok(None),
            Err(error) => {
                // Scrubbed before it is cut short, so the cut cannot keep a
                // piece of a secret the scrubber would no longer recognise.
                let text = String::from_utf8_lossy(bytes);
                let shown: String = crate::output::clean(&text).chars().take(200).collect();
                tracing::warn!("skipped a line from the agent ({error}): {shown}");
                if error == rpc::FrameError::InvalidId {
                    self.send(&rpc::invalid_id_response()).await?;
                }
                return Ok(None);
            }
        };
        match message {
            Incoming::Response { id, outcome } => {
                if id == Some(RequestId::ours(waiting)) {
                    return Ok(Some(outcome));
                }
                tracing::debug!(
                    "ignored a response nobody waits for (id {})",
                    id.map_or_else(|| "none".to_owned(), |id| id.to_value().to_string())
                );
            }
            Incoming::Notification { method, params }
                if method.starts_with(super::kept::protocol::OWNER_PREFIX) =>
            {
                self.on_owner_line(&method, &params).await?;
            }
            Incoming::Notification { method, params } => self.on_notification(&method, params)?,
            Incoming::Request { id, method, params } => {
                if method == CLIENT_METHOD_NAMES.session_request_permission {
                    self.on_permission(id, params).await?;
                } else {
                    tracing::debug!(method = %crate::output::clean(&method), "answered an unsupported request");
                    self.send(&rpc::error_response(&id, rpc::method_not_found(&method)))
                        .await?;
                }
            }
        }
        Ok(None)
    }

    /// Whether a notification is an update of this turn's session that
    /// may become an event (not a replay, not late, not another session's).
    fn wants_update(&self, method: &str, session: Option<&str>) -> bool {
        if self.finished || self.replaying {
            tracing::debug!(
                "ignored `{}` (replay, or after the turn ended)",
                crate::output::clean(method)
            );
            return false;
        }
        if self.session_id.is_none() {
            // Before the handshake ends there is no session to report on.
            tracing::debug!(
                "ignored `{}` before the session opened",
                crate::output::clean(method)
            );
            return false;
        }
        if method != standard::SESSION_UPDATE {
            let what = if self.quirks.is_extension(method) {
                "the agent's extension notification"
            } else {
                "notification"
            };
            tracing::debug!("ignored {what} `{}`", crate::output::clean(method));
            return false;
        }
        if let (Some(theirs), Some(ours)) = (session, self.session_id.as_deref()) {
            if theirs != ours {
                tracing::debug!("ignored an update for another session");
                return false;
            }
        }
        true
    }

    fn on_notification(&mut self, method: &str, params: Value) -> Result<(), AcpError> {
        let method = self.quirks.standard_notification(method).unwrap_or(method);
        let session = params.get("sessionId").and_then(Value::as_str);
        if !self.wants_update(method, session) {
            return Ok(());
        }
        let mut update = match params {
            Value::Object(mut params) => match params.remove("update") {
                Some(update) => update,
                None => Value::Object(params),
            },
            other => other,
        };
        self.quirks.update(&mut update);
        match super::updates::event_for(&update) {
            Some(event) => self.emit(&event),
            None => Ok(()),
        }
    }
}

/// The agent's answer to our `method`: its result, or its error as ours.
fn answered(method: &str, outcome: Result<Value, rpc::RpcError>) -> Result<Value, AcpError> {
    outcome.map_err(|error| {
        // With the agent's `data` details: "Internal error" alone says
        // nothing a person can act on.
        let message = error.describe();
        if error.code == rpc::AUTH_REQUIRED {
            AcpError::AuthRequired { message }
        } else {
            AcpError::Rejected {
                method: method.to_owned(),
                message,
            }
        }
    })
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}
