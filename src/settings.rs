//! Resolved settings: clap's global flags, the environment, the project,
//! the layered config and the adapter data, combined once into plain values
//! the commands use.

use std::path::PathBuf;
use std::time::Duration;

use std::sync::Arc;

use crate::adapter::data::AdapterData;
use crate::adapter::registry::{self, Registry, RegistryError};
use crate::cli::GlobalArgs;
use crate::config::trust_store::TrustStore;
use crate::config::{self, AdapterConfig, ConfigSources, LoadedConfig};
use crate::error::{Error, ErrorKind};
use crate::install::download::{Fetcher, RetryPolicy};
use crate::install::platform::Host;
use crate::install::probe::ProbeSettings;
use crate::install::store::Store;
use crate::install::{Installer, ManagedSource};
use crate::locations::{Environment, Locations, Project};

/// Whether a command needs the config to load.
#[derive(Clone, Copy)]
enum ConfigNeed {
    Required,
    Optional,
}

pub struct Settings {
    pub env: Environment,
    pub locations: Locations,
    pub project: Project,
    /// The known adapters (built in, `ONEWORKS_ADAPTERS_DIR`).
    pub registry: Registry,
    pub config: LoadedConfig,
    pub quiet: bool,
    pub progress: bool,
}

/// What `config trust`/`config untrust` act on, resolved without loading
/// the config (a file is trusted or untrusted whatever the others hold).
pub struct TrustSettings {
    /// `--config`/`ONEWORKS_CONFIG`, else the project's `.oneworks/config.yaml`.
    pub file: PathBuf,
    /// Whether `file` came from `--config`/`ONEWORKS_CONFIG`.
    pub explicit: bool,
    /// The project's `.oneworks/` (never read through a link).
    pub dot_dir: PathBuf,
    pub store: TrustStore,
    pub registry: Registry,
    pub quiet: bool,
}

impl TrustSettings {
    pub fn resolve(global: &GlobalArgs) -> Result<Self, Error> {
        let env = Environment::from_process();
        let cwd =
            std::env::current_dir().map_err(|error| Error::new(ErrorKind::Internal, error))?;
        let locations =
            Locations::resolve(&env).map_err(|error| Error::new(ErrorKind::Config, error))?;
        let project = Project::discover(&cwd);
        let registry = Registry::discover(env.path("ONEWORKS_ADAPTERS_DIR").as_deref(), |name| {
            env.path(&registry::variable(name, "ADAPTER_FILE"))
        })
        .map_err(|error| Error::new(ErrorKind::Config, error))?;
        Ok(Self {
            file: global
                .config
                .clone()
                .unwrap_or_else(|| project.config_file()),
            explicit: global.config.is_some(),
            dot_dir: project.dot_dir(),
            store: TrustStore::new(&locations.data_home),
            registry,
            quiet: global.quiet,
        })
    }
}

/// What `session hook` needs, and nothing more: the agent waits for its
/// hook, so no config, adapter file or project is read.
pub struct HookSettings {
    /// The signals socket the supervisor set for the agent
    /// (`ONEWORKS_SESSION_SIGNALS`); the payload never names it.
    pub socket: Option<PathBuf>,
}

impl HookSettings {
    pub fn resolve() -> Self {
        let variable = crate::session::signals::hook::SOCKET_VARIABLE;
        Self {
            socket: std::env::var_os(variable).map(PathBuf::from),
        }
    }
}

/// One adapter, resolved: its data file, its `adapters.<name>` config and
/// the command's one scrubber (its credential variables, the config's
/// `${VAR}` references, the webhook token), built once here and passed
/// down to everything that writes or prints.
pub struct Adapter {
    pub data: AdapterData,
    pub config: AdapterConfig,
    pub scrubber: Arc<crate::redact::Scrubber>,
}

impl Settings {
    pub fn resolve(global: &GlobalArgs) -> Result<Self, Error> {
        let env = Environment::from_process();
        let cwd =
            std::env::current_dir().map_err(|error| Error::new(ErrorKind::Internal, error))?;
        Self::resolve_in(env, &cwd, global)
    }

    /// [`Settings::resolve`] for the commands that only reach sessions
    /// already running (`session stop`, `list`, `attach`, `approvals`,
    /// `answer`): a config that does not load is a warning naming it and
    /// why, and its defaults stand in — a person who broke `config.yaml`
    /// while sessions run can still list, answer and stop them.
    pub fn resolve_for_running_sessions(global: &GlobalArgs) -> Result<Self, Error> {
        let env = Environment::from_process();
        let cwd =
            std::env::current_dir().map_err(|error| Error::new(ErrorKind::Internal, error))?;
        Self::resolve_with(env, &cwd, global, ConfigNeed::Optional)
    }

    /// [`Settings::resolve`] from a given environment and working folder
    /// (in-process tests use it; nothing else reads the process's).
    pub fn resolve_in(
        env: Environment,
        cwd: &std::path::Path,
        global: &GlobalArgs,
    ) -> Result<Self, Error> {
        Self::resolve_with(env, cwd, global, ConfigNeed::Required)
    }

