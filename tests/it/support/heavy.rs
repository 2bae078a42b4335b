//! The real agents are heavy (a Node process of 200+ MB each, seconds of
//! CPU to start, on a 2-core machine): at most [`AT_ONCE`] of their tests
//! run together, whatever the number of test threads, and a measurement
//! runs alone. Before, one at a time: the second test thread sat blocked
//! behind the first whenever two real-agent tests came up together, and
//! the integration run was the sum of every real agent's test. Under
//! cargo-nextest (the README's test command) each test is a process of its
//! own and this count does not reach across them: the `real-agents` test
//! group of `.config/nextest.toml` keeps the same limit there.

use std::sync::{Condvar, Mutex, PoisonError};

/// How many real-agent tests may run at once.
pub const AT_ONCE: usize = 2;

static TAKEN: Mutex<usize> = Mutex::new(0);
static FREED: Condvar = Condvar::new();

/// Held while a real agent's test runs; gives its share back on drop.
#[must_use = "the share is given back when this is dropped"]
pub struct Share(usize);

/// One of the [`AT_ONCE`] shares: for a real agent's test.
pub fn share() -> Share {
    take(1)
}

/// Every share: for a measurement, which must run alone.
pub fn alone() -> Share {
    take(AT_ONCE)
}

fn take(count: usize) -> Share {
    let mut taken = TAKEN.lock().unwrap_or_else(PoisonError::into_inner);
    while *taken + count > AT_ONCE {
        taken = FREED.wait(taken).unwrap_or_else(PoisonError::into_inner);
    }
    *taken += count;
    Share(count)
}

impl Drop for Share {
    fn drop(&mut self) {
        let mut taken = TAKEN.lock().unwrap_or_else(PoisonError::into_inner);
        *taken -= self.0;
        FREED.notify_all();
    }
}
