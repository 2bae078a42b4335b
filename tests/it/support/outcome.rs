//! What a finished `oneworks` run left ([`Outcome`]): its exit code and
//! output, with the assertions on them (an exit code, a `--json` error, a
//! text on a stream). Each assertion prints the whole outcome when it
//! fails.

use serde_json::Value;

/// What a finished `oneworks` run left.
#[derive(Debug)]
pub struct Outcome {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Outcome {
    pub fn describe(&self) -> String {
        format!(
            "exit code {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.code, self.stdout, self.stderr
        )
    }

    #[track_caller]
    pub fn assert_code(&self, code: i32) -> &Outcome {
        assert_eq!(
            self.code,
            Some(code),
            "expected exit code {code}\n{}",
            self.describe()
        );
        self
    }

    #[track_caller]
    pub fn assert_success(&self) -> &Outcome {
        self.assert_code(0)
    }

    /// It failed, with whatever exit code (a signal included).
    #[track_caller]
    pub fn assert_failure(&self) -> &Outcome {
        assert_ne!(
            self.code,
            Some(0),
            "expected a failure\n{}",
            self.describe()
        );
        self
    }

    /// stdout as one JSON document.
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_str(self.stdout.trim()).unwrap_or_else(|error| {
            panic!(
                "stdout is not one JSON document ({error})\n{}",
                self.describe()
            )
        })
    }

    /// Asserts a `--json` failure: exit `code`, `{"error":{"kind":KIND,…}}`
    /// on stdout with a non-empty message; returns the message.
    #[track_caller]
    pub fn assert_error(&self, code: i32, kind: &str) -> String {
        self.assert_code(code);
        let document = self.json();
        let error = document
            .get("error")
            .unwrap_or_else(|| panic!("no `error` object\n{}", self.describe()));
        assert_eq!(
            error.get("kind").and_then(Value::as_str),
            Some(kind),
            "error kind\n{}",
            self.describe()
        );
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("error without a message\n{}", self.describe()));
        assert!(
            !message.trim().is_empty(),
            "empty error message\n{}",
            self.describe()
        );
        assert!(
            !self.stderr.trim().is_empty(),
            "a --json failure also prints the human message on stderr\n{}",
            self.describe()
        );
        message.to_owned()
    }

    /// The error message and hint plus stderr, for checks on fragments
    /// that may be in either.
    pub fn all_text(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }

    #[track_caller]
    fn assert_holds(&self, stream: &str, text: &str, needle: &str, wanted: bool) -> &Outcome {
        let verb = if wanted { "does not hold" } else { "holds" };
        assert_eq!(
            text.contains(needle),
            wanted,
            "{stream} {verb} {needle:?}\n{}",
            self.describe()
        );
        self
    }

    /// Stdout holds `needle`.
    #[track_caller]
    pub fn assert_stdout_contains(&self, needle: impl AsRef<str>) -> &Outcome {
        self.assert_holds("stdout", &self.stdout, needle.as_ref(), true)
    }

    /// Stdout does not hold `needle`.
    #[track_caller]
    pub fn assert_stdout_lacks(&self, needle: impl AsRef<str>) -> &Outcome {
        self.assert_holds("stdout", &self.stdout, needle.as_ref(), false)
    }

    /// Stderr holds `needle`.
    #[track_caller]
    pub fn assert_stderr_contains(&self, needle: impl AsRef<str>) -> &Outcome {
        self.assert_holds("stderr", &self.stderr, needle.as_ref(), true)
    }

    /// Stderr does not hold `needle`.
    #[track_caller]
    pub fn assert_stderr_lacks(&self, needle: impl AsRef<str>) -> &Outcome {
        self.assert_holds("stderr", &self.stderr, needle.as_ref(), false)
    }

    /// Stdout or stderr holds `needle` ([`all_text`](Self::all_text)).
    #[track_caller]
    pub fn assert_text_contains(&self, needle: impl AsRef<str>) -> &Outcome {
        self.assert_holds("the output", &self.all_text(), needle.as_ref(), true)
    }

    /// Neither stdout nor stderr holds `needle` (a secret, a panic).
    #[track_caller]
    pub fn assert_text_lacks(&self, needle: impl AsRef<str>) -> &Outcome {
        self.assert_holds("the output", &self.all_text(), needle.as_ref(), false)
    }
}
