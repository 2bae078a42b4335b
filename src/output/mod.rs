//! Everything oneworks prints goes through here: JSON
//! documents on stdout, human text on stderr, each passed through the
//! credential scrubber, with control characters from outside text replaced
//! so they cannot move the cursor, set the title or clear the screen.
//!
//! A closed stdout (`… | head -1`) ends the command quietly; a full disk is
//! a plain error. Nothing here panics on a failed write.

use std::borrow::Cow;
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex, PoisonError};

use serde::Serialize;

use crate::error::{Classify, ErrorKind};
use crate::redact::{Scrubber, StreamScrubber};

pub mod sanitize;
pub mod visible;

/// A failure to print on stdout.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The reader closed stdout (`… | head -1`): the command ends quietly.
    #[error("standard output was closed")]
    StdoutClosed,
    #[error("failed to write to standard output")]
    Write(#[source] std::io::Error),
    /// A value that does not serialize is a bug, not the user's.
    #[error(transparent)]
    Serialize(#[from] serde_json::Error),
}

impl Classify for OutputError {
    fn kind(&self) -> ErrorKind {
        match self {
            OutputError::StdoutClosed => ErrorKind::StdoutClosed,
            OutputError::Write(_) | OutputError::Serialize(_) => ErrorKind::Internal,
        }
    }
}

pub use sanitize::{sanitize, sanitize_line};

type ScrubberSource = Arc<dyn Fn() -> Option<Scrubber> + Send + Sync>;

/// How the print scrubber is built (lazily: most runs print one line, and
/// the warm `prepare --offline` path must stay fast) and the built one.
struct PrintScrubber {
    source: Option<ScrubberSource>,
    /// Counts replacements of `source`, so a scrubber built from an older
    /// source is not stored.
    generation: u64,
    built: Option<Option<Arc<Scrubber>>>,
}

static PRINT_SCRUBBER: Mutex<PrintScrubber> = Mutex::new(PrintScrubber {
    source: None,
    generation: 0,
    built: None,
});

thread_local! {
    /// Set while this thread builds the print scrubber: what it logs then
    /// (through the scrubbing log writer) must not build it again.
    static BUILDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Replaces how the print scrubber is built: once the config is known, it
/// also covers the variables the config references and `webhookAuthEnv`.
pub fn set_scrubber_source(source: impl Fn() -> Option<Scrubber> + Send + Sync + 'static) {
    let mut state = PRINT_SCRUBBER
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    state.source = Some(Arc::new(source));
    state.generation += 1;
    state.built = None;
}

/// Sets the command's one scrubber (built by the command from its adapter
/// and config) as the print scrubber.
pub fn set_scrubber(scrubber: Arc<Scrubber>) {
    let mut state = PRINT_SCRUBBER
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    state.source = None;
    state.generation += 1;
    state.built = Some(Some(scrubber));
}

/// The scrubber for printed text: the command's (see [`set_scrubber`]),
/// or before the command knows its adapter, the one the command edge's
/// source builds (the credential variables of this process's environment
/// under every built-in adapter's rules). `None` while this thread is
/// building it, or when nothing set a source (unit tests).
pub fn scrubber() -> Option<Arc<Scrubber>> {
    if BUILDING.with(std::cell::Cell::get) {
        return None;
    }
    let (source, generation) = {
        let state = PRINT_SCRUBBER
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(built) = &state.built {
            return built.clone();
        }
        (state.source.clone(), state.generation)
    };
    // Built outside the lock: building may log, and the log writer scrubs.
    BUILDING.with(|building| building.set(true));
    let scrubber = source.and_then(|source| source());
    BUILDING.with(|building| building.set(false));
    let built = scrubber.map(Arc::new);
    let mut state = PRINT_SCRUBBER
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if state.generation == generation {
        match &state.built {
            // Another thread was first: use its scrubber, one for everyone.
            Some(first) => return first.clone(),
            None => state.built = Some(built.clone()),
        }
    }
    built
}

/// The log's stream scrubber (the log is scrubbed as a stream)
/// and the print scrubber it was made from.
static LOG_STREAM: Mutex<Option<(Arc<Scrubber>, StreamScrubber)>> = Mutex::new(None);

/// The next piece of the log, scrubbed as part of one stream: what could
/// begin a secret continuing in the next piece waits for it.
pub fn scrub_log(text: &str) -> String {
    let Some(scrubber) = scrubber() else {
        return text.to_owned();
    };
    let mut stream = LOG_STREAM.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((seen, current)) = &mut *stream {
        if Arc::ptr_eq(seen, &scrubber) {
            return current.push(text).into_owned();
        }
    }
    // A new scrubber: what the old stream held goes out first, scrubbed
    // by the old one (it is text from before the change).
    let mut out = match stream.take() {
        Some((_, mut old)) => old.finish(),
        None => String::new(),
    };
    let current = &mut stream
        .insert((Arc::clone(&scrubber), scrubber.stream_of_parts()))
        .1;
    out.push_str(&current.push(text));
    out
}

/// Ends the log's stream when oneworks exits: the text it still holds
/// back (it could have begun a secret continued by a next line that never
/// came) goes to stderr, scrubbed, instead of being lost.
pub fn finish_log() {
    let held = LOG_STREAM
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take()
        .map(|(_, mut stream)| stream.finish())
        .unwrap_or_default();
    if !held.is_empty() {
        let _ = std::io::stderr().lock().write_all(held.as_bytes());
    }
}

/// Scrubbed text (unchanged when there is no scrubber).
pub fn scrub(text: &str) -> Cow<'_, str> {
    match scrubber() {
        Some(scrubber) => Cow::Owned(scrubber.scrub_str(text).into_owned()),
        None => Cow::Borrowed(text),
    }
}

/// Scrubbed and sanitized: what may reach a terminal or a log.
pub fn clean(text: &str) -> String {
    sanitize(&scrub(text)).into_owned()
}

/// One line of human text on stderr. A failed write (closed or full
/// stderr) is ignored: there is nowhere left to report it.
pub fn human(text: impl std::fmt::Display) {
    let line = clean(&text.to_string());
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{line}");
}

/// Human text for people: stderr, unless `quiet`.
pub fn say(quiet: bool, text: impl std::fmt::Display) {
    if !quiet {
        human(text);
    }
}

/// Prints one JSON document (or one JSON line of a stream) on stdout,
/// scrubbed, and flushes it so a pipe consumer sees it at once.
pub fn print_json(value: &impl Serialize) -> Result<(), OutputError> {
    let mut value = serde_json::to_value(value)?;
    if let Some(scrubber) = scrubber() {
        scrubber.scrub_json(&mut value);
    }
    write_stdout(&format!("{value}\n"))
}

/// Prints text on stdout (scrubbed; outside text sanitized by the caller).
pub fn print_text(text: &str) -> Result<(), OutputError> {
    write_stdout(&scrub(text))
}

/// Prints generated bytes on stdout as they are (nothing from outside in
/// them, so nothing to scrub).
pub fn print_bytes(bytes: &[u8]) -> Result<(), OutputError> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(bytes)
        .and_then(|()| stdout.flush())
        .map_err(stdout_error)
}

