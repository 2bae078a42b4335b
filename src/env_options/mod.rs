//! The environment, read in one place (the shape of uv's
//! `EnvironmentOptions`): [`environment::Environment::capture`] is the only
//! read of the process's variables, and [`EnvOptions::parse`] turns every
//! variable of the table ([`names`]) into typed fields at once, before a
//! command runs. A bad value is one [`error::EnvError`] naming the
//! variable, its value and why, whichever command would have used it.
//! Nothing else reads a variable oneworks interprets; the snapshot is read
//! by name only for what is passed on as it is.

pub mod environment;
pub mod error;
pub mod names;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use url::Url;

use crate::adapter::file_type::FileType;
use environment::Environment;
use error::{EnvError, Problem};
use names::{adapter_key, AdapterVariable, EnvVars};

/// The idle timeout of one HTTP read (downloads, the webhook).
pub const DEFAULT_HTTP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long to wait for another process's install lock.
pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(1800);
/// The deadline of each ACP handshake step.
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(60);
/// Where managed Node.js releases come from.
pub const DEFAULT_NODE_MIRROR: &str = "https://nodejs.org/dist/";

/// Every variable oneworks interprets, parsed. Unset and empty are alike.
#[derive(Debug, Clone)]
pub struct EnvOptions {
    /// `HOME`, when absolute.
    pub home: Option<PathBuf>,
    /// `XDG_DATA_HOME`, `XDG_CACHE_HOME`, `XDG_CONFIG_HOME`,
    /// `XDG_RUNTIME_DIR`, each when absolute (else not set, as the XDG
    /// specification says).
    pub xdg: Xdg,
    /// `ONEWORKS_HOME` (absolute).
    pub oneworks_home: Option<PathBuf>,
    /// `ONEWORKS_CACHE_DIR` (absolute).
    pub cache_dir: Option<PathBuf>,
    /// `ONEWORKS_CONFIG`: a config file in place of the project's.
    pub config: Option<PathBuf>,
    /// `ONEWORKS_ADAPTERS_DIR`.
    pub adapters_dir: Option<PathBuf>,
    /// `ONEWORKS_<ADAPTER>_*`, by the adapter's key.
    adapters: BTreeMap<String, AdapterOverrides>,
    /// `ONEWORKS_NPM_REGISTRY`, ending in `/`.
    pub npm_registry: Option<Url>,
    /// `ONEWORKS_NODE_MIRROR`, ending in `/`.
    pub node_mirror: Url,
    /// `ONEWORKS_HTTP_TIMEOUT` (positive).
    pub http_timeout: Duration,
    /// `ONEWORKS_LOCK_TIMEOUT` (0: do not wait).
    pub lock_timeout: Duration,
    /// `ONEWORKS_HANDSHAKE_TIMEOUT` (positive).
    pub handshake_timeout: Duration,
    /// `ONEWORKS_SESSION_SIGNALS`: set by the supervisor for the agent.
    pub session_signals: Option<PathBuf>,
    /// `PATH`.
    pub path: Option<String>,
    /// `RUST_LOG`: `tracing` directives, as written.
    pub rust_log: Option<String>,
    /// `ONEWORKS_TEST_BACKOFF_MS` (tests only, no user's setting: not a
    /// number is ignored): replaces every retry wait.
    pub test_backoff: Option<Duration>,
    /// `ONEWORKS_TEST_OPEN_FILE_MS` (tests only, as above): how long
    /// `session serve --open`'s file waits for its page.
    pub test_open_file_lifetime: Option<Duration>,
}

/// The XDG base folders that are set to absolute paths.
#[derive(Debug, Clone, Default)]
pub struct Xdg {
    pub data_home: Option<PathBuf>,
    pub cache_home: Option<PathBuf>,
    pub config_home: Option<PathBuf>,
    pub runtime_dir: Option<PathBuf>,
}

