//! The owner of a kept session: the state machine of the module doc
//! ([`super`]), one loop over the agent's lines, the served caller's
//! lines, new connections and the two deadlines (idle, cancel).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::net::{UnixListener, UnixStream};
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::mpsc;

mod grants;

use super::agent_process::{exit_of, Agent};
use super::connections::{accept, has_room, Arrival, Caller, WRITE_BOUND};
use super::protocol::{self, CANCEL_METHOD, QUEUE};
use super::question_cards::{CardAnswer, CardSide, Cards, ASKING_METHOD};
use super::traffic::{FromAgent, FromCaller, Traffic};
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
    /// The served turn's questions as cards.
    cards: Cards,
    /// The served caller was granted an open session (no handshake): the
    /// agent's notifications reach it only while its prompt runs, so
    /// what the agent sends after answering the turn before is not taken
    /// for this turn's.
    follow_up: bool,
}

/// Runs the owner until the session ends. The agent is started first,
/// then `ready` is called (a failure before it is the starting run's to
/// report: nothing was kept).
pub async fn own(
    plan: OwnerPlan,
    listener: UnixListener,
    cards: Option<CardSide>,
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
        cards: Cards::new(cards),
        follow_up: false,
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
            Some(answer) = self.cards.next_answer() => self.on_card_answer(answer).await,
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
            FromAgent::Question(id, params) if self.relaying() => {
                self.cards.asked_by_agent(id, params);
                self.relay(bytes).await;
            }
            FromAgent::Update if self.relaying() && self.follow_up && !self.traffic.in_turn() => {
                tracing::debug!("dropped an agent update outside the served caller's turn");
            }
            _ if self.relaying() => self.relay(bytes).await,
            // Nobody to ask: the question is cancelled, other requests
            // are not served.
            FromAgent::Question(id, _) => {
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
            FromAgent::Relay | FromAgent::Update => {}
        }
        self.cards.sync(&self.traffic);
        if self.cancelling.is_some() && !self.traffic.awaiting() {
            tracing::info!("the cancelled turn ended");
            self.cancelling = None;
            self.next_caller().await;
        }
    }

    /// A line for the served caller.
    async fn relay(&mut self, bytes: Vec<u8>) {
        {
            let queued = self
                .caller
                .as_ref()
                .is_none_or(|caller| caller.queue(bytes));
            if !queued {
                self.caller_gone().await;
            }
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
        match self.traffic.from_caller(&bytes) {
            FromCaller::ForOwner(method, params) => {
                if method == ASKING_METHOD {
                    if let Some(id) = params.get("id") {
                        self.cards.caller_asks(id, &self.traffic);
                    }
                }
                return;
            }
            // A card answered first: the agent has its answer.
            FromCaller::OtherAnswer(id) if self.cards.answered_by_card(&id) => return,
            FromCaller::Answer(id, option) => self.cards.caller_answered(&id, option),
            FromCaller::OtherAnswer(_) | FromCaller::Relay => {}
        }
        if self.agent.is_none() {
            self.caller_gone().await;
            return;
        }
        self.send_to_agent(&bytes).await;
    }

    /// A card's verdict: sent to the agent when its question still waits
    /// for the served caller, who is told.
    async fn on_card_answer(&mut self, answer: CardAnswer) {
        let sent = match self.relaying() {
            true => self
                .cards
                .card_answered(&answer, &mut self.traffic, &self.cancel_token),
            false => None,
        };
        let Some(sent) = sent else {
            let _ = answer.done.send(false);
            return;
        };
        self.send_to_agent(&sent.to_agent).await;
        let _ = answer.done.send(true);
        // Waits for room (not dropped when the buffer is full): a caller
        // that is never told keeps asking a question already answered.
        let Some(caller) = &self.caller else {
            return;
        };
        let told = tokio::time::timeout(WRITE_BOUND, caller.lines.send(sent.to_caller)).await;
        if matches!(told, Ok(Err(_))) {
            self.caller_gone().await;
        }
    }

    /// The served caller left. With its prompt still in flight, the owner
    /// cancels the turn itself (the order a cancel keeps) before the next caller.
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
        self.cards.sync(&self.traffic);
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
        self.cards.sync(&self.traffic);
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
    getrandom::getrandom(&mut bytes).map_err(std::io::Error::from)?;
    Ok(hex::encode(bytes))
}
