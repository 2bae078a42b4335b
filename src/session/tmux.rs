//! The tmux seam: one private tmux server per session on a socket in the
//! session's 0700 runtime folder, always started with `-f /dev/null -u`
//! (the user's tmux.conf cannot change key handling, and `❯` and the box
//! drawing survive). Keys go one per `send-keys` call; the pane is read with
//! `capture-pane -p -J` (wrapped lines joined): with `-e` (the SGR escapes
//! of reverse video and colours kept) for the pane grammar, which reads a
//! focus from them, and without for every text-only reader (the page's
//! pane text).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::SessionError;
use crate::session::delivery::keystroke_bridge::{Pane, PaneError};

/// The tmux session (and target) name inside the private server.
pub const SESSION: &str = "oneworks";

#[derive(Debug, Clone)]
pub struct Tmux {
    pub program: PathBuf,
    pub socket: PathBuf,
    /// The environment tmux runs with: the server (and so the agent) inherits it.
    pub env: BTreeMap<String, String>,
}

/// Finds `tmux` on `path` (the user's `PATH`).
pub fn find(path: Option<&str>) -> Result<PathBuf, SessionError> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(path.unwrap_or_default())
        .map(|dir| dir.join("tmux"))
        .find(|candidate| {
            fs_err::metadata(candidate)
                .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
        })
        .ok_or(SessionError::TmuxMissing)
}

/// `value` as one literal tmux argument. tmux ends a command at any
/// argument ending in `;` (its `\;` in a shell), so a folder named `app;`
/// or an agent argument ending in `;` would end `new-session` there and
/// make the rest a command of its own; `\;` at the end is its escape (the
/// backslash dropped, only the last character read).
fn literal(value: &str) -> String {
    match value.strip_suffix(';') {
        Some(head) => format!("{head}\\;"),
        None => value.to_owned(),
    }
}

impl Tmux {
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.program);
        command
            .arg("-S")
            .arg(&self.socket)
            .args(["-f", "/dev/null", "-u"])
            .args(args)
            .env_clear()
            .envs(&self.env)
            .stdin(Stdio::null());
        command
    }

    fn run(&self, args: &[&str]) -> Result<String, SessionError> {
        let what = args.first().copied().unwrap_or("tmux");
        let output = self
            .command(args)
            .output()
            .map_err(|source| SessionError::Tmux {
                action: what.to_owned(),
                message: source.to_string(),
            })?;
        if output.status.success() {
            Ok(String::from_utf8_lossy(&output.stdout).into_owned())
        } else {
            Err(SessionError::Tmux {
                action: what.to_owned(),
                message: crate::output::sanitize(String::from_utf8_lossy(&output.stderr).trim())
                    .into_owned(),
            })
        }
    }

    /// Starts the server with the agent as the only pane, its window pinned
    /// at `width`×`height` (`window-size manual`): every pane grammar is
    /// written for the data's size (`within` columns, where a long command
    /// wraps), and a person attaching from a wider terminal would otherwise
    /// widen the pane under it, so that a command padded past `within` with
    /// spaces read as its first words. A smaller terminal shows part of the
    /// window (tmux follows the cursor).
    pub fn start(
        &self,
        cwd: &Path,
        width: u16,
        height: u16,
        program: &Path,
        args: &[String],
    ) -> Result<(), SessionError> {
        let width = width.to_string();
        let height = height.to_string();
        let cwd = literal(&cwd.to_string_lossy());
        let program = literal(&program.to_string_lossy());
        let args: Vec<String> = args.iter().map(|arg| literal(arg)).collect();
        let mut line: Vec<&str> = vec![
            "new-session",
            "-d",
            "-s",
            SESSION,
            "-x",
            &width,
            "-y",
            &height,
            "-c",
            &cwd,
            "--",
            &program,
        ];
        line.extend(args.iter().map(String::as_str));
        // One tmux invocation: the window is pinned before any client can
        // attach.
        line.extend([";", "set-option", "-g", "window-size", "manual"]);
        self.run(&line).map(drop)
    }

    fn display(&self, format: &str) -> Result<u32, SessionError> {
        let text = self.run(&["display-message", "-p", "-t", SESSION, format])?;
        text.trim().parse().map_err(|_| SessionError::Tmux {
            action: "display-message".into(),
            message: format!(
                "unexpected answer `{}`",
                crate::output::sanitize(text.trim())
            ),
        })
    }

    pub fn server_pid(&self) -> Result<u32, SessionError> {
        self.display("#{pid}")
    }

    pub fn pane_pid(&self) -> Result<u32, SessionError> {
        self.display("#{pane_pid}")
    }

    /// The pane as text, no escapes.
    pub fn capture(&self) -> Result<String, SessionError> {
        self.run(&["capture-pane", "-p", "-J", "-t", SESSION])
    }

    /// The pane with its SGR escapes (`-e`), for the pane grammar
    /// (`pane::styled` reads them; `pane::styled::plain` drops them).
    pub fn capture_styled(&self) -> Result<String, SessionError> {
        self.run(&["capture-pane", "-p", "-J", "-e", "-t", SESSION])
    }

    /// Exactly one key per call.
    pub fn send_key(&self, key: &str) -> Result<(), SessionError> {
        self.run(&["send-keys", "-t", SESSION, &literal(key)])
            .map(drop)
    }

    pub fn kill_server(&self) -> Result<(), SessionError> {
        self.run(&["kill-server"]).map(drop)
    }

    /// `tmux attach` for the user's terminal: their own environment (TERM),
    /// minus `TMUX` so it works from inside another tmux.
    pub fn attach_command(&self) -> Command {
        let mut command = Command::new(&self.program);
        command
            .arg("-S")
            .arg(&self.socket)
            .args(["-f", "/dev/null", "-u", "attach-session", "-t", SESSION])
            .env_remove("TMUX");
        command
    }
}

/// The bridge's view of the agent's pane.
pub struct TmuxPane<'a>(pub &'a Tmux);

impl Pane for TmuxPane<'_> {
    fn capture(&mut self) -> Result<String, PaneError> {
        Ok(self.0.capture_styled()?)
    }

    fn send_key(&mut self, key: &str) -> Result<(), PaneError> {
        Ok(self.0.send_key(key)?)
    }
}

#[cfg(test)]
mod tests {
    use super::literal;

    #[test]
    fn an_argument_ending_in_a_semicolon_is_escaped_and_nothing_else_changes() {
        assert_eq!(literal("/home/me/app;"), "/home/me/app\\;");
        assert_eq!(literal(";"), "\\;");
        // tmux reads only the last character: a backslash before it is kept.
        assert_eq!(literal("a\\;"), "a\\\\;");
        assert_eq!(literal("a;b"), "a;b");
        assert_eq!(literal("--agent"), "--agent");
        assert_eq!(literal(""), "");
    }
}
