//! The HTML (maud: checked at compile time, every value escaped). No inline
//! script or style: the CSP forbids them; the look is `assets/serve.css`.
//! The page is a shell with no data ([`shell_page`], open to all); its
//! script (`assets/serve.js`) holds the token and fetches the sessions'
//! markup ([`view`], authenticated) to insert it, so the page needs
//! JavaScript. Answer links' pages ([`confirm`], [`message`]) carry no
//! script: plain forms. Persistent trust is never offered: the buttons are
//! the three verdicts, and a card not shown whole has no
//! Accept.

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

/// Whether a page loads the script.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Script {
    Yes,
    No,
}

fn shell(title: &str, script: Script, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                link rel="stylesheet" href="/assets/serve.css";
                @if script == Script::Yes { script src="/assets/serve.js" defer {} }
            }
            body { (body) }
        }
    }
}

/// `GET /`: the page's shell, the same for everyone, holding no data. The
/// script fills `#status` and `#sessions` from [`view`].
pub fn shell_page() -> Markup {
    shell(
        "oneworks approvals",
        Script::Yes,
        html! {
            header {
                h1 { "Approvals" }
                p #status .status { "Loading…" }
                button #notify .notify type="button" hidden { "Notify me" }
            }
            noscript {
                p .error { "This page needs JavaScript: it keeps the page's key out of cookies and sends it only to this server. Answer links work without it." }
            }
            p #notice .error role="alert" hidden {}
            main #sessions {}
            section #screen .screen hidden {
                h2 .screen-title {}
                p { button #screen-close type="button" { "Hide the screen" } }
                pre .pane {}
            }
        },
    )
}

/// `GET /view` (authenticated): the markup of every session, those needing
/// a person first, for the script to put in place of `#status` and
/// `#sessions`.
pub fn view(sessions: &[SessionView]) -> Markup {
    let waiting = sessions
        .iter()
        .filter(|s| s.state == Liveness::WaitingForApproval)
        .count();
    html! {
        p #status .status { @if waiting == 0 { "Nothing waits for you." } @else { (waiting) " session(s) wait for you." } }
        main #sessions {
            @if sessions.is_empty() {
                p .empty { "No session in this project yet: start one with " code { "oneworks session start" } "." }
            }
            @for session in sessions { (session_block(session)) }
        }
    }
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
                p { button .pane type="button" data-session=(session.name) { "Show the screen" } }
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
/// shown whole no Accept and a line saying why.
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
        li .card id=(card.id) data-card=(card.id) data-state=(card.state.as_str())
            data-refused=[card.refused.as_ref().map(|refused| refused.code.as_str())] {
            span .card-state { (card.state.as_str().replace('_', " ")) }
            " "
            span .title { (card.title) }
            @if let Some(reason) = &card.reason { " — " span .reason { (reason) } }
            @if let Some(by) = &card.by { " " span .by { "(by " (by) ")" } }
        }
    }
}

/// An answer link's confirm form: a link preview (GET) never answers.
pub fn confirm(session: &str, card: &Card) -> Markup {
    shell(
        "Answer an approval",
        Script::No,
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
        Script::No,
        html! { main { p .error { (text) } } },
    )
}

/// `--open`'s file (never served: the browser opens it from disk): it sends
/// the browser on to `url`, the token in its fragment, without a script
/// (see [`super::open_file`]); the link is there if a browser does not
/// follow the refresh.
pub fn open_page(url: &str) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="referrer" content="no-referrer";
                meta http-equiv="refresh" content={ "0;url=" (url) };
                title { "oneworks approvals" }
            }
            body { p { a href=(url) { "Open the approvals page" } } }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_card_shows_its_refusal_code_and_sentence() {
        let card: Card = serde_json::from_value(serde_json::json!({
            "id": "kiro_default_0123456789abcdef",
            "title": "Running: pwd",
            "state": "delivery_failed",
            "reason": "the approval prompt is no longer visible",
            "refused": {"code": "prompt_gone", "message": "the approval prompt is no longer visible"},
            "created_at": "2026-01-01T00:00:00Z",
        }))
        .expect("card");
        let html = resolved_card(&card).into_string();
        assert!(html.contains(r#"data-refused="prompt_gone""#), "{html}");
        assert!(html.contains(r#"data-state="delivery_failed""#), "{html}");
        assert!(html.contains("no longer visible"), "{html}");
        let mut pending = card;
        pending.refused = None;
        let html = resolved_card(&pending).into_string();
        assert!(!html.contains("data-refused"), "{html}");
    }
}
