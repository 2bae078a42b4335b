//! The Gemini CLI: the real one offline over ACP ([`real`]) and its TUI's
//! figures ([`measure`]), the fake package the npm and run tests rely on
//! ([`fake`]), its approval box on real tmux ([`tui`]), its folder trust
//! and login method, and its profile world.

mod fake;
mod measure;
mod real;
mod trust;
mod tui;
mod world;
