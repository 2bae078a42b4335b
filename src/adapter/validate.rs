//! What an adapter data file must say beyond its shape (which serde
//! checks): versions that parse, paths that stay inside the agent's home
//! (or the archive), bare program names, a quirk set oneworks ships, and
//! the sections a managed source needs. Each problem names the key path
//! (`acp.command[0].since`); [`locate`] finds its line and column in the
//! file's text, so a semantic error points where a parse error would.

use std::path::{Component, Path};

use super::acp_data::{AcpArgv, QUIRK_SETS};
use super::data::AdapterData;
use super::session_data::Place;

/// One problem: the key path and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub key: String,
    pub reason: String,
}

fn problem(key: impl Into<String>, reason: impl Into<String>) -> Problem {
    Problem {
        key: key.into(),
        reason: reason.into(),
    }
}

/// The first problem of `data`, if any (its install sections were checked
/// when it was parsed).
pub fn check(data: &AdapterData) -> Result<(), Problem> {
    bare_name("binary.name", &data.binary.name)?;
    for (index, alias) in data.binary.aliases.iter().enumerate() {
        bare_name(&format!("binary.aliases[{index}]"), alias)?;
    }
    if data.probes.version.is_empty() {
        return Err(problem(
            "probes.version",
            "the `--version` probe needs arguments",
        ));
    }
    if !(1..=600).contains(&data.probes.timeout_seconds) {
        return Err(problem(
            "probes.timeoutSeconds",
            "a probe timeout is between 1 and 600 seconds",
        ));
    }
    if let Some(platforms) = &data.platforms {
        for (arch, floor) in &platforms.linux.glibc_floor {
            dotted_version(&format!("platforms.linux.glibcFloor.{arch}"), floor)?;
        }
    }
    if let Some(archive) = &data.archive {
        if archive.binary_paths.is_empty() {
            return Err(problem("archive.binaryPaths", "name at least one path"));
        }
        for (index, path) in archive.binary_paths.iter().enumerate() {
            inside(
                &format!("archive.binaryPaths[{index}]"),
                path,
                "the archive",
            )?;
        }
    }
    let session = &data.session;
    inside(
        "session.settings.path",
        &session.settings.path,
        "the agent's home",
    )?;
    if let Some(agent_file) = &session.agent_file {
        inside("session.agentFile.dir", &agent_file.dir, "the agent's home")?;
    }
    if let Some(system_prompt) = &session.system_prompt {
        inside(
            "session.systemPrompt.path",
            &system_prompt.path,
            "the agent's home",
        )?;
    }
    if let Some(skills) = &session.skills {
        inside("session.skills.dir", &skills.dir, "the agent's home")?;
        if let Some(since) = &skills.since {
            semver("session.skills.since", since)?;
        }
        for (index, owned) in skills.agent_owned.iter().enumerate() {
            if owned.is_empty() || owned.contains('/') || owned == "." || owned == ".." {
                return Err(problem(
                    format!("session.skills.agentOwned[{index}]"),
                    format!("`{owned}` is not a name in the skills folder"),
                ));
            }
        }
    }
    if let Some(since) = &session.remote_mcp_in_agent_file_since {
        semver("session.remoteMcpInAgentFileSince", since)?;
    }
    if let Some(mcp) = &session.mcp_servers {
        match (mcp.place, &mcp.file) {
            (Place::OwnFile, Some(file)) => {
                inside("session.mcpServers.file", file, "the agent's home")?
            }
            (Place::OwnFile, None) => {
                return Err(problem(
                    "session.mcpServers.file",
                    "`place: ownFile` needs the file's path".to_owned(),
                ))
            }
            (_, Some(_)) => {
                return Err(problem(
                    "session.mcpServers.file",
                    "a file is named only with `place: ownFile`".to_owned(),
                ))
            }
            (_, None) => {}
        }
    }
    if let Some(hooks) = &session.hooks {
        if hooks.place == Place::OwnFile {
            return Err(problem(
                "session.hooks.place",
                "hooks are written into the settings or the agent file".to_owned(),
            ));
        }
    }
    if let Some(trust) = &session.trust {
        if trust.list_key.is_some() != trust.level.is_empty() {
            return Err(problem(
                "session.trust",
                "exactly one of `level` and `listKey` says how a trusted folder is written"
                    .to_owned(),
            ));
        }
        if trust.list_key.is_some() && trust.path.is_none() {
            return Err(problem(
                "session.trust.listKey",
                "needs `path`: the agent's file that holds the list".to_owned(),
            ));
        }
        match (&trust.path, &trust.settings_path) {
            (Some(path), None) => inside("session.trust.path", path, "the agent's home")?,
            (None, Some(keys))
                if keys
                    .iter()
                    .filter(|key| key.as_str() == super::session_data::TRUST_PROJECT)
                    .count()
                    == 1
                    && keys.iter().all(|key| !key.is_empty()) => {}
            (None, Some(_)) => {
                return Err(problem(
                    "session.trust.settingsPath",
                    format!(
                        "names the project (`{}`) exactly once, among non-empty keys",
                        super::session_data::TRUST_PROJECT
                    ),
                ))
            }
            _ => {
                return Err(problem(
                    "session.trust",
                    "needs exactly one of `path` and `settingsPath`".to_owned(),
                ))
            }
        }
    }
    for (index, file) in session.extra_files.iter().enumerate() {
        inside(
            &format!("session.extraFiles[{index}].path"),
            &file.path,
            "the agent's home",
        )?;
    }
    if let Some(state) = &session.state_file {
        inside("session.stateFile.path", &state.path, "the agent's home")?;
    }
    for (index, moved) in session.tui_credentials.iter().enumerate() {
        let plain = |name: &str| {
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        };
        if !plain(&moved.variable) || !plain(&moved.to) || moved.variable == moved.to {
            return Err(problem(
                format!("session.tuiCredentials[{index}]"),
                "`variable` and `to` are two different variable names (A-Z, 0-9, _)".to_owned(),
            ));
        }
    }
    let acp = &data.acp;
    if !QUIRK_SETS.contains(&acp.quirks.as_str()) {
        return Err(problem(
            "acp.quirks",
            format!(
                "unknown quirk set `{}`; known: `{}`",
                crate::output::sanitize::sanitize_line(&acp.quirks),
                QUIRK_SETS.join("`, `")
            ),
        ));
    }
    if let AcpArgv::ByVersion(entries) = &acp.command {
        if entries.is_empty() {
            return Err(problem("acp.command", "name at least one entry"));
        }
        for (index, entry) in entries.iter().enumerate() {
            if let Some(since) = &entry.since {
                semver(&format!("acp.command[{index}].since"), since)?;
            }
            if let Some(program) = &entry.program {
                bare_name(&format!("acp.command[{index}].program"), program)?;
            }
        }
    }
    if acp.max_message_bytes < 1024 {
        return Err(problem(
            "acp.maxMessageBytes",
            "a message bound below 1024 bytes refuses every real message",
        ));
    }
    if let Some(since) = &data.tui.recorder_since {
        semver("tui.recorderSince", since)?;
    }
    Ok(())
}

