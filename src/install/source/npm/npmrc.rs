//! npm's own settings, read as npm reads them: the user's
//! `.npmrc` (`NPM_CONFIG_USERCONFIG` relocates it), then the `npm_config_*`
//! variables over it, `${VAR}` expanded in keys and values. A project's
//! `.npmrc` is never read: it arrives with a clone, and oneworks' trust
//! covers the exact bytes of `.oneworks/config.yaml`, not npm's file — a
//! clone could otherwise send the user's token to a host of its choosing.
//! The user's file is read safely: a regular file of bounded size, never a
//! FIFO or a device.

use crate::env_options::names::EnvVars;
use std::path::{Path, PathBuf};

/// The user's npm config file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum NpmrcError {
    /// Not a file oneworks reads: what it is instead.
    #[error("refusing to read the npm config `{}`: {reason}", .path.display())]
    Refused { path: PathBuf, reason: String },
    #[error("refusing to read the npm config `{}`", .path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// A larger `.npmrc` is refused (a real one is a few hundred bytes).
const MAX_NPMRC_BYTES: u64 = 256 * 1024;

/// Where one setting came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingFrom {
    File(PathBuf),
    Env(String),
}

/// One `key=value` of npm's config, expanded.
#[derive(Debug, Clone)]
pub struct Setting {
    pub key: String,
    pub value: String,
    /// Whether the written value holds a `${VAR}` (an empty result then
    /// most likely means the variable is unset).
    pub has_variable: bool,
    pub from: SettingFrom,
}

impl Setting {
    /// For messages: the key and where it was read, never the value.
    pub fn origin(&self) -> String {
        match &self.from {
            SettingFrom::File(path) => format!("`{}` in `{}`", self.key, path.display()),
            SettingFrom::Env(name) => format!("`{name}`"),
        }
    }
}

/// The user's npm settings.
#[derive(Debug, Clone, Default)]
pub struct NpmConfig {
    /// The user file that was looked for (read when it exists).
    pub file: Option<PathBuf>,
    /// In reading order: the file's lines, then the variables; the last
    /// one of a key wins, as in npm.
    settings: Vec<Setting>,
}

impl NpmConfig {
    /// The user's `.npmrc` and the `npm_config_*` variables of `env`.
    pub fn load(
        env: &crate::env_options::environment::Environment,
        home: Option<&Path>,
    ) -> Result<Self, NpmrcError> {
        let get = |name: &str| env.get(name).map(str::to_owned);
        let file = npmrc_path(&get, home);
        let mut settings = match &file {
            Some(path) => read_file(path, &get)?,
            None => Vec::new(),
        };
        // npm's lower-case spelling wins over the upper-case one.
        let mut variables: Vec<(&str, &str)> = env.iter().collect();
        variables.sort_by_key(|(name, _)| name.starts_with(EnvVars::NPM_CONFIG_PREFIX));
        for (name, value) in variables {
            if let Some(key) = env_key(name) {
                if !value.is_empty() {
                    settings.push(Setting {
                        key,
                        value: value.to_owned(),
                        has_variable: false,
                        from: SettingFrom::Env(name.to_owned()),
                    });
                }
            }
        }
        Ok(Self { file, settings })
    }

    /// The setting that holds for `key`.
    pub fn get(&self, key: &str) -> Option<&Setting> {
        self.settings
            .iter()
            .rev()
            .find(|setting| setting.key == key)
    }

    /// The non-empty value of `key`.
    pub fn value(&self, key: &str) -> Option<&str> {
        self.get(key)
            .map(|setting| setting.value.trim())
            .filter(|value| !value.is_empty())
    }

    /// Every setting, the one that holds for a key last.
    pub fn settings(&self) -> &[Setting] {
        &self.settings
    }

    /// For messages: where the user's settings are read.
    pub fn file_shown(&self) -> String {
        match &self.file {
            Some(path) => format!("`{}`", path.display()),
            None => "`~/.npmrc`".to_owned(),
        }
    }
}

/// The config key an `npm_config_*` variable sets (either case), as npm
/// derives it: `_` becomes `-` except a leading one, lower case, and a
/// `//host/:field` key kept as written.
fn env_key(name: &str) -> Option<String> {
    let prefix = EnvVars::NPM_CONFIG_PREFIX;
    if name.len() <= prefix.len() || !name[..prefix.len()].eq_ignore_ascii_case(prefix) {
        return None;
    }
    let rest = &name[prefix.len()..];
    if rest.starts_with("//") || rest.eq_ignore_ascii_case("userconfig") {
        return (!rest.eq_ignore_ascii_case("userconfig")).then(|| rest.to_owned());
    }
    let mut key = String::with_capacity(rest.len());
    for (index, character) in rest.chars().enumerate() {
        key.push(match character {
            '_' if index > 0 => '-',
            other => other.to_ascii_lowercase(),
        });
    }
    Some(key)
}

