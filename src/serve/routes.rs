//! The routes. Reads and answers go to the supervisors on blocking threads
//! (the socket client is the CLI's); nothing is cached here.
//!
//! | route | what |
//! |---|---|
//! | `GET /` | the page's shell: no data, open to all |
//! | `GET /assets/…` | the CSS and the script, built into the binary, open to all |
//! | `GET /view` | the sessions' markup, for the page's script |
//! | `GET /api/sessions/{name}/pane` | the session's screen as text (JSON) |
//! | `GET /events` | Server-Sent Events: every card change |
//! | `GET /api/sessions`, `GET /api/cards` | JSON |
//! | `POST /api/cards/{id}/answer` | `{"action":…}` → 200 card, 409 no longer pending (`{"card":…}`) or accept of a card not shown whole (`{"error":…}`) |
//! | `GET`/`POST /a/{card}/{capability}` | answer links: a confirm form, then the answer |
//!
//! Every route but the first two and the answer links needs
//! `Authorization: Bearer` ([`super::auth`]).

use std::convert::Infallible;
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::json;

use super::app::App;
use super::page;
use super::sources::{AnswerError, Answerer, LinkCheck, Sources};
use crate::session::cards::{Card, CardState, Verdict};

const CSS: &str = include_str!("assets/serve.css");
const SCRIPT: &str = include_str!("assets/serve.js");

pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(shell))
        .route("/view", get(view))
        .route("/api/sessions/{name}/pane", get(pane))
        .route("/events", get(events))
        .route("/api/sessions", get(api_sessions))
        .route("/api/cards", get(api_cards))
        .route("/api/cards/{id}/answer", post(api_answer))
        .route("/a/{card}/{capability}", get(link_form).post(link_answer))
        .route("/assets/serve.css", get(|| asset(CSS, "text/css")))
        .route("/assets/serve.js", get(|| asset(SCRIPT, "text/javascript")))
        .layer(axum::extract::DefaultBodyLimit::max(
            super::bounds::AUTHENTICATED_BODY,
        ))
        .layer(axum::middleware::from_fn(super::bounds::mark_authenticated))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&app.guard),
            super::auth::guard,
        ))
        .with_state(app)
}

async fn asset(body: &'static str, kind: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

/// Runs a read of the sessions off the runtime thread.
async fn blocking<T: Send + 'static>(
    app: &App,
    work: impl FnOnce(&Sources) -> T + Send + 'static,
) -> Result<T, StatusCode> {
    let sources = Arc::clone(&app.sources);
    tokio::task::spawn_blocking(move || work(&sources))
        .await
        .map_err(|_| StatusCode::INTERNAL_SERVER_ERROR)
}

async fn shell() -> Html<String> {
    Html(page::shell_page().into_string())
}

async fn view(State(app): State<Arc<App>>) -> Result<Html<String>, StatusCode> {
    let views = blocking(&app, Sources::sessions).await?;
    Ok(Html(page::view(&views).into_string()))
}

async fn pane(State(app): State<Arc<App>>, Path(name): Path<String>) -> Response {
    if crate::launch::profile::layout::parse_session_name(&name).is_err() {
        return (
            StatusCode::NOT_FOUND,
            Json(json!({"error": "no such session"})),
        )
            .into_response();
    }
    let session = name.clone();
    match blocking(&app, move |sources| sources.pane(&name)).await {
        Ok(text) => Json(json!({"session": session, "text": text})).into_response(),
        Err(status) => status.into_response(),
    }
}

