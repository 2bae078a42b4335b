//! What to start: a program with arguments, a working folder and an
//! explicit environment. Every command built here clears the inherited
//! environment and puts the child in its own process group.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

/// A child to start. The environment is exactly `env`: nothing is
/// inherited from oneworks' own environment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChildSpec {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub cwd: Option<PathBuf>,
    pub env: BTreeMap<String, String>,
    /// An interactive child (an agent's login in the user's terminal) stays in
    /// the terminal's foreground process group so it can read the
    /// terminal; every other child gets a group of its own.
    pub interactive: bool,
}

impl ChildSpec {
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
            ..Self::default()
        }
    }

    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.cwd = Some(dir.as_ref().to_owned());
        self
    }

    pub fn envs<I, K, V>(mut self, vars: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        self.env
            .extend(vars.into_iter().map(|(k, v)| (k.into(), v.into())));
        self
    }

    pub fn interactive(mut self) -> Self {
        self.interactive = true;
        self
    }

    /// The program and arguments as one line for messages.
    pub fn display(&self) -> String {
        let mut line = self.program.display().to_string();
        for arg in &self.args {
            line.push(' ');
            line.push_str(&arg.to_string_lossy());
        }
        line
    }

    /// A `std` command: cleared environment, own process group. Standard
    /// streams are left to the caller.
    pub fn std_command(&self) -> std::process::Command {
        let mut command = std::process::Command::new(&self.program);
        command.args(&self.args).env_clear().envs(&self.env);
        if let Some(cwd) = &self.cwd {
            command.current_dir(cwd);
        }
        if !self.interactive {
            command.process_group(0);
        }
        command
    }

    /// The same for tokio; the child is killed (as a group, by
    /// [`ManagedChild`](super::child::ManagedChild)) if its owner is dropped.
    pub fn tokio_command(&self) -> tokio::process::Command {
        tokio::process::Command::from(self.std_command())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_child_sees_only_the_explicit_environment() {
        let spec = ChildSpec::new("/usr/bin/env").envs([("ONLY", "this")]);
        let output = spec.std_command().output().expect("run env");
        assert_eq!(String::from_utf8_lossy(&output.stdout), "ONLY=this\n");
    }

    #[test]
    fn the_child_runs_in_its_own_process_group() {
        let spec = ChildSpec::new("/bin/sh").args(["-c", "ps -o pgid= -p $$; echo $$"]);
        let output = spec.std_command().output().expect("run sh");
        let text = String::from_utf8_lossy(&output.stdout);
        let mut lines = text.lines().map(str::trim);
        let pgid = lines.next().expect("pgid");
        let pid = lines.next().expect("pid");
        assert_eq!(pgid, pid);
    }
}
