//! The real codex TUI, supervised (filled in by its issue 21 work).
