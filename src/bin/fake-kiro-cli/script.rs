//! The behaviour script of the fake: a JSON file the test writes beside the
//! fake (or passes with `--fake-script`). Every field is optional; an
//! unknown one is refused, so a typo in a test's script fails loudly
//! instead of testing nothing.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::FakeError;

/// What the fake does when invoked. Missing fields take the defaults of a
/// healthy, current Kiro CLI.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct Script {
    /// Printed (plus a newline) for `--version`.
    pub version_output: String,
    /// Exit status of `--version`.
    pub version_exit: i32,
    /// Written to stderr by `--version`.
    pub version_stderr: String,
    /// Printed for `acp --help`.
    pub acp_help_output: String,
    /// Exit status of `acp --help`.
    pub acp_help_exit: i32,
    /// Written to stderr by `acp --help`.
    pub acp_help_stderr: String,
    /// `acp --help` deletes this file after answering (the test names the
    /// fake's wrapper), so the probe passes and the next start fails.
    pub acp_help_removes: Option<PathBuf>,
    /// Seconds to sleep before answering anything (probe-timeout tests).
    pub hang_seconds: u64,
    /// Append one JSON line `{"argv":[…],"env":{…}}` per invocation here.
    pub log: Option<PathBuf>,
    /// Exit status of `login`.
    pub login_exit: i32,
    /// `login` aborts (a crash, SIGABRT) instead of exiting.
    pub login_crash: bool,
    /// `login` waits until this file exists before it exits (the test
    /// controls when; never a timer).
    pub login_wait_for_file: Option<PathBuf>,
    /// `acp --agent NAME`: the ACP agent's behaviour (unknown fields refused).
    pub acp: Option<crate::acp::AcpScript>,
    /// `chat --tui`: the approval prompts and scripted changes.
    pub tui: crate::tui_script::TuiScript,
    /// No arguments (`cursor-agent`'s TUI): its calls, chat store and keys.
    pub cursor_tui: crate::cursor_tui::CursorTuiScript,
}

impl Default for Script {
    fn default() -> Self {
        Script {
            version_output: "kiro-cli 2.15.1".to_owned(),
            version_exit: 0,
            version_stderr: String::new(),
            acp_help_output:
                "Usage: kiro-cli acp [OPTIONS]\n\nStart the Agent Client Protocol server on stdio"
                    .to_owned(),
            acp_help_exit: 0,
            acp_help_stderr: String::new(),
            acp_help_removes: None,
            hang_seconds: 0,
            log: None,
            login_exit: 0,
            login_crash: false,
            login_wait_for_file: None,
            acp: None,
            tui: crate::tui_script::TuiScript::default(),
            cursor_tui: crate::cursor_tui::CursorTuiScript::default(),
        }
    }
}

/// Where the script comes from, and the arguments that are really the
/// command line of the faked `kiro-cli`.
pub struct Invocation {
    pub script: Script,
    pub args: Vec<String>,
}

impl Invocation {
    /// `fake --fake-script PATH args…` names the script explicitly; otherwise
    /// `<current exe>.script.json` is used when it exists; otherwise defaults.
    pub fn from_argv(argv: Vec<String>) -> Result<Invocation, FakeError> {
        let mut rest: Vec<String> = argv.into_iter().skip(1).collect();
        if rest.first().map(String::as_str) == Some("--fake-script") {
            if rest.len() < 2 {
                return Err(FakeError::ScriptPathMissing);
            }
            let path = PathBuf::from(rest.remove(1));
            rest.remove(0);
            let script = load(&path)?;
            return Ok(Invocation { script, args: rest });
        }
        let beside = std::env::current_exe()
            .ok()
            .map(|exe| append_extension(&exe, "script.json"));
        let script = match beside {
            Some(path) if path.exists() => load(&path)?,
            _ => Script::default(),
        };
        Ok(Invocation { script, args: rest })
    }
}

fn append_extension(path: &Path, suffix: &str) -> PathBuf {
    let mut text = path.as_os_str().to_owned();
    text.push(".");
    text.push(suffix);
    PathBuf::from(text)
}

fn load(path: &Path) -> Result<Script, FakeError> {
    let text = fs_err::read_to_string(path)
        .map_err(oneworks::fs_error::os_cause)
        .map_err(|source| FakeError::ReadScript {
            path: path.to_owned(),
            source,
        })?;
    serde_json::from_str(&text).map_err(|source| FakeError::InvalidScript {
        path: path.to_owned(),
        source,
    })
}
