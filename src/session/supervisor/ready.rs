//! The supervisor's one line to `session start` on its stdout (typed, both
//! ends): `{"ready":true}` once the approvals channel listens, or the error
//! document `--json` commands print (`{"error":{"kind","message","hint"}}`),
//! whose `kind` keeps its exit code across the process boundary.

use serde::Deserialize;

use crate::error::ErrorKind;
use crate::session::SessionError;

#[derive(Debug, Default, Deserialize)]
pub struct ReadyLine {
    #[serde(default)]
    pub ready: bool,
    pub error: Option<ReadyError>,
}

#[derive(Debug, Deserialize)]
pub struct ReadyError {
    pub kind: String,
    pub message: String,
    pub hint: Option<String>,
}

impl ReadyLine {
    /// The line as read (an empty or garbled line is "not ready").
    pub fn parse(line: &str) -> Self {
        serde_json::from_str(line).unwrap_or_default()
    }

    /// `Ok` when ready; else the supervisor's error with its own kind (a
    /// session error when the kind is unknown), `log_hint` when it gave no
    /// hint.
    pub fn into_result(
        self,
        session: &str,
        log_hint: impl FnOnce() -> String,
    ) -> Result<(), SessionError> {
        if self.ready {
            return Ok(());
        }
        let (kind, message, hint) = match self.error {
            Some(error) => (
                ErrorKind::parse(&error.kind).unwrap_or(ErrorKind::Session),
                error.message,
                error.hint,
            ),
            None => (
                ErrorKind::Session,
                "the supervisor did not start".to_owned(),
                None,
            ),
        };
        Err(SessionError::NotStarted {
            session: session.to_owned(),
            kind,
            message,
            hint: hint.unwrap_or_else(log_hint),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Classify;

    #[test]
    fn ready_errors_keep_their_kind() {
        assert!(ReadyLine::parse("{\"ready\":true}\n")
            .into_result("s", String::new)
            .is_ok());
        let line = r#"{"error":{"kind":"lock_timeout","message":"busy","hint":null}}"#;
        let error = ReadyLine::parse(line)
            .into_result("s", || "see the log".to_owned())
            .expect_err("not ready");
        assert_eq!(error.kind(), ErrorKind::LockTimeout);
        assert_eq!(error.hint().as_deref(), Some("see the log"));
        let error = ReadyLine::parse("garbage")
            .into_result("s", String::new)
            .expect_err("garbage");
        assert_eq!(error.kind(), ErrorKind::Session);
        let unknown = r#"{"error":{"kind":"martian","message":"x"}}"#;
        let error = ReadyLine::parse(unknown)
            .into_result("s", String::new)
            .expect_err("unknown");
        assert_eq!(error.kind(), ErrorKind::Session);
    }
}