fn write_stdout(text: &str) -> Result<(), OutputError> {
    print_bytes(text.as_bytes())
}

/// A write error on stdout: a closed pipe ends the command quietly, any
/// other (a full disk) is a plain error.
pub fn stdout_error(error: std::io::Error) -> OutputError {
    if error.kind() == std::io::ErrorKind::BrokenPipe {
        OutputError::StdoutClosed
    } else {
        OutputError::Write(error)
    }
}

/// Prints a failure: the human message (and hint) on stderr, and with
/// `--json` also `{"error":{kind,message,hint}}` on stdout. Both pass the
/// scrubber; a closed stdout prints nothing.
pub fn report_error(failure: &Failure<'_>, json: bool) {
    if failure.kind == ErrorKind::StdoutClosed {
        return;
    }
    human(format_args!("error: {}", failure.message));
    if let Some(hint) = failure.hint {
        human(format_args!("hint: {hint}"));
    }
    if json {
        // Nothing more to do if stdout is gone as well.
        let _ = print_json(&error_document(failure));
    }
}

/// A failure as it is reported: its kind, its message with its causes,
/// and the hint if there is one.
pub struct Failure<'a> {
    pub kind: ErrorKind,
    pub message: &'a str,
    pub hint: Option<&'a str>,
}

/// `{"error":{kind,message,hint}}`; without a hint, no `hint` at all
/// (never `"hint":null`).
fn error_document(failure: &Failure<'_>) -> serde_json::Value {
    let mut body = serde_json::Map::new();
    body.insert("kind".into(), failure.kind.as_str().into());
    body.insert("message".into(), sanitize(failure.message).into());
    if let Some(hint) = failure.hint {
        body.insert("hint".into(), sanitize(hint).into());
    }
    serde_json::json!({ "error": body })
}

/// Whether stderr is a terminal (progress bars only then).
pub fn stderr_is_terminal() -> bool {
    std::io::stderr().is_terminal()
}

/// The current time in RFC 3339 (UTC).
pub fn now_rfc3339() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_without_a_hint_has_no_hint_field() {
        let failure = Failure {
            kind: ErrorKind::Internal,
            message: "it broke",
            hint: None,
        };
        let document = error_document(&failure);
        assert_eq!(
            document,
            serde_json::json!({"error": {"kind": "internal", "message": "it broke"}})
        );
        assert!(!document.to_string().contains("null"));
    }
}
