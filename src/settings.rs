//! Resolved settings: clap's global flags, the environment, the project,
//! the layered config and the adapter data, combined once into plain values
//! the commands use.

use std::path::PathBuf;
use std::time::Duration;

use crate::adapter::data::AdapterData;
use crate::adapter::probe::ProbeSettings;
use crate::cli::GlobalArgs;
use crate::config::{self, ConfigSources, LoadedConfig};
use crate::error::{Error, ErrorKind};
use crate::install::download::{parse_url, Fetcher};
use crate::install::platform::Host;
use crate::install::store::Store;
use crate::install::Installer;
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
        let locations =
            Locations::resolve(&env).map_err(|error| Error::new(ErrorKind::Config, error))?;
        let project = Project::discover(&cwd);
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
                        format!("ONEWORKS_LOCK_TIMEOUT `{text}` is not a number of seconds or a duration like `90s`"),
                    )
                }),
        }
    }

    pub fn installer(&self) -> Result<Installer<'_>, Error> {
        let manifest_text = self
            .env
            .get("ONEWORKS_KIRO_MANIFEST_URL")
            .unwrap_or(&self.data.manifest.url)
            .to_owned();
        let manifest_url = parse_url(&manifest_text)?;
        let base_text = match self.env.get("ONEWORKS_KIRO_DOWNLOAD_BASE") {
            Some(base) => base.to_owned(),
            None => match manifest_text.strip_suffix(&self.data.manifest.base_strip_suffix) {
                Some(base) => base.to_owned(),
                None => manifest_url
                    .join(".")
                    .map(|url| url.to_string())
                    .unwrap_or_else(|_| manifest_text.clone()),
            },
        };
        let base_text = if base_text.ends_with('/') {
            base_text
        } else {
            format!("{base_text}/")
        };
        let formats = match self.env.get("ONEWORKS_KIRO_FORMATS") {
            Some(list) => list
                .split(',')
                .map(str::trim)
                .filter(|format| !format.is_empty())
                .map(str::to_owned)
                .collect(),
            None => self.data.platforms.linux.format_preference.clone(),
        };
        Ok(Installer {
            data: &self.data,
            store: self.store(),
            cache_dir: self.locations.cache_dir.clone(),
            manifest_url,
            download_base: parse_url(&base_text)?,
            lock_timeout: self.lock_timeout()?,
            formats,
            host: Host::detect(),
            probe: self.probe_settings(),
            fetcher: Fetcher::default(),
            progress: self.progress,
            quiet: self.quiet,
            credentials: self.data.credentials.present(self.env.iter()),
            scrubber: std::sync::OnceLock::new(),
        })
    }
}