async fn events(
    State(app): State<Arc<App>>,
) -> Sse<impl futures_util::Stream<Item = Result<Event, Infallible>>> {
    use tokio::sync::broadcast::error::RecvError;
    let updates = app.hub.subscribe();
    let stream = futures_util::stream::unfold(updates, |mut updates| async move {
        loop {
            match updates.recv().await {
                Ok(value) => {
                    let event = Event::default().event("change").data(value.to_string());
                    return Some((Ok(event), updates));
                }
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return None,
            }
        }
    });
    let mut stopping = app.stopping.subscribe();
    let stream = futures_util::StreamExt::take_until(stream, async move {
        let _ = stopping.wait_for(|stopping| *stopping).await;
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}

async fn api_sessions(State(app): State<Arc<App>>) -> Result<Response, StatusCode> {
    let views = blocking(&app, Sources::sessions).await?;
    Ok(Json(views).into_response())
}

async fn api_cards(State(app): State<Arc<App>>) -> Result<Response, StatusCode> {
    let views = blocking(&app, Sources::sessions).await?;
    let cards: Vec<_> = views
        .iter()
        .flat_map(|view| {
            view.cards.iter().map(|card| {
                let mut value = json!(card);
                value["session"] = json!(view.name);
                value
            })
        })
        .collect();
    Ok(Json(cards).into_response())
}

#[derive(Deserialize)]
struct AnswerBody {
    action: String,
}

/// Answers `id`; `Err` is the status and a message.
async fn answer(
    app: &App,
    id: String,
    action: &str,
    link: Option<(String, String)>,
) -> Result<Card, (StatusCode, Value)> {
    if Verdict::parse(action).is_none() {
        let message = "the action is accept, decline or cancel";
        return Err((StatusCode::BAD_REQUEST, json!({"error": message})));
    }
    let action = action.to_owned();
    let result = blocking(app, move |sources| {
        let answerer = match &link {
            Some((capability, serve)) => Answerer::Link { capability, serve },
            None => Answerer::Page,
        };
        sources.answer(&id, &action, answerer)
    })
    .await
    .map_err(|status| (status, json!({"error": "internal error"})))?;
    result.map_err(|error| match error {
        AnswerError::NoSuchCard => (StatusCode::NOT_FOUND, json!({"error": "no such card"})),
        AnswerError::NotPending(card) => (StatusCode::CONFLICT, json!({"card": card})),
        // Still pending: it may be declined here, accepted in the terminal.
        AnswerError::Incomplete(reason) => (StatusCode::CONFLICT, json!({"error": reason})),
        // The channel error's own text (not its causes).
        AnswerError::Unreachable(error) => {
            (StatusCode::BAD_GATEWAY, json!({"error": error.to_string()}))
        }
        AnswerError::Refused(reason) => (StatusCode::BAD_GATEWAY, json!({"error": reason})),
    })
}

type Value = serde_json::Value;

async fn api_answer(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    Json(body): Json<AnswerBody>,
) -> Response {
    match answer(&app, id, &body.action, None).await {
        Ok(card) => Json(json!({"card": card})).into_response(),
        Err((status, body)) => (status, Json(body)).into_response(),
    }
}

fn not_found() -> Response {
    (StatusCode::NOT_FOUND, "Not Found").into_response()
}

/// What an answer link's capability opens, asked of the supervisors
/// before any body is read; at most [`LINK_CHECKS`] at a time (a flood of
/// guessed links gets 503, not a queue of socket round trips).
async fn check_link(app: &App, card: &str, capability: &str) -> Result<LinkCheck, Response> {
    let Some(links) = app.links.as_ref() else {
        return Err(not_found());
    };
    if !crate::session::delivery::links::well_formed(card, capability) {
        return Err(not_found());
    }
    let Ok(_permit) = app.link_checks.try_acquire() else {
        return Err((StatusCode::SERVICE_UNAVAILABLE, "Service Unavailable").into_response());
    };
    let (card, capability, serve) = (
        card.to_owned(),
        capability.to_owned(),
        links.instance.clone(),
    );
    blocking(app, move |sources| sources.link(&card, &capability, &serve))
        .await
        .map_err(IntoResponse::into_response)
}

/// The most answer-link checks in flight at once.
pub const LINK_CHECKS: usize = 8;

/// "Already answered by …": what a link shows for a card that is no
/// longer pending.
fn already_answered(card: &Card) -> Response {
    let by = card.by.as_deref().unwrap_or("someone else");
    let text = format!(
        "Already answered by {by}: {}.",
        card.state.as_str().replace('_', " ")
    );
    (
        StatusCode::CONFLICT,
        Html(page::message(&text).into_string()),
    )
        .into_response()
}

async fn link_form(
    State(app): State<Arc<App>>,
    Path((card, capability)): Path<(String, String)>,
) -> Response {
    match check_link(&app, &card, &capability).await {
        Err(response) => response,
        Ok(LinkCheck::Unknown) => not_found(),
        Ok(LinkCheck::Used { card }) => already_answered(&card),
        Ok(LinkCheck::Valid { card, .. }) if card.state != CardState::Pending => {
            already_answered(&card)
        }
        Ok(LinkCheck::Valid { session, card }) => {
            Html(page::confirm(&session, &card).into_string()).into_response()
        }
    }
}

/// An answer link's POST. Unauthenticated until its capability is
/// checked: `Content-Length` is looked at first, then the capability, and
/// only then at most [`UNAUTHENTICATED_BODY`](super::bounds::UNAUTHENTICATED_BODY)
/// of the body is read, within [`HEAD`](super::bounds::HEAD).
async fn link_answer(
    State(app): State<Arc<App>>,
    Path((card, capability)): Path<(String, String)>,
    request: axum::extract::Request,
) -> Response {
    use super::bounds::{HEAD, UNAUTHENTICATED_BODY};
    let (parts, body) = request.into_parts();
    if let Some(refused) = declared_length_refused(&parts.headers) {
        return refused;
    }
    let found = match check_link(&app, &card, &capability).await {
        Err(response) => return response,
        Ok(LinkCheck::Unknown) => return not_found(),
        Ok(LinkCheck::Used { card }) => return already_answered(&card),
        Ok(LinkCheck::Valid { card, .. }) => card,
    };
    // The confirm form gets a page back; a script gets JSON.
    let from_form = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/x-www-form-urlencoded"));
    let body = match tokio::time::timeout(HEAD, axum::body::to_bytes(body, UNAUTHENTICATED_BODY))
        .await
    {
        Ok(Ok(body)) => body,
        Ok(Err(_)) => return (StatusCode::PAYLOAD_TOO_LARGE, "Payload Too Large").into_response(),
        Err(_) => return (StatusCode::REQUEST_TIMEOUT, "Request Timeout").into_response(),
    };
    // A form (`action=accept`) or JSON (`{"action":"accept"}`).
    let action = serde_json::from_slice::<AnswerBody>(&body)
        .or_else(|_| serde_urlencoded_action(&body))
        .map(|body| body.action);
    let Ok(action) = action else {
        return (StatusCode::BAD_REQUEST, "Bad Request").into_response();
    };
    if Verdict::parse(&action).is_none() {
        return (StatusCode::BAD_REQUEST, "Bad Request").into_response();
    }
    if found.state != CardState::Pending && from_form {
        return already_answered(&found);
    }
    let serve = app
        .links
        .as_ref()
        .map(|links| links.instance.clone())
        .unwrap_or_default();
    let answered = answer(&app, card, &action, Some((capability, serve))).await;
    link_answered(answered, from_form)
}

/// A link POST's declared `Content-Length`, looked at before anything
/// else: refused when unreadable or over the unauthenticated bound; a
/// chunked body (none declared) is bounded while it is read.
fn declared_length_refused(headers: &axum::http::HeaderMap) -> Option<Response> {
    use super::bounds::UNAUTHENTICATED_BODY;
    let declared = headers.get(header::CONTENT_LENGTH)?;
    match declared
        .to_str()
        .ok()
        .and_then(|text| text.parse::<u64>().ok())
    {
        Some(length) if length <= UNAUTHENTICATED_BODY as u64 => None,
        Some(_) => Some((StatusCode::PAYLOAD_TOO_LARGE, "Payload Too Large").into_response()),
        None => Some((StatusCode::BAD_REQUEST, "Bad Request").into_response()),
    }
}

/// What a link's answer shows: a page for the confirm form, JSON for a
/// script.
fn link_answered(answered: Result<Card, (StatusCode, Value)>, from_form: bool) -> Response {
    match answered {
        Ok(card) if from_form => {
            let text = format!("Answered: {}.", card.state.as_str().replace('_', " "));
            Html(page::message(&text).into_string()).into_response()
        }
        Ok(card) => Json(json!({"card": card})).into_response(),
        // Lost a race to another channel (or the link was used).
        Err((StatusCode::CONFLICT, body)) if from_form => {
            match serde_json::from_value::<Card>(body["card"].clone()) {
                Ok(card) => already_answered(&card),
                // Still pending but refused (an `accept` of a card not
                // shown whole): the reason, not "already answered".
                Err(_) => {
                    let text = body["error"].as_str().unwrap_or("Already answered.");
                    (
                        StatusCode::CONFLICT,
                        Html(page::message(text).into_string()),
                    )
                        .into_response()
                }
            }
        }
        Err((status, body)) => (status, Json(body)).into_response(),
    }
}

fn serde_urlencoded_action(body: &[u8]) -> Result<AnswerBody, ()> {
    url::form_urlencoded::parse(body)
        .find(|(name, _)| name == "action")
        .map(|(_, value)| AnswerBody {
            action: value.into_owned(),
        })
        .ok_or(())
}
