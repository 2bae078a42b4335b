//! The sessions of the project as the page shows them, read on demand and
//! never kept: a running supervisor is asked over its approvals socket
//! (the same [`Client`] as `session approvals`/`answer`); a stopped or gone
//! one leaves its `cards.jsonl`. Blocking: callers use `spawn_blocking`.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::json;

use crate::launch::profile::layout::ProfileLayout;
use crate::locations::{Locations, Project};
use crate::session::cards::{Card, CardState};
use crate::session::channel::{card_of, Client};
use crate::session::supervisor::{self, SessionPaths};
use crate::session::tmux::Tmux;
use crate::session::SessionError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Liveness {
    WaitingForApproval,
    Running,
    SupervisorGone,
    Stopped,
}

impl Liveness {
    pub fn words(self) -> &'static str {
        match self {
            Liveness::WaitingForApproval => "waiting for approval",
            Liveness::Running => "running",
            Liveness::SupervisorGone => "supervisor gone",
            Liveness::Stopped => "stopped",
        }
    }
}

/// One session as the page and `GET /api/sessions` show it.
#[derive(Debug, Clone, Serialize)]
pub struct SessionView {
    pub name: String,
    pub adapter: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    pub state: Liveness,
    /// When the oldest pending card was raised (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting_since: Option<String>,
    pub cards: Vec<Card>,
}

/// Why an answer was not taken.
#[derive(Debug, thiserror::Error)]
pub enum AnswerError {
    #[error("no such card")]
    NoSuchCard,
    #[error("the card is answered")]
    NotPending(Box<Card>),
    /// Accept of a card not shown whole: the supervisor's reason.
    #[error("{0}")]
    Incomplete(String),
    /// The request did not reach the supervisor, or it did not reply.
    #[error("the supervisor did not take the answer")]
    Unreachable(#[source] SessionError),
    /// The supervisor refused: its reason, as web text.
    #[error("{0}")]
    Refused(String),
}

/// Who answers through serve, and what proves it to the supervisor.
#[derive(Debug, Clone, Copy)]
pub enum Answerer<'a> {
    /// The page (the supervisor's proof key, read from its runtime folder).
    Page,
    /// An answer link: its capability and this serve's instance.
    Link { capability: &'a str, serve: &'a str },
}

/// What a supervisor says of an answer link.
#[derive(Debug)]
pub enum LinkCheck {
    /// The link of `card`, of session `session`, not used yet.
    Valid {
        session: String,
        card: Box<Card>,
    },
    /// Used already (it answers no more).
    Used {
        card: Box<Card>,
    },
    Unknown,
}

pub struct Sources {
    pub project: Project,
    pub locations: Locations,
    pub tmux: Option<PathBuf>,
    /// Re-adopts a session whose supervisor died while its agent lives
    ///, as every session command does.
    pub recover: Option<Recover>,
}

/// Starts a new supervisor for session `name` when its own died.
pub type Recover = std::sync::Arc<dyn Fn(&str) + Send + Sync>;

impl Sources {
    pub fn paths(&self, name: &str) -> (ProfileLayout, SessionPaths) {
        // The root and runtime folder only: they do not depend on the adapter.
        let layout = ProfileLayout::new(&self.project, &self.locations, name, "");
        let paths = SessionPaths::new(&layout);
        (layout, paths)
    }

    /// The session folders of the project, sorted.
    pub fn names(&self) -> Vec<String> {
        crate::launch::profile::layout::session_names(&self.project)
    }

    /// A connection to the session's running supervisor, if there is one
    /// (and its runtime folder is private).
    pub fn client(&self, name: &str) -> Option<Client> {
        let (layout, paths) = self.paths(name);
        let ok = private(&layout.runtime_base) && private(&layout.runtime) && live(&layout, &paths);
        ok.then(|| Client::connect(&paths.approvals, name).ok())
            .flatten()
    }

    pub fn session(&self, name: &str) -> SessionView {
        let (layout, paths) = self.paths(name);
        let mut record = supervisor::read_record(&paths);
        let mut live = live(&layout, &paths);
        if let (Some(recover), Some(_), false) = (&self.recover, &record, live) {
            recover(name);
            record = supervisor::read_record(&paths);
            live = self::live(&layout, &paths);
        }
        let listed = live
            .then(|| self.client(name))
            .flatten()
            .and_then(|mut client| client.request(&json!({"op": "list"})).ok())
            .and_then(|reply| serde_json::from_value::<Vec<Card>>(reply["cards"].clone()).ok());
        let running = listed.is_some();
        let cards = listed.unwrap_or_else(|| {
            crate::session::cards::history::read(&paths.project, &paths.history).unwrap_or_default()
        });
        let waiting_since = cards
            .iter()
            .filter(|card| card.state == CardState::Pending)
            .map(|card| card.created_at.clone())
            .min();
        let state = match (running, &waiting_since, &record) {
            (true, Some(_), _) => Liveness::WaitingForApproval,
            (true, None, _) => Liveness::Running,
            (false, _, Some(_)) => Liveness::SupervisorGone,
            (false, _, None) => Liveness::Stopped,
        };
        let adapter = record
            .as_ref()
            .map(|record| record.adapter.clone())
            .or_else(|| {
                crate::acp::kept::read_record(&crate::acp::kept::KeptPaths::new(&layout))
                    .map(|record| record.adapter)
            })
            .unwrap_or_default();
        let cwd = record
            .filter(|_| running)
            .and_then(|record| fs_err::read_link(format!("/proc/{}/cwd", record.pane_pid)).ok())
            .map(|dir| super::text::web_text(&dir.display().to_string()));
        let cards = cards.into_iter().map(clean_card).collect();
        SessionView {
            name: name.to_owned(),
            adapter,
            cwd,
            state: if running { state } else { dead(state) },
            waiting_since: if running { waiting_since } else { None },
            cards,
        }
    }

