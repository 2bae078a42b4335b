//! One owner per child process (tokio): started from a [`ChildSpec`] in its
//! own process group, stdin and stdout piped for the owner, stderr drained
//! line by line into the log with its tail kept for error messages, and a
//! stop that asks politely before it forces: close stdin → wait → SIGTERM
//! to the group → wait → SIGKILL to the group. Dropping an unstopped child
//! kills its group, so no path leaves an agent running behind oneworks.

use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::task::JoinHandle;

use rustix::process::Signal;

use super::group;
use super::lines::{Line, LineReader};
use super::spec::ChildSpec;
use super::tail::StderrTail;

/// The longest line of a child's stderr that is logged; a longer one is
/// skipped (and named in the tail) without being held.
pub const MAX_STDERR_LINE: usize = 64 * 1024;

/// How long each step of [`ManagedChild::stop`] waits before the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StopBounds {
    /// After closing stdin, before SIGTERM.
    pub after_close: Duration,
    /// After SIGTERM, before SIGKILL.
    pub after_terminate: Duration,
}

impl Default for StopBounds {
    fn default() -> Self {
        Self {
            after_close: Duration::from_secs(2),
            after_terminate: Duration::from_secs(3),
        }
    }
}

impl StopBounds {
    /// The default bounds with this grace after closing stdin (the
    /// adapter's data).
    pub fn with_grace(after_close: Duration) -> Self {
        Self {
            after_close,
            ..Self::default()
        }
    }
}

/// How a stop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// It exited on its own after stdin closed.
    Exited(ExitStatus),
    /// It exited after SIGTERM.
    Terminated(ExitStatus),
    /// It needed SIGKILL.
    Killed(ExitStatus),
    /// An interrupt during the stop killed it at once.
    Interrupted(ExitStatus),
}

impl Stopped {
    pub fn status(self) -> ExitStatus {
        match self {
            Stopped::Exited(status)
            | Stopped::Terminated(status)
            | Stopped::Killed(status)
            | Stopped::Interrupted(status) => status,
        }
    }
}

#[derive(Debug)]
pub struct ManagedChild {
    label: String,
    pid: u32,
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Option<ChildStdout>,
    tail: Arc<Mutex<StderrTail>>,
    drain: Option<JoinHandle<()>>,
    reaped: Option<ExitStatus>,
    /// Whether the child leads its own process group. An interactive child
    /// stays in the terminal's group: it is signalled alone, since its pid
    /// names no group.
    leads_group: bool,
}

impl ManagedChild {
    /// Starts `spec` with piped stdin, stdout and stderr. `label` names the
    /// child in log lines (`<cli> acp`). Must be called inside a tokio
    /// runtime.
    pub fn spawn(spec: &ChildSpec, label: impl Into<String>) -> std::io::Result<Self> {
        Self::spawn_with(spec, label, Stdio::piped(), Stdio::piped())
    }

    /// Starts `spec` on the user's terminal: all three streams inherited,
    /// nothing drained (an agent's login talks to the user directly).
    pub fn spawn_attached(spec: &ChildSpec, label: impl Into<String>) -> std::io::Result<Self> {
        Self::start(
            spec,
            label.into(),
            Stdio::inherit(),
            Stdio::inherit(),
            false,
        )
    }

    /// Like [`spawn`](Self::spawn), choosing stdin and stdout.
    pub fn spawn_with(
        spec: &ChildSpec,
        label: impl Into<String>,
        stdin: Stdio,
        stdout: Stdio,
    ) -> std::io::Result<Self> {
        Self::start(spec, label.into(), stdin, stdout, true)
    }