/// One adapter's `ONEWORKS_<ADAPTER>_*` variables.
#[derive(Debug, Clone, Default)]
pub struct AdapterOverrides {
    /// `…_ADAPTER_FILE`: another data file.
    pub adapter_file: Option<PathBuf>,
    /// `…_MANIFEST_URL` (`http`, `https` or `file`).
    pub manifest_url: Option<Url>,
    /// `…_DOWNLOAD_BASE`, ending in `/`.
    pub download_base: Option<Url>,
    /// `…_FORMATS`: known formats, in order of preference.
    pub formats: Option<Vec<FileType>>,
}

static NO_OVERRIDES: AdapterOverrides = AdapterOverrides {
    adapter_file: None,
    manifest_url: None,
    download_base: None,
    formats: None,
};

impl EnvOptions {
    /// Every variable of `env`, parsed; the first bad one is the error.
    pub fn parse(env: &Environment) -> Result<Self, EnvError> {
        let absolute = |name: &str| env.path(name).filter(|path| path.is_absolute());
        Ok(Self {
            home: absolute(EnvVars::HOME),
            xdg: Xdg {
                data_home: absolute(EnvVars::XDG_DATA_HOME),
                cache_home: absolute(EnvVars::XDG_CACHE_HOME),
                config_home: absolute(EnvVars::XDG_CONFIG_HOME),
                runtime_dir: absolute(EnvVars::XDG_RUNTIME_DIR),
            },
            oneworks_home: absolute_or_error(env, EnvVars::ONEWORKS_HOME)?,
            cache_dir: absolute_or_error(env, EnvVars::ONEWORKS_CACHE_DIR)?,
            config: env.path(EnvVars::ONEWORKS_CONFIG),
            adapters_dir: env.path(EnvVars::ONEWORKS_ADAPTERS_DIR),
            adapters: adapters(env)?,
            npm_registry: npm_registry(env)?,
            node_mirror: node_mirror(env)?,
            http_timeout: duration(
                env,
                EnvVars::ONEWORKS_HTTP_TIMEOUT,
                DEFAULT_HTTP_TIMEOUT,
                Zero::Refused,
            )?,
            lock_timeout: duration(
                env,
                EnvVars::ONEWORKS_LOCK_TIMEOUT,
                DEFAULT_LOCK_TIMEOUT,
                Zero::Allowed,
            )?,
            handshake_timeout: duration(
                env,
                EnvVars::ONEWORKS_HANDSHAKE_TIMEOUT,
                DEFAULT_HANDSHAKE_TIMEOUT,
                Zero::Refused,
            )?,
            session_signals: env.path(EnvVars::ONEWORKS_SESSION_SIGNALS),
            path: env.get(EnvVars::PATH).map(str::to_owned),
            rust_log: env.get(EnvVars::RUST_LOG).map(str::to_owned),
            test_backoff: milliseconds(env, EnvVars::ONEWORKS_TEST_BACKOFF_MS),
            test_open_file_lifetime: milliseconds(env, EnvVars::ONEWORKS_TEST_OPEN_FILE_MS),
        })
    }

    /// Adapter `name`'s `ONEWORKS_<ADAPTER>_*` variables (none set: all
    /// `None`).
    pub fn adapter(&self, name: &str) -> &AdapterOverrides {
        self.adapters
            .get(&adapter_key(name))
            .unwrap_or(&NO_OVERRIDES)
    }
}

/// A timeout variable: may it be 0?
#[derive(Clone, Copy, PartialEq, Eq)]
enum Zero {
    Allowed,
    Refused,
}

fn absolute_or_error(env: &Environment, name: &str) -> Result<Option<PathBuf>, EnvError> {
    match env.path(name) {
        Some(path) if path.is_relative() => Err(EnvError::new(
            name,
            &path.to_string_lossy(),
            Problem::Relative,
        )),
        found => Ok(found),
    }
}

/// Whole seconds (`90`) or a duration (`90s`, `2m`); unset: `default`.
fn duration(
    env: &Environment,
    name: &str,
    default: Duration,
    zero: Zero,
) -> Result<Duration, EnvError> {
    let Some(text) = env.get(name) else {
        return Ok(default);
    };
    let parsed = text
        .trim()
        .parse::<u64>()
        .map(Duration::from_secs)
        .or_else(|_| humantime::parse_duration(text.trim()));
    let default_secs = default.as_secs();
    match parsed {
        Ok(value) if value.is_zero() && zero == Zero::Refused => {
            Err(EnvError::new(name, text, Problem::Zero { default_secs }))
        }
        Ok(value) => Ok(value),
        Err(_) => Err(EnvError::new(
            name,
            text,
            Problem::NotADuration { default_secs },
        )),
    }
}

