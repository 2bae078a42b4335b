//! The one error shape of a bad environment variable: its name, its value
//! (without control characters, a URL's credentials cut, and cut short when
//! long) and why it is refused, with a hint to set it right or unset it.

use crate::error::{Classify, ErrorKind};

/// The longest value an error repeats, in characters.
const MAX_SHOWN: usize = 200;

#[derive(Debug, thiserror::Error)]
#[error("{variable} `{value}` {problem}")]
pub struct EnvError {
    pub variable: String,
    /// The value as shown: sanitized, redacted where it is a URL, cut.
    pub value: String,
    pub problem: Problem,
}

/// Why a value is refused; its text follows the value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    #[error("is zero: it must be positive")]
    Zero { default_secs: u64 },
    #[error("is not a number of seconds or a duration like `90s`")]
    NotADuration { default_secs: u64 },
    #[error("is not an absolute path")]
    Relative,
    #[error("is not an http(s) URL of a folder")]
    NotAFolderUrl { example: &'static str },
    #[error("is not an http, https or file URL")]
    NotAUrl,
    #[error("is not an http or https URL")]
    NotAnHttpUrl { example: &'static str },
    /// `format` as [`shown`].
    #[error("names `{format}`, which is no archive format oneworks knows")]
    UnknownFormat { format: String, known: String },
}

impl EnvError {
    pub fn new(variable: &str, value: &str, problem: Problem) -> Self {
        Self {
            variable: variable.to_owned(),
            value: shown(value),
            problem,
        }
    }

    /// A URL's value: its credentials and query are not repeated.
    pub fn url(variable: &str, value: &str, problem: Problem) -> Self {
        Self::new(variable, &crate::redact::redact_url(value), problem)
    }
}

/// `value` as an error may repeat it: no control characters, at most
/// `MAX_SHOWN` characters.
pub fn shown(value: &str) -> String {
    let clean = crate::output::sanitize::sanitize_line(value);
    match clean.char_indices().nth(MAX_SHOWN) {
        Some((cut, _)) => format!("{}…", &clean[..cut]),
        None => clean.into_owned(),
    }
}

impl Classify for EnvError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Config
    }

    fn hint(&self) -> Option<String> {
        let instead = match &self.problem {
            Problem::Zero { default_secs } | Problem::NotADuration { default_secs } => {
                format!("whole seconds (`{default_secs}`) or a duration (`2m`)")
            }
            Problem::Relative => "an absolute path".to_owned(),
            Problem::NotAFolderUrl { example } | Problem::NotAnHttpUrl { example } => {
                (*example).to_owned()
            }
            Problem::NotAUrl => "an `http`, `https` or `file` URL".to_owned(),
            Problem::UnknownFormat { known, .. } => format!("a comma-separated list of {known}"),
        };
        Some(format!("set {} to {instead}, or unset it", self.variable))
    }
}
