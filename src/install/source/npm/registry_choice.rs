//! Which npm registry to ask: `ONEWORKS_NPM_REGISTRY`, else
//! npm's own `npm_config_registry` (either case), else the `registry=` line
//! of the user's `.npmrc` (`NPM_CONFIG_USERCONFIG` relocates it; a scoped
//! `@scope:registry=` line wins for a scoped package, as in npm), else the
//! public registry (`npmrc` reads the settings).

use url::Url;

use super::npmrc::{NpmConfig, NpmrcError};

use crate::error::{Classify, ErrorKind};
use crate::output::sanitize::sanitize_line;

/// npm's public registry.
pub const PUBLIC_REGISTRY: &str = "https://registry.npmjs.org/";

#[derive(Debug, thiserror::Error)]
pub enum NpmRegistryError {
    #[error("the npm registry `{}` (from {origin}) is not an http or https URL", sanitize_line(.url))]
    Url { url: String, origin: String },
    #[error(transparent)]
    Npmrc(#[from] NpmrcError),
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
            NpmRegistryError::Npmrc(_) => "make it a small regular file, or point NPM_CONFIG_USERCONFIG at one (or set ONEWORKS_NPM_REGISTRY)".to_owned(),
        })
    }
}

/// The registry to ask for `package`: `ours` (`ONEWORKS_NPM_REGISTRY`,
/// parsed), else the user's npm settings.
pub fn resolve(
    ours: Option<&Url>,
    config: &NpmConfig,
    package: &str,
) -> Result<Url, NpmRegistryError> {
    if let Some(url) = ours {
        return Ok(url.clone());
    }
    let (text, origin) = match npmrc_registry(config, package) {
        Some(found) => found,
        None => (PUBLIC_REGISTRY.to_owned(), "npm's default".to_owned()),
    };
    parse_registry(text.trim(), origin)
}

/// Every registry the settings name (`ours`, the default one and each
/// scope's), for telling which registry refused a request.
pub fn known(ours: Option<&Url>, config: &NpmConfig) -> Vec<Url> {
    let mut texts: Vec<String> = ours.map(Url::to_string).into_iter().collect();
    texts.extend(
        config
            .settings()
            .iter()
            .filter(|setting| setting.key == "registry" || setting.key.ends_with(":registry"))
            .map(|setting| setting.value.clone()),
    );
    texts.push(PUBLIC_REGISTRY.to_owned());
    texts
        .iter()
        .filter_map(|text| parse_registry(text.trim(), String::new()).ok())
        .collect()
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

/// The registry npm's settings name for `package`, with where it came
/// from: a scoped `@scope:registry` first (as in npm), then `registry`
/// (`npm_config_registry` over the file's line).
fn npmrc_registry(config: &NpmConfig, package: &str) -> Option<(String, String)> {
    let scope_key = package
        .strip_prefix('@')
        .and_then(|rest| rest.split_once('/'))
        .map(|(scope, _)| format!("@{scope}:registry"));
    let found = scope_key
        .iter()
        .map(String::as_str)
        .chain(["registry"])
        .find_map(|key| {
            let setting = config.get(key)?;
            let value = setting.value.trim();
            (!value.is_empty()).then(|| (value.to_owned(), setting.origin()))
        });
    found
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::env_options::environment::Environment;

    fn resolve_in(
        vars: &[(&str, &str)],
        home: Option<&Path>,
        package: &str,
    ) -> Result<Url, NpmRegistryError> {
        let env = Environment::from_pairs(vars.iter().copied());
        let config = NpmConfig::load(&env, home)?;
        let options = crate::env_options::EnvOptions::parse(&env).expect("valid variables");
        resolve(options.npm_registry.as_ref(), &config, package)
    }

    fn resolve_with(vars: &[(&str, &str)], home: Option<&Path>, package: &str) -> String {
        resolve_in(vars, home, package)
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
        let error = resolve_in(&[], Some(temp.path()), "pkg").expect_err("fifo");
        assert!(matches!(error, NpmRegistryError::Npmrc(_)), "{error}");
        // `ONEWORKS_NPM_REGISTRY` is parsed with every variable
        // (`env_options`); npm's own settings are checked here.
        let error =
            resolve_in(&[("npm_config_registry", "ftp://x.test")], None, "pkg").expect_err("ftp");
        let text = error.to_string();
        assert!(
            text.starts_with("the npm registry `ftp://x.test` (from ")
                && text.ends_with("is not an http or https URL"),
            "{text}"
        );
    }
}
