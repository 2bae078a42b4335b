//! Which npm registry to ask (SPEC §11.2): `ONEWORKS_NPM_REGISTRY`, else
//! npm's own `npm_config_registry` (either case), else the `registry=` line
//! of the user's `.npmrc` (`NPM_CONFIG_USERCONFIG` relocates it; a scoped
//! `@scope:registry=` line wins for a scoped package, as in npm), else the
//! public registry. The user's file is read safely: a regular file of
//! bounded size, never a FIFO or a device.

use std::path::{Path, PathBuf};

use url::Url;

use crate::error::{Classify, ErrorKind};
use crate::output::sanitize::sanitize_line;

/// npm's public registry.
pub const PUBLIC_REGISTRY: &str = "https://registry.npmjs.org/";

/// A larger `.npmrc` is refused (a real one is a few hundred bytes).
const MAX_NPMRC_BYTES: u64 = 256 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum NpmRegistryError {
    #[error("the npm registry `{}` (from {origin}) is not an http or https URL", sanitize_line(.url))]
    Url { url: String, origin: String },
    #[error("refusing to read the npm config `{path}`: {reason}")]
    Npmrc { path: PathBuf, reason: String },
}

impl Classify for NpmRegistryError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Config
    }
    fn hint(&self) -> Option<String> {
        Some(match self {
            NpmRegistryError::Url { origin, .. } => {
                format!("set {origin} to the registry's URL, like `{PUBLIC_REGISTRY}`")
            }
            NpmRegistryError::Npmrc { .. } => "make it a small regular file, or point NPM_CONFIG_USERCONFIG at one (or set ONEWORKS_NPM_REGISTRY)".to_owned(),
        })
    }
}

/// The registry to ask for `package`, from the environment (`get`) and the
/// user's home folder.
pub fn resolve(
    get: &dyn Fn(&str) -> Option<String>,
    home: Option<&Path>,
    package: &str,
) -> Result<Url, NpmRegistryError> {
    let from_env = [
        "ONEWORKS_NPM_REGISTRY",
        "npm_config_registry",
        "NPM_CONFIG_REGISTRY",
    ]
    .into_iter()
    .find_map(|name| {
        get(name)
            .filter(|value| !value.trim().is_empty())
            .map(|value| (value, name.to_owned()))
    });
    let (text, origin) = match from_env {
        Some(found) => found,
        None => match npmrc_registry(get, home, package)? {
            Some(found) => found,
            None => (PUBLIC_REGISTRY.to_owned(), "npm's default".to_owned()),
        },
    };
    parse_registry(text.trim(), origin)
}

fn parse_registry(text: &str, origin: String) -> Result<Url, NpmRegistryError> {
    // A trailing `/` makes the package name join below the registry path
    // (mirrors often live under one: `https://host/api/npm/npm/`).
    let with_slash = if text.ends_with('/') {
        text.to_owned()
    } else {
        format!("{text}/")
    };
    match Url::parse(&with_slash) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.host().is_some() => Ok(url),
        _ => Err(NpmRegistryError::Url {
            url: crate::redact::redact_url(text),
            origin,
        }),
    }
}

/// The user's npm config file: `NPM_CONFIG_USERCONFIG` (either case), else
/// `~/.npmrc`.
fn npmrc_path(get: &dyn Fn(&str) -> Option<String>, home: Option<&Path>) -> Option<PathBuf> {
    ["NPM_CONFIG_USERCONFIG", "npm_config_userconfig"]
        .into_iter()
        .find_map(|name| get(name).filter(|value| !value.is_empty()))
        .map(PathBuf::from)
        .or_else(|| home.map(|home| home.join(".npmrc")))
}

/// The registry the user's `.npmrc` names for `package`, with where it came
/// from; `None` when there is no file or no such line.
fn npmrc_registry(
    get: &dyn Fn(&str) -> Option<String>,
    home: Option<&Path>,
    package: &str,
) -> Result<Option<(String, String)>, NpmRegistryError> {
    use crate::fs_safety::{read_regular_file, ReadRefusal};
    let Some(path) = npmrc_path(get, home) else {
        return Ok(None);
    };
    let refused = |reason: String| NpmRegistryError::Npmrc {
        path: path.clone(),
        reason,
    };
    // The user's own file: a dotfile manager's symlink is followed.
    let bytes = match read_regular_file(&path, MAX_NPMRC_BYTES, true) {
        Ok(bytes) => bytes,
        Err(ReadRefusal::Missing | ReadRefusal::Symlink) => return Ok(None),
        Err(ReadRefusal::NotRegular(found)) => {
            return Err(refused(format!("it is a {found}, not a regular file")))
        }
        Err(ReadRefusal::TooLarge) => {
            return Err(refused(format!(
                "it is larger than {MAX_NPMRC_BYTES} bytes"
            )))
        }
        Err(ReadRefusal::Io(error)) => return Err(refused(error.to_string())),
    };
    let text = String::from_utf8_lossy(&bytes);
    let scope_key = package
        .strip_prefix('@')
        .and_then(|rest| rest.split_once('/'))
        .map(|(scope, _)| format!("@{scope}:registry"));
    let value = |key: &str| registry_line(&text, key).map(|value| expand(&value, get));
    let origin = |key: &str| format!("`{key}` in `{}`", path.display());
    if let Some(scope_key) = scope_key {
        if let Some(found) = value(&scope_key) {
            return Ok(Some((found, origin(&scope_key))));
        }
    }
    Ok(value("registry").map(|found| (found, origin("registry"))))
}

