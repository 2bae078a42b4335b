//! The owner of a kept session: the state machine of the module doc
//! ([`super`]), one loop over the agent's lines, the served caller's
//! lines, new connections and the two deadlines (idle, cancel).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use serde_json::{json, Value};
use tokio::net::{UnixListener, UnixStream};
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::mpsc;

use super::agent::{exit_of, Agent};
use super::connections::{accept, has_room, reply_to, Arrival, Caller, WRITE_BOUND};
use super::protocol::{self, Grant, Reply, Request, Status, CANCEL_METHOD, QUEUE};
use super::traffic::{FromAgent, Traffic};
use super::OwnerPlan;
use crate::process::child::StopBounds;
use crate::process::lines::{Line, LineReader};

/// A prompt waiting for the agent.
struct Waiting {
    stream: UnixStream,
    keep_seconds: Option<u64>,
}

struct Owner {
    plan: OwnerPlan,
    agent: Option<Agent>,
    /// The agent was started again after it died, and no session has been
    /// opened in it since.
    restarted: bool,
    traffic: Traffic,
    caller: Option<Caller>,
    queue: VecDeque<Waiting>,
    /// The owner's own cancel of a turn whose caller left: its deadline.
    cancelling: Option<Instant>,
    /// When the last caller left (the idle deadline runs from there).
    idle_since: Option<Instant>,
    turns: u64,
    stopping: bool,
    /// Proves a `_oneworks/cancel` is the owner's (random, per owner).
    cancel_token: String,
}

/// Runs the owner until the session ends. The agent is started first,
/// then `ready` is called (a failure before it is the starting run's to
/// report: nothing was kept).
pub async fn own(
    plan: OwnerPlan,
    listener: UnixListener,
    ready: impl FnOnce() -> std::io::Result<()>,
) -> std::io::Result<()> {
    let agent = Agent::start(&plan)?;
    ready()?;
    let mut owner = Owner {
        plan,
        agent: Some(agent),
        restarted: false,
        traffic: Traffic::default(),
        caller: None,
        queue: VecDeque::new(),
        cancelling: None,
        idle_since: Some(Instant::now()),
        turns: 0,
        stopping: false,
        cancel_token: random_token()?,
    };
    let (arrivals, mut arrived) = mpsc::channel(QUEUE * 2);
    let accepting = tokio::spawn(accept(listener, arrivals));
    let mut terminate = signal(SignalKind::terminate())?;
    let mut interrupt = signal(SignalKind::interrupt())?;
    while !owner.stopping {
        owner
            .step(&mut arrived, &mut terminate, &mut interrupt)
            .await;
    }
    accepting.abort();
    owner.stop().await;
    Ok(())
}

