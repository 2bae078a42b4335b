//! Resolved settings: clap's global flags, the environment, the project,
//! the layered config and the adapter data, combined once into plain values
//! the commands use.

use std::path::PathBuf;
use std::time::Duration;

use crate::adapter::data::AdapterData;
use crate::cli::GlobalArgs;
use crate::config::{self, ConfigSources, LoadedConfig};
use crate::error::{Error, ErrorKind};
use crate::install::download::{Fetcher, RetryPolicy, DEFAULT_IDLE_TIMEOUT};
use crate::install::platform::Host;
use crate::install::probe::ProbeSettings;
use crate::install::store::Store;
use crate::install::{Installer, ManagedSource};
use crate::locations::{Environment, Locations, Project};

const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(1800);

pub struct Settings {
    pub env: Environment,
    pub locations: Locations,
    pub project: Project,
    pub data: AdapterData,
    pub config: LoadedConfig,
    pub quiet: bool,
    pub progress: bool,
}

impl Settings {
    pub fn resolve(global: &GlobalArgs) -> Result<Self, Error> {
        let env = Environment::from_process();
        let cwd =
            std::env::current_dir().map_err(|error| Error::new(ErrorKind::Internal, error))?;
        Self::resolve_in(env, &cwd, global)
    }

    /// [`Settings::resolve`] from a given environment and working folder
    /// (in-process tests use it; nothing else reads the process's).
    pub fn resolve_in(
        env: Environment,
        cwd: &std::path::Path,
        global: &GlobalArgs,
    ) -> Result<Self, Error> {
        let locations =
            Locations::resolve(&env).map_err(|error| Error::new(ErrorKind::Config, error))?;
        let project = Project::discover(cwd);
        let data = AdapterData::load(env.path("ONEWORKS_KIRO_ADAPTER_FILE").as_deref())
            .map_err(|error| Error::new(ErrorKind::Config, error))?;
        let sources = ConfigSources {
            user: locations.user_config.clone(),
            project: Some(project.config_file()),
            explicit: global.config.clone(),
        };
        let config = config::load(&sources, &data)?;
        Ok(Self {
            env,
            locations,
            project,
            data,
            config,
            quiet: global.quiet,
            progress: !global.quiet && !global.no_progress && crate::output::stderr_is_terminal(),
        })
    }

    pub fn probe_settings(&self) -> ProbeSettings {
        ProbeSettings::from_data(&self.data, self.env.get("PATH").map(str::to_owned))
    }

    pub fn store(&self) -> Store {
        Store::new(self.locations.data_home.clone(), &self.data.id)
    }

    /// `.oneworks/kiro.lock`, only inside a project that has `.oneworks/`.
    pub fn pin_path(&self) -> Option<PathBuf> {
        self.project
            .initialized
            .then(|| self.project.lock_file(&self.data.id))
    }

    /// [`Settings::pin_path`], refusing a `.oneworks` that is a symlink (or
    /// not a folder) the way `config render` does: `kiro.lock` is written
    /// through it.
    pub fn checked_pin_path(&self) -> Result<Option<PathBuf>, Error> {
        if self.project.initialized {
            crate::fs_safety::check_dir_chain(&self.project.root, &self.project.dot_dir())?;
        }
        Ok(self.pin_path())
    }

    pub fn lock_timeout(&self) -> Result<Duration, Error> {
        match self.env.get("ONEWORKS_LOCK_TIMEOUT") {
            None => Ok(DEFAULT_LOCK_TIMEOUT),
            Some(text) => text
                .parse::<u64>()
                .map(Duration::from_secs)
                .or_else(|_| humantime::parse_duration(text))
                .map_err(|_| {
                    Error::msg(
                        ErrorKind::Config,
                        format!(
                            "ONEWORKS_LOCK_TIMEOUT `{}` is not a number of seconds or a duration like `90s`",
                            crate::output::sanitize::sanitize_line(text)
                        ),
                    )
                    .with_hint("set ONEWORKS_LOCK_TIMEOUT to whole seconds (`1800`) or a duration (`30m`), or unset it")
                }),
        }
    }

    /// `ONEWORKS_HTTP_TIMEOUT`: the idle timeout of one HTTP read.
    pub fn http_timeout(&self) -> Result<Duration, Error> {
        match self.env.get("ONEWORKS_HTTP_TIMEOUT") {
            None => Ok(DEFAULT_IDLE_TIMEOUT),
            Some(text) => text
                .parse::<u64>()
                .map(Duration::from_secs)
                .or_else(|_| humantime::parse_duration(text))
                .ok()
                .filter(|timeout| !timeout.is_zero())
                .ok_or_else(|| {
                    Error::msg(
                        ErrorKind::Config,
                        format!(
                            "ONEWORKS_HTTP_TIMEOUT `{}` is not a positive number of seconds or a duration like `90s`",
                            crate::output::sanitize::sanitize_line(text)
                        ),
                    )
                    .with_hint("set ONEWORKS_HTTP_TIMEOUT to whole seconds (`30`) or a duration (`2m`), or unset it")
                }),
        }
    }

    /// The retry policy: 3 attempts, announced on stderr unless quiet.
    /// `ONEWORKS_TEST_BACKOFF_MS` (tests only, undocumented for users)
    /// replaces every wait, `Retry-After` included, so failure tests do not
    /// sit through real delays.
    fn retry_policy(&self) -> RetryPolicy {
        let mut policy = RetryPolicy {
            announce: !self.quiet,
            ..RetryPolicy::default()
        };
        if let Some(wait) = self
            .env
            .get("ONEWORKS_TEST_BACKOFF_MS")
            .and_then(|text| text.parse::<u64>().ok())
        {
            policy.base_delay = Duration::from_millis(wait);
            policy.max_delay = Duration::from_millis(wait);
        }
        policy
    }

    pub fn installer(&self) -> Result<Installer<'_>, Error> {
        let source = ManagedSource::from_data(
            &self.data,
            &|name| self.env.get(name).map(str::to_owned),
            self.env.home().as_deref(),
        )?;
        Ok(Installer {
            data: &self.data,
            store: self.store(),
            cache_dir: self.locations.cache_dir.clone(),
            source,
            lock_timeout: self.lock_timeout()?,
            host: Host::detect(),
            probe: self.probe_settings(),
            fetcher: Fetcher::new(self.retry_policy(), self.http_timeout()?),
            progress: self.progress,
            quiet: self.quiet,
            credentials: self.data.credentials.present(self.env.iter()),
            scrubber: std::sync::OnceLock::new(),
        })
    }
}
