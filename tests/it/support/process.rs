//! Processes: a started `oneworks` whose output is collected
//! ([`Running`], from [`Invocation::start`](super::Invocation::start)),
//! shell lines that run it, running another binary, and looking at or
//! signalling a process by pid.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use super::wait::poll;
use super::{Outcome, ONEWORKS, RUN_DEADLINE};

/// The state letter of `pid` in `/proc/PID/stat` (`R`, `S`, `T`, `Z`…),
/// `None` when there is no such process.
fn process_state(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The state follows the command's closing parenthesis.
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().next().map(str::to_owned)
}

/// Whether `pid` runs (a zombie does not).
pub fn alive(pid: u32) -> bool {
    process_state(pid).is_some_and(|state| state != "Z")
}

/// Whether `pid` is stopped (SIGSTOP).
pub fn stopped(pid: u32) -> bool {
    process_state(pid).is_some_and(|state| state == "T")
}

/// Sends `signal` (`-INT`, `-STOP`, `-CONT`…) to `pid`.
pub fn signal(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .expect("kill");
    assert!(status.success(), "kill {signal} {pid}");
}

/// A started `oneworks` whose output is collected in the background.
pub struct Running {
    child: Child,
    stdout: mpsc::Receiver<Vec<u8>>,
    stderr: mpsc::Receiver<Vec<u8>>,
}

impl Running {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// SIGKILL (what `Child::kill` sends on Unix) and reap.
    pub fn kill(mut self) -> Outcome {
        let _ = self.child.kill();
        self.finish()
    }

    pub fn wait(self) -> Outcome {
        self.wait_for(RUN_DEADLINE)
    }

    pub fn wait_for(mut self, deadline: Duration) -> Outcome {
        let child = &mut self.child;
        let exited = poll(Duration::from_millis(10), deadline, || {
            child.try_wait().expect("try_wait").ok_or_else(String::new)
        });
        if exited.is_err() {
            let _ = self.child.kill();
            let outcome = self.finish();
            panic!(
                "oneworks did not finish within {deadline:?}\n{}",
                outcome.describe()
            );
        }
        self.finish()
    }

    fn finish(mut self) -> Outcome {
        let status = self.child.wait().expect("wait");
        // A grandchild that kept the pipe open must not hang the test.
        let collect = |receiver: &mpsc::Receiver<Vec<u8>>| {
            receiver
                .recv_timeout(Duration::from_secs(10))
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                .unwrap_or_else(|_| "<output not closed within 10 s>".to_owned())
        };
        Outcome {
            code: status.code(),
            stdout: collect(&self.stdout),
            stderr: collect(&self.stderr),
        }
    }
}

impl Running {
    /// `child`, its stdout and stderr (piped) collected in the background.
    pub(super) fn collect(mut child: Child) -> Running {
        let drain = |mut pipe: Box<dyn Read + Send>| {
            let (sender, receiver) = mpsc::channel();
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                let _ = pipe.read_to_end(&mut bytes);
                let _ = sender.send(bytes);
            });
            receiver
        };
        let stdout = drain(Box::new(child.stdout.take().expect("stdout pipe")));
        let stderr = drain(Box::new(child.stderr.take().expect("stderr pipe")));
        Running {
            child,
            stdout,
            stderr,
        }
    }
}

/// Quotes one word for `sh -c`.
pub fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

/// Runs `binary ARGS` and returns its stdout (for "the installed binary
/// answers `--version`").
pub fn run_binary(binary: &Path, args: &[&str]) -> (Option<i32>, String) {
    let output = Command::new(binary)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|error| panic!("run {}: {error}", binary.display()));
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// `oneworks ARGS…` as one shell line, every word quoted.
pub fn oneworks_line(args: &[&str]) -> String {
    std::iter::once(ONEWORKS)
        .chain(args.iter().copied())
        .map(shell_quote)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Collects everything `child` writes on its (piped) stdout, as it comes,
/// on a thread of its own.
pub fn capture_stdout(
    child: &mut std::process::Child,
) -> std::sync::Arc<std::sync::Mutex<Vec<u8>>> {
    use std::io::Read;
    let mut stdout = child.stdout.take().expect("stdout piped");
    let output = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = std::sync::Arc::clone(&output);
    std::thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        while let Ok(read) = stdout.read(&mut buffer) {
            if read == 0 {
                break;
            }
            sink.lock()
                .expect("lock")
                .extend_from_slice(&buffer[..read]);
        }
    });
    output
}
