//! Every `ONEWORKS_*` setting read from the environment, parsed here and
//! nowhere else (the shape of uv's `EnvironmentOptions`): each is read when
//! a command asks for it — a command reads only what it uses — and a bad
//! value is one error naming the variable, its value and why, whichever
//! command read it.
//!
//! Paths (`ONEWORKS_HOME`, `ONEWORKS_CONFIG`, …) are [`crate::locations`]'s.

use std::time::Duration;

use crate::error::{Error, ErrorKind};
use crate::locations::Environment;

/// The idle timeout of one HTTP read (downloads, the webhook).
pub const DEFAULT_HTTP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long to wait for another process's install lock.
pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(1800);
/// The deadline of each ACP handshake step.
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(60);
/// Where managed Node.js releases come from.
pub const DEFAULT_NODE_MIRROR: &str = "https://nodejs.org/dist/";

/// The `ONEWORKS_*` settings of one environment.
#[derive(Debug, Clone, Copy)]
pub struct EnvOptions<'a> {
    env: &'a Environment,
}

/// A timeout variable: may it be 0?
#[derive(Clone, Copy, PartialEq, Eq)]
enum Zero {
    Allowed,
    Refused,
}

impl<'a> EnvOptions<'a> {
    pub fn new(env: &'a Environment) -> Self {
        Self { env }
    }

    /// `ONEWORKS_HTTP_TIMEOUT`: the idle timeout of one HTTP read.
    pub fn http_timeout(&self) -> Result<Duration, Error> {
        self.duration("ONEWORKS_HTTP_TIMEOUT", DEFAULT_HTTP_TIMEOUT, Zero::Refused)
    }

    /// `ONEWORKS_LOCK_TIMEOUT`: how long to wait for an install lock (0:
    /// do not wait).
    pub fn lock_timeout(&self) -> Result<Duration, Error> {
        self.duration("ONEWORKS_LOCK_TIMEOUT", DEFAULT_LOCK_TIMEOUT, Zero::Allowed)
    }

    /// `ONEWORKS_HANDSHAKE_TIMEOUT`: the deadline of each handshake step.
    pub fn handshake_timeout(&self) -> Result<Duration, Error> {
        self.duration(
            "ONEWORKS_HANDSHAKE_TIMEOUT",
            DEFAULT_HANDSHAKE_TIMEOUT,
            Zero::Refused,
        )
    }

    /// `ONEWORKS_NODE_MIRROR`: a folder laid out like
    /// https://nodejs.org/dist/, as a URL ending in `/`.
    pub fn node_mirror(&self) -> Result<url::Url, Error> {
        const NAME: &str = "ONEWORKS_NODE_MIRROR";
        let text = self.env.get(NAME).unwrap_or(DEFAULT_NODE_MIRROR);
        let with_slash = if text.ends_with('/') {
            text.to_owned()
        } else {
            format!("{text}/")
        };
        url::Url::parse(&with_slash)
            .ok()
            .filter(|url| matches!(url.scheme(), "http" | "https") && url.query().is_none())
            .ok_or_else(|| {
                bad(
                    NAME,
                    &crate::redact::redact_url(text),
                    "is not an http(s) URL of a folder",
                    "a mirror of https://nodejs.org/dist/ (e.g. `https://mirror.example/node/`)",
                )
            })
    }

    /// `ONEWORKS_TEST_BACKOFF_MS` (tests only, undocumented for users):
    /// replaces every retry wait so failure tests do not sit through real
    /// delays. Not a number: ignored (it is no user's setting).
    pub fn test_backoff(&self) -> Option<Duration> {
        self.env
            .get("ONEWORKS_TEST_BACKOFF_MS")
            .and_then(|text| text.parse::<u64>().ok())
            .map(Duration::from_millis)
    }

    /// `ONEWORKS_TEST_OPEN_FILE_MS` (tests only, undocumented for users):
    /// how long `session serve --open`'s file waits for its page, so a test
    /// sees it expire without sitting through the minute. Not a number:
    /// ignored (it is no user's setting).
    pub fn test_open_file_lifetime(&self) -> Option<Duration> {
        self.env
            .get("ONEWORKS_TEST_OPEN_FILE_MS")
            .and_then(|text| text.parse::<u64>().ok())
            .map(Duration::from_millis)
    }

    /// Whole seconds (`90`) or a duration (`90s`, `2m`); unset: `default`.
    fn duration(&self, name: &str, default: Duration, zero: Zero) -> Result<Duration, Error> {
        let Some(text) = self.env.get(name) else {
            return Ok(default);
        };
        let parsed = text
            .trim()
            .parse::<u64>()
            .map(Duration::from_secs)
            .or_else(|_| humantime::parse_duration(text.trim()));
        let example = format!(
            "whole seconds (`{}`) or a duration (`2m`)",
            default.as_secs()
        );
        match parsed {
            Ok(value) if value.is_zero() && zero == Zero::Refused => {
                Err(bad(name, text, "is zero: it must be positive", &example))
            }
            Ok(value) => Ok(value),
            Err(_) => Err(bad(
                name,
                text,
                "is not a number of seconds or a duration like `90s`",
                &example,
            )),
        }
    }
}

/// `NAME `value` why`, with the hint to fix or unset it.
fn bad(name: &str, value: &str, why: &str, instead: &str) -> Error {
    Error::msg(
        ErrorKind::Config,
        format!(
            "{name} `{}` {why}",
            crate::output::sanitize::sanitize_line(value)
        ),
    )
    .with_hint(format!("set {name} to {instead}, or unset it"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(name: &str, value: &str) -> Environment {
        Environment::from_pairs([(name, value)])
    }

    #[test]
    fn durations_are_seconds_or_humantime_and_unset_is_the_default() {
        let none = Environment::default();
        let options = EnvOptions::new(&none);
        assert_eq!(options.http_timeout().unwrap(), DEFAULT_HTTP_TIMEOUT);
        assert_eq!(options.lock_timeout().unwrap(), DEFAULT_LOCK_TIMEOUT);
        let env = with("ONEWORKS_HTTP_TIMEOUT", "90");
        assert_eq!(
            EnvOptions::new(&env).http_timeout().unwrap(),
            Duration::from_secs(90)
        );
        let env = with("ONEWORKS_HANDSHAKE_TIMEOUT", "2m");
        assert_eq!(
            EnvOptions::new(&env).handshake_timeout().unwrap(),
            Duration::from_secs(120)
        );
        let env = with("ONEWORKS_LOCK_TIMEOUT", "0");
        assert_eq!(
            EnvOptions::new(&env).lock_timeout().unwrap(),
            Duration::ZERO
        );
    }

    #[test]
    fn a_bad_value_names_the_variable_its_value_and_why() {
        for (value, why) in [
            ("0", "is zero"),
            ("soon", "is not a number"),
            ("-5", "is not a number"),
        ] {
            let env = with("ONEWORKS_HTTP_TIMEOUT", value);
            let error = EnvOptions::new(&env).http_timeout().unwrap_err();
            let text = error.message();
            assert!(text.contains("ONEWORKS_HTTP_TIMEOUT"), "{text}");
            assert!(text.contains(&format!("`{value}`")), "{text}");
            assert!(text.contains(why), "{text}");
            assert_eq!(error.kind(), ErrorKind::Config);
        }
        let env = with("ONEWORKS_NODE_MIRROR", "ftp://mirror/");
        let text = EnvOptions::new(&env).node_mirror().unwrap_err().message();
        assert!(
            text.contains("ONEWORKS_NODE_MIRROR `ftp://mirror/`"),
            "{text}"
        );
    }
}