/// The last `key = value` line for `key` (npm's ini: the last one wins),
/// without quotes; `;` and `#` start comments.
fn registry_line(text: &str, key: &str) -> Option<String> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.starts_with(';') && !line.starts_with('#'))
        .filter_map(|line| line.split_once('='))
        .filter(|(name, _)| name.trim() == key)
        .map(|(_, value)| {
            let value = value.trim();
            value
                .strip_prefix('"')
                .and_then(|inner| inner.strip_suffix('"'))
                .unwrap_or(value)
                .to_owned()
        })
        .next_back()
}

/// npm expands `${VAR}` in `.npmrc` values; an unset one becomes empty.
fn expand(value: &str, get: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        match rest[start + 2..].find('}') {
            Some(end) => {
                let name = &rest[start + 2..start + 2 + end];
                out.push_str(&get(name).unwrap_or_default());
                rest = &rest[start + 2 + end + 1..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn resolve_with(vars: &[(&str, &str)], home: Option<&Path>, package: &str) -> String {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect();
        resolve(&|name| vars.get(name).cloned(), home, package)
            .expect("registry")
            .to_string()
    }

    #[test]
    fn the_order_is_oneworks_then_npm_env_then_npmrc_then_public() {
        let home = tempfile::tempdir().expect("tempdir");
        assert_eq!(resolve_with(&[], Some(home.path()), "pkg"), PUBLIC_REGISTRY);
        fs_err::write(
            home.path().join(".npmrc"),
            "; comment\nregistry = \"http://rc.test/npm\"\n",
        )
        .expect("write");
        assert_eq!(
            resolve_with(&[], Some(home.path()), "pkg"),
            "http://rc.test/npm/"
        );
        assert_eq!(
            resolve_with(
                &[("NPM_CONFIG_REGISTRY", "http://upper.test")],
                Some(home.path()),
                "pkg"
            ),
            "http://upper.test/"
        );
        assert_eq!(
            resolve_with(
                &[
                    ("npm_config_registry", "http://lower.test/"),
                    ("NPM_CONFIG_REGISTRY", "http://upper.test")
                ],
                Some(home.path()),
                "pkg"
            ),
            "http://lower.test/"
        );
        assert_eq!(
            resolve_with(
                &[
                    ("ONEWORKS_NPM_REGISTRY", "http://ours.test/x"),
                    ("npm_config_registry", "http://lower.test/")
                ],
                Some(home.path()),
                "pkg"
            ),
            "http://ours.test/x/"
        );
    }

    #[test]
    fn npmrc_userconfig_scopes_and_variables() {
        let temp = tempfile::tempdir().expect("tempdir");
        let rc = temp.path().join("elsewhere.npmrc");
        fs_err::write(
            &rc,
            "registry=http://first.test/\nregistry=http://${MIRROR_HOST}/npm/\n@google:registry=http://scoped.test/\n",
        )
        .expect("write");
        let vars = [
            ("NPM_CONFIG_USERCONFIG", rc.to_str().expect("utf-8")),
            ("MIRROR_HOST", "mirror.test"),
        ];
        assert_eq!(
            resolve_with(&vars, None, "plain"),
            "http://mirror.test/npm/"
        );
        assert_eq!(
            resolve_with(&vars, None, "@google/gemini-cli"),
            "http://scoped.test/"
        );
    }

    #[test]
    fn a_fifo_npmrc_or_a_bad_url_is_refused() {
        let temp = tempfile::tempdir().expect("tempdir");
        let fifo = temp.path().join(".npmrc");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo");
        assert!(status.success());
        let error = resolve(&|_| None, Some(temp.path()), "pkg").expect_err("fifo");
        assert!(matches!(error, NpmRegistryError::Npmrc { .. }), "{error}");
        let error = resolve(
            &|name| (name == "ONEWORKS_NPM_REGISTRY").then(|| "ftp://x.test".to_owned()),
            None,
            "pkg",
        )
        .expect_err("ftp");
        assert_eq!(
            error.to_string(),
            "the npm registry `ftp://x.test` (from ONEWORKS_NPM_REGISTRY) is not an http or https URL"
        );
    }
}