    fn resolve_with(
        env: Environment,
        cwd: &std::path::Path,
        global: &GlobalArgs,
        need: ConfigNeed,
    ) -> Result<Self, Error> {
        let locations =
            Locations::resolve(&env).map_err(|error| Error::new(ErrorKind::Config, error))?;
        let project = Project::discover(cwd);
        let registry = Registry::discover(env.path("ONEWORKS_ADAPTERS_DIR").as_deref(), |name| {
            env.path(&registry::variable(name, "ADAPTER_FILE"))
        })
        .map_err(|error| Error::new(ErrorKind::Config, error))?;
        let sources = ConfigSources {
            user: locations.user_config.clone(),
            project: Some(project.config_file()),
            explicit: global.config.clone(),
            trust: Some(TrustStore::new(&locations.data_home)),
        };
        let config = match (config::load(&sources, &registry), need) {
            (Ok(config), _) => config,
            (Err(error), ConfigNeed::Required) => return Err(error.into()),
            (Err(error), ConfigNeed::Optional) => {
                let error = Error::from(error);
                crate::output::human(format_args!(
                    "warning: the config does not load ({}); its defaults are used to reach the running sessions",
                    error.message()
                ));
                LoadedConfig {
                    config: config::ConfigFile::default(),
                    files: Vec::new(),
                    project_layer: None,
                }
            }
        };
        Ok(Self {
            env,
            locations,
            project,
            registry,
            config,
            quiet: global.quiet,
            progress: !global.quiet && !global.no_progress && crate::output::stderr_is_terminal(),
        })
    }

    /// Adapter `name`: an unknown name is a usage error listing the known
    /// ones. Installs the adapter's scrubber for everything printed.
    pub fn adapter(&self, name: &str) -> Result<Adapter, Error> {
        let data = self.registry.load(name).map_err(|error| match error {
            RegistryError::Unknown { .. } => Error::new(ErrorKind::Usage, error),
            other => Error::new(ErrorKind::Config, other),
        })?;
        let config = self.config.config.adapter(name);
        let scrubber = Arc::new(crate::launch::profile::scrubber_for(
            &self.env, &data, &config,
        ));
        crate::output::set_scrubber(Arc::clone(&scrubber));
        Ok(Adapter {
            data,
            config,
            scrubber,
        })
    }

    /// The resolver of `adapter`'s CLI (with an installer for `managed`).
    pub fn resolver<'a>(
        &'a self,
        adapter: &'a Adapter,
    ) -> Result<crate::launch::resolve::Resolver<'a>, Error> {
        let installer = match adapter.config.cli.source {
            config::SourceKind::Managed => Some(self.installer(adapter)?),
            config::SourceKind::System | config::SourceKind::Path => None,
        };
        Ok(crate::launch::resolve::Resolver {
            data: &adapter.data,
            cli: &adapter.config.cli,
            probe: self.probe_settings(&adapter.data),
            pin_path: self.checked_pin_path(&adapter.data)?,
            installer,
        })
    }

    /// What entering `adapter`'s profile world needs.
    pub fn world<'a>(&'a self, adapter: &'a Adapter) -> crate::launch::profile::world::Inputs<'a> {
        crate::launch::profile::world::Inputs {
            env: &self.env,
            locations: &self.locations,
            project: &self.project,
            data: &adapter.data,
            config: &adapter.config,
            scrubber: &adapter.scrubber,
        }
    }

    pub fn probe_settings(&self, data: &AdapterData) -> ProbeSettings {
        ProbeSettings::from_data(data, self.env.get("PATH").map(str::to_owned))
    }

    pub fn store(&self, data: &AdapterData) -> Store {
        Store::new(self.locations.data_home.clone(), &data.id)
    }

    /// `.oneworks/<adapter>.lock`, only inside a project that has `.oneworks/`.
    pub fn pin_path(&self, data: &AdapterData) -> Option<PathBuf> {
        self.project
            .initialized
            .then(|| self.project.lock_file(&data.id))
    }

    /// [`Settings::pin_path`], refusing a `.oneworks` that is a symlink (or
    /// not a folder) the way `config render` does: the lock file is written
    /// through it.
    pub fn checked_pin_path(&self, data: &AdapterData) -> Result<Option<PathBuf>, Error> {
        if self.project.initialized {
            crate::fs_safety::check_dir_chain(&self.project.root, &self.project.dot_dir())?;
        }
        Ok(self.pin_path(data))
    }

    /// The `ONEWORKS_*` settings, parsed where they are read.
    pub fn options(&self) -> crate::env_options::EnvOptions<'_> {
        crate::env_options::EnvOptions::new(&self.env)
    }

    pub fn lock_timeout(&self) -> Result<Duration, Error> {
        self.options().lock_timeout()
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
        if let Some(wait) = self.options().test_backoff() {
            policy.base_delay = wait;
            policy.max_delay = wait;
        }
        policy
    }

    /// The installer of `adapter`'s managed source.
    pub fn installer<'a>(&'a self, adapter: &'a Adapter) -> Result<Installer<'a>, Error> {
        let data = &adapter.data;
        let source = ManagedSource::from_data(
            data,
            &|name| self.env.get(name).map(str::to_owned),
            self.env.home().as_deref(),
        )?;
        Ok(Installer {
            data,
            store: self.store(data),
            cache_dir: self.locations.cache_dir.clone(),
            source,
            lock_timeout: self.lock_timeout()?,
            host: Host::detect(),
            probe: self.probe_settings(data),
            fetcher: Fetcher::new(self.retry_policy(), self.options().http_timeout()?),
            progress: self.progress,
            quiet: self.quiet,
            scrubber: Arc::clone(&adapter.scrubber),
            node: crate::install::node_runtime::NodeSettings {
                mode: adapter.config.cli.runtime,
                mirror: self.options().node_mirror()?,
                store: crate::install::node_runtime::store(&self.locations.data_home),
            },
        })
    }
}
