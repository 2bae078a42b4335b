//! What the npm source takes from the user's npm settings besides the
//! registry: the credentials per registry, the secrets
//! the scrubber must learn, and the transport — npm's `proxy`,
//! `https-proxy`, `noproxy`, `cafile` and `strict-ssl` over the
//! environment's proxy and CA variables, for the registry and the Node.js
//! runtime it installs.

use std::path::PathBuf;

use super::npmrc::NpmConfig;
use super::npmrc_credentials;
use super::registry_choice::{self, NpmRegistryError};
use crate::env_options::environment::Environment;
use crate::env_options::names::EnvVars;
use crate::env_options::EnvOptions;
use crate::install::transport::scoped_credentials::Credentials;
use crate::install::transport::{CaFile, Proxies, Transport};

/// The user's npm settings, read once per command.
#[derive(Debug, Clone)]
pub struct NpmNetwork {
    pub config: NpmConfig,
    pub credentials: Credentials,
    /// Every credential value read (by key): the scrubber learns them.
    pub secrets: Vec<(String, String)>,
}

impl NpmNetwork {
    /// The user's npm settings: the `.npmrc` in `options.home` (or where
    /// `NPM_CONFIG_USERCONFIG` says) and `env`'s `npm_config_*`.
    pub fn load(env: &Environment, options: &EnvOptions) -> Result<Self, NpmRegistryError> {
        let config = NpmConfig::load(env, options.home.as_deref())?;
        let (mut credentials, secrets) = npmrc_credentials::from_config(&config);
        credentials.registries = registry_choice::known(options.npm_registry.as_ref(), &config);
        Ok(Self {
            config,
            credentials,
            secrets,
        })
    }

    /// The environment's transport with npm's settings over it.
    pub fn transport(&self, env: &Environment) -> Transport {
        let mut transport = Transport::from_env(env);
        let config = &self.config;
        transport.only_roots = config.get("cafile").and_then(|setting| {
            let path = setting.value.trim();
            (!path.is_empty()).then(|| CaFile {
                path: PathBuf::from(path),
                origin: setting.origin(),
            })
        });
        if let Some(setting) = config.get("strict-ssl") {
            if setting.value.trim().eq_ignore_ascii_case("false") {
                transport.insecure = true;
                tracing::warn!(
                    "{} is false: the registry's certificate is not checked",
                    setting.origin()
                );
            }
        }
        let set = |key: &str| config.value(key).map(str::to_owned);
        // Either case, the upper first (as curl reads them).
        let var = |names: &[&str]| {
            names.iter().find_map(|name| {
                env.get(name)
                    .or_else(|| env.get(&name.to_ascii_lowercase()))
                    .map(str::to_owned)
            })
        };
        if ["proxy", "https-proxy", "noproxy"]
            .iter()
            .any(|key| set(key).is_some())
        {
            transport.proxies = Some(Proxies {
                https: set("https-proxy")
                    .or_else(|| set("proxy"))
                    .or_else(|| var(&[EnvVars::HTTPS_PROXY, EnvVars::HTTP_PROXY])),
                http: set("proxy").or_else(|| var(&[EnvVars::HTTP_PROXY])),
                no_proxy: set("noproxy").or_else(|| var(&[EnvVars::NO_PROXY])),
            });
        }
        transport
    }
}
