//! Resolved settings: clap's global flags and command, the environment, the
//! project, the layered config and the adapter data, combined once by
//! [`Settings::resolve`] into plain values. Nothing here builds or installs
//! anything: a command builds its `Resolver` and `Installer` itself from
//! these values (astral-sh/uv's `settings.rs` shape), and the command edge
//! (`dispatch.rs`) makes the adapter's scrubber the print scrubber.

pub mod error;

use std::path::PathBuf;
use std::time::Duration;

use std::sync::Arc;

use crate::adapter::data::AdapterData;
use crate::adapter::registry::Registry;
use crate::cli::{AdapterCommand, Command, ConfigCommand, GlobalArgs, SessionCommand};
use crate::config::trust_store::TrustStore;
use crate::config::{self, AdapterConfig, ConfigSources, LoadedConfig};
use crate::env_options::environment::Environment;
use crate::env_options::EnvOptions;
use crate::install::node_runtime::NodeSettings;
use crate::install::probe::ProbeSettings;
use crate::install::source::npm::network::NpmNetwork;
use crate::install::source::platform::Host;
use crate::install::source::ManagedSource;
use crate::install::store::Store;
use crate::install::transport::retry::RetryPolicy;
use crate::install::transport::scoped_credentials::Credentials;
use crate::install::transport::Transport;
use crate::locations::{Locations, Project};

use self::error::SettingsError;

/// Whether a command needs the config to load.
#[derive(Clone, Copy)]
enum ConfigNeed {
    Required,
    Optional,
}

pub struct Settings {
    /// The process's variables, for what is passed on as it is.
    pub env: Environment,
    /// Every variable oneworks interprets, parsed.
    pub options: EnvOptions,
    pub locations: Locations,
    pub project: Project,
    /// The known adapters (built in, `ONEWORKS_ADAPTERS_DIR`).
    pub registry: Registry,
    pub config: LoadedConfig,
    pub quiet: bool,
    pub progress: bool,
    /// The adapter the command names, resolved for what the command does
    /// with it (`None` for a command that names none).
    pub adapter: Option<Adapter>,
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
    pub fn resolve(global: &GlobalArgs, options: &EnvOptions) -> Result<Self, SettingsError> {
        let cwd = std::env::current_dir().map_err(SettingsError::CurrentDir)?;
        let locations = Locations::resolve(options)?;
        let project = Project::discover(&cwd);
        let registry = discover_registry(options)?;
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
    /// The socket, if the environment parsed (a hook never fails: with a
    /// bad variable in the agent's environment it forwards nothing).
    pub fn resolve(options: Option<&EnvOptions>) -> Self {
        Self {
            socket: options.and_then(|options| options.session_signals.clone()),
        }
    }
}

/// The known adapters: built in, `ONEWORKS_ADAPTERS_DIR`'s, and each
/// adapter's `ONEWORKS_<ADAPTER>_ADAPTER_FILE`.
fn discover_registry(options: &EnvOptions) -> Result<Registry, SettingsError> {
    Registry::discover(options.adapters_dir.as_deref(), |name| {
        options.adapter(name).adapter_file.clone()
    })
    .map_err(SettingsError::from)
}

/// One adapter, resolved: its data file, its `adapters.<name>` config (with
/// the command's `--trust-workspace`), the command's one scrubber (its
/// credential variables, the config's `${VAR}` references, the webhook
/// token), built once here and passed down to everything that writes or
/// prints, and what finding its CLI needs.
pub struct Adapter {
    pub data: AdapterData,
    pub config: AdapterConfig,
    /// The permission policy its runs follow: its own, else
    /// the top-level one; only from trusted files.
    pub policy: Option<config::policy::PolicyAt>,
    pub scrubber: Arc<crate::redact::Scrubber>,
    pub cli: CliInputs,
}

/// What a command does with its adapter's CLI: decides which inputs are
/// resolved (a command reads only what it uses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CliUse {
    /// Looks at installs or runs a CLI it was handed (`status`, `prune`,
    /// `config render`, `session supervise`): nothing is installed, so no
    /// installer inputs, and the lock file is only read.
    Inspect,
    /// Prepares or launches it (`prepare`, `login`, `run`, `session
    /// start`): for `source: managed`, the installer's inputs too, and the
    /// project's `.oneworks` checked before the lock file is written
    /// through it.
    Launch,
}

/// The resolver's inputs, as plain values.
#[derive(Debug, Clone)]
pub struct CliInputs {
    pub probe: ProbeSettings,
    /// The adapter's managed store under `$ONEWORKS_HOME`.
    pub store: Store,
    /// `$ONEWORKS_HOME` (the managed Node.js store is under it).
    pub data_home: PathBuf,
    /// `.oneworks/<adapter>.lock`, only inside a project that has `.oneworks/`.
    pub lock_file: Option<PathBuf>,
    /// The installer's inputs: [`CliUse::Launch`] with `source: managed` only.
    pub install: Option<InstallInputs>,
}

