//! Logging: `tracing` to stderr; `-v` for info, `-vv` for debug, `RUST_LOG`
//! (`level` or `target=level` lists, e.g. `oneworks=trace,hyper=warn`) for
//! anything finer. Every line passes the credential scrubber as part of
//! one stream, whatever its call site already scrubbed.

use std::io::Write;

use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::Layer;

/// Starts logging at the level the flags ask for: `quiet` (errors only)
/// wins over `verbose` (the count of `-v`); `rust_log` (`RUST_LOG`), when it
/// reads as `Targets` directives, wins over both.
pub fn init(quiet: bool, verbose: u8, rust_log: Option<&str>) {
    let default = match (quiet, verbose) {
        (true, _) => LevelFilter::ERROR,
        (false, 0) => LevelFilter::WARN,
        (false, 1) => LevelFilter::INFO,
        (false, _) => LevelFilter::DEBUG,
    };
    let filter = rust_log
        .filter(|directives| !directives.trim().is_empty())
        .and_then(|directives| directives.parse::<Targets>().ok())
        .unwrap_or_else(|| Targets::new().with_default(default));
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(ScrubbedStderr)
        // Colour codes only for a terminal, never into a log file or pipe.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false)
        .without_time();
    let _ = tracing_subscriber::registry()
        .with(layer.with_filter(filter))
        .try_init();
}

/// Stderr, through [`crate::output::scrub_log`].
struct ScrubbedStderr;

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for ScrubbedStderr {
    type Writer = ScrubbedStderr;

    fn make_writer(&'a self) -> Self::Writer {
        ScrubbedStderr
    }
}

impl Write for ScrubbedStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = crate::output::scrub_log(&String::from_utf8_lossy(buf));
        std::io::stderr().lock().write_all(text.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}
