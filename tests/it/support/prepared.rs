//! Reading the `adapter prepare --json` success document: its
//! shape checked ([`assert_prepared`]), whether it was reused, its path.

use std::path::PathBuf;

use serde_json::Value;

use super::Outcome;

/// The `prepare --json` success document, checked for its documented shape.
#[track_caller]
pub fn assert_prepared(outcome: &Outcome, source: &str, version: &str) -> Value {
    outcome.assert_success();
    let document = outcome.json();
    let text = |field: &str| {
        document
            .get(field)
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("`{field}` missing or not a string\n{}", outcome.describe()))
            .to_owned()
    };
    assert_eq!(text("adapter"), "kiro", "{}", outcome.describe());
    assert_eq!(text("source"), source, "{}", outcome.describe());
    assert_eq!(text("version"), version, "{}", outcome.describe());
    let path = PathBuf::from(text("path"));
    assert!(
        path.is_absolute(),
        "path must be absolute\n{}",
        outcome.describe()
    );
    assert!(
        document.get("reused").and_then(Value::as_bool).is_some(),
        "`reused` missing or not a boolean\n{}",
        outcome.describe()
    );
    if source == "managed" {
        let sha = text("sha256");
        assert!(
            sha.len() == 64 && sha.chars().all(|c| c.is_ascii_hexdigit()),
            "sha256 must be 64 hex digits\n{}",
            outcome.describe()
        );
    } else {
        assert!(
            document.get("sha256").is_none_or(Value::is_null),
            "sha256 is for managed installs only\n{}",
            outcome.describe()
        );
    }
    document
}

pub fn reused(document: &Value) -> bool {
    document
        .get("reused")
        .and_then(Value::as_bool)
        .expect("reused")
}

pub fn path_of(document: &Value) -> PathBuf {
    PathBuf::from(document.get("path").and_then(Value::as_str).expect("path"))
}
