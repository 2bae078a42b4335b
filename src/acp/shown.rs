//! What a person is shown of a permission request in `run`:
//! card text of its title and of the command, paths and working folder it
//! carries, made by the one card-text function ([`crate::output::visible`])
//! after the print scrubber. The terminal prompt and the
//! `permission_request` event both show it.

use super::events::{Event, ShownOption};
use crate::output;

use crate::output::visible::{visible, visible_paths};

/// A permission request as a person is shown it: card text
/// of its title and of the command, paths and working folder it carries,
/// each scrubbed whole first; `complete` is `false` when any was cut.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShownRequest {
    pub title: String,
    pub command: Option<String>,
    pub cwd: Option<String>,
    pub paths: Vec<String>,
    pub complete: bool,
    /// The session that asks, when it is not the one oneworks opened (a
    /// subagent's): card text of its id.
    pub subagent: Option<String>,
}

impl ShownRequest {
    pub fn of(title: &str, detail: &crate::acp_wire::permission::ToolDetail) -> Self {
        let mut complete = true;
        let mut shown = |text: &str| {
            let shown = visible(&output::scrub(text));
            complete &= shown.complete;
            shown.text
        };
        let title = shown(title);
        let command = detail.command.as_deref().map(&mut shown);
        let cwd = detail.cwd.as_deref().map(&mut shown);
        let scrubbed: Vec<String> = detail
            .paths
            .iter()
            .map(|path| output::scrub(path).into_owned())
            .collect();
        let (paths, paths_complete) = visible_paths(&scrubbed);
        Self {
            title,
            command,
            cwd,
            paths,
            complete: complete && paths_complete,
            subagent: None,
        }
    }

    /// Marks the request as asked by another session than ours (a
    /// subagent the agent started), named by that session's id.
    pub fn asked_by_subagent(&mut self, session_id: &str) {
        let shown = visible(&output::scrub(session_id));
        self.complete &= shown.complete;
        self.subagent = Some(shown.text);
    }

    /// The `permission_request` event of the question `id`.
    pub fn event(&self, id: String, options: Vec<ShownOption>) -> Event {
        Event::PermissionRequest {
            id,
            title: self.title.clone(),
            command: self.command.clone(),
            cwd: self.cwd.clone(),
            paths: self.paths.clone(),
            complete: self.complete,
            subagent: self.subagent.clone(),
            options,
        }
    }

    /// One line for the terminal prompt: the title, then the command, the
    /// paths and the folder when the request carries them.
    pub fn one_line(&self) -> String {
        let mut line = match &self.subagent {
            Some(session) => format!("subagent `{session}` asks: {}", self.title),
            None => self.title.clone(),
        };
        if let Some(command) = &self.command {
            line.push_str(&format!(" · command: {command}"));
        }
        if !self.paths.is_empty() {
            line.push_str(&format!(" · paths: {}", self.paths.join(", ")));
        }
        if let Some(cwd) = &self.cwd {
            line.push_str(&format!(" · in: {cwd}"));
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acp_wire::permission::ToolDetail;

    #[test]
    fn a_request_is_shown_as_card_text_on_one_line() {
        let detail = ToolDetail {
            kind: Some("execute".into()),
            command: Some(format!("echo hi{}; curl x | sh", " ".repeat(1100))),
            cwd: Some("/w\u{200B}".into()),
            paths: (0..300).map(|n| format!("/w/{n}")).collect(),
        };
        let shown = ShownRequest::of("Run\u{1b}[2J echo", &detail);
        assert_eq!(shown.title, "Run[2J echo");
        assert_eq!(
            shown.command.as_deref(),
            Some("echo hi⟨1100 spaces⟩; curl x | sh")
        );
        assert_eq!(shown.cwd.as_deref(), Some("/w⟨U+200B⟩"));
        assert_eq!(
            shown.paths.last().map(String::as_str),
            Some("… and 44 more")
        );
        assert!(!shown.complete, "300 paths are more than are shown");
        let line = shown.one_line();
        assert!(line.starts_with(
            "Run[2J echo · command: echo hi⟨1100 spaces⟩; curl x | sh · paths: /w/0, /w/1"
        ));
        assert!(line.ends_with("… and 44 more · in: /w⟨U+200B⟩") && !line.contains('\n'));
    }
}

#[cfg(test)]
mod subagent_tests {
    use super::*;
    use crate::acp_wire::permission::ToolDetail;

    #[test]
    fn a_subagents_question_names_it_as_card_text() {
        let mut shown = ShownRequest::of("touch a", &ToolDetail::default());
        assert_eq!(shown.one_line(), "touch a");
        shown.asked_by_subagent("sub\u{1b}[2J-7");
        let line = shown.one_line();
        assert!(line.starts_with("subagent `sub"), "{line}");
        assert!(line.ends_with("-7` asks: touch a"), "{line}");
        assert!(!line.contains('\u{1b}'), "{line:?}");
        let Event::PermissionRequest { subagent, .. } = shown.event("q1".into(), Vec::new()) else {
            panic!("a permission request event");
        };
        assert_eq!(subagent, shown.subagent);
    }
}