/// The user's npm config file: `NPM_CONFIG_USERCONFIG` (either case), else
/// `~/.npmrc`.
fn npmrc_path(get: &dyn Fn(&str) -> Option<String>, home: Option<&Path>) -> Option<PathBuf> {
    let upper = EnvVars::NPM_CONFIG_USERCONFIG;
    [upper.to_owned(), upper.to_ascii_lowercase()]
        .iter()
        .find_map(|name| get(name).filter(|value| !value.is_empty()))
        .map(PathBuf::from)
        .or_else(|| home.map(|home| home.join(".npmrc")))
}

fn read_file(
    path: &Path,
    get: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<Setting>, NpmrcError> {
    use crate::fs_safety::{read_regular_file, ReadRefusal};
    let refused = |reason: String| NpmrcError::Refused {
        path: path.to_owned(),
        reason,
    };
    // The user's own file: a dotfile manager's symlink is followed.
    let bytes = match read_regular_file(path, MAX_NPMRC_BYTES, true) {
        Ok(bytes) => bytes,
        Err(ReadRefusal::Missing | ReadRefusal::Symlink) => return Ok(Vec::new()),
        Err(ReadRefusal::NotRegular(found)) => {
            return Err(refused(format!("it is a {found}, not a regular file")))
        }
        Err(ReadRefusal::TooLarge) => {
            return Err(refused(format!(
                "it is larger than {MAX_NPMRC_BYTES} bytes"
            )))
        }
        Err(ReadRefusal::Io(source)) => {
            return Err(NpmrcError::Read {
                path: path.to_owned(),
                source,
            })
        }
    };
    Ok(parse(&String::from_utf8_lossy(&bytes))
        .map(|(key, value)| Setting {
            key: expand(&key, get),
            has_variable: value.contains("${"),
            value: expand(&value, get),
            from: SettingFrom::File(path.to_owned()),
        })
        .collect())
}

/// The `key = value` lines of npm's ini, values without quotes; `;` and
/// `#` start comments, `[section]` lines and `key[]` lists are not npm
/// settings oneworks reads.
fn parse(text: &str) -> impl Iterator<Item = (String, String)> + '_ {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.starts_with(';') && !line.starts_with('#'))
        .filter_map(|line| line.split_once('='))
        .map(|(key, value)| {
            let value = value.trim();
            let value = value
                .strip_prefix('"')
                .and_then(|inner| inner.strip_suffix('"'))
                .or_else(|| {
                    value
                        .strip_prefix('\'')
                        .and_then(|inner| inner.strip_suffix('\''))
                })
                .unwrap_or(value);
            (key.trim().to_owned(), value.to_owned())
        })
        .filter(|(key, _)| !key.is_empty() && !key.ends_with("[]"))
}

/// npm expands `${VAR}` in `.npmrc`; an unset one becomes empty.
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
    use super::*;
    use crate::env_options::environment::Environment;

    #[test]
    fn variables_override_the_file_as_npm_derives_their_keys() {
        let temp = tempfile::tempdir().expect("tempdir");
        let rc = temp.path().join("rc");
        fs_err::write(
            &rc,
            "; c\nregistry = \"http://a.test/\"\n//a.test/:_authToken=${TOKEN}\nstrict-ssl=true\nx[]=1\n[section]\n",
        )
        .expect("write");
        let env = Environment::from_pairs([
            ("NPM_CONFIG_USERCONFIG", rc.to_str().expect("utf-8")),
            ("TOKEN", "tok-from-env"),
            ("NPM_CONFIG_STRICT_SSL", "false"),
            ("npm_config__auth", "abc"),
            ("npm_config_https_proxy", "http://proxy.test:3128"),
        ]);
        let config = NpmConfig::load(&env, None).expect("config");
        assert_eq!(config.value("registry"), Some("http://a.test/"));
        let token = config.get("//a.test/:_authToken").expect("token");
        assert_eq!(token.value, "tok-from-env");
        assert!(token.has_variable);
        assert_eq!(
            token.origin(),
            format!("`//a.test/:_authToken` in `{}`", rc.display())
        );
        assert_eq!(config.value("strict-ssl"), Some("false"));
        assert_eq!(config.value("_auth"), Some("abc"));
        assert_eq!(config.value("https-proxy"), Some("http://proxy.test:3128"));
        assert!(config.get("x[]").is_none() && config.get("userconfig").is_none());
    }
}