    fn start(
        spec: &ChildSpec,
        label: String,
        stdin: Stdio,
        stdout: Stdio,
        drain_stderr: bool,
    ) -> std::io::Result<Self> {
        let mut command = spec.tokio_command();
        command.stdin(stdin).stdout(stdout).stderr(if drain_stderr {
            Stdio::piped()
        } else {
            Stdio::inherit()
        });
        let mut child = command.spawn()?;
        let pid = child
            .id()
            .ok_or_else(|| std::io::Error::other("the child exited before it could be tracked"))?;
        let tail = Arc::new(Mutex::new(StderrTail::default()));
        let drain = child.stderr.take().map(|stderr| {
            let tail = Arc::clone(&tail);
            let label = label.clone();
            tokio::spawn(async move {
                // Scrubbed as one stream: a secret split over
                // lines is still found.
                let mut scrubbed = crate::output::scrubber().map(|scrubber| scrubber.lines());
                let keep = |lines: Vec<String>| {
                    for line in lines {
                        tracing::debug!(child = %label, "{}", crate::output::clean(&line));
                        if let Ok(mut tail) = tail.lock() {
                            tail.push(&line);
                        }
                    }
                };
                let mut lines = LineReader::new(stderr, MAX_STDERR_LINE);
                while let Ok(Some(line)) = lines.next_line().await {
                    let line = match line {
                        Line::Text(line) => String::from_utf8_lossy(&line).into_owned(),
                        Line::TooLong(length) => {
                            tracing::warn!(
                                "skipped a line of {length} bytes on the stderr of `{label}` (over the bound of {MAX_STDERR_LINE} bytes)"
                            );
                            format!("[a line of {length} bytes was skipped]")
                        }
                    };
                    let line = line.trim_end_matches('\r');
                    keep(match &mut scrubbed {
                        Some(scrubbed) => scrubbed.push_line(line),
                        None => vec![line.to_owned()],
                    });
                }
                if let Some(scrubbed) = &mut scrubbed {
                    keep(scrubbed.finish());
                }
            })
        });
        tracing::debug!(child = %label, pid, "started `{}`", spec.display());
        Ok(Self {
            label,
            pid,
            stdin: child.stdin.take(),
            stdout: child.stdout.take(),
            child,
            tail,
            drain,
            reaped: None,
            leads_group: !spec.interactive,
        })
    }

    pub fn id(&self) -> u32 {
        self.pid
    }

    pub fn label(&self) -> &str {
        &self.label
    }

    pub fn take_stdin(&mut self) -> Option<ChildStdin> {
        self.stdin.take()
    }

    pub fn take_stdout(&mut self) -> Option<ChildStdout> {
        self.stdout.take()
    }

    /// The last lines of the child's stderr, control characters removed.
    /// Waits (briefly) for the drain to finish when the child has exited,
    /// so the lines written just before the exit are there.
    pub async fn stderr_tail(&mut self) -> String {
        if self.reaped.is_some() {
            if let Some(drain) = self.drain.take() {
                let _ = tokio::time::timeout(Duration::from_secs(1), drain).await;
            }
        }
        self.tail.lock().map(|tail| tail.text()).unwrap_or_default()
    }

    /// Waits for the child to exit.
    pub async fn wait(&mut self) -> std::io::Result<ExitStatus> {
        if let Some(status) = self.reaped {
            return Ok(status);
        }
        let status = self.child.wait().await?;
        self.reaped = Some(status);
        Ok(status)
    }

    /// Stops the child: close stdin (dropping our handle, and the caller's
    /// if they return it first), wait `after_close`; SIGTERM its group, wait
    /// `after_terminate`; SIGKILL its group and reap. Grandchildren in the
    /// group get the same signals.
    pub async fn stop(&mut self, bounds: StopBounds) -> std::io::Result<Stopped> {
        if let Some(status) = self.reaped {
            return Ok(Stopped::Exited(status));
        }
        self.stdin = None;
        if let Ok(status) = tokio::time::timeout(bounds.after_close, self.wait()).await {
            self.signal(Signal::KILL);
            return Ok(Stopped::Exited(status?));
        }
        tracing::debug!(child = %self.label, pid = self.pid, "sending SIGTERM");
        self.signal(Signal::TERM);
        if let Ok(status) = tokio::time::timeout(bounds.after_terminate, self.wait()).await {
            self.signal(Signal::KILL);
            return Ok(Stopped::Terminated(status?));
        }
        tracing::debug!(child = %self.label, pid = self.pid, "sending SIGKILL");
        self.kill_now();
        Ok(Stopped::Killed(self.wait().await?))
    }

