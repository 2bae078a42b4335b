//! The process environment, captured once: the only read of the process's
//! variables. The typed settings are parsed from it ([`super::EnvOptions`]);
//! what is passed on as it is (the agent's allowlist, credential variables
//! an adapter's data names, `${VAR}` references, npm's and the proxies'
//! variables) is read from it by name.

use std::ffi::OsString;
use std::path::PathBuf;

/// A snapshot of environment variables.
#[derive(Debug, Clone, Default)]
pub struct Environment {
    vars: Vec<(OsString, OsString)>,
}

impl Environment {
    /// This process's variables, as they are now.
    pub fn capture() -> Self {
        Self::from_pairs(std::env::vars_os())
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

    /// A non-empty variable as a path.
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
}
