//! Each agent's approval box read by the pane grammar of its data file
//!, over real captures of the real agent's TUI in
//! `tests/it/fixtures/<agent>-pane/`: allow focused, moved, reject
//! focused, half-drawn, scrolled, and another box that looks alike.

mod attacks;
mod claude;
mod codex;
mod copilot;
mod opencode;
mod qwen;
