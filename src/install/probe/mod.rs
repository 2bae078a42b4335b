//! Probing a candidate CLI: `--version` and, where the adapter data has
//! one, an ACP probe (`acp --help`), each with a timeout, stderr captured for messages, and an
//! environment holding only PATH, locale and a throwaway HOME — a probe
//! never inherits credentials.
//!
//! Why a probe failed, read from what the program printed, is [`cause`].

pub mod cause;

use std::io::Read;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use regex::Regex;
use wait_timeout::ChildExt;

use self::cause::ProbeCause;
use crate::adapter::data::AdapterData;
use crate::process::spec::ChildSpec;

/// What to run and how to read it.
#[derive(Debug, Clone)]
pub struct ProbeSettings {
    pub version_args: Vec<String>,
    /// `None`: the adapter has no ACP probe; only `--version` is run.
    pub acp_args: Option<Vec<String>>,
    pub timeout: Duration,
    pub identifies: Regex,
    pub version_pattern: Regex,
    /// PATH for the probed process.
    pub path_var: Option<String>,
    /// More variables for the probed process (the adapter data's).
    pub env: Vec<(String, String)>,
}

impl ProbeSettings {
    pub fn from_data(data: &AdapterData, path_var: Option<String>) -> Self {
        Self {
            version_args: data.probes.version.clone(),
            acp_args: data.probes.acp.clone(),
            timeout: Duration::from_secs(data.probes.timeout_seconds),
            identifies: data.binary.identifies.0.clone(),
            version_pattern: data.binary.version_pattern.0.clone(),
            path_var,
            env: data
                .probes
                .env
                .iter()
                .map(|(name, value)| (name.clone(), value.clone()))
                .collect(),
        }
    }
}

/// The result of running one command.
#[derive(Debug, Clone)]
pub struct CommandOutcome {
    pub success: bool,
    pub stdout: String,
    pub stderr: String,
    pub failure: Option<String>,
    /// The OS error that kept the command from starting, kept as its code:
    /// a cause is read from it, never from its text.
    pub start_errno: Option<i32>,
}

/// Both probes of one executable.
#[derive(Debug, Clone)]
pub struct ProbeReport {
    /// First line of `--version` output.
    pub version_output: String,
    pub version: Option<String>,
    pub version_ok: bool,
    pub acp_ok: bool,
    /// Whether `--version` and `acp --help` ran at all (`acp --help` is
    /// skipped when `--version` fails): a probe never run is not "failed".
    pub version_ran: bool,
    pub acp_ran: bool,
    pub identifies_as_adapter: bool,
    /// Why a probe failed, for messages (one line).
    pub problem: Option<String>,
    /// The last lines the failed probe wrote to stderr (bounded, scrubbed,
    /// control characters replaced): what says why, when the last line
    /// alone does not (`Node.js v24.19.0`).
    pub stderr_tail: Vec<String>,
    /// What the failed probe's output says went wrong, when it is a cause
    /// a person can act on.
    pub cause: Option<ProbeCause>,
}

/// The most stderr lines a failed probe shows, and their total size.
const TAIL_LINES: usize = 20;
const TAIL_BYTES: usize = 4 * 1024;
/// One shown line is cut at this many characters.
const TAIL_LINE_CHARS: usize = 300;

/// The last non-blank lines of `stderr`, at most `TAIL_LINES` and
/// `TAIL_BYTES`, each scrubbed and made one safe line.
pub fn stderr_tail(stderr: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut bytes = 0;
    for line in stderr.lines().rev() {
        let line = line.trim_end();
        if line.trim().is_empty() {
            continue;
        }
        let scrubbed = crate::output::scrub(line);
        let mut shown = crate::output::sanitize::sanitize_line(&scrubbed).into_owned();
        if shown.chars().count() > TAIL_LINE_CHARS {
            shown = shown.chars().take(TAIL_LINE_CHARS).collect::<String>() + "…";
        }
        if lines.len() == TAIL_LINES || bytes + shown.len() > TAIL_BYTES {
            break;
        }
        bytes += shown.len() + 1;
        lines.push(shown);
    }
    lines.reverse();
    lines
}

impl ProbeReport {
    /// The problem and, when they say more than its one line, the stderr
    /// lines behind it (indented, one per line).
    pub fn explained(&self) -> Option<String> {
        let problem = self.problem.as_deref()?;
        let problem = crate::output::sanitize::sanitize_line(problem);
        if self.stderr_tail.len() < 2 {
            return Some(problem.into_owned());
        }
        let mut text = format!("{problem}\n  its stderr ended with:");
        for line in &self.stderr_tail {
            text.push_str("\n    ");
            text.push_str(line);
        }
        Some(text)
    }

