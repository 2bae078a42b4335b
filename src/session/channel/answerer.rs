//! Who answered a card over the approvals socket: what
//! the request can prove, never what it claims. A socket client answers as
//! `cli`; `page` needs the supervisor's proof key, which it writes beside
//! the socket (`approvals.key`, 0600, in the 0700 runtime folder: `session
//! serve` reads it, a plain client does not have it); `link` needs the
//! card's answer-link capability and the serve instance it was minted for
//! ([`crate::session::delivery::links`]); `webhook` and `terminal` are never claimed
//! over the socket (the supervisor records them itself).

use std::path::Path;

use serde_json::{json, Value};
use tokio::net::UnixListener;

use crate::session::delivery::links::LinkRefusal;
use crate::session::supervisor::state::SessionState;

/// The proof key's file beside the socket at `socket`.
pub fn proof_file(socket: &Path) -> std::path::PathBuf {
    socket.with_file_name("approvals.key")
}

/// The supervisor's proof key: drawn when it starts serving, written
/// beside the socket, removed when serving stops.
pub struct ProofKey {
    key: Option<String>,
    file: Option<std::path::PathBuf>,
}

impl ProofKey {
    pub fn write(listener: &UnixListener) -> ProofKey {
        let file = listener
            .local_addr()
            .ok()
            .and_then(|address| address.as_pathname().map(proof_file));
        let key = file.as_ref().and_then(|file| {
            let key = crate::session::secret::random_hex().ok()?;
            match crate::fs_safety::atomic_write(file, key.as_bytes(), 0o600) {
                Ok(()) => Some(key),
                Err(error) => {
                    tracing::warn!("cannot write `{}`: {error}", file.display());
                    None
                }
            }
        });
        ProofKey { key, file }
    }

    fn proves(&self, given: Option<&str>) -> bool {
        match (&self.key, given) {
            (Some(key), Some(given)) => crate::session::secret::same_secret(given, key),
            _ => false,
        }
    }
}

impl Drop for ProofKey {
    fn drop(&mut self) {
        if let Some(file) = &self.file {
            let _ = fs_err::remove_file(file);
        }
    }
}

/// Who answers, from what the request proves (see the module doc).
pub fn answerer(
    state: &SessionState,
    proof: &ProofKey,
    card: &str,
    claim: &AnswerClaim<'_>,
) -> Result<&'static str, Value> {
    match claim.by {
        None | Some("cli") => Ok("cli"),
        Some("page") if proof.proves(claim.proof) => Ok("page"),
        Some("page") => Err(json!({"error": "only `oneworks session serve` answers as `page`"})),
        Some("link") => {
            let (Some(capability), Some(serve)) = (claim.capability, claim.serve) else {
                return Err(link_refusal(LinkRefusal::Unknown));
            };
            // Checked here, spent by the caller only once the answer is
            // taken: a refused answer (an `accept` of a card not shown
            // whole) leaves the link able to decline.
            state
                .links
                .check(card, capability, serve)
                .map(|()| "link")
                .map_err(link_refusal)
        }
        Some(_) => Err(json!({"error": "unknown answerer: a socket client answers as `cli`"})),
    }
}

/// The `by` claim of an answer and what backs it.
pub struct AnswerClaim<'a> {
    pub by: Option<&'a str>,
    pub proof: Option<&'a str>,
    pub capability: Option<&'a str>,
    pub serve: Option<&'a str>,
}

pub fn link_refusal(refusal: LinkRefusal) -> Value {
    let code = match refusal {
        LinkRefusal::Unknown => "unknown",
        LinkRefusal::Used => "used",
    };
    json!({"error": refusal.to_string(), "link": code})
}
