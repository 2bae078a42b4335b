//! The one way a test waits: poll a condition until a deadline, and fail
//! naming what never happened (a sleep never stands in for a condition).

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
    mut look: impl FnMut() -> Result<T, String>,
) -> T {
    let end = Instant::now() + deadline;
    loop {
        let seen = match look() {
            Ok(found) => return found,
            Err(seen) => seen,
        };
        if Instant::now() >= end {
            let seen = if seen.is_empty() {
                String::new()
            } else {
                format!("; last seen:\n{seen}")
            };
            panic!("timed out after {deadline:?} waiting until {what}{seen}");
        }
        std::thread::sleep(pace);
    }
}

/// [`wait_until`] inside a tokio runtime: the poll sleeps without blocking
/// the tasks it waits for.
pub async fn wait_until_async(what: &str, deadline: Duration, mut check: impl FnMut() -> bool) {
    let end = Instant::now() + deadline;
    while !check() {
        assert!(
            Instant::now() < end,
            "timed out after {deadline:?} waiting until {what}"
        );
        tokio::time::sleep(POLL).await;
    }
}
