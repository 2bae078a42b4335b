//! Child processes and signals: the one seam through which oneworks starts
//! the agent CLI (probes, `login`, ACP runs, the TUI supervisor's helpers).
//!
//! - [`spec::ChildSpec`]: what to start — program, arguments, working
//!   folder and an explicit environment (the inherited one is cleared), in
//!   its own process group so a terminal Ctrl-C reaches oneworks first.
//! - [`child::ManagedChild`]: a started child on the tokio runtime with
//!   stdin/stdout piped, stderr drained into the log with its tail kept, and
//!   a polite stop (close stdin → wait → SIGTERM → wait → SIGKILL).
//! - [`lines`]: bounded lines of a pipe, stdin or a file, read in fixed
//!   blocks; an over-long line is dropped without being held.
//! - [`interrupts::Interrupts`]: SIGINT/SIGTERM as values a command awaits, so
//!   it can run its cancel sequence and exit 130.
//! - [`terminal`]: the person's terminal settings, put back on every way
//!   out while a prompt is open.
//!
//! Concurrency model: the installer is synchronous (blocking reqwest); the
//! ACP client and the session supervisor run on a current-thread tokio
//! runtime built by [`runtime`]. Anything that may download (launch
//! resolution) runs before the runtime starts, never inside it.

pub mod child;
pub mod group;
pub mod interrupts;
pub mod lines;
pub mod spec;
pub mod tail;
pub mod terminal;

/// A current-thread tokio runtime with I/O and timers, for the ACP client
/// and the session supervisor.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}

/// How a child ended, in words: `exited with status 1`, `was killed by
/// signal 15 (SIGTERM)` — not `ExitStatus`'s own `exit status: 1`.
pub fn exit_description(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => {
            let name = match signal {
                1 => " (SIGHUP)",
                2 => " (SIGINT)",
                3 => " (SIGQUIT)",
                6 => " (SIGABRT)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV)",
                13 => " (SIGPIPE)",
                15 => " (SIGTERM)",
                _ => "",
            };
            format!("was killed by signal {signal}{name}")
        }
        (None, None) => "ended".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::ExitStatusExt;
    use std::process::ExitStatus;

    use super::exit_description;

    #[test]
    fn exits_are_described_in_words() {
        assert_eq!(
            exit_description(ExitStatus::from_raw(3 << 8)),
            "exited with status 3"
        );
        assert_eq!(
            exit_description(ExitStatus::from_raw(15)),
            "was killed by signal 15 (SIGTERM)"
        );
        assert_eq!(
            exit_description(ExitStatus::from_raw(10)),
            "was killed by signal 10"
        );
    }
}
