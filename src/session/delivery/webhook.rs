//! The optional approvals webhook: each new card (scrubbed
//! card text, with `complete`) is POSTed to the configured endpoint with the bearer token
//! from `webhookAuthEnv`; a response body `{"action":"accept"|"decline"|
//! "cancel"}` is the verdict (an `accept` of a card that is not complete
//! is refused and logged; the card stays pending). Timeouts and errors
//! are logged and leave the card pending — the terminal stays
//! authoritative. It uses blocking
//! reqwest on a plain thread, never inside the tokio runtime.

use std::sync::{Arc, Weak};
use std::time::Duration;

use serde_json::json;

use crate::session::cards::{Card, Verdict};
use crate::session::refusal::Refusal;
use crate::session::supervisor::state::SessionState;

#[derive(Clone)]
pub struct Webhook {
    pub url: url::Url,
    /// The bearer token (a secret: only ever sent in the header).
    pub token: Option<String>,
    pub timeout: Duration,
    pub session: String,
    /// Where a `session serve --public-url` publishes its answer links
    ///; each POST then carries the card's `answer_url`.
    pub answer_links: std::path::PathBuf,
}

impl std::fmt::Debug for Webhook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Webhook")
            .field("url", &self.url.as_str())
            .field("token", &self.token.as_ref().map(|_| "[redacted]"))
            .finish()
    }
}

/// The longest webhook answer read: a verdict is a few bytes.
const ANSWER_BOUND: u64 = 64 * 1024;

/// Why the webhook gave no usable answer (the card stays pending). The
/// words never carry the URL: it may hold a token.
#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
    #[error("the webhook request failed: {0}")]
    Request(String),
    #[error("the webhook answered {0}")]
    Status(reqwest::StatusCode),
    #[error("the webhook's answer failed: {0}")]
    Read(std::io::ErrorKind),
    #[error("the webhook's answer is over the bound of {} KiB", ANSWER_BOUND / 1024)]
    TooLarge,
    #[error("the webhook's answer is not JSON")]
    NotJson,
    #[error("the webhook's action `{0}` is not accept, decline or cancel")]
    UnknownAction(String),
}

impl Webhook {
    /// POSTs `card` and reads the verdict. `Ok(None)`: the endpoint gave
    /// no verdict (the card stays pending).
    /// `answer_url`: the card's answer link, when one was minted.
    pub fn ask(
        &self,
        card: &Card,
        answer_url: Option<&str>,
    ) -> Result<Option<Verdict>, WebhookError> {
        let client = reqwest::blocking::Client::builder()
            .timeout(self.timeout)
            .build()
            .map_err(|error| WebhookError::Client(error.without_url().to_string()))?;
        let mut request = client
            .post(self.url.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(self.body(card, answer_url).to_string());
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        let response = request
            .send()
            .map_err(|error| WebhookError::Request(error.without_url().to_string()))?;
        let status = response.status();
        if !status.is_success() {
            return Err(WebhookError::Status(status));
        }
        // Read to a bound, never whole: the endpoint is outside.
        let mut text = Vec::new();
        std::io::Read::read_to_end(
            &mut std::io::Read::take(response, ANSWER_BOUND + 1),
            &mut text,
        )
        // The kind only: the error itself may carry the URL (and its token).
        .map_err(|error| WebhookError::Read(error.kind()))?;
        if text.len() as u64 > ANSWER_BOUND {
            return Err(WebhookError::TooLarge);
        }
        let body: serde_json::Value =
            serde_json::from_slice(&text).map_err(|_| WebhookError::NotJson)?;
        match body.get("action").and_then(serde_json::Value::as_str) {
            None => Ok(None),
            Some(action) => Verdict::parse(action).map(Some).ok_or_else(|| {
                WebhookError::UnknownAction(crate::output::sanitize(action).into_owned())
            }),
        }
    }

    /// The POST body: the session, the card and, while a serve process
    /// with `--public-url` runs, the card's one-time `answer_url`.
    fn body(&self, card: &Card, answer_url: Option<&str>) -> serde_json::Value {
        let mut body = json!({"session": self.session, "card": card});
        if let Some(url) = answer_url {
            body["answer_url"] = json!(url);
        }
        body
    }

    /// Card `card`'s answer link: a capability drawn now for this card
    /// instance and kept in `state`'s link book.
    fn answer_url(&self, state: &SessionState, card: &Card) -> Option<String> {
        crate::session::delivery::links::answer_url(&self.answer_links, &card.id, &state.links)
    }

    /// Wires the webhook to `state`: every new card is sent on its own
    /// thread, and a verdict is answered like one from the channel.
    pub fn attach(self, state: &Arc<SessionState>) {
        let weak: Weak<SessionState> = Arc::downgrade(state);
        state.on_park(move |card| {
            let webhook = self.clone();
            let weak = weak.clone();
            std::thread::spawn(move || {
                let link = weak
                    .upgrade()
                    .and_then(|state| webhook.answer_url(&state, &card));
                webhook_verdict(&weak, &card, webhook.ask(&card, link.as_deref()));
            });
        });
    }
}

/// Answers `card` with the webhook's verdict, if it gave one.
fn webhook_verdict(
    weak: &Weak<SessionState>,
    card: &Card,
    asked: Result<Option<Verdict>, WebhookError>,
) {
    match asked {
        Ok(Some(verdict)) => {
            if let Some(state) = weak.upgrade() {
                match state.answer_by(&card.id, verdict, Some("webhook")) {
                    // The card stays pending for the terminal.
                    Err(refusal @ Refusal::Incomplete(_)) => {
                        tracing::warn!("webhook verdict refused: {refusal}")
                    }
                    Err(refusal) => {
                        tracing::info!("webhook verdict for `{}` not used: {refusal}", card.id)
                    }
                    Ok(_) => {}
                }
            }
        }
        Ok(None) => tracing::info!("the webhook gave no verdict for `{}`", card.id),
        Err(error) => tracing::warn!(
            "card `{}` stays pending: {}",
            card.id,
            crate::output::clean(&error.to_string())
        ),
    }
}
