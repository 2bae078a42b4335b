//! The install lock: one exclusive `fs4` lock on `.install.lock` per managed
//! root, held for installs and for reuse. The holder writes its pid into the
//! file so a waiter can say whom it waits for. The file is never deleted: a
//! lock dies with its process, so a killed install blocks nobody.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use fs4::fs_std::FileExt;
use fs_err::os::unix::fs::OpenOptionsExt;
use fs_err::OpenOptions;

use crate::error::{Classify, ErrorKind};

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("timed out after {} waiting for another oneworks{} to finish installing (lock `{path}`)", humantime::format_duration(*timeout), holder(*pid))]
    Timeout {
        path: PathBuf,
        pid: Option<u32>,
        timeout: Duration,
    },
    #[error("failed to open or lock `{path}`")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

fn holder(pid: Option<u32>) -> String {
    pid.map(|pid| format!(" (pid {pid})")).unwrap_or_default()
}

impl Classify for LockError {
    fn kind(&self) -> ErrorKind {
        match self {
            LockError::Timeout { .. } => ErrorKind::LockTimeout,
            LockError::Io { .. } => ErrorKind::Internal,
        }
    }
    fn hint(&self) -> Option<String> {
        match self {
            LockError::Timeout { .. } => Some(
                "raise ONEWORKS_LOCK_TIMEOUT (seconds) or wait for the other install to finish"
                    .to_owned(),
            ),
            LockError::Io { .. } => None,
        }
    }
}

/// A held install lock; released when dropped (or when the process dies).
#[derive(Debug)]
pub struct InstallLock {
    file: File,
}

impl Drop for InstallLock {
    fn drop(&mut self) {
        let _ = FileExt::unlock(&self.file);
    }
}

/// The pid the holder recorded, only when that process is alive: a pid
/// left by a killed holder (the lock died with it) names nobody.
fn read_pid(file: &mut File) -> Option<u32> {
    let mut text = String::new();
    file.seek(SeekFrom::Start(0)).ok()?;
    file.take(32).read_to_string(&mut text).ok()?;
    text.trim()
        .parse()
        .ok()
        .filter(|pid| crate::process::group::is_alive(*pid))
}

/// How often a waiter tries the install lock again: a small part of any
/// install, which takes seconds.
const LOCK_POLL: Duration = Duration::from_millis(20);

/// Takes the lock at `path`, waiting up to `timeout`. `on_wait` is called
/// once, with the holder's pid, when the lock is busy.
pub fn acquire(
    path: &Path,
    timeout: Duration,
    on_wait: impl FnOnce(Option<u32>),
) -> Result<InstallLock, LockError> {
    let io_error = |source| LockError::Io {
        path: path.to_owned(),
        source: crate::fs_error::os_cause(source),
    };
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(io_error)?
        .into_file();
    if !file.try_lock_exclusive().map_err(io_error)? {
        let pid = read_pid(&mut file);
        on_wait(pid);
        // Poll rather than block: a blocked `flock` cannot be called off,
        // and a helper thread left blocked after the timeout would take the
        // lock the moment the holder lets go, in this process, from under
        // the next caller.
        let deadline = std::time::Instant::now() + timeout;
        while !file.try_lock_exclusive().map_err(io_error)? {
            let now = std::time::Instant::now();
            if now >= deadline {
                return Err(LockError::Timeout {
                    path: path.to_owned(),
                    pid: read_pid(&mut file).or(pid),
                    timeout,
                });
            }
            std::thread::sleep(LOCK_POLL.min(deadline - now));
        }
    }
    // Record the holder for whoever waits next.
    let _ = file.set_len(0);
    let _ = file.seek(SeekFrom::Start(0));
    let _ = writeln!(file, "{}", std::process::id());
    Ok(InstallLock { file })
}

/// [`acquire`], telling the user on stderr (unless `quiet`) whom it waits for.
pub fn acquire_announced(
    path: &Path,
    timeout: Duration,
    quiet: bool,
) -> Result<InstallLock, LockError> {
    acquire(path, timeout, |pid| {
        if !quiet {
            crate::output::human(format_args!(
                "waiting for another oneworks{} to finish installing",
                holder(pid)
            ));
        }
    })
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn second_holder_times_out_and_names_the_first() {
        let temp = tempfile::tempdir().expect("tempdir");
        let path = temp.path().join(".install.lock");
        let held = acquire(&path, Duration::from_secs(1), |_| {
            panic!("free lock must not wait")
        })
        .expect("first");
        let mut waited_for = None;
        let error = acquire(&path, Duration::from_millis(200), |pid| waited_for = pid).unwrap_err();
        assert_eq!(waited_for, Some(std::process::id()));
        assert!(matches!(error, LockError::Timeout { .. }), "{error}");
        drop(held);
        acquire(&path, Duration::from_secs(1), |_| {
            panic!("released lock must not wait")
        })
        .expect("after release");
        assert!(path.exists(), "the lock file is never deleted");
    }

    #[test]
    fn a_dead_holder_pid_is_not_named() {
        let temp = tempfile::tempdir().expect("tempdir");
        let path = temp.path().join(".install.lock");
        let held = acquire(&path, Duration::from_secs(1), |_| {}).expect("first");
        let mut child = std::process::Command::new("true").spawn().expect("spawn");
        let dead = child.id();
        child.wait().expect("wait");
        std::fs::write(&path, format!("{dead}\n")).expect("record a dead pid");
        let mut waited_for = Some(0);
        let error = acquire(&path, Duration::from_millis(100), |pid| waited_for = pid).unwrap_err();
        assert_eq!(waited_for, None);
        assert_eq!(
            error.to_string(),
            format!(
                "timed out after 100ms waiting for another oneworks to finish installing (lock `{}`)",
                path.display()
            )
        );
        drop(held);
    }
}