    /// Like [`stop`](Self::stop), but when `interrupted` completes first (a
    /// Ctrl-C while the child is being stopped) its group gets SIGKILL at
    /// once instead of the rest of the grace.
    pub async fn stop_unless(
        &mut self,
        bounds: StopBounds,
        interrupted: impl std::future::Future,
    ) -> std::io::Result<Stopped> {
        {
            let stop = self.stop(bounds);
            tokio::pin!(stop);
            tokio::select! {
                biased;
                stopped = &mut stop => return stopped,
                _ = interrupted => {}
            }
        }
        tracing::debug!(child = %self.label, pid = self.pid, "interrupted while stopping: sending SIGKILL");
        self.kill_now();
        Ok(Stopped::Interrupted(self.wait().await?))
    }

    /// SIGKILL to the whole group at once (a second Ctrl-C).
    pub fn kill_now(&mut self) {
        self.signal(Signal::KILL);
    }

    /// `signal` to the child's group, or to the child alone when it shares
    /// the terminal's group (never to oneworks' own group). A reaped child
    /// that led no group is not signalled: its pid may be reused.
    fn signal(&self, signal: Signal) {
        if self.leads_group {
            group::signal_group(self.pid, signal);
        } else if self.reaped.is_none() {
            group::signal_process(self.pid, signal);
        }
    }
}