async fn next_line<R: tokio::io::AsyncRead + Unpin>(
    reader: Option<&mut LineReader<R>>,
) -> std::io::Result<Option<Line>> {
    match reader {
        Some(reader) => reader.next_line().await,
        None => std::future::pending().await,
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

impl Owner {
    async fn step(
        &mut self,
        arrived: &mut mpsc::Receiver<Arrival>,
        terminate: &mut tokio::signal::unix::Signal,
        interrupt: &mut tokio::signal::unix::Signal,
    ) {
        let idle_deadline = match (&self.caller, self.cancelling, self.idle_since) {
            (None, None, Some(since)) => Some(since + self.plan.keep),
            _ => None,
        };
        // While the served caller's buffer is full its agent waits: the
        // agent's stdout is not read (as a one-shot run's, whose reader is
        // slow), and everything else goes on.
        let held_back = self.relaying()
            && self
                .caller
                .as_ref()
                .is_some_and(|caller| !caller.has_room());
        // Wakes the loop when the held-back caller's buffer has room again.
        let room = self
            .caller
            .as_ref()
            .filter(|_| held_back)
            .map(|caller| caller.lines.clone());
        let (agent_reader, agent_child) = match &mut self.agent {
            Some(agent) if held_back => (None, (!agent.exited).then_some(&mut agent.child)),
            Some(agent) if !agent.exited => (Some(&mut agent.reader), Some(&mut agent.child)),
            Some(agent) => (Some(&mut agent.reader), None),
            None => (None, None),
        };
        tokio::select! {
            // The agent's own process ended while something it started
            // still holds its pipes: the rest of its group goes too, and
            // its stdout's end (read to the last line) makes it gone.
            _ = exit_of(agent_child) => {
                if let Some(agent) = &mut self.agent {
                    tracing::warn!("the agent's process ended; stopping what it left running");
                    agent.exited = true;
                    agent.child.kill_now();
                }
            }
            line = next_line(agent_reader) => match line {
                Ok(Some(Line::Text(bytes))) => self.on_agent_line(bytes).await,
                Ok(Some(Line::TooLong(length))) => {
                    tracing::warn!("skipped a line of {length} bytes from the agent");
                }
                Ok(None) | Err(_) => self.agent_gone().await,
            },
            line = next_line(self.caller.as_mut().map(|caller| &mut caller.reader)) => match line {
                Ok(Some(Line::Text(bytes))) => self.on_caller_line(bytes).await,
                Ok(Some(Line::TooLong(length))) => {
                    tracing::warn!("skipped a line of {length} bytes from the caller");
                }
                Ok(None) | Err(_) => self.caller_gone().await,
            },
            Some(arrival) = arrived.recv() => self.on_arrival(arrival).await,
            () = has_room(room) => {}
            _ = sleep_until(idle_deadline) => {
                tracing::info!("idle for {:?}: ending the kept session", self.plan.keep);
                self.stopping = true;
            }
            _ = sleep_until(self.cancelling) => {
                tracing::warn!("the agent did not answer the cancel in time: stopping it");
                if let Some(agent) = &mut self.agent {
                    agent.child.kill_now();
                }
                self.agent_gone().await;
            }
            _ = terminate.recv() => self.stopping = true,
            _ = interrupt.recv() => self.stopping = true,
        }
    }

    /// Whether the agent's lines go to a caller now.
    fn relaying(&self) -> bool {
        self.caller.is_some() && self.cancelling.is_none()
    }

    async fn on_agent_line(&mut self, bytes: Vec<u8>) {
        let kind = self.traffic.from_agent(&bytes);
        match kind {
            FromAgent::Forged => {
                tracing::warn!("dropped a `{CANCEL_METHOD}` the agent wrote");
            }
            _ if self.relaying() => {
                let queued = self
                    .caller
                    .as_ref()
                    .is_none_or(|caller| caller.queue(bytes));
                if !queued {
                    self.caller_gone().await;
                }
            }
            // Nobody to ask: the question is cancelled, other requests
            // are not served.
            FromAgent::Question(id) => {
                self.traffic.take_questions();
                self.send_to_agent(&cancelled(&id)).await;
            }
            FromAgent::Request(id, method) => {
                let refusal = json!({"jsonrpc": "2.0", "id": id, "error": {
                    "code": -32601,
                    "message": format!("method not found: {}", crate::output::clean(&method)),
                }});
                self.send_to_agent(&protocol::line(&refusal)).await;
            }
            FromAgent::Relay => {}
        }
        if self.cancelling.is_some() && !self.traffic.awaiting() {
            tracing::info!("the cancelled turn ended");
            self.cancelling = None;
            self.next_caller().await;
        }
    }

    async fn send_to_agent(&mut self, line: &[u8]) {
        let written = match &mut self.agent {
            Some(agent) => agent.write(line).await,
            None => return,
        };
        if !written {
            self.agent_gone().await;
        }
    }

    async fn on_caller_line(&mut self, bytes: Vec<u8>) {
        self.traffic.from_caller(&bytes);
        if self.agent.is_none() {
            self.caller_gone().await;
            return;
        }
        self.send_to_agent(&bytes).await;
    }

    /// The served caller left. With its prompt still in flight, the owner
    /// cancels the turn itself (SPEC §7's order) before the next caller.
    async fn caller_gone(&mut self) {
        if self.caller.take().is_none() {
            return;
        }
        if self.traffic.awaiting() && self.agent.is_some() {
            self.cancel_alone().await;
            return;
        }
        if self.traffic.session().is_none() && self.queue.is_empty() {
            // Nothing was opened to keep (the handshake failed, or the
            // caller left during it): the session ends.
            tracing::info!("no agent session was opened: ending the kept session");
            self.stopping = true;
            return;
        }
        self.next_caller().await;
    }

    /// Answers the questions the caller left `cancelled`, then sends
    /// `session/cancel` when its prompt was in flight, and waits for the
    /// answers to all its requests (`on_agent_line`), dropping them.
    async fn cancel_alone(&mut self) {
        tracing::info!("the caller left with requests in flight: cancelling its turn");
        for id in self.traffic.take_questions() {
            self.send_to_agent(&cancelled(&id)).await;
        }
        if let Some(session) = self.traffic.session().filter(|_| self.traffic.in_turn()) {
            let notification = json!({"jsonrpc": "2.0", "method": "session/cancel",
                "params": {"sessionId": session.id}});
            self.send_to_agent(&protocol::line(&notification)).await;
        }
        if self.agent.is_some() {
            self.cancelling = Some(Instant::now() + self.plan.cancel_grace);
        }
    }

    /// The agent exited (or was stopped): its caller loses the connection;
    /// the next grant starts it again.
    async fn agent_gone(&mut self) {
        self.forget_agent().await;
        // The caller's connection ends with the agent: it reports the
        // agent gone, as a one-shot run does.
        self.caller = None;
        self.cancelling = None;
        self.next_caller().await;
    }

    /// Stops what is left of the agent's group and forgets its turn.
    async fn forget_agent(&mut self) {
        if let Some(mut agent) = self.agent.take() {
            let status = agent
                .child
                .stop(StopBounds::with_grace(Duration::ZERO))
                .await;
            tracing::warn!(
                "the agent ended ({})",
                status.map_or_else(|e| e.to_string(), |s| s.status().to_string())
            );
        }
        self.traffic.agent_gone();
    }

    async fn on_arrival(&mut self, arrival: Arrival) {
        let Arrival {
            request,
            mut stream,
        } = arrival;
        match request {
            Request::Prompt { keep_seconds } => {
                if self.queue.len() >= QUEUE {
                    let refusal = Reply::Error {
                        kind: crate::error::ErrorKind::Session.as_str().to_owned(),
                        message: format!("the kept session's queue is full ({QUEUE} prompts wait)"),
                        hint: Some("wait for the turns before it, or stop the session".to_owned()),
                    };
                    reply_to(&mut stream, &refusal).await;
                    return;
                }
                self.queue.push_back(Waiting {
                    stream,
                    keep_seconds,
                });
                if self.caller.is_none() && self.cancelling.is_none() {
                    self.next_caller().await;
                } else {
                    let ahead = self.queue.len();
                    let Some(waiting) = self.queue.back_mut() else {
                        return;
                    };
                    let queued = Reply::Queued { ahead };
                    reply_to(&mut waiting.stream, &queued).await;
                }
            }
            Request::Cancel {} => {
                let cancelled = self.ask_caller_to_cancel().await;
                let reply = Reply::Cancel { cancelled };
                reply_to(&mut stream, &reply).await;
            }
            Request::Stop {} => {
                reply_to(&mut stream, &Reply::Stopping {}).await;
                self.stopping = true;
            }
            Request::Status {} => {
                let status = Reply::Status(self.status());
                reply_to(&mut stream, &status).await;
            }
        }
    }

    /// `session cancel`: the served caller runs its own cancel sequence.
    async fn ask_caller_to_cancel(&mut self) -> bool {
        if self.cancelling.is_some() {
            return true;
        }
        if !self.traffic.in_turn() {
            return false;
        }
        let notification = json!({"jsonrpc": "2.0", "method": CANCEL_METHOD,
            "params": {"token": self.cancel_token}});
        let line = protocol::line(&notification);
        let Some(caller) = &self.caller else {
            return false;
        };
        // A caller whose buffer is full is not reading: it hears the
        // cancel once it reads again, or not at all if it went away.
        match tokio::time::timeout(WRITE_BOUND, caller.lines.send(line)).await {
            Ok(Ok(())) => true,
            Ok(Err(_)) => {
                self.caller_gone().await;
                false
            }
            Err(_) => false,
        }
    }

    fn status(&self) -> Status {
        Status {
            pid: std::process::id(),
            agent_pid: self.agent.as_ref().map(|agent| agent.child.id()),
            turns: self.turns,
            idle_seconds: self.idle_since.map(|since| since.elapsed().as_secs()),
            keep_seconds: self.plan.keep.as_secs(),
            queued: self.queue.len(),
            serving: self.caller.is_some(),
        }
    }

    /// Grants the agent to the first waiting caller still there, starting
    /// the agent again when it is gone; idle when nobody waits.
    async fn next_caller(&mut self) {
        while let Some(mut waiting) = self.queue.pop_front() {
            // An agent that ended since the loop last looked is not
            // granted: it is gone, and started again below.
            let ended = match &mut self.agent {
                Some(agent) => agent.exited || agent.child.wait().now_or_never().is_some(),
                None => false,
            };
            if ended {
                self.forget_agent().await;
            }
            if self.agent.is_none() {
                match Agent::start(&self.plan) {
                    Ok(agent) => {
                        tracing::info!("started the agent again (pid {})", agent.child.id());
                        self.agent = Some(agent);
                        self.restarted = true;
                    }
                    Err(error) => {
                        let refusal = Reply::Error {
                            kind: crate::error::ErrorKind::AgentFailed.as_str().to_owned(),
                            message: format!("could not start the agent again: {error}"),
                            hint: None,
                        };
                        reply_to(&mut waiting.stream, &refusal).await;
                        continue;
                    }
                }
            }
            let session = self.traffic.session().filter(|_| !self.restarted);
            let grant = Reply::Turn(Grant {
                handshake: session.is_none(),
                recovered: self.restarted,
                session_id: session.map(|session| session.id.clone()),
                session: session.map(|session| session.answer.clone()),
                agent_pid: self.agent.as_ref().map_or(0, |agent| agent.child.id()),
                cancel_token: self.cancel_token.clone(),
            });
            if !reply_to(&mut waiting.stream, &grant).await {
                continue;
            }
            if let Some(seconds) = waiting.keep_seconds {
                self.plan.keep = Duration::from_secs(seconds);
            }
            if self.restarted {
                // The caller loads the session; once it is open again the
                // next grants hand it on.
                self.restarted = false;
                self.traffic = Traffic::default();
            }
            self.caller = Some(Caller::new(waiting.stream));
            self.turns += 1;
            self.idle_since = None;
            return;
        }
        self.idle_since = Some(Instant::now());
    }

    /// The end: waiting callers told, the agent stopped as a run stops it,
    /// the socket and the record removed.
    async fn stop(&mut self) {
        self.caller = None;
        for mut waiting in self.queue.drain(..) {
            reply_to(&mut waiting.stream, &Reply::Ended {}).await;
        }
        if let Some(mut agent) = self.agent.take() {
            drop(agent.writer);
            let _ = agent
                .child
                .stop(StopBounds::with_grace(self.plan.stop_grace))
                .await;
        }
        let paths: [&PathBuf; 2] = [&self.plan.paths.socket, &self.plan.paths.record];
        for path in paths {
            let _ = fs_err::remove_file(path);
        }
        tracing::info!("the kept session ended");
    }
}

/// Our `cancelled` answer to the agent's question `id`.
fn cancelled(id: &Value) -> Vec<u8> {
    protocol::line(&json!({"jsonrpc": "2.0", "id": id,
        "result": {"outcome": {"outcome": "cancelled"}}}))
}

/// 128 random bits from the OS, hex.
fn random_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::getrandom(&mut bytes).map_err(|error| std::io::Error::other(error.to_string()))?;
    Ok(hex::encode(bytes))
}
