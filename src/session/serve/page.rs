//! The HTML (maud: checked at compile time, every value escaped). No inline
//! script or style: the CSP forbids them; the look is `assets/serve.css`,
//! the live updates `assets/serve.js`. Plain forms work without script.
//! Persistent trust is never offered: the buttons are the three verdicts,
//! and a card not shown whole (SPEC §8.6) has no Accept.

use maud::{html, Markup, DOCTYPE};

use super::sources::{Liveness, SessionView};
use crate::session::cards::{Card, CardState};

/// Why a card not shown whole has no Accept button.
pub const INCOMPLETE: &str = "Too long to show whole: accept it in the terminal, or decline here.";

const VERDICTS: [(&str, &str); 3] = [
    ("accept", "Accept"),
    ("decline", "Decline"),
    ("cancel", "Cancel"),
];

fn shell(title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                link rel="stylesheet" href="/assets/serve.css";
                script src="/assets/serve.js" defer {}
            }
            body { (body) }
        }
    }
}

/// The page: every session, those needing a person first.
pub fn index(sessions: &[SessionView]) -> Markup {
    let waiting = sessions
        .iter()
        .filter(|s| s.state == Liveness::WaitingForApproval)
        .count();
    shell(
        "oneworks approvals",
        html! {
            header {
                h1 { "Approvals" }
                p #status .status { @if waiting == 0 { "Nothing waits for you." } @else { (waiting) " session(s) wait for you." } }
                button #notify .notify type="button" hidden { "Notify me" }
            }
            main #sessions {
                @if sessions.is_empty() {
                    p .empty { "No session in this project yet: start one with " code { "oneworks session start" } "." }
                }
                @for session in sessions { (session_block(session)) }
            }
        },
    )
}

fn session_block(session: &SessionView) -> Markup {
    let running = matches!(
        session.state,
        Liveness::Running | Liveness::WaitingForApproval
    );
    let (pending, resolved): (Vec<&Card>, Vec<&Card>) = session
        .cards
        .iter()
        .partition(|card| matches!(card.state, CardState::Pending | CardState::Delivering));
    html! {
        section .session data-state=(format!("{:?}", session.state).to_lowercase()) {
            h2 { (session.name) }
            p .meta {
                span .adapter { (session.adapter) }
                @if let Some(cwd) = &session.cwd { " · " span .cwd { (cwd) } }
                " · " span .state { (session.state.words()) }
                @if let Some(since) = &session.waiting_since {
                    " · waiting " time .wait datetime=(since) { "since " (since) }
                }
            }
            @for card in &pending { (pending_card(card, running)) }
            @if running {
                p { a .pane href=(format!("/sessions/{}/pane", session.name)) { "Show the screen" } }
            }
            @if !resolved.is_empty() {
                details .resolved open[pending.is_empty() && resolved.len() <= 3] {
                    summary { "Resolved (" (resolved.len()) ")" }
                    ul { @for card in resolved.iter().rev() { (resolved_card(card)) } }
                }
            }
        }
    }
}

fn pending_card(card: &Card, running: bool) -> Markup {
    html! {
        article .card id=(card.id) data-card=(card.id) data-state=(card.state.as_str()) data-complete=(card.complete) {
            h3 .title { (card.title) }
            p .meta {
                span .card-state { (card.state.as_str()) }
                " · raised " time .since datetime=(card.created_at) { (card.created_at) }
            }
            (tool_detail(card))
            @if running && card.state == CardState::Pending {
                (verdicts(card, &format!("/cards/{}/answer", card.id)))
            }
        }
    }
}

/// What a person may answer here: the three verdicts, or for a card not
/// shown whole (SPEC §8.6) no Accept and a line saying why.
fn verdicts(card: &Card, action: &str) -> Markup {
    html! {
        @if !card.complete {
            p .incomplete { (INCOMPLETE) }
        }
        form .verdicts method="post" action=(action) {
            @for (value, label) in VERDICTS {
                @if card.complete || value != "accept" {
                    button type="submit" name="action" value=(value) class=(value) { (label) }
                }
            }
        }
    }
}

/// Kind, command, paths and working folder, when the request said.
fn tool_detail(card: &Card) -> Markup {
    html! {
        @if card.kind.is_some() || card.command.is_some() || card.cwd.is_some() || !card.paths.is_empty() {
            dl .detail {
                @if let Some(kind) = &card.kind { dt { "kind" } dd .kind { (kind) } }
                @if let Some(command) = &card.command { dt { "command" } dd { code .command { (command) } } }
                @for path in &card.paths { dt { "path" } dd { code .path { (path) } } }
                @if let Some(cwd) = &card.cwd { dt { "in" } dd { code .cwd { (cwd) } } }
            }
        }
    }
}

fn resolved_card(card: &Card) -> Markup {
    html! {
        li .card id=(card.id) data-card=(card.id) data-state=(card.state.as_str()) {
            span .card-state { (card.state.as_str().replace('_', " ")) }
            " "
            span .title { (card.title) }
            @if let Some(reason) = &card.reason { " — " span .reason { (reason) } }
            @if let Some(by) = &card.by { " " span .by { "(by " (by) ")" } }
        }
    }
}

/// A session's screen, as text.
pub fn pane(name: &str, text: Option<&str>) -> Markup {
    shell(
        &format!("{name}: screen"),
        html! {
            header { h1 { "Screen of " (name) } p { a href="/" { "Back to the approvals" } } }
            main {
                @match text {
                    Some(text) => pre .pane { (text) },
                    None => p { "This session is not running." },
                }
            }
        },
    )
}

/// An answer link's confirm form: a link preview (GET) never answers.
pub fn confirm(session: &str, card: &Card) -> Markup {
    shell(
        "Answer an approval",
        html! {
            header { h1 { "Approval in " (session) } }
            main {
                article .card data-state=(card.state.as_str()) {
                    h3 .title { (card.title) }
                    p .meta { span .card-state { (card.state.as_str()) } }
                    (tool_detail(card))
                    @if card.state == CardState::Pending { (verdicts(card, "")) }
                }
            }
        },
    )
}

/// A short message page (a refused form answer).
pub fn message(text: &str) -> Markup {
    shell(
        "oneworks approvals",
        html! { main { p .error { (text) } p { a href="/" { "Back to the approvals" } } } },
    )
}
