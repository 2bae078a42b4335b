//! The integration tests: the real `oneworks` binary, run in a private temp
//! world against a local manifest server, generated archives and a fake
//! `kiro-cli` (SPEC §9). Run with `cargo test --features fakes`.

// Fixtures build files with `std::fs`: clippy.toml's fs-err rule is for
// errors users read.
#![allow(clippy::disallowed_methods)]

mod support;

mod acp_conformance;
mod acp_support;
mod acp_terminal;
mod adapter_files;
mod agent_settings_trust;
mod agent_shapes;
mod agents_real;
mod architecture;
mod bounds;
mod card_text;
mod completions;
mod concurrency;
mod config;
mod config_trust;
mod cursor_acp;
mod cursor_install;
mod cursor_tui;
mod env_options;
mod gemini_measure;
mod gemini_real;
mod gemini_trust;
mod gemini_tui;
mod gemini_tui_fake;
mod gemini_world;
mod harness;
mod hostile;
mod kept;
mod kept_cards;
mod kiro_field;
mod launch;
mod lock_binds;
mod login;
mod messages;
mod network;
mod node_runtime;
mod npm_install;
mod npm_tree;
mod output;
mod outside;
mod pane_grammar;
mod prepare;
mod private_registry;
mod probe_errors;
mod profile;
mod reuse;
mod run;
mod secrets_stream;
mod serve;
mod serve_browser;
mod serve_flood;
mod serve_links;
mod session_files;
mod session_names;
mod shutdown;
mod sources;
mod status_choice;
mod supervisor;
mod supervisor_adopt;
mod supervisor_fallback;
mod supervisor_hook;
mod supervisor_key_times;
mod supervisor_lifecycle;
mod supervisor_races;
mod supervisor_webhook;
mod third_adapter;
mod trust;
mod tui_real;
