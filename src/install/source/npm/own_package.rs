//! The tarball's own `package.json`: it must name the
//! package and the version it is installed as, so what an install is filed
//! under is what the artifact itself says — never only what a document or
//! a lock file claims. Checked in the staging folder, after the integrity
//! and before anything is published.

use std::path::Path;

use crate::install::error::{Authority, InstallError};

/// The largest `package.json` read (a real one is a few KiB).
const MAX_MANIFEST_BYTES: u64 = 1024 * 1024;

/// Checks that `folder/package.json` names `name` and `version`.
pub(super) fn check(folder: &Path, name: &str, version: &str) -> Result<(), InstallError> {
    let disagrees = |field: &'static str, expected: &str, found: String| InstallError::Disagrees {
        subject: format!("the tarball of `{name}` {version}"),
        authority: Authority::OwnPackage,
        field,
        expected: expected.to_owned(),
        found,
    };
    let manifest = read(folder);
    let found_name = manifest
        .as_ref()
        .and_then(|manifest| manifest["name"].as_str())
        .map(str::to_owned);
    if found_name.as_deref() != Some(name) {
        return Err(disagrees(
            "name",
            name,
            shown(manifest.is_some(), found_name),
        ));
    }
    let found_version = manifest
        .as_ref()
        .and_then(|manifest| manifest["version"].as_str())
        .map(str::to_owned);
    let same = found_version
        .as_deref()
        .and_then(|found| semver::Version::parse(found.trim_start_matches('v')).ok())
        .zip(semver::Version::parse(version).ok())
        .is_some_and(|(found, wanted)| found == wanted);
    if !same {
        return Err(disagrees(
            "version",
            version,
            shown(manifest.is_some(), found_version),
        ));
    }
    Ok(())
}

/// The folder's `package.json` as JSON: `None` when it is missing, not a
/// regular file, too large or not JSON.
fn read(folder: &Path) -> Option<serde_json::Value> {
    let bytes = crate::fs_safety::read_regular_file(
        &folder.join("package.json"),
        MAX_MANIFEST_BYTES,
        false,
    )
    .ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// A found value for the message: the value, or why there is none.
fn shown(readable: bool, found: Option<String>) -> String {
    match (readable, found) {
        (_, Some(found)) => found,
        (true, None) => "(no such string field)".to_owned(),
        (false, None) => "(no readable package.json)".to_owned(),
    }
}
