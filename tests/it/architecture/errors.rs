//! Typed errors below the command edge: the
//! anyhow-backed `crate::error::Error` (and `anyhow` itself) is named only
//! by the commands, the dispatcher (`dispatch.rs`), `main`, the crate root and
//! `error.rs`, which defines it. Every other subsystem returns its own
//! `thiserror` enum and keeps its causes as sources.

use super::{code, source_files, src};
use std::path::Path;

/// Where the edge error may be named: a folder ends in `/`.
const EDGE: &[&str] = &["commands/", "dispatch.rs", "main.rs", "lib.rs", "error.rs"];

/// The files under `src` (test doubles under `bin/` left out) outside the
/// edge that name the edge error or `anyhow`, as paths relative to `src`.
fn edge_error_outside_the_edge(src: &Path) -> Vec<String> {
    // `crate::error::Error`, in a `crate::error::{…}` or a `crate::{…}`
    // group, or `anyhow` (`std::error::Error` is the standard trait).
    let named = regex::Regex::new(concat!(
        r"\bcrate::error::(?:Error|Result)\b",
        r"|\bcrate::error::\{[^}]*\b(?:Error|Result)\b",
        r"|\bcrate::\{[^;]*\berror::(?:Error|Result)\b",
        r"|\banyhow\b",
    ))
    .expect("regex");
    let mut files = Vec::new();
    source_files(src, &mut files);
    let mut found: Vec<String> = files
        .iter()
        .map(|file| {
            let relative = file.strip_prefix(src).expect("under src");
            (relative.to_string_lossy().into_owned(), file)
        })
        .filter(|(relative, _)| !EDGE.iter().any(|edge| relative.starts_with(edge)))
        .filter(|(_, file)| {
            let text = std::fs::read_to_string(file).expect("read source");
            named.is_match(&code(&text))
        })
        .map(|(relative, _)| relative)
        .collect();
    found.sort();
    found
}

#[test]
fn the_edge_error_is_named_only_at_the_command_edge() {
    let found = edge_error_outside_the_edge(&src());
    assert!(
        found.is_empty(),
        "give these a thiserror enum of their subsystem (with `impl Classify`) instead of the edge's error: {found:#?}"
    );
}

#[test]
fn the_edge_error_check_finds_planted_uses() {
    let copy = super::layers::planted_copy(&[
        ("launch/resolve.rs", "use crate::error::Error;"),
        ("session/tmux.rs", "use crate::error::{Classify, Result};"),
        (
            "output/visible.rs",
            "fn f() -> anyhow::Result<()> { Ok(()) }",
        ),
        // Not the edge error: the kind, a subsystem's error, a comment.
        ("acp/rpc.rs", "use crate::error::{Classify, ErrorKind};"),
        ("config/glob.rs", "// crate::error::Error in a comment"),
        // The edge may name it.
        ("commands/status.rs", "use crate::error::Error;"),
        ("dispatch.rs", "use anyhow::Context;"),
        (
            "process/lines.rs",
            "use crate::{output::clean, error::Result};",
        ),
        ("redact/rules.rs", "fn f(_: &dyn std::error::Error) {}"),
    ]);
    assert_eq!(
        edge_error_outside_the_edge(copy.path()),
        [
            "launch/resolve.rs",
            "output/visible.rs",
            "process/lines.rs",
            "session/tmux.rs"
        ],
    );
}
