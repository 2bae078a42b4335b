//! Every environment variable oneworks reads, named once (the shape of
//! uv's `EnvVars`): its own `ONEWORKS_*` settings, the per-adapter
//! `ONEWORKS_<ADAPTER>_*` family, and the other tools' variables it honours
//! (`HOME`, `XDG_*`, `PATH`, the proxy and CA variables, npm's). Code reads
//! a variable by one of these names, never by a literal.

/// The names, as constants.
pub struct EnvVars;

impl EnvVars {
    /// Managed installs (default `$XDG_DATA_HOME/oneworks`).
    pub const ONEWORKS_HOME: &'static str = "ONEWORKS_HOME";
    /// The zip spool and Node's code cache (default `$XDG_CACHE_HOME/oneworks`).
    pub const ONEWORKS_CACHE_DIR: &'static str = "ONEWORKS_CACHE_DIR";
    /// A config file in place of the project's (`--config` wins).
    pub const ONEWORKS_CONFIG: &'static str = "ONEWORKS_CONFIG";
    /// A folder of adapter files.
    pub const ONEWORKS_ADAPTERS_DIR: &'static str = "ONEWORKS_ADAPTERS_DIR";
    /// The npm registry of npm-sourced adapters.
    pub const ONEWORKS_NPM_REGISTRY: &'static str = "ONEWORKS_NPM_REGISTRY";
    /// Where a managed Node.js comes from.
    pub const ONEWORKS_NODE_MIRROR: &'static str = "ONEWORKS_NODE_MIRROR";
    /// How long to wait for another process's install lock.
    pub const ONEWORKS_LOCK_TIMEOUT: &'static str = "ONEWORKS_LOCK_TIMEOUT";
    /// The deadline of each ACP handshake step.
    pub const ONEWORKS_HANDSHAKE_TIMEOUT: &'static str = "ONEWORKS_HANDSHAKE_TIMEOUT";
    /// The idle timeout of one HTTP read (downloads, the webhook).
    pub const ONEWORKS_HTTP_TIMEOUT: &'static str = "ONEWORKS_HTTP_TIMEOUT";
    /// The signals socket the supervisor sets for the agent's hook.
    pub const ONEWORKS_SESSION_SIGNALS: &'static str = "ONEWORKS_SESSION_SIGNALS";
    /// Tests only: replaces every retry wait (milliseconds).
    pub const ONEWORKS_TEST_BACKOFF_MS: &'static str = "ONEWORKS_TEST_BACKOFF_MS";
    /// Tests only: the lifetime of `session serve --open`'s file
    /// (milliseconds).
    pub const ONEWORKS_TEST_OPEN_FILE_MS: &'static str = "ONEWORKS_TEST_OPEN_FILE_MS";

    pub const HOME: &'static str = "HOME";
    pub const XDG_DATA_HOME: &'static str = "XDG_DATA_HOME";
    pub const XDG_CACHE_HOME: &'static str = "XDG_CACHE_HOME";
    pub const XDG_CONFIG_HOME: &'static str = "XDG_CONFIG_HOME";
    pub const XDG_RUNTIME_DIR: &'static str = "XDG_RUNTIME_DIR";
    /// Where `tmux`, a system CLI and a system Node.js are looked up.
    pub const PATH: &'static str = "PATH";
    /// `tracing` directives finer than `-v`/`-vv`.
    pub const RUST_LOG: &'static str = "RUST_LOG";

    pub const HTTPS_PROXY: &'static str = "HTTPS_PROXY";
    pub const HTTP_PROXY: &'static str = "HTTP_PROXY";
    pub const NO_PROXY: &'static str = "NO_PROXY";
    pub const SSL_CERT_FILE: &'static str = "SSL_CERT_FILE";
    pub const SSL_CERT_DIR: &'static str = "SSL_CERT_DIR";
    /// Extra CA roots, as Node.js reads them.
    pub const NODE_EXTRA_CA_CERTS: &'static str = "NODE_EXTRA_CA_CERTS";
    /// Relocates the user's `.npmrc` (npm reads either case).
    pub const NPM_CONFIG_USERCONFIG: &'static str = "NPM_CONFIG_USERCONFIG";
    /// npm's settings as variables, `npm_config_<key>` (either case).
    pub const NPM_CONFIG_PREFIX: &'static str = "npm_config_";
}

