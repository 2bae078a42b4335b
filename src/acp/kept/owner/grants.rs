//! The owner's queue: arrivals (prompts, cancels, stops, status), the
//! grant of the agent to the next waiting caller, and the end.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use serde_json::json;

use super::super::agent_process::Agent;
use super::super::connections::{reply_to, Arrival, Caller, WRITE_BOUND};
use super::super::protocol::{self, Grant, OwnerRequest, Reply, Status, CANCEL_METHOD, QUEUE};
use super::super::traffic::Traffic;
use super::{Owner, Waiting};
use crate::process::child::StopBounds;

impl Owner {
    pub(super) async fn on_arrival(&mut self, arrival: Arrival) {
        let Arrival {
            request,
            mut stream,
        } = arrival;
        match request {
            OwnerRequest::Prompt { keep_seconds } => {
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
            OwnerRequest::Cancel {} => {
                let cancelled = self.ask_caller_to_cancel().await;
                let reply = Reply::Cancel { cancelled };
                reply_to(&mut stream, &reply).await;
            }
            OwnerRequest::Stop {} => {
                reply_to(&mut stream, &Reply::Stopping {}).await;
                self.stopping = true;
            }
            OwnerRequest::Status {} => {
                let status = Reply::Status(self.status());
                reply_to(&mut stream, &status).await;
            }
        }
    }

    /// `session cancel`: the served caller runs its own cancel sequence.
    pub(super) async fn ask_caller_to_cancel(&mut self) -> bool {
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

    pub(super) fn status(&self) -> Status {
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
    pub(super) async fn next_caller(&mut self) {
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
            let follow_up = session.is_some();
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
            self.follow_up = follow_up;
            self.caller = Some(Caller::new(waiting.stream));
            self.turns += 1;
            self.cards.new_turn(self.turns);
            self.idle_since = None;
            return;
        }
        self.idle_since = Some(Instant::now());
    }

    /// The end: waiting callers told, the agent stopped as a run stops it,
    /// the socket and the record removed.
    pub(super) async fn stop(&mut self) {
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
