//! The one way a test runs `oneworks` ([`Invocation`], from
//! [`TestEnv::oneworks`]): arguments, extra variables, stdin and folder are
//! set on the builder; the environment every command of a test gets (the
//! test's HOME, XDG folders, `ONEWORKS_HOME`, the manifest server, the
//! test's own variables) is the builder's, so no caller assembles it.
//! `run` waits with the test's deadline and returns an [`Outcome`];
//! `start` leaves it running with its output collected ([`Running`]);
//! `spawn` hands back the child with its pipes, for a command the test
//! talks to; `terminal` puts a pseudo-terminal on its streams.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::process::{oneworks_line, shell_quote, Running};
use super::{node_mirror, Outcome, TestEnv, ONEWORKS, RUN_DEADLINE};

/// What runs: oneworks, another program, or a shell line.
enum Program {
    Oneworks,
    Other(OsString),
    Line(String),
}

/// What the command reads on stdin.
enum Input {
    /// `/dev/null` for `run` and `start`, a pipe the test holds for `spawn`.
    Default,
    Null,
    Bytes(Vec<u8>),
    File(PathBuf),
}

/// Where the command's stderr goes (`spawn` only; `run` and `start`
/// collect it).
enum Errors {
    Piped,
    Null,
    Inherit,
    File(PathBuf),
}

/// One command of a test, with the test's environment; see the module.
#[must_use]
pub struct Invocation<'a> {
    env: &'a TestEnv,
    program: Program,
    args: Vec<OsString>,
    /// Set (`Some`) or removed (`None`), in order, over the test's.
    vars: Vec<(OsString, Option<OsString>)>,
    stdin: Input,
    stderr: Errors,
    current_dir: Option<PathBuf>,
    deadline: Duration,
    terminal: bool,
}

impl TestEnv {
    /// `oneworks` in this test's world: see [`Invocation`].
    pub fn oneworks(&self) -> Invocation<'_> {
        Invocation::new(self, Program::Oneworks)
    }

    /// Another program with this test's environment (a shell that pipes
    /// oneworks, a wrapper that sets a limit first).
    pub fn program(&self, program: impl AsRef<OsStr>) -> Invocation<'_> {
        Invocation::new(self, Program::Other(program.as_ref().to_owned()))
    }

    /// A shell `line` (`sh -c`, or the terminal's shell with
    /// [`Invocation::terminal`]) with this test's environment.
    pub fn shell(&self, line: &str) -> Invocation<'_> {
        Invocation::new(self, Program::Line(line.to_owned()))
    }

    /// `oneworks ARGS` run to the end: [`Invocation::run`].
    pub fn run(&self, args: &[&str]) -> Outcome {
        self.oneworks().args(args).run()
    }

    /// `oneworks ARGS` on a terminal, run to the end: stdout and stderr
    /// arrive merged in `stdout`.
    pub fn run_on_terminal(&self, args: &[&str]) -> Outcome {
        self.oneworks().args(args).terminal().run()
    }

    /// The variables every command of this test gets, before an
    /// invocation's own.
    fn base_vars(&self) -> Vec<(OsString, OsString)> {
        let path = format!("{}:/usr/bin:/bin", self.bin.to_string_lossy());
        let manifest = self.manifest_url();
        let node_mirror = self.server.url(node_mirror::PREFIX);
        let pairs: [(&str, &OsStr); 12] = [
            ("HOME", self.home.as_os_str()),
            ("PATH", OsStr::new(&path)),
            ("LANG", OsStr::new("C.UTF-8")),
            ("XDG_CONFIG_HOME", self.config_home.as_os_str()),
            ("XDG_DATA_HOME", self.data_home.as_os_str()),
            ("XDG_CACHE_HOME", self.cache_home.as_os_str()),
            ("XDG_RUNTIME_DIR", self.runtime_dir.as_os_str()),
            ("ONEWORKS_HOME", self.oneworks_home.as_os_str()),
            ("ONEWORKS_CACHE_DIR", self.cache.as_os_str()),
            ("ONEWORKS_KIRO_MANIFEST_URL", OsStr::new(&manifest)),
            // No test reaches nodejs.org: a managed Node comes from here.
            ("ONEWORKS_NODE_MIRROR", OsStr::new(&node_mirror)),
            ("ONEWORKS_LOCK_TIMEOUT", OsStr::new("120")),
        ];
        let mut vars: Vec<(OsString, OsString)> = pairs
            .into_iter()
            .map(|(name, value)| (name.into(), value.to_owned()))
            .collect();
        vars.extend(
            self.env
                .iter()
                .map(|(name, value)| (name.into(), value.into())),
        );
        vars
    }
}