/// The installer's inputs, as plain values (the command builds the
/// `Installer` from them).
#[derive(Debug, Clone)]
pub struct InstallInputs {
    pub cache_dir: PathBuf,
    pub source: ManagedSource,
    /// `ONEWORKS_LOCK_TIMEOUT`.
    pub lock_timeout: Duration,
    pub host: Host,
    /// 3 attempts, announced unless quiet; `ONEWORKS_TEST_BACKOFF_MS`
    /// (tests only) replaces every wait.
    pub retry: RetryPolicy,
    /// `ONEWORKS_HTTP_TIMEOUT`.
    pub http_timeout: Duration,
    /// Proxies and CA roots (the environment's, and npm's for an npm
    /// source).
    pub transport: Transport,
    /// An npm source's credentials per registry.
    pub credentials: Option<Credentials>,
    pub progress: bool,
    pub quiet: bool,
    pub node: NodeSettings,
}

/// The adapter a command names, and what it does with its CLI.
fn adapter_of(command: &Command) -> Option<(&str, CliUse, bool)> {
    use CliUse::{Inspect, Launch};
    match command {
        Command::Adapter(command) => match command {
            AdapterCommand::Prepare(args) => Some((args.adapter.as_str(), Launch, false)),
            AdapterCommand::Login { adapter, .. } => Some((adapter.as_str(), Launch, false)),
            AdapterCommand::Status { adapter, .. } | AdapterCommand::Prune { adapter, .. } => {
                Some((adapter.as_str(), Inspect, false))
            }
            AdapterCommand::List { .. } => None,
        },
        Command::Run(args) => Some((args.adapter.as_str(), Launch, args.trust_workspace)),
        Command::Session(SessionCommand::Start {
            adapter,
            trust_workspace,
            ..
        }) => Some((adapter.as_str(), Launch, *trust_workspace)),
        Command::Session(SessionCommand::Supervise(args)) => {
            Some((args.adapter.as_str(), Inspect, args.trust_workspace))
        }
        Command::Session(SessionCommand::Adopt { adapter, .. }) => {
            Some((adapter.as_str(), Inspect, false))
        }
        Command::Session(SessionCommand::Keep(args)) => {
            Some((args.adapter.as_str(), Inspect, args.trust_workspace))
        }
        Command::Config(ConfigCommand::Render { adapter, .. }) => {
            Some((adapter.as_str(), Inspect, false))
        }
        _ => None,
    }
}

/// Whether a command needs the config to load.
fn config_need(command: &Command) -> ConfigNeed {
    match command {
        Command::Session(command) if command.reaches_running_sessions_only() => {
            ConfigNeed::Optional
        }
        _ => ConfigNeed::Required,
    }
}

impl Settings {
    /// The settings of `command`: the config (a command that only reaches
    /// running sessions — `session stop`, `list`, `attach`, `approvals`,
    /// `answer` — warns about a config that does not load and uses its
    /// defaults), and the adapter it names, resolved for what it does.
    pub fn resolve(
        env: Environment,
        options: EnvOptions,
        global: &GlobalArgs,
        command: &Command,
    ) -> Result<Self, SettingsError> {
        let cwd = std::env::current_dir().map_err(SettingsError::CurrentDir)?;
        Self::resolve_parsed(env, options, &cwd, global, command)
    }

    /// [`Settings::resolve`] from a given environment (parsed here) and
    /// working folder: in-process tests use it.
    pub fn resolve_in(
        env: Environment,
        cwd: &std::path::Path,
        global: &GlobalArgs,
        command: &Command,
    ) -> Result<Self, SettingsError> {
        let options = EnvOptions::parse(&env)?;
        Self::resolve_parsed(env, options, cwd, global, command)
    }

    fn resolve_parsed(
        env: Environment,
        options: EnvOptions,
        cwd: &std::path::Path,
        global: &GlobalArgs,
        command: &Command,
    ) -> Result<Self, SettingsError> {
        let mut settings = Self::resolve_with(env, options, cwd, global, config_need(command))?;
        if let Some((name, cli_use, trust_workspace)) = adapter_of(command) {
            let mut adapter = settings.load_adapter(name, cli_use)?;
            adapter.config.trust_workspace |= trust_workspace;
            settings.adapter = Some(adapter);
        }
        Ok(settings)
    }

    fn resolve_with(
        env: Environment,
        options: EnvOptions,
        cwd: &std::path::Path,
        global: &GlobalArgs,
        need: ConfigNeed,
    ) -> Result<Self, SettingsError> {
        let locations = Locations::resolve(&options)?;
        let project = Project::discover(cwd);
        let registry = discover_registry(&options)?;
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
                crate::output::human(format_args!(
                    "warning: the config does not load ({}); its defaults are used to reach the running sessions",
                    crate::error::message(&error)
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
            options,
            locations,
            project,
            registry,
            config,
            quiet: global.quiet,
            progress: !global.quiet && !global.no_progress && crate::output::stderr_is_terminal(),
            adapter: None,
        })
    }

