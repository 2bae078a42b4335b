//! The real claude TUI, supervised (filled in by its issue 21 work).
