//! Child processes and signals: the one seam through which oneworks starts
//! Kiro (probes, `login`, ACP runs, the TUI supervisor's helpers).
//!
//! - [`spec::ChildSpec`]: what to start — program, arguments, working
//!   folder and an explicit environment (the inherited one is cleared), in
//!   its own process group so a terminal Ctrl-C reaches oneworks first.
//! - [`child::ManagedChild`]: a started child on the tokio runtime with
//!   stdin/stdout piped, stderr drained into the log with its tail kept, and
//!   a polite stop (close stdin → wait → SIGTERM → wait → SIGKILL).
//! - [`signals::Interrupts`]: SIGINT/SIGTERM as values a command awaits, so
//!   it can run its cancel sequence and exit 130.
//!
//! Concurrency model: the installer is synchronous (blocking reqwest); the
//! ACP client and the session supervisor run on a current-thread tokio
//! runtime built by [`runtime`]. Anything that may download (launch
//! resolution) runs before the runtime starts, never inside it.

pub mod child;
pub mod group;
pub mod signals;
pub mod spec;
pub mod tail;

/// A current-thread tokio runtime with I/O and timers, for the ACP client
/// and the session supervisor.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}