impl<'a> Invocation<'a> {
    fn new(env: &'a TestEnv, program: Program) -> Invocation<'a> {
        Invocation {
            env,
            program,
            args: Vec::new(),
            vars: Vec::new(),
            stdin: Input::Default,
            stderr: Errors::Piped,
            current_dir: None,
            deadline: RUN_DEADLINE,
            terminal: false,
        }
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|arg| arg.as_ref().to_owned()));
        self
    }

    /// One more variable, over the test's.
    pub fn env(mut self, name: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.vars
            .push((name.as_ref().to_owned(), Some(value.as_ref().to_owned())));
        self
    }

    /// A variable of the test's environment left out.
    pub fn env_remove(mut self, name: impl AsRef<OsStr>) -> Self {
        self.vars.push((name.as_ref().to_owned(), None));
        self
    }

    /// `bytes` on stdin, then its end.
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdin = Input::Bytes(bytes.into());
        self
    }

    /// The file at `path` on stdin (`/dev/zero`: a stdin without end).
    pub fn stdin_file(mut self, path: impl AsRef<Path>) -> Self {
        self.stdin = Input::File(path.as_ref().to_owned());
        self
    }

    /// `/dev/null` on stdin, for [`spawn`](Self::spawn) too.
    pub fn stdin_null(mut self) -> Self {
        self.stdin = Input::Null;
        self
    }

    /// Stderr goes nowhere ([`spawn`](Self::spawn): nobody reads it).
    pub fn stderr_null(mut self) -> Self {
        self.stderr = Errors::Null;
        self
    }

    /// Stderr goes where the test's own goes ([`spawn`](Self::spawn)).
    pub fn stderr_inherit(mut self) -> Self {
        self.stderr = Errors::Inherit;
        self
    }

    /// Stderr goes to a new file at `path` ([`spawn`](Self::spawn)).
    pub fn stderr_to(mut self, path: impl AsRef<Path>) -> Self {
        self.stderr = Errors::File(path.as_ref().to_owned());
        self
    }

    /// Runs in `dir` rather than the test's project folder.
    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.current_dir = Some(dir.as_ref().to_owned());
        self
    }

    /// How long [`run`](Self::run) waits (the test's [`RUN_DEADLINE`]
    /// unless set): a run that must end within a bound.
    pub fn deadline(mut self, deadline: Duration) -> Self {
        self.deadline = deadline;
        self
    }

    /// On a pseudo-terminal (util-linux `script`, which exits with the
    /// command's exit code): stdout and stderr arrive merged on stdout.
    pub fn terminal(mut self) -> Self {
        self.terminal = true;
        self
    }

    /// The variables the command gets, in the order they apply (a later
    /// one of the same name wins).
    pub fn environment(&self) -> Vec<(OsString, OsString)> {
        let mut vars = self.env.base_vars();
        for (name, value) in &self.vars {
            vars.retain(|(other, _)| other != name);
            if let Some(value) = value {
                vars.push((name.clone(), value.clone()));
            }
        }
        if self.terminal {
            vars.retain(|(name, _)| name != "SHELL");
            vars.push(("SHELL".into(), "/bin/sh".into()));
        }
        vars
    }

    /// The command as the test would run it, stdin from `/dev/null` (or as
    /// set) and the other streams inherited: for a test that needs a raw
    /// [`Command`] (a stream into a closed pipe or a full disk). Say why
    /// where it is used.
    pub fn command(&self) -> Command {
        let mut command = match (&self.program, self.terminal) {
            (Program::Oneworks, false) => Command::new(ONEWORKS),
            (Program::Other(program), false) => Command::new(program),
            (Program::Line(line), false) => {
                let mut command = Command::new("sh");
                command.arg("-c").arg(line);
                command
            }
            (_, true) => {
                let mut command = Command::new("script");
                command.args(["-qefc", &self.terminal_line(), "/dev/null"]);
                command
            }
        };
        if !self.terminal {
            command.args(&self.args);
        }
        command
            .env_clear()
            .envs(self.environment())
            .current_dir(self.current_dir.as_ref().unwrap_or(&self.env.project));
        match &self.stdin {
            Input::File(path) => command.stdin(
                std::fs::File::open(path)
                    .unwrap_or_else(|error| panic!("open {}: {error}", path.display())),
            ),
            _ => command.stdin(Stdio::null()),
        };
        command
    }

    /// The shell line `script` runs.
    fn terminal_line(&self) -> String {
        let words = || {
            self.args
                .iter()
                .map(|arg| shell_quote(&arg.to_string_lossy()))
        };
        match &self.program {
            Program::Oneworks => {
                let args: Vec<String> = self
                    .args
                    .iter()
                    .map(|arg| arg.to_string_lossy().into_owned())
                    .collect();
                oneworks_line(&args.iter().map(String::as_str).collect::<Vec<_>>())
            }
            Program::Other(program) => std::iter::once(shell_quote(&program.to_string_lossy()))
                .chain(words())
                .collect::<Vec<_>>()
                .join(" "),
            Program::Line(line) => line.clone(),
        }
    }

    /// Runs to the end within the deadline; what it left. A run still
    /// going at the deadline is killed and fails the test.
    #[track_caller]
    pub fn run(self) -> Outcome {
        let deadline = self.deadline;
        self.start().wait_for(deadline)
    }

    /// Starts it with stdout and stderr collected in the background:
    /// [`Running::wait`], [`Running::kill`] give its [`Outcome`].
    pub fn start(self) -> Running {
        let mut command = self.command();
        let bytes = match self.stdin {
            Input::Bytes(bytes) => {
                command.stdin(Stdio::piped());
                Some(bytes)
            }
            _ => None,
        };
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().expect("spawn oneworks");
        if let Some(bytes) = bytes {
            feed(&mut child, bytes);
        }
        Running::collect(child)
    }

    /// Starts a command the test talks to: stdin a pipe the test holds
    /// (unless set), stdout a pipe, stderr a pipe (unless set). The child
    /// with its pipes.
    pub fn spawn(self) -> Child {
        let mut command = self.command();
        let bytes = match self.stdin {
            Input::Default => {
                command.stdin(Stdio::piped());
                None
            }
            Input::Bytes(bytes) => {
                command.stdin(Stdio::piped());
                Some(bytes)
            }
            Input::Null | Input::File(_) => None,
        };
        command.stdout(Stdio::piped());
        command.stderr(match &self.stderr {
            Errors::Piped => Stdio::piped(),
            Errors::Null => Stdio::null(),
            Errors::Inherit => Stdio::inherit(),
            Errors::File(path) => Stdio::from(
                std::fs::File::create(path)
                    .unwrap_or_else(|error| panic!("create {}: {error}", path.display())),
            ),
        });
        let mut child = command.spawn().expect("spawn oneworks");
        if let Some(bytes) = bytes {
            feed(&mut child, bytes);
        }
        child
    }
}

/// Writes `bytes` on the child's stdin on a thread of its own, then
/// closes it (a child that never reads must not hang the test).
fn feed(child: &mut Child, bytes: Vec<u8>) {
    let mut stdin = child.stdin.take().expect("stdin piped");
    std::thread::spawn(move || {
        let _ = stdin.write_all(&bytes);
    });
}