/// A version as agents print them: `1.2.3`, `v1.2.3`, `1.2.3-beta.1`.
fn semver(key: &str, text: &str) -> Result<(), Problem> {
    let bare = text.strip_prefix('v').unwrap_or(text);
    semver::Version::parse(bare).map(|_| ()).map_err(|error| {
        problem(
            key,
            format!(
                "`{}` is not a version ({error})",
                crate::output::sanitize::sanitize_line(text)
            ),
        )
    })
}

/// `2.34`: numbers joined by dots (glibc's versions are not semver).
fn dotted_version(key: &str, text: &str) -> Result<(), Problem> {
    let valid = !text.is_empty()
        && text
            .split('.')
            .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()));
    if valid {
        Ok(())
    } else {
        Err(problem(
            key,
            format!(
                "`{}` is not a version like `2.34`",
                crate::output::sanitize::sanitize_line(text)
            ),
        ))
    }
}

/// A relative path that stays inside `what`: no root, no `..`, not empty.
fn inside(key: &str, path: &str, what: &str) -> Result<(), Problem> {
    let shown = crate::output::sanitize::sanitize_line(path);
    if path.is_empty() || path.contains('\0') {
        return Err(problem(
            key,
            format!("an empty path leaves {what} nothing to name"),
        ));
    }
    for component in Path::new(path).components() {
        match component {
            Component::Normal(_) | Component::CurDir => {}
            Component::ParentDir => {
                return Err(problem(
                    key,
                    format!("`{shown}` climbs out of {what} (`..`)"),
                ))
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(problem(
                    key,
                    format!("`{shown}` is absolute; give a path relative to {what}"),
                ))
            }
        }
    }
    Ok(())
}