impl Drop for ManagedChild {
    fn drop(&mut self) {
        if self.reaped.is_none() {
            self.signal(Signal::KILL);
            // Reap without blocking when it is already gone; tokio's orphan
            // reaper takes care of the rest.
            let _ = self.child.try_wait();
        } else {
            // The leader exited; stragglers in its group go with it.
            self.signal(Signal::KILL);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use tokio::io::AsyncBufReadExt;

    use super::*;

    const SHORT: StopBounds = StopBounds {
        after_close: Duration::from_millis(200),
        after_terminate: Duration::from_millis(300),
    };

    fn shell(script: &str) -> ChildSpec {
        ChildSpec::new("/bin/sh")
            .args(["-c", script])
            .envs([("PATH", "/usr/bin:/bin")])
    }

    async fn first_line(child: &mut ManagedChild) -> String {
        let stdout = child.take_stdout().expect("stdout");
        let mut lines = tokio::io::BufReader::new(stdout).lines();
        lines.next_line().await.expect("read").expect("a line")
    }

    /// Waits (bounded) until `pid` no longer runs.
    async fn gone(pid: u32) -> bool {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if !group::is_alive(pid) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        false
    }

    #[tokio::test]
    async fn a_child_that_ignores_sigterm_is_killed_with_its_group() {
        // The shell and its background `sleep` both ignore SIGTERM (an
        // ignored signal stays ignored across exec).
        let mut child = ManagedChild::spawn(
            &shell("trap '' TERM; sleep 600 & echo $!; wait; wait"),
            "stubborn",
        )
        .expect("spawn");
        let grandchild: u32 = first_line(&mut child).await.parse().expect("pid");
        let pid = child.id();
        assert!(group::is_alive(pid) && group::is_alive(grandchild));
        let started = Instant::now();
        let stopped = child.stop(SHORT).await.expect("stop");
        assert!(matches!(stopped, Stopped::Killed(_)), "{stopped:?}");
        // It waited for both bounds before forcing.
        assert!(started.elapsed() >= SHORT.after_close + SHORT.after_terminate);
        assert!(gone(pid).await, "the child {pid} still runs");
        assert!(
            gone(grandchild).await,
            "the grandchild {grandchild} still runs"
        );
    }

    #[tokio::test]
    async fn an_interrupt_during_the_stop_kills_the_group_at_once() {
        let mut child = ManagedChild::spawn(
            &shell("trap '' TERM; sleep 600 & echo $!; wait; wait"),
            "stubborn",
        )
        .expect("spawn");
        let grandchild: u32 = first_line(&mut child).await.parse().expect("pid");
        let pid = child.id();
        let long = StopBounds {
            after_close: Duration::from_secs(600),
            after_terminate: Duration::from_secs(600),
        };
        let (sender, receiver) = tokio::sync::oneshot::channel::<()>();
        let stop = child.stop_unless(long, receiver);
        tokio::pin!(stop);
        // The stop is under way (stdin closed, in the grace)…
        assert!(tokio::time::timeout(Duration::from_millis(50), &mut stop)
            .await
            .is_err());
        // …when the interrupt comes.
        sender.send(()).expect("send");
        let stopped = stop.await.expect("stop");
        assert!(matches!(stopped, Stopped::Interrupted(_)), "{stopped:?}");
        assert!(gone(pid).await, "the child {pid} still runs");
        assert!(
            gone(grandchild).await,
            "the grandchild {grandchild} still runs"
        );
    }

    #[tokio::test]
    async fn a_stop_that_ends_first_is_not_an_interrupt() {
        let mut child =
            ManagedChild::spawn(&shell("cat >/dev/null; exit 3"), "polite").expect("spawn");
        let stopped = child
            .stop_unless(SHORT, std::future::pending::<()>())
            .await
            .expect("stop");
        assert!(matches!(stopped, Stopped::Exited(status) if status.code() == Some(3)));
    }

    #[tokio::test]
    async fn a_polite_child_exits_when_stdin_closes() {
        let mut child =
            ManagedChild::spawn(&shell("cat >/dev/null; exit 3"), "polite").expect("spawn");
        let stopped = child.stop(SHORT).await.expect("stop");
        assert!(matches!(stopped, Stopped::Exited(status) if status.code() == Some(3)));
    }

    #[tokio::test]
    async fn a_child_that_keeps_stdin_open_ends_on_sigterm() {
        let mut child =
            ManagedChild::spawn(&shell("echo ready; exec sleep 600"), "sleeper").expect("spawn");
        assert_eq!(first_line(&mut child).await, "ready");
        let stopped = child.stop(SHORT).await.expect("stop");
        assert!(matches!(stopped, Stopped::Terminated(_)), "{stopped:?}");
    }

    #[tokio::test]
    async fn stderr_is_drained_and_its_tail_kept() {
        let mut child = ManagedChild::spawn(
            &shell("i=0; while [ $i -lt 50 ]; do echo \"err $i\" >&2; i=$((i+1)); done; printf 'x\\033[2J\\n' >&2; exit 1"),
            "noisy",
        )
        .expect("spawn");
        let status = child.wait().await.expect("wait");
        assert_eq!(status.code(), Some(1));
        let tail = child.stderr_tail().await;
        let lines: Vec<&str> = tail.lines().collect();
        assert_eq!(lines.len(), super::super::tail::TAIL_LINES);
        assert_eq!(lines[0], "err 31");
        assert_eq!(lines[lines.len() - 1], "x\u{fffd}[2J");
    }

    #[tokio::test]
    async fn dropping_an_unstopped_child_kills_its_group() {
        let mut child =
            ManagedChild::spawn(&shell("sleep 600 & echo $!; wait"), "dropped").expect("spawn");
        let grandchild: u32 = first_line(&mut child).await.parse().expect("pid");
        let pid = child.id();
        drop(child);
        assert!(gone(pid).await);
        assert!(gone(grandchild).await);
    }
}