/// A tests-only number of milliseconds; anything else is ignored.
fn milliseconds(env: &Environment, name: &str) -> Option<Duration> {
    env.get(name)
        .and_then(|text| text.parse::<u64>().ok())
        .map(Duration::from_millis)
}

/// `text` ending in `/`, so that relative paths join below it.
fn with_slash(text: &str) -> String {
    if text.ends_with('/') {
        text.to_owned()
    } else {
        format!("{text}/")
    }
}

fn node_mirror(env: &Environment) -> Result<Url, EnvError> {
    let name = EnvVars::ONEWORKS_NODE_MIRROR;
    let text = env.get(name).unwrap_or(DEFAULT_NODE_MIRROR);
    Url::parse(&with_slash(text))
        .ok()
        .filter(|url| matches!(url.scheme(), "http" | "https") && url.query().is_none())
        .ok_or_else(|| {
            EnvError::url(
                name,
                text,
                Problem::NotAFolderUrl {
                    example: "a mirror of https://nodejs.org/dist/ (e.g. `https://mirror.example/node/`)",
                },
            )
        })
}

/// `ONEWORKS_NPM_REGISTRY`, trimmed; blank is unset.
fn npm_registry(env: &Environment) -> Result<Option<Url>, EnvError> {
    let name = EnvVars::ONEWORKS_NPM_REGISTRY;
    let Some(text) = env.get(name).map(str::trim).filter(|text| !text.is_empty()) else {
        return Ok(None);
    };
    match Url::parse(&with_slash(text)) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.host().is_some() => {
            Ok(Some(url))
        }
        _ => Err(EnvError::url(
            name,
            text,
            Problem::NotAnHttpUrl {
                example: "the registry's URL, like `https://registry.npmjs.org/`",
            },
        )),
    }
}

/// Every `ONEWORKS_<ADAPTER>_*` variable set, by adapter key (in name
/// order, so the first bad one is always the same).
fn adapters(env: &Environment) -> Result<BTreeMap<String, AdapterOverrides>, EnvError> {
    let names: std::collections::BTreeSet<&str> = env.iter().map(|(name, _)| name).collect();
    let mut found: BTreeMap<String, AdapterOverrides> = BTreeMap::new();
    for name in names {
        let Some((key, variable)) = AdapterVariable::split(name) else {
            continue;
        };
        let Some(text) = env.get(name) else {
            continue;
        };
        let overrides = found.entry(key.to_owned()).or_default();
        match variable {
            AdapterVariable::AdapterFile => overrides.adapter_file = env.path(name),
            AdapterVariable::ManifestUrl => overrides.manifest_url = Some(source_url(name, text)?),
            AdapterVariable::DownloadBase => {
                overrides.download_base = Some(source_url(name, &with_slash(text))?);
            }
            AdapterVariable::Formats => overrides.formats = Some(formats(name, text)?),
        }
    }
    Ok(found)
}

/// A vendor source's URL: `http`, `https` or `file`.
fn source_url(name: &str, text: &str) -> Result<Url, EnvError> {
    Url::parse(text)
        .ok()
        .filter(|url| matches!(url.scheme(), "http" | "https" | "file"))
        .ok_or_else(|| EnvError::url(name, text, Problem::NotAUrl))
}

/// A comma-separated list of known formats (blank entries skipped).
fn formats(name: &str, text: &str) -> Result<Vec<FileType>, EnvError> {
    text.split(',')
        .map(str::trim)
        .filter(|format| !format.is_empty())
        .map(|format| match FileType::parse(format) {
            FileType::Other(format) => Err(EnvError::new(
                name,
                text,
                Problem::UnknownFormat {
                    format: error::shown(&format),
                    known: FileType::KNOWN.map(|known| format!("`{known}`")).join(", "),
                },
            )),
            known => Ok(known),
        })
        .collect()
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
