//! The one way a test waits: poll a condition until a deadline, and fail
//! naming what never happened (a sleep never stands in for a condition).

use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

/// A deadline for what should happen within seconds on an idle machine,
/// generous for a loaded one (two cores shared by parallel tests).
pub const DEADLINE: Duration = Duration::from_secs(60);

/// How long a poll sleeps between two looks.
const POLL: Duration = Duration::from_millis(10);

/// Polls `check` until it holds; fails the test with "timed out after
/// `deadline` waiting until `what`" when the deadline passes first.
#[track_caller]
pub fn wait_until(what: &str, deadline: Duration, mut check: impl FnMut() -> bool) {
    wait_for(what, deadline, || {
        if check() {
            Ok(())
        } else {
            Err(String::new())
        }
    });
}

/// Polls `look` until it finds a value, and returns it. `look` returns
/// `Err(what it saw)` while the value is not there; the last of these is
/// in the failure when the deadline passes first.
#[track_caller]
pub fn wait_for<T>(what: &str, deadline: Duration, look: impl FnMut() -> Result<T, String>) -> T {
    wait_for_every(POLL, what, deadline, look)
}

/// [`wait_for`], looking every `pace`: for a look that costs (a process
/// per look, such as `tmux capture-pane` beside a real agent).
#[track_caller]
pub fn wait_for_every<T>(
    pace: Duration,
    what: &str,
    deadline: Duration,
    look: impl FnMut() -> Result<T, String>,
) -> T {
    match poll(pace, deadline, look) {
        Ok(found) => found,
        Err(seen) => panic!(
            "timed out after {deadline:?} waiting until {what}{}",
            last_seen(&seen)
        ),
    }
}

/// The one wait for a card: looks every `pace` at the cards `cards` lists
/// (a session's file, `session approvals --json`, serve's API) until one
/// passes `test`, and returns it. The failure shows the last cards seen,
/// then what `context` adds (the pane, the model's requests).
#[track_caller]
pub fn wait_card(
    pace: Duration,
    what: &str,
    deadline: Duration,
    mut cards: impl FnMut() -> Vec<serde_json::Value>,
    test: impl Fn(&serde_json::Value) -> bool,
    context: impl Fn() -> String,
) -> serde_json::Value {
    wait_for_every(pace, &format!("a card {what}"), deadline, || {
        let cards = cards();
        let found = cards.iter().find(|card| test(card)).cloned();
        found.ok_or_else(|| format!("{cards:#?}{}", context()))
    })
}

/// Polls `look` every `pace` until it finds a value; `Err(the last thing
/// it saw)` when `deadline` passes first. The one deadline loop: the
/// waits here are built on it, and a caller that must clean up before it
/// fails (kill a child, say what the model saw) matches on it.
pub fn poll<T>(
    pace: Duration,
    deadline: Duration,
    mut look: impl FnMut() -> Result<T, String>,
) -> Result<T, String> {
    let end = Instant::now() + deadline;
    loop {
        let seen = match look() {
            Ok(found) => return Ok(found),
            Err(seen) => seen,
        };
        if Instant::now() >= end {
            return Err(seen);
        }
        std::thread::sleep(pace);
    }
}

/// Whether `check` comes to hold within `deadline`: for a step with a
/// fallback when it does not (a key pressed again, a retry), never in
/// place of an assertion — what a test must see it waits for with
/// [`wait_until`].
pub fn holds_within(deadline: Duration, mut check: impl FnMut() -> bool) -> bool {
    poll(POLL, deadline, || {
        if check() {
            Ok(())
        } else {
            Err(String::new())
        }
    })
    .is_ok()
}

/// Waits for `child` to exit; when `deadline` passes first, kills and
/// reaps it, then fails naming `what` and what `describe` says.
#[track_caller]
pub fn wait_exit(
    what: &str,
    deadline: Duration,
    child: &mut Child,
    describe: impl FnOnce() -> String,
) -> ExitStatus {
    let exited = poll(POLL, deadline, || {
        child.try_wait().expect("try_wait").ok_or_else(String::new)
    });
    exited.unwrap_or_else(|_| {
        let _ = child.kill();
        let _ = child.wait();
        panic!(
            "timed out after {deadline:?} waiting until {what}{}",
            last_seen(&describe())
        )
    })
}

fn last_seen(seen: &str) -> String {
    if seen.is_empty() {
        String::new()
    } else {
        format!("; last seen:\n{seen}")
    }
}

/// [`wait_until`] inside a tokio runtime: the poll sleeps without blocking
/// the tasks it waits for.
pub async fn wait_until_async(what: &str, deadline: Duration, mut check: impl FnMut() -> bool) {
    wait_for_async(what, deadline, || {
        let held = check();
        async move {
            if held {
                Ok(())
            } else {
                Err(String::new())
            }
        }
    })
    .await;
}

/// [`wait_for`] inside a tokio runtime, for a look that is itself async
/// (a WebDriver call): the poll sleeps without blocking other tasks.
pub async fn wait_for_async<T, Look: std::future::Future<Output = Result<T, String>>>(
    what: &str,
    deadline: Duration,
    mut look: impl FnMut() -> Look,
) -> T {
    let end = Instant::now() + deadline;
    loop {
        let seen = match look().await {
            Ok(found) => return found,
            Err(seen) => seen,
        };
        assert!(
            Instant::now() < end,
            "timed out after {deadline:?} waiting until {what}{}",
            last_seen(&seen)
        );
        tokio::time::sleep(POLL).await;
    }
}