    /// Every session, those needing a person first (longest wait first).
    pub fn sessions(&self) -> Vec<SessionView> {
        let mut views: Vec<SessionView> = self.names().iter().map(|n| self.session(n)).collect();
        views.sort_by(|a, b| {
            let rank = |view: &SessionView| (view.state, view.waiting_since.clone());
            rank(a).cmp(&rank(b))
        });
        views
    }

    /// The session that holds card `id` and the card, among running ones.
    pub fn find(&self, id: &str) -> Option<(String, Card)> {
        self.names().into_iter().find_map(|name| {
            let mut client = self.client(&name)?;
            let reply = client.request(&json!({"op": "list"})).ok()?;
            let cards: Vec<Card> = serde_json::from_value(reply["cards"].clone()).ok()?;
            let card = cards.into_iter().find(|card| card.id == id)?;
            Some((name, card))
        })
    }

    /// Which supervisor, if any, minted `capability` as card `id`'s answer
    /// link for this serve instance `serve`.
    pub fn link(&self, id: &str, capability: &str, serve: &str) -> LinkCheck {
        let request = json!({"op": "link", "card": id, "capability": capability, "serve": serve});
        for name in self.names() {
            let Some(mut client) = self.client(&name) else {
                continue;
            };
            let Ok(reply) = client.request(&request) else {
                continue;
            };
            let Some(card) = card_of(&reply["card"]).map(|card| Box::new(clean_card(card))) else {
                continue;
            };
            return if reply["link"] == "used" {
                LinkCheck::Used { card }
            } else {
                LinkCheck::Valid {
                    session: name,
                    card,
                }
            };
        }
        LinkCheck::Unknown
    }

    /// Answers card `id` through its supervisor and waits until delivery
    /// ended, like `session answer`; `answerer` is proven to the
    /// supervisor, which records it as `by`.
    pub fn answer(
        &self,
        id: &str,
        action: &str,
        answerer: Answerer<'_>,
    ) -> Result<Card, AnswerError> {
        let (name, card) = self.find(id).ok_or(AnswerError::NoSuchCard)?;
        if card.state != CardState::Pending {
            return Err(AnswerError::NotPending(Box::new(clean_card(card))));
        }
        let mut request = json!({"op": "answer", "card": id, "action": action});
        match answerer {
            Answerer::Page => {
                let (_, paths) = self.paths(&name);
                let proof = crate::fs_safety::read_regular_file(
                    &crate::session::channel::answerer::proof_file(&paths.approvals),
                    256,
                    false,
                )
                .ok()
                .and_then(|bytes| String::from_utf8(bytes).ok());
                request["by"] = json!("page");
                request["proof"] = json!(proof);
            }
            Answerer::Link { capability, serve } => {
                request["by"] = json!("link");
                request["capability"] = json!(capability);
                request["serve"] = json!(serve);
            }
        }
        let mut client = self.client(&name).ok_or(AnswerError::NoSuchCard)?;
        let reply = client.request(&request).map_err(AnswerError::Unreachable)?;
        if let Some(card) = card_of(&reply["card"]) {
            return Ok(clean_card(card));
        }
        if reply["refusal"] == "incomplete" {
            let reason = reply["error"]
                .as_str()
                .unwrap_or("the card is not shown whole");
            return Err(AnswerError::Incomplete(super::text::web_text(reason)));
        }
        if reply["link"] == "unknown" {
            return Err(AnswerError::NoSuchCard);
        }
        // Refused: someone else answered first.
        match self.find(id) {
            Some((_, card)) if card.state != CardState::Pending => {
                Err(AnswerError::NotPending(Box::new(clean_card(card))))
            }
            _ => Err(AnswerError::Refused(super::text::web_text(
                reply["error"].as_str().unwrap_or("the supervisor refused"),
            ))),
        }
    }

    /// The session's pane as text (scrubbed, sanitized), if it runs.
    pub fn pane(&self, name: &str) -> Option<String> {
        self.client(name)?;
        let (_, paths) = self.paths(name);
        let tmux = Tmux {
            program: self.tmux.clone()?,
            socket: paths.tmux,
            env: Default::default(),
        };
        tmux.capture().ok().map(|text| super::text::web_text(&text))
    }
}

/// A session that does not run cannot be waiting.
fn dead(state: Liveness) -> Liveness {
    match state {
        Liveness::WaitingForApproval | Liveness::Running => Liveness::SupervisorGone,
        other => other,
    }
}

pub fn clean_card(mut card: Card) -> Card {
    let clean = |text: String| super::text::web_text(&text);
    card.title = super::text::web_text(&card.title);
    card.reason = card.reason.map(clean);
    card.refused = card.refused.map(|refused| refused.map_message(clean));
    card.kind = card.kind.map(clean);
    card.command = card.command.map(clean);
    card.cwd = card.cwd.map(clean);
    card.paths = card.paths.into_iter().map(clean).collect();
    card
}

/// A runtime folder that is ours and closed to others (or absent).
fn private(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match fs_err::symlink_metadata(path) {
        Ok(meta) => {
            meta.is_dir()
                && meta.uid() == crate::fs_safety::current_uid()
                && meta.mode() & 0o077 == 0
        }
        Err(_) => true,
    }
}

/// Whether the session's approvals channel listens: its running
/// supervisor's, or its kept session's owner's.
fn live(layout: &ProfileLayout, paths: &SessionPaths) -> bool {
    crate::acp::kept::is_owned(&crate::acp::kept::KeptPaths::new(layout))
        || supervisor::read_record(paths)
            .is_some_and(|record| supervisor::is_running(&record, paths))
}