/// A file name with no folder part.
fn bare_name(key: &str, name: &str) -> Result<(), Problem> {
    let valid = !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains('/')
        && !name.chars().any(char::is_control);
    if valid {
        Ok(())
    } else {
        Err(problem(
            key,
            format!(
                "`{}` is not a bare program name",
                crate::output::sanitize::sanitize_line(name)
            ),
        ))
    }
}

/// The 1-based line and column of key path `key` (`a.b[2].c`) in the YAML
/// `text`, found by indentation (block style, as adapter files are
/// written); `None` when it cannot be found. The deepest segment found
/// counts: a missing last key still points at its parent.
pub fn locate(text: &str, key: &str) -> Option<(usize, usize)> {
    // Every meaningful line; a `- key: x` line is also a key line two
    // columns deeper (the item's first key).
    struct Entry<'a> {
        line: usize,
        indent: usize,
        content: &'a str,
        dash: bool,
    }
    let mut entries = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let content = line.trim_start();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let indent = line.len() - content.len();
        if let Some(rest) = content
            .strip_prefix("- ")
            .or((content == "-").then_some(""))
        {
            entries.push(Entry {
                line: number,
                indent,
                content,
                dash: true,
            });
            let rest_trimmed = rest.trim_start();
            if !rest_trimmed.is_empty() {
                let inner = indent + 2 + (rest.len() - rest_trimmed.len());
                entries.push(Entry {
                    line: number,
                    indent: inner,
                    content: rest_trimmed,
                    dash: false,
                });
            }
        } else {
            entries.push(Entry {
                line: number,
                indent,
                content,
                dash: false,
            });
        }
    }
    let (mut low, mut high) = (0, entries.len());
    let mut parent: Option<usize> = None;
    let mut found = None;
    for segment in segments(key) {
        let window = &entries[low..high];
        let deeper = |entry: &&Entry| parent.is_none_or(|parent| entry.indent > parent);
        let hit = match &segment {
            Segment::Key(name) => {
                let child = window
                    .iter()
                    .filter(deeper)
                    .filter(|e| !e.dash)
                    .map(|e| e.indent)
                    .min();
                window.iter().position(|entry| {
                    !entry.dash
                        && Some(entry.indent) == child
                        && [name.clone(), format!("\"{name}\""), format!("'{name}'")]
                            .iter()
                            .any(|spelled| {
                                entry
                                    .content
                                    .strip_prefix(spelled.as_str())
                                    .is_some_and(|rest| rest.starts_with(':'))
                            })
                })
            }
            Segment::Index(wanted) => {
                let child = window
                    .iter()
                    .filter(deeper)
                    .filter(|e| e.dash)
                    .map(|e| e.indent)
                    .min();
                window
                    .iter()
                    .enumerate()
                    .filter(|(_, entry)| entry.dash && Some(entry.indent) == child)
                    .nth(*wanted)
                    .map(|(at, _)| at)
            }
        };
        let Some(at) = hit else { break };
        let entry = &window[at];
        let indent = entry.indent;
        found = Some((entry.line + 1, indent + 1));
        let begin = low + at + 1;
        high = entries[begin..high]
            .iter()
            .position(|later| later.indent <= indent && later.line != entry.line)
            .map_or(high, |end| begin + end);
        low = begin;
        parent = Some(indent);
    }
    found
}

enum Segment {
    Key(String),
    Index(usize),
}

fn segments(key: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    for part in key.split('.') {
        let (name, mut rest) = match part.find('[') {
            Some(at) => (&part[..at], &part[at..]),
            None => (part, ""),
        };
        if !name.is_empty() {
            out.push(Segment::Key(name.to_owned()));
        }
        while let Some(close) = rest.find(']') {
            if let Ok(index) = rest[1..close].parse() {
                out.push(Segment::Index(index));
            }
            rest = &rest[close + 1..];
        }
    }
    out
}

#[cfg(test)]
#[path = "validate_tests.rs"]
mod tests;
