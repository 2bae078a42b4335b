//! The fake's process habits: ignoring SIGTERM as a stubborn agent does,
//! a held child that outlives a kill of its parent, and the monotonic
//! clock its timestamps use.

use std::io::{BufRead, Write};

use crate::error::FakeError;

/// Replaces SIGTERM's default action (ending the process) with a handler
/// nobody reads: the signal is then ignored for the process's lifetime.
pub fn ignore_sigterm() {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    let signal = runtime.block_on(async {
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
    });
    // Both stay alive with the process.
    std::mem::forget(signal);
    std::mem::forget(runtime);
}

/// Starts `fake-kiro-cli --fake-hold-on` (it ignores SIGTERM and holds on),
/// waits until it says it is ready, and writes its pid to `path`.
pub fn start_held_child(path: &std::path::Path) -> Result<(), FakeError> {
    let exe = std::env::current_exe().map_err(FakeError::CurrentExe)?;
    let mut child = std::process::Command::new(exe)
        .arg("--fake-hold-on")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(FakeError::StartHeldChild)?;
    let mut ready = String::new();
    if let Some(stdout) = child.stdout.take() {
        let _ = std::io::BufReader::new(stdout).read_line(&mut ready);
    }
    if ready.trim() != "ready" {
        return Err(FakeError::HeldChildNotReady);
    }
    fs_err::write(path, child.id().to_string())
        .map_err(oneworks::fs_error::os_cause)
        .map_err(|source| FakeError::WritePid {
            path: path.to_owned(),
            source,
        })
}

/// `fake-kiro-cli --fake-hold-on`: ignores SIGTERM, says `ready`, then
/// holds on (bounded, so a failed test leaks nothing for long).
pub fn hold_on() -> i32 {
    ignore_sigterm();
    println!("ready");
    let _ = std::io::stdout().flush();
    std::thread::sleep(std::time::Duration::from_secs(120));
    0
}

/// `CLOCK_MONOTONIC` in nanoseconds (the clock Python's
/// `time.monotonic_ns()` reads).
pub fn monotonic_ns() -> u128 {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    u128::try_from(now.tv_sec).unwrap_or(0) * 1_000_000_000
        + u128::try_from(now.tv_nsec).unwrap_or(0)
}
