//! Where things live (SPEC §1.1): the project, the user config, managed
//! installs, the zip spool and the runtime folder — derived once from the
//! environment so nothing else reads these variables.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The environment variables oneworks reads, captured once.
#[derive(Debug, Clone, Default)]
pub struct Environment {
    vars: Vec<(OsString, OsString)>,
}

impl Environment {
    pub fn from_process() -> Self {
        Self {
            vars: std::env::vars_os().collect(),
        }
    }

    pub fn from_pairs<K: Into<OsString>, V: Into<OsString>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        Self {
            vars: pairs
                .into_iter()
                .map(|(key, value)| (key.into(), value.into()))
                .collect(),
        }
    }

    /// A non-empty variable as a string.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars
            .iter()
            .rev()
            .find(|(key, _)| key == name)
            .and_then(|(_, value)| value.to_str())
            .filter(|value| !value.is_empty())
    }

    pub fn path(&self, name: &str) -> Option<PathBuf> {
        self.vars
            .iter()
            .rev()
            .find(|(key, _)| key == name)
            .map(|(_, value)| PathBuf::from(value))
            .filter(|path| !path.as_os_str().is_empty())
    }

    /// Every variable that is valid UTF-8.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.vars
            .iter()
            .filter_map(|(key, value)| Some((key.to_str()?, value.to_str()?)))
    }

    pub fn home(&self) -> Option<PathBuf> {
        self.path("HOME").filter(|path| path.is_absolute())
    }

    fn xdg(&self, name: &str, fallback: &str) -> Option<PathBuf> {
        self.path(name)
            .filter(|path| path.is_absolute())
            .or_else(|| self.home().map(|home| home.join(fallback)))
    }
}

/// The folders oneworks uses, resolved from the environment.
#[derive(Debug, Clone)]
pub struct Locations {
    /// `$ONEWORKS_HOME` (managed installs).
    pub data_home: PathBuf,
    /// `$ONEWORKS_CACHE_DIR` (zip spool, Node's code cache).
    pub cache_dir: PathBuf,
    /// `$XDG_CONFIG_HOME/oneworks/config.yaml`.
    pub user_config: Option<PathBuf>,
    /// `$XDG_RUNTIME_DIR/oneworks` or `/tmp/oneworks-<uid>`.
    pub runtime_dir: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum LocationError {
    #[error("cannot tell where {what} live: set `{variable}` or `HOME` to an absolute path")]
    Unknown {
        what: &'static str,
        variable: &'static str,
    },
    #[error("`{variable}` must be an absolute path")]
    Relative { variable: &'static str },
}

impl Locations {
    pub fn resolve(env: &Environment) -> Result<Self, LocationError> {
        for variable in ["ONEWORKS_HOME", "ONEWORKS_CACHE_DIR"] {
            if env.path(variable).is_some_and(|path| path.is_relative()) {
                return Err(LocationError::Relative { variable });
            }
        }
        let data_home = absolute(env.path("ONEWORKS_HOME"))
            .or_else(|| {
                env.xdg("XDG_DATA_HOME", ".local/share")
                    .map(|dir| dir.join("oneworks"))
            })
            .ok_or(LocationError::Unknown {
                what: "managed installs",
                variable: "ONEWORKS_HOME",
            })?;
        let cache_dir = absolute(env.path("ONEWORKS_CACHE_DIR"))
            .or_else(|| {
                env.xdg("XDG_CACHE_HOME", ".cache")
                    .map(|dir| dir.join("oneworks"))
            })
            .ok_or(LocationError::Unknown {
                what: "the download cache",
                variable: "ONEWORKS_CACHE_DIR",
            })?;
        let user_config = env
            .xdg("XDG_CONFIG_HOME", ".config")
            .map(|dir| dir.join("oneworks").join("config.yaml"));
        let runtime_dir = match absolute(env.path("XDG_RUNTIME_DIR")) {
            Some(dir) => dir.join("oneworks"),
            None => PathBuf::from(format!("/tmp/oneworks-{}", crate::fs_safety::current_uid())),
        };
        Ok(Self {
            data_home,
            cache_dir,
            user_config,
            runtime_dir,
        })
    }
}

fn absolute(path: Option<PathBuf>) -> Option<PathBuf> {
    path.filter(|path| path.is_absolute())
}

/// The project: the nearest folder at or above `cwd` holding `.oneworks/`.
#[derive(Debug, Clone)]
pub struct Project {
    pub root: PathBuf,
    /// Whether `.oneworks/` exists (only then is `<adapter>.lock` written).
    pub initialized: bool,
}

impl Project {
    pub fn discover(cwd: &Path) -> Self {
        for dir in cwd.ancestors() {
            if dir.join(".oneworks").is_dir() {
                return Self {
                    root: dir.to_owned(),
                    initialized: true,
                };
            }
        }
        Self {
            root: cwd.to_owned(),
            initialized: false,
        }
    }

    pub fn dot_dir(&self) -> PathBuf {
        self.root.join(".oneworks")
    }

    pub fn config_file(&self) -> PathBuf {
        self.dot_dir().join("config.yaml")
    }

    pub fn lock_file(&self, adapter: &str) -> PathBuf {
        self.dot_dir().join(format!("{adapter}.lock"))
    }
}
