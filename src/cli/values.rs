//! The argument parsers clap calls for values that need checking: each
//! refusal a [`ValueError`].

use super::AdapterName;

/// A value the argument parsers refuse (clap prints it after the value).
#[derive(Debug, thiserror::Error)]
pub enum ValueError {
    #[error("an adapter name is lower-case letters, digits and `-`, starting with a letter (built in: {})",
        crate::adapter::registry::Registry::builtin().names().join(", "))]
    AdapterName,
    #[error(transparent)]
    Duration(#[from] humantime::DurationError),
    #[error("a timeout is at most 100 years")]
    TimeoutTooLong,
    #[error("a kept session is kept at most 7 days")]
    KeepTooLong,
}

pub(super) fn parse_adapter_name(text: &str) -> Result<AdapterName, ValueError> {
    crate::adapter::registry::valid_name(text)
        .then(|| AdapterName(text.to_owned()))
        .ok_or(ValueError::AdapterName)
}

/// The longest `--timeout`: beyond it a deadline no longer fits a clock.
const MAX_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(100 * 365 * 24 * 3600);

/// `--timeout`: a duration (`90s`, `10m`) of at most 100 years; clap echoes
/// the value as written when it is refused, and so do our messages.
pub fn parse_timeout(text: &str) -> Result<crate::acp::RunTimeout, ValueError> {
    let timeout = humantime::parse_duration(text)?;
    if timeout > MAX_TIMEOUT {
        return Err(ValueError::TimeoutTooLong);
    }
    Ok(crate::acp::RunTimeout {
        limit: timeout,
        written: text.to_owned(),
    })
}

/// The longest `--keep`: an idle agent kept longer is forgotten, not kept.
const MAX_KEEP: std::time::Duration = std::time::Duration::from_secs(7 * 24 * 3600);

/// `--keep`: how long a kept session's agent stays idle (`0`: not kept).
pub(super) fn parse_keep(text: &str) -> Result<std::time::Duration, ValueError> {
    let keep = if text == "0" {
        std::time::Duration::ZERO
    } else {
        humantime::parse_duration(text)?
    };
    if keep > MAX_KEEP {
        return Err(ValueError::KeepTooLong);
    }
    Ok(keep)
}