    /// The hint for the recognised cause, if any.
    pub fn cause_hint(&self) -> Option<String> {
        self.cause
            .map(|cause| format!("{} ({})", cause.hint(), cause.label()))
    }
}

/// What a failed command printed and why it failed: its tail and cause.
/// The cause is read from what the program printed, or from the OS error
/// that kept it from starting (a binary for another platform), never from
/// our own words about the failure.
fn diagnose(outcome: &CommandOutcome) -> (Vec<String>, Option<ProbeCause>) {
    let text = format!(
        "{}
{}",
        outcome.stderr, outcome.stdout
    );
    let cause = self::cause::recognise(&text)
        .or_else(|| outcome.start_errno.and_then(self::cause::from_start_errno));
    (stderr_tail(&outcome.stderr), cause)
}

pub(super) fn run(
    executable: &Path,
    args: &[String],
    settings: &ProbeSettings,
    home: &Path,
) -> CommandOutcome {
    run_command_with(
        executable,
        args,
        settings.timeout,
        settings.path_var.as_deref(),
        home,
        &settings.env,
    )
}

/// Runs `executable ARGS` with the probe's environment (HOME, locale and
/// `path_var`, nothing else) and `timeout`.
pub(super) fn run_command(
    executable: &Path,
    args: &[String],
    timeout: Duration,
    path_var: Option<&str>,
    home: &Path,
) -> CommandOutcome {
    run_command_with(executable, args, timeout, path_var, home, &[])
}

fn run_command_with(
    executable: &Path,
    args: &[String],
    timeout: Duration,
    path_var: Option<&str>,
    home: &Path,
    env: &[(String, String)],
) -> CommandOutcome {
    let mut command = probe_command(executable, args, path_var, home, env);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(error) => return CommandOutcome::not_started(&error),
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let status = match child.wait_timeout(timeout) {
        Ok(Some(status)) => Ok(status),
        Ok(None) => return stop_timed_out(&mut child, timeout),
        Err(error) => Err(error),
    };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    match status {
        Ok(status) => CommandOutcome {
            success: status.success(),
            failure: (!status.success()).then(|| exit_failure(status, &stderr)),
            stdout,
            stderr,
            start_errno: None,
        },
        Err(error) => CommandOutcome {
            success: false,
            stdout,
            stderr,
            failure: Some(format!("could not wait: {error}")),
            start_errno: None,
        },
    }
}

/// `executable ARGS` through the child-process seam: an explicit
/// environment (no credentials) and its own process group, so a timeout
/// can stop whatever it started; no stdin, stdout and stderr piped.
fn probe_command(
    executable: &Path,
    args: &[String],
    path_var: Option<&str>,
    home: &Path,
    env: &[(String, String)],
) -> std::process::Command {
    let mut spec = ChildSpec::new(executable)
        .args(args)
        .envs(env.iter().cloned())
        .envs([("HOME", home.to_string_lossy()), ("LANG", "C.UTF-8".into())]);
    if let Some(path) = path_var {
        spec = spec.envs([("PATH", path)]);
    }
    let mut command = spec.std_command();
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Reads `stream` (its first 64 KiB) on a thread of its own, as text.
fn drain(stream: Option<Box<dyn Read + Send>>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = Vec::new();
        if let Some(stream) = stream {
            let _ = stream.take(64 * 1024).read_to_end(&mut text);
        }
        String::from_utf8_lossy(&text).into_owned()
    })
}

/// Kills a command that outlived `timeout`, its group with it.
fn stop_timed_out(child: &mut std::process::Child, timeout: Duration) -> CommandOutcome {
    crate::process::group::kill_group(child.id());
    let _ = child.kill();
    let _ = child.wait();
    // Grandchildren may still hold the pipes: do not wait for the
    // readers, their output is not needed any more.
    CommandOutcome::failed(format!("timed out after {}s", timeout.as_secs()))
}

/// Why a command that exited failed: how it ended and its last stderr line.
fn exit_failure(status: std::process::ExitStatus, stderr: &str) -> String {
    // Outside text: it ends up in messages on the terminal.
    // (scrubbed, one line, cut when it runs away).
    let tail = stderr_tail(stderr).pop().unwrap_or_default();
    let ended = crate::process::exit_description(status);
    if tail.is_empty() {
        ended
    } else {
        format!("{ended}: {tail}")
    }
}

impl CommandOutcome {
    /// A command that did not run to its end, with nothing read.
    fn failed(failure: String) -> Self {
        Self {
            success: false,
            stdout: String::new(),
            stderr: String::new(),
            failure: Some(failure),
            start_errno: None,
        }
    }

    /// A command the OS would not start.
    fn not_started(error: &std::io::Error) -> Self {
        Self {
            start_errno: error.raw_os_error(),
            ..Self::failed(format!("could not start: {error}"))
        }
    }
}