    /// The command's adapter ([`Settings::resolve`] resolved it).
    pub fn adapter(&self) -> Result<&Adapter, SettingsError> {
        self.adapter.as_ref().ok_or(SettingsError::NoAdapter)
    }

    /// Adapter `name` as plain values: an unknown name is a usage error
    /// listing the known ones. No side effect: the scrubber is built, not
    /// installed anywhere.
    pub fn load_adapter(&self, name: &str, cli_use: CliUse) -> Result<Adapter, SettingsError> {
        let data = self.registry.load(name)?;
        let config = self.config.config.adapter(name);
        let npm = self.npm_network(&data, &config, cli_use)?;
        let scrubber = Arc::new(crate::launch::profile::scrubber_with(
            &self.env,
            &data,
            &config,
            npm.as_ref()
                .map(|npm| npm.secrets.clone())
                .unwrap_or_default(),
        ));
        let cli = self.cli_inputs(&data, &config, cli_use, npm.as_ref())?;
        Ok(Adapter {
            policy: self.config.config.policy_for(name),
            data,
            config,
            scrubber,
            cli,
        })
    }

    /// The user's npm settings, read when an npm-packaged CLI may be
    /// installed (their credentials are then scrubbed everywhere).
    fn npm_network(
        &self,
        data: &AdapterData,
        config: &AdapterConfig,
        cli_use: CliUse,
    ) -> Result<Option<NpmNetwork>, SettingsError> {
        if cli_use != CliUse::Launch
            || config.cli.source != config::SourceKind::Managed
            || data.npm.is_none()
        {
            return Ok(None);
        }
        NpmNetwork::load(&self.env, &self.options)
            .map(Some)
            .map_err(|error| {
                let names = crate::install::error::Names::of(data);
                crate::install::error::InstallError::from(error)
                    .named(&names)
                    .into()
            })
    }

    fn cli_inputs(
        &self,
        data: &AdapterData,
        config: &AdapterConfig,
        cli_use: CliUse,
        npm: Option<&NpmNetwork>,
    ) -> Result<CliInputs, SettingsError> {
        if cli_use == CliUse::Launch && self.project.initialized {
            // The lock file is written through `.oneworks`: a symlink (or
            // not a folder) there is refused, as `config render` does.
            crate::fs_safety::check_dir_chain(&self.project.root, &self.project.dot_dir())?;
        }
        let install = match (cli_use, config.cli.source) {
            (CliUse::Launch, config::SourceKind::Managed) => {
                Some(self.install_inputs(data, config, npm)?)
            }
            _ => None,
        };
        Ok(CliInputs {
            probe: ProbeSettings::from_data(data, self.options.path.clone()),
            store: Store::new(self.locations.data_home.clone(), &data.id),
            data_home: self.locations.data_home.clone(),
            lock_file: self
                .project
                .initialized
                .then(|| self.project.lock_file(&data.id)),
            install,
        })
    }

    fn install_inputs(
        &self,
        data: &AdapterData,
        config: &AdapterConfig,
        npm: Option<&NpmNetwork>,
    ) -> Result<InstallInputs, SettingsError> {
        let options = &self.options;
        let mut retry = RetryPolicy {
            announce: !self.quiet,
            ..RetryPolicy::default()
        };
        if let Some(wait) = options.test_backoff {
            retry.base_delay = wait;
            retry.max_delay = wait;
        }
        Ok(InstallInputs {
            cache_dir: self.locations.cache_dir.clone(),
            source: ManagedSource::from_data(
                data,
                options,
                &npm.map(|npm| npm.config.clone()).unwrap_or_default(),
            )?
            .with_trusted_pin(
                &config.cli.version,
                config.cli.sha256.as_ref().map(|sha256| sha256.0.as_str()),
            ),
            transport: match npm {
                Some(npm) => npm.transport(&self.env),
                None => Transport::from_env(&self.env),
            },
            credentials: npm.map(|npm| npm.credentials.clone()),
            lock_timeout: options.lock_timeout,
            host: Host::detect(),
            retry,
            http_timeout: options.http_timeout,
            progress: self.progress,
            quiet: self.quiet,
            node: NodeSettings {
                mode: config.cli.runtime,
                mirror: options.node_mirror.clone(),
                store: crate::install::node_runtime::store(&self.locations.data_home),
            },
        })
    }

    /// What entering `adapter`'s profile world needs.
    pub fn world<'a>(&'a self, adapter: &'a Adapter) -> crate::launch::profile::world::Inputs<'a> {
        crate::launch::profile::world::Inputs {
            env: &self.env,
            options: &self.options,
            locations: &self.locations,
            project: &self.project,
            data: &adapter.data,
            config: &adapter.config,
            scrubber: &adapter.scrubber,
        }
    }
}
