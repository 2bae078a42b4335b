//! Logging: `tracing` to stderr; `-v` for info, `-vv` for debug, `RUST_LOG`
//! for anything finer.

use tracing_subscriber::EnvFilter;

use crate::cli::GlobalArgs;

pub fn init(global: &GlobalArgs) {
    let default = match (global.quiet, global.verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        (false, _) => "debug",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // Colour codes only for a terminal, never into a log file or pipe.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false)
        .without_time()
        .try_init();
}