/// The `ONEWORKS_<ADAPTER>_*` family: one variable per adapter each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum AdapterVariable {
    /// Another data file for the adapter.
    AdapterFile,
    /// The vendor manifest's URL.
    ManifestUrl,
    /// The base the manifest's `download` paths join to.
    DownloadBase,
    /// The archive formats, in order of preference.
    Formats,
}

impl AdapterVariable {
    pub const ALL: [AdapterVariable; 4] = [
        AdapterVariable::AdapterFile,
        AdapterVariable::ManifestUrl,
        AdapterVariable::DownloadBase,
        AdapterVariable::Formats,
    ];

    /// The part after `ONEWORKS_<ADAPTER>_`.
    pub fn suffix(self) -> &'static str {
        match self {
            AdapterVariable::AdapterFile => "ADAPTER_FILE",
            AdapterVariable::ManifestUrl => "MANIFEST_URL",
            AdapterVariable::DownloadBase => "DOWNLOAD_BASE",
            AdapterVariable::Formats => "FORMATS",
        }
    }

    /// `ONEWORKS_<ADAPTER>_<suffix>`: the adapter's name in upper case, `-`
    /// as `_` (the one place such a name is built).
    pub fn name(self, adapter: &str) -> String {
        format!("ONEWORKS_{}_{}", adapter_key(adapter), self.suffix())
    }

    /// The family's name as the README writes it.
    pub fn pattern(self) -> String {
        format!("ONEWORKS_<ADAPTER>_{}", self.suffix())
    }

    /// The adapter key and the variable `name` is, if it is one of this
    /// family (`ONEWORKS_MY_AGENT_FORMATS` → `MY_AGENT`, `Formats`).
    pub fn split(name: &str) -> Option<(&str, AdapterVariable)> {
        let rest = name.strip_prefix("ONEWORKS_")?;
        Self::ALL.into_iter().find_map(|variable| {
            let key = rest.strip_suffix(variable.suffix())?.strip_suffix('_')?;
            (!key.is_empty()).then_some((key, variable))
        })
    }
}

/// An adapter's name as it appears in its variables.
pub fn adapter_key(adapter: &str) -> String {
    adapter.to_ascii_uppercase().replace('-', "_")
}

/// The variables README.md's environment table documents, as it writes
/// them: the user's `ONEWORKS_*` settings (the tests-only ones are no
/// user's setting) and the proxy and CA variables the HTTP client honours.
pub fn documented() -> Vec<String> {
    let mut names: Vec<String> = [
        EnvVars::ONEWORKS_HOME,
        EnvVars::ONEWORKS_CACHE_DIR,
        EnvVars::ONEWORKS_CONFIG,
        EnvVars::ONEWORKS_ADAPTERS_DIR,
        EnvVars::ONEWORKS_NPM_REGISTRY,
        EnvVars::ONEWORKS_NODE_MIRROR,
        EnvVars::ONEWORKS_LOCK_TIMEOUT,
        EnvVars::ONEWORKS_HANDSHAKE_TIMEOUT,
        EnvVars::ONEWORKS_HTTP_TIMEOUT,
        EnvVars::ONEWORKS_SESSION_SIGNALS,
        EnvVars::HTTPS_PROXY,
        EnvVars::HTTP_PROXY,
        EnvVars::NO_PROXY,
        EnvVars::SSL_CERT_FILE,
        EnvVars::SSL_CERT_DIR,
    ]
    .map(str::to_owned)
    .to_vec();
    names.extend(AdapterVariable::ALL.map(AdapterVariable::pattern));
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_adapter_variable_is_built_and_split_by_the_same_rule() {
        let name = AdapterVariable::ManifestUrl.name("my-agent");
        assert_eq!(name, "ONEWORKS_MY_AGENT_MANIFEST_URL");
        assert_eq!(
            AdapterVariable::split(&name),
            Some(("MY_AGENT", AdapterVariable::ManifestUrl))
        );
        assert_eq!(
            AdapterVariable::split("ONEWORKS_X_MANIFEST_ADAPTER_FILE"),
            Some(("X_MANIFEST", AdapterVariable::AdapterFile))
        );
        assert_eq!(AdapterVariable::split("ONEWORKS_FORMATS"), None);
        assert_eq!(AdapterVariable::split("ONEWORKS__FORMATS"), None);
        assert_eq!(AdapterVariable::split("ONEWORKS_HTTP_TIMEOUT"), None);
    }
}
