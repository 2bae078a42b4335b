//! Where things live: the project, the user config, managed
//! installs, the zip spool and the runtime folder — derived once from the
//! parsed environment ([`EnvOptions`]).

use std::path::{Path, PathBuf};

use crate::env_options::EnvOptions;

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
}

impl Locations {
    pub fn resolve(options: &EnvOptions) -> Result<Self, LocationError> {
        use crate::env_options::names::EnvVars;
        let xdg = |set: &Option<PathBuf>, fallback: &str| {
            set.clone()
                .or_else(|| options.home.as_ref().map(|home| home.join(fallback)))
        };
        let data_home = options
            .oneworks_home
            .clone()
            .or_else(|| xdg(&options.xdg.data_home, ".local/share").map(|dir| dir.join("oneworks")))
            .ok_or(LocationError::Unknown {
                what: "managed installs",
                variable: EnvVars::ONEWORKS_HOME,
            })?;
        let cache_dir = options
            .cache_dir
            .clone()
            .or_else(|| xdg(&options.xdg.cache_home, ".cache").map(|dir| dir.join("oneworks")))
            .ok_or(LocationError::Unknown {
                what: "the download cache",
                variable: EnvVars::ONEWORKS_CACHE_DIR,
            })?;
        let user_config = xdg(&options.xdg.config_home, ".config")
            .map(|dir| dir.join("oneworks").join("config.yaml"));
        let runtime_dir = match &options.xdg.runtime_dir {
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
