//! Signals to a child's process group, and whether a process is alive.

use rustix::process::{Pid, Signal};

/// Sends `signal` to the process group led by `pid` (our children lead
/// their own groups). A group that is already gone is not an error.
pub fn signal_group(pid: u32, signal: Signal) {
    if let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) {
        let _ = rustix::process::kill_process_group(pid, signal);
    }
}

pub fn terminate_group(pid: u32) {
    signal_group(pid, Signal::TERM);
}

pub fn kill_group(pid: u32) {
    signal_group(pid, Signal::KILL);
}

/// Whether a process with this pid exists and is not a zombie.
pub fn is_alive(pid: u32) -> bool {
    let Some(raw) = i32::try_from(pid).ok().and_then(Pid::from_raw) else {
        return false;
    };
    // EPERM: it exists, owned by someone else.
    match rustix::process::test_kill_process(raw) {
        Ok(()) => {}
        Err(error) if error == rustix::io::Errno::PERM => return true,
        Err(_) => return false,
    }
    // A zombie still answers kill(0); it no longer runs.
    match fs_err::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_none_or(|state| state != "Z"),
        Err(_) => true,
    }
}
