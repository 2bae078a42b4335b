//! When the pane watcher looks at the pane (a supervised
//! session idles at ≤ 0.1 % of a core).
//!
//! Looking costs a `tmux capture-pane -e` spawn and a parse of the whole
//! pane; doing it at a fixed pace (every `pollMs`) cost 0.5–2 % of a core
//! while nothing happened. tmux has no cheap change probe (no content
//! hash; `history_size` and the cursor do not move for a redraw in
//! place), so the watcher asks tmux itself: one long-lived control-mode
//! client (`tmux -C attach-session -r -f ignore-size`) on the private
//! server, whose `%output` notifications say the pane changed. The pane
//! is looked at only after a change, coalesced ([`Pacing`]): at once after
//! a quiet, at most every [`COALESCE`] while output flows, once more
//! [`QUIET`] after it stops, and every [`SAFETY_LOOK`] regardless.
//!
//! Fail safe: a control client that cannot start or ends (an old tmux, a
//! killed client) leaves the watcher polling at `pollMs` as before (the
//! caller logs it once).

use std::future::Future;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::time::Instant;

use super::tmux::{Tmux, SESSION};

/// The shortest gap between two looks while output flows: a streaming
/// agent costs at most ten captures a second, and a box drawn during a
/// flood is still read within its 300 ms bound. Generic: it
/// is about the capture's cost, not any agent.
pub const COALESCE: Duration = Duration::from_millis(100);

/// One more look this long after the last output: the state the pane
/// settled in is read even if the last `%output` and the capture crossed.
pub const QUIET: Duration = Duration::from_millis(100);

/// A look even without any notification: a bound on what a missed one
/// could cost, cheap enough to keep (one capture per 10 s is ~0.01 % of a
/// core).
pub const SAFETY_LOOK: Duration = Duration::from_secs(10);

/// The pure timing of the looks, apart from tmux and the clock.
#[derive(Debug, Clone)]
pub struct Pacing {
    last_look: Option<Instant>,
    /// Output arrived since the last look.
    pending: bool,
    /// The last look followed output: one more after [`QUIET`].
    trailing: bool,
}

impl Default for Pacing {
    /// The first look is due at once.
    fn default() -> Self {
        Pacing {
            last_look: None,
            pending: false,
            trailing: false,
        }
    }
}

impl Pacing {
    /// The pane changed.
    pub fn changed(&mut self) {
        self.pending = true;
    }

    /// When the next look is due (`None`: now).
    pub fn due(&self) -> Option<Instant> {
        let last = self.last_look?;
        Some(if self.pending {
            last + COALESCE
        } else if self.trailing {
            last + QUIET
        } else {
            last + SAFETY_LOOK
        })
    }

    /// The pane was looked at, at `now`.
    pub fn looked(&mut self, now: Instant) {
        self.trailing = std::mem::take(&mut self.pending);
        self.last_look = Some(now);
    }
}

/// Something that tells when the pane changed.
pub trait Changes {
    /// Waits for the next change; `false` once no more will come.
    /// Cancel-safe (it is raced against the clock).
    fn changed(&mut self) -> impl Future<Output = bool> + Send;
}

/// The control-mode client: its `stdin` is held open (tmux ends a control
/// client at end of input), its `stdout` read only to learn that
/// something happened. Killed when dropped.
pub struct Control {
    _child: Child,
    _stdin: ChildStdin,
    stdout: ChildStdout,
    buffer: Box<[u8]>,
}

impl Control {
    /// Attaches read-only, without a say in the window's size, to the
    /// session on `tmux`'s private server.
    pub fn attach(tmux: &Tmux) -> std::io::Result<Control> {
        let mut command = tokio::process::Command::new(&tmux.program);
        command
            .arg("-S")
            .arg(&tmux.socket)
            .args(["-f", "/dev/null", "-u", "-C", "attach-session", "-r"])
            .args(["-f", "ignore-size", "-t", SESSION])
            .env_clear()
            .envs(&tmux.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        let mut child = command.spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(std::io::Error::other("the control client has no pipes"));
        };
        Ok(Control {
            _child: child,
            _stdin: stdin,
            stdout,
            buffer: vec![0; 64 * 1024].into_boxed_slice(),
        })
    }
}

impl Changes for Control {
    async fn changed(&mut self) -> bool {
        // Any notification counts (`%output`, a layout or title change);
        // a flood is read in big chunks and costs one wake each.
        matches!(self.stdout.read(&mut self.buffer).await, Ok(count) if count > 0)
    }
}

/// Why the watcher looks now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookReason {
    /// The pane changed (or the first look, or a trailing or safety one).
    Due,
    /// The change source ended just now: from here on, polling.
    SourceEnded,
    /// Polling (no change source).
    Poll,
}

/// Paces the watcher's looks from a change source, or polls at `every`
/// without one.
pub struct Pace<C> {
    source: Option<C>,
    pacing: Pacing,
    poll: tokio::time::Interval,
}

impl<C: Changes> Pace<C> {
    pub fn new(source: Option<C>, every: Duration) -> Pace<C> {
        let mut poll = tokio::time::interval(every);
        poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        Pace {
            source,
            pacing: Pacing::default(),
            poll,
        }
    }

    pub fn is_event_driven(&self) -> bool {
        self.source.is_some()
    }

    /// Waits until the pane is to be looked at.
    pub async fn next(&mut self) -> LookReason {
        loop {
            let Some(source) = &mut self.source else {
                self.poll.tick().await;
                return LookReason::Poll;
            };
            let due = self.pacing.due().unwrap_or_else(Instant::now);
            tokio::select! {
                // The clock first: a flood keeps the source always ready.
                biased;
                () = tokio::time::sleep_until(due) => {
                    self.pacing.looked(Instant::now());
                    return LookReason::Due;
                }
                alive = source.changed() => {
                    if alive {
                        self.pacing.changed();
                    } else {
                        self.source = None;
                        self.poll.reset();
                        return LookReason::SourceEnded;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "tmux_control_tests.rs"]
mod tests;
