//! What an adapter data file must say beyond its shape (which serde
//! checks): versions that parse, paths that stay inside the agent's home
//! (or the archive), bare program names, a quirk set oneworks ships, and
//! the sections a managed source needs. Each problem names the key path
//! (`acp.command[0].since`); [`super::key_location::locate`] finds its line
//! and column in the file's text, so a semantic error points where a parse
//! error would.

use std::path::{Component, Path};

use super::acp_data::{AcpArgv, AcpData, QUIRK_SETS};
use super::data::AdapterData;
use super::session_data::{Place, SessionData, TrustData, TRUST_PROJECT};

/// One problem: the key path and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataProblem {
    pub key: String,
    pub reason: String,
}

fn problem(key: impl Into<String>, reason: impl Into<String>) -> DataProblem {
    DataProblem {
        key: key.into(),
        reason: reason.into(),
    }
}

/// The first problem of `data`, if any (its install sections were checked
/// when it was parsed), looked for in the order of the file's sections.
pub fn check(data: &AdapterData) -> Result<(), DataProblem> {
    binary_and_probes(data)?;
    if let Some(pinned) = &data.pinned {
        pins(pinned)?;
    }
    session_files(&data.session)?;
    mcp_and_hooks(&data.session)?;
    if let Some(trust) = &data.session.trust {
        trusted_folders(trust)?;
    }
    extra_and_state_files(&data.session)?;
    tui_credentials(&data.session)?;
    acp(&data.acp)?;
    if let Some(since) = &data.tui.recorder_since {
        semver("tui.recorderSince", since)?;
    }
    Ok(())
}

/// The binary's names, the probes, the platform floors and the archive's
/// binary paths.
fn binary_and_probes(data: &AdapterData) -> Result<(), DataProblem> {
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
    Ok(())
}

/// The settings file, the agent file's folder, the prompt file and the
/// skills folder stay in the agent's home; versions that gate them parse.
fn session_files(session: &SessionData) -> Result<(), DataProblem> {
    inside(
        "session.settings.path",
        &session.settings.path,
        "the agent's home",
    )?;
    if let Some(agent_file) = &session.agent_file {
        inside("session.agentFile.dir", &agent_file.dir, "the agent's home")?;
        if let Some(resources) = &agent_file.resources {
            for (key, template) in [("prompt", &resources.prompt), ("skill", &resources.skill)] {
                if template.matches("{path}").count() != 1 {
                    return Err(problem(
                        format!("session.agentFile.resources.{key}"),
                        format!("`{template}` must hold `{{path}}` once"),
                    ));
                }
            }
        }
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
    Ok(())
}

/// MCP servers name a file exactly when they have one; hooks go into the
/// settings or the agent file.
fn mcp_and_hooks(session: &SessionData) -> Result<(), DataProblem> {
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
    Ok(())
}

/// How a trusted folder is written (a level or a list) and where (a file
/// in the home, or keys of the settings naming the project once).
fn trusted_folders(trust: &TrustData) -> Result<(), DataProblem> {
    if trust.list_key.is_some() != trust.level.is_empty() {
        return Err(problem(
            "session.trust",
            "exactly one of `level` and `listKey` says how a trusted folder is written".to_owned(),
        ));
    }
    if trust.list_key.is_some() && trust.path.is_none() {
        return Err(problem(
            "session.trust.listKey",
            "needs `path`: the agent's file that holds the list".to_owned(),
        ));
    }
    match (&trust.path, &trust.settings_path) {
        (Some(path), None) => inside("session.trust.path", path, "the agent's home"),
        (None, Some(keys))
            if keys
                .iter()
                .filter(|key| key.as_str() == TRUST_PROJECT)
                .count()
                == 1
                && keys.iter().all(|key| !key.is_empty()) =>
        {
            Ok(())
        }
        (None, Some(_)) => Err(problem(
            "session.trust.settingsPath",
            format!("names the project (`{TRUST_PROJECT}`) exactly once, among non-empty keys"),
        )),
        _ => Err(problem(
            "session.trust",
            "needs exactly one of `path` and `settingsPath`".to_owned(),
        )),
    }
}

/// The data's extra files and the agent's state file stay in its home.
fn extra_and_state_files(session: &SessionData) -> Result<(), DataProblem> {
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
    Ok(())
}

/// Each credential a TUI gets under another name moves between two
/// different plain variable names.
fn tui_credentials(session: &SessionData) -> Result<(), DataProblem> {
    let plain = |name: &str| {
        !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    };
    for (index, moved) in session.tui_credentials.iter().enumerate() {
        if !plain(&moved.variable) || !plain(&moved.to) || moved.variable == moved.to {
            return Err(problem(
                format!("session.tuiCredentials[{index}]"),
                "`variable` and `to` are two different variable names (A-Z, 0-9, _)".to_owned(),
            ));
        }
    }
    Ok(())
}

/// A quirk set oneworks ships, a command per version with bare program
/// names, and a message bound real messages fit.
fn acp(acp: &AcpData) -> Result<(), DataProblem> {
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
    Ok(())
}

/// A version as agents print them: `1.2.3`, `v1.2.3`, `1.2.3-beta.1`.
/// A pinned source's pins: versions that parse (leading zeros allowed),
/// digests of 64 hex digits, a download path with its version in it.
fn pins(pinned: &super::pinned_data::PinnedData) -> Result<(), DataProblem> {
    if !pinned.download.contains("{version}") {
        return Err(problem(
            "pinned.download",
            "the path names no `{version}`: every version would share one archive",
        ));
    }
    for (index, pin) in pinned.pins.iter().enumerate() {
        if crate::config::schema::parse_version(&pin.version).is_none() {
            return Err(problem(
                format!("pinned.pins[{index}].version"),
                format!(
                    "`{}` is not a version",
                    crate::output::sanitize::sanitize_line(&pin.version)
                ),
            ));
        }
        for (platform, sha256) in &pin.sha256 {
            let hex = sha256.len() == 64 && sha256.bytes().all(|byte| byte.is_ascii_hexdigit());
            if !hex {
                return Err(problem(
                    format!("pinned.pins[{index}].sha256.{platform}"),
                    "a sha256 is 64 hex digits",
                ));
            }
        }
    }
    Ok(())
}

fn semver(key: &str, text: &str) -> Result<(), DataProblem> {
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
fn dotted_version(key: &str, text: &str) -> Result<(), DataProblem> {
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
fn inside(key: &str, path: &str, what: &str) -> Result<(), DataProblem> {
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
fn bare_name(key: &str, name: &str) -> Result<(), DataProblem> {
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

#[cfg(test)]
#[path = "validate_tests.rs"]
mod tests;
