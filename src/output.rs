//! Output helpers: JSON documents on stdout, human text on stderr, and
//! RFC 3339 timestamps for records.

use std::io::IsTerminal;

use serde::Serialize;

use crate::error::{Error, ErrorKind};

/// Prints one JSON document on stdout.
pub fn print_json(value: &impl Serialize) -> Result<(), Error> {
    let text =
        serde_json::to_string(value).map_err(|error| Error::new(ErrorKind::Internal, error))?;
    println!("{text}");
    Ok(())
}

/// Human text for people: stderr, unless `quiet`.
pub fn say(quiet: bool, text: impl std::fmt::Display) {
    if !quiet {
        eprintln!("{text}");
    }
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
