//! The real opencode TUI, supervised (filled in by its issue 21 work).