/// Runs `--version` and `acp --help` on `executable`.
pub fn probe(executable: &Path, settings: &ProbeSettings) -> ProbeReport {
    let home = match tempfile::Builder::new().prefix("oneworks-probe-").tempdir() {
        Ok(home) => home,
        Err(error) => {
            return ProbeReport::not_run(format!("could not create a probe HOME: {error}"))
        }
    };
    let version = run(executable, &settings.version_args, settings, home.path());
    let version_output = first_output_line(&version);
    let parsed = settings
        .version_pattern
        .captures(&version_output)
        .and_then(|captures| captures.get(1))
        .map(|found| found.as_str().to_owned());
    let identifies_as_adapter = settings.identifies.is_match(&version_output);
    let version_ok = version.success && parsed.is_some();
    let version_failure = version_failure(settings, &version, &version_output, parsed.is_some());
    // A binary that cannot tell its version is not worth the second probe.
    let acp_ran = version.success && settings.acp_args.is_some();
    let (acp_ok, acp_failure) = if version.success {
        match acp_probe(executable, settings, home.path()) {
            Ok(()) => (true, None),
            Err(failure) => (false, Some(failure)),
        }
    } else {
        (false, None)
    };
    // The first failure is the one reported.
    let (problem, stderr_tail, cause) = match version_failure.or(acp_failure) {
        Some(failure) => (Some(failure.problem), failure.stderr_tail, failure.cause),
        None => (None, Vec::new(), None),
    };
    ProbeReport {
        version_output,
        version: parsed,
        version_ok,
        acp_ok,
        version_ran: true,
        acp_ran,
        identifies_as_adapter,
        problem,
        stderr_tail,
        cause,
    }
}

/// Why a probe failed: its one-line problem, and for a command that failed
/// the tail of its stderr and the cause it shows.
struct ProbeFailure {
    problem: String,
    stderr_tail: Vec<String>,
    cause: Option<ProbeCause>,
}

impl ProbeReport {
    /// Neither probe ran: `problem` kept them from starting.
    fn not_run(problem: String) -> Self {
        Self {
            version_output: String::new(),
            version: None,
            version_ok: false,
            acp_ok: false,
            version_ran: false,
            acp_ran: false,
            identifies_as_adapter: false,
            problem: Some(problem),
            stderr_tail: Vec::new(),
            cause: None,
        }
    }
}

/// The first non-blank line `--version` printed (stdout first), made one
/// safe line.
fn first_output_line(version: &CommandOutcome) -> String {
    version
        .stdout
        .lines()
        .chain(version.stderr.lines())
        .map(str::trim)
        .find(|line| !line.is_empty())
        .map(|line| crate::output::sanitize::sanitize_line(line).into_owned())
        .unwrap_or_default()
}

/// `--version` failed, or printed no version the adapter's pattern reads.
fn version_failure(
    settings: &ProbeSettings,
    version: &CommandOutcome,
    version_output: &str,
    parsed: bool,
) -> Option<ProbeFailure> {
    let version_args = settings.version_args.join(" ");
    if !version.success {
        let (stderr_tail, cause) = diagnose(version);
        let failure = version.failure.as_deref().unwrap_or_default();
        Some(ProbeFailure {
            problem: format!("`{version_args}` {failure}"),
            stderr_tail,
            cause,
        })
    } else if !parsed {
        Some(ProbeFailure {
            problem: format!("`{version_args}` printed no version: `{version_output}`"),
            stderr_tail: Vec::new(),
            cause: None,
        })
    } else {
        None
    }
}

/// The ACP probe (`acp --help`), when the adapter has one.
fn acp_probe(executable: &Path, settings: &ProbeSettings, home: &Path) -> Result<(), ProbeFailure> {
    let Some(acp_args) = &settings.acp_args else {
        return Ok(());
    };
    let acp = run(executable, acp_args, settings, home);
    if acp.success {
        return Ok(());
    }
    let (stderr_tail, cause) = diagnose(&acp);
    Err(ProbeFailure {
        problem: format!(
            "`{}` {}",
            acp_args.join(" "),
            acp.failure.unwrap_or_default()
        ),
        stderr_tail,
        cause,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Our words about a failure ("could not start: …") are not the
    /// program's output: only its output and the OS error's code say why.
    #[test]
    fn the_cause_comes_from_the_output_and_the_errno_not_from_our_words() {
        let ours = CommandOutcome::failed("could not start: exec format error".to_owned());
        assert_eq!(diagnose(&ours).1, None);
        let wrong_platform = CommandOutcome {
            start_errno: Some(libc::ENOEXEC),
            ..CommandOutcome::failed("could not start".to_owned())
        };
        assert_eq!(
            diagnose(&wrong_platform).1,
            Some(ProbeCause::PlatformPackageMissing)
        );
    }
}
