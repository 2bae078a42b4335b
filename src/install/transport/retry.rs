//! Retrying transient network failures: at most 3 attempts, exponential
//! backoff, a server's `Retry-After` honoured up to 30 s, and one line on
//! stderr per retry saying why.

use std::time::Duration;

use super::network_error::NetworkError;

/// How often and how patiently to retry.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    pub attempts: u32,
    pub base_delay: Duration,
    pub max_delay: Duration,
    /// Print one line on stderr before each retry.
    pub announce: bool,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            attempts: 3,
            base_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(30),
            announce: false,
        }
    }
}

impl RetryPolicy {
    /// The wait before attempt `attempt + 1` (0-based), honouring a server's
    /// `Retry-After` seconds within `max_delay`.
    pub fn delay(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        let backoff = self.base_delay.saturating_mul(1 << attempt.min(10));
        retry_after.unwrap_or(backoff).min(self.max_delay)
    }

    /// Waits before retrying after `error`, saying why unless quiet.
    pub fn pause(&self, attempt: u32, retry_after: Option<Duration>, error: &NetworkError) {
        let delay = self.delay(attempt, retry_after);
        let line = format!(
            "{error}; retrying in {:.1}s (attempt {} of {})",
            delay.as_secs_f64(),
            attempt + 2,
            self.attempts,
        );
        // One line, not a log record as well: the log only sees it with -vv.
        tracing::debug!("{line}");
        if self.announce {
            crate::output::human(&line);
        }
        std::thread::sleep(delay);
    }

    /// Runs `operation` until it succeeds, fails for good, or runs out of
    /// attempts. `operation` returns an optional `Retry-After` with errors.
    pub fn run<T>(
        &self,
        mut operation: impl FnMut() -> Result<T, (NetworkError, Option<Duration>)>,
    ) -> Result<T, NetworkError> {
        let mut attempt = 0;
        loop {
            match operation() {
                Ok(value) => return Ok(value),
                Err((error, retry_after))
                    if error.is_transient() && attempt + 1 < self.attempts =>
                {
                    self.pause(attempt, retry_after, &error);
                    attempt += 1;
                }
                Err((error, _)) => return Err(error),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_honours_retry_after() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.attempts, 3);
        assert_eq!(policy.delay(0, None), Duration::from_secs(1));
        assert_eq!(policy.delay(1, None), Duration::from_secs(2));
        assert_eq!(
            policy.delay(0, Some(Duration::from_secs(3))),
            Duration::from_secs(3)
        );
        assert_eq!(
            policy.delay(0, Some(Duration::from_secs(3600))),
            policy.max_delay
        );
    }

    #[test]
    fn only_transient_failures_are_retried() {
        let policy = RetryPolicy {
            attempts: 3,
            base_delay: Duration::ZERO,
            max_delay: Duration::ZERO,
            announce: false,
        };
        let mut calls = 0;
        let result: Result<(), _> = policy.run(|| {
            calls += 1;
            Err((
                NetworkError::Status {
                    url: "u".into(),
                    status: 503,
                },
                None,
            ))
        });
        assert!(result.is_err());
        assert_eq!(calls, 3);
        let mut calls = 0;
        let result: Result<(), _> = policy.run(|| {
            calls += 1;
            Err((
                NetworkError::Status {
                    url: "u".into(),
                    status: 404,
                },
                None,
            ))
        });
        assert!(result.is_err());
        assert_eq!(calls, 1);
    }

    #[test]
    fn a_dead_or_stalled_server_fails_within_two_minutes_by_default() {
        let policy = RetryPolicy::default();
        let idle = crate::install::transport::fetcher::DEFAULT_IDLE_TIMEOUT;
        assert_eq!(idle, Duration::from_secs(30));
        // Every attempt may wait the idle timeout once (connect, headers or
        // a body read), and the backoff runs between attempts.
        let waits: Duration = (0..policy.attempts - 1)
            .map(|attempt| policy.delay(attempt, None))
            .sum();
        let worst = idle * policy.attempts + waits;
        assert_eq!(worst, Duration::from_secs(93));
        assert!(worst <= Duration::from_secs(120));
    }
}
