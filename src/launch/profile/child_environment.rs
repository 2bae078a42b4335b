//! The agent child's environment: an allowlist, not the parent's
//! environment. It holds PATH, locale, TERM, TZ, the proxy and CA variables,
//! the profile's HOME, the agent home variable and XDG folders, the credential variables
//! present in the parent, and the variables the config names through
//! `passEnv` or `${VAR}` references — nothing else.

use std::collections::BTreeMap;
use std::path::Path;

use super::layout::ProfileLayout;
use crate::adapter::data::AdapterData;
use crate::config::{env_references, AdapterConfig};
use crate::env_options::environment::Environment;

/// Names passed through as they are, when set.
const PASS_THROUGH: &[&str] = &[
    "PATH",
    "LANG",
    "TERM",
    "TZ",
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "NO_PROXY",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
];

/// The built environment, ready for `Command::envs` after `env_clear`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChildEnvironment {
    vars: BTreeMap<String, String>,
}

impl ChildEnvironment {
    pub fn build(
        parent: &Environment,
        data: &AdapterData,
        config: &AdapterConfig,
        layout: &ProfileLayout,
        home: &Path,
    ) -> Self {
        let mut vars = BTreeMap::new();
        let wanted: Vec<String> = config
            .pass_env
            .iter()
            .map(|name| name.0.clone())
            .chain(env_references(config))
            .collect();
        for (name, value) in parent.iter() {
            let allowed = PASS_THROUGH.contains(&name)
                || name.starts_with("LC_")
                || data.credentials.is_credential_name(name)
                || data
                    .credentials
                    .pass_through
                    .iter()
                    .any(|pass| pass == name)
                || wanted.iter().any(|wanted| wanted == name);
            if allowed {
                vars.insert(name.to_owned(), value.to_owned());
            }
        }
        let xdg = layout.xdg();
        let mut set = |name: &str, path: &Path| {
            vars.insert(name.to_owned(), path.to_string_lossy().into_owned());
        };
        set("HOME", home);
        set(&data.session.home_variable, &layout.agent_home);
        set("XDG_DATA_HOME", &xdg.data);
        set("XDG_STATE_HOME", &xdg.state);
        set("XDG_CONFIG_HOME", &xdg.config);
        set("XDG_CACHE_HOME", &xdg.cache);
        Self { vars }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.vars.keys().map(String::as_str)
    }

    /// Every variable, by name (for `tokio::process`, tmux `-e`, a
    /// [`ChildSpec`](crate::process::spec::ChildSpec)).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.vars
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
    }

    /// Sets a variable oneworks itself decides (the supervisor's
    /// the recorder variable), replacing any value taken from the parent.
    pub fn set(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.vars.insert(name.into(), value.into());
    }

    /// Puts `dir` first on PATH (the managed Node.js an agent runs on).
    pub fn prepend_path(&mut self, dir: &Path) {
        let path = crate::install::node_runtime::prepend_path(dir, self.get("PATH"));
        self.set("PATH", path);
    }

    /// Removes a variable (an inherited value oneworks must not pass on).
    pub fn remove(&mut self, name: &str) {
        self.vars.remove(name);
    }

    /// Applies it to a command: clears the inherited environment first.
    pub fn apply(&self, command: &mut std::process::Command) {
        command.env_clear().envs(&self.vars);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locations::{Locations, Project};

    #[test]
    fn only_allowlisted_names_reach_the_child() {
        let data = AdapterData::builtin().expect("data");
        let parent = Environment::from_pairs([
            ("PATH", "/usr/bin"),
            ("HOME", "/home/real"),
            ("LC_ALL", "C.UTF-8"),
            ("GITHUB_TOKEN", "ghp_secret"),
            ("OPENAI_API_KEY", "sk-secret"),
            ("KIRO_API_KEY", "ksk_secret"),
            ("KIRO_CUSTOM_TOKEN", "t"),
            ("AWS_SECRET_ACCESS_KEY", "aws"),
            ("MY_TOOL_HOME", "/opt/tool"),
            ("NOTIFY_URL", "https://example"),
            ("KIRO_HOME", "/home/real/.kiro"),
            ("XDG_DATA_HOME", "/home/real/.local/share"),
            ("ONEWORKS_CONFIG", "/x"),
        ]);
        let yaml =
            "passEnv: [MY_TOOL_HOME]\nhooks:\n  stop:\n    - command: notify ${NOTIFY_URL}\n";
        let kiro: AdapterConfig = serde_yaml_ng::from_str(yaml).expect("kiro config");
        let project = Project {
            root: "/work/project".into(),
            initialized: true,
        };
        let locations = Locations::resolve(
            &crate::env_options::EnvOptions::parse(&Environment::from_pairs([(
                "HOME",
                "/home/real",
            )]))
            .expect("valid"),
        )
        .expect("locations");
        let layout = ProfileLayout::new(&project, &locations, "default", "kiro");
        let child =
            ChildEnvironment::build(&parent, &data, &kiro, &layout, Path::new("/run/home-x"));
        let names: Vec<&str> = child.names().collect();
        assert_eq!(
            names,
            [
                "AWS_SECRET_ACCESS_KEY",
                "HOME",
                "KIRO_API_KEY",
                "KIRO_CUSTOM_TOKEN",
                "KIRO_HOME",
                "LC_ALL",
                "MY_TOOL_HOME",
                "NOTIFY_URL",
                "PATH",
                "XDG_CACHE_HOME",
                "XDG_CONFIG_HOME",
                "XDG_DATA_HOME",
                "XDG_STATE_HOME",
            ]
        );
        assert_eq!(child.get("HOME"), Some("/run/home-x"));
        assert_eq!(
            child.get("KIRO_HOME"),
            Some("/work/project/.oneworks/sessions/default/kiro-home")
        );
        assert!(child
            .get("XDG_DATA_HOME")
            .is_some_and(|dir| dir.starts_with("/work/project/.oneworks/sessions/default/")));
    }
}
