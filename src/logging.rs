//! Logging: `tracing` to stderr; `-v` for info, `-vv` for debug, `RUST_LOG`
//! for anything finer. Every line passes the credential scrubber as part of
//! one stream (SPEC §6.2), whatever its call site already scrubbed.

use std::io::Write;

use tracing_subscriber::EnvFilter;

/// Starts logging at the level the flags ask for: `quiet` (errors only)
/// wins over `verbose` (the count of `-v`).
pub fn init(quiet: bool, verbose: u8) {
    let default = match (quiet, verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        (false, _) => "debug",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(ScrubbedStderr)
        // Colour codes only for a terminal, never into a log file or pipe.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false)
        .without_time()
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
