//! Materializing a session's profile world from `config.yaml`.
//! Which files the config becomes is the adapter's data (its
//! `session:` section); the shapes are implemented here: the settings file
//! (flat or nested JSON or TOML, with forced keys and the login method), an
//! optional agent file, the system prompt file, staged skills (read by
//! `skill_source` without following links), MCP servers and hooks in the
//! agent or settings file, the trusted-folders file, extra files, keys in
//! the agent's own state file. A [`WorldPlan`] is computed first (`plan.rs`
//! and its `sections.rs`: reading skill sources, writing nothing; its files
//! typed documents or text), then written — every file scrubbed, rendered
//! and written atomically — or printed for `--dry-run`. ACP runs get their
//! MCP servers from [`acp_mcp::acp_mcp_servers`] after `initialize`, not
//! from the plan.

pub mod acp_mcp;
pub mod agent;
mod context;
pub mod document;
pub mod hooks;
mod keep;
pub mod login_method;
pub mod mcp;
mod plan;
pub mod planned;
mod scrub;
mod sections;
pub mod settings_file;
pub mod skill_source;
pub mod skills;
pub mod state_file;
pub mod trust;

use std::path::Path;

pub use self::context::Context;
pub use self::plan::{plan, plan_in};
pub use self::planned::{Contents, Generated, PlannedFile, RenderedFile, WorldPlan};
pub use self::sections::prompt_text;
use super::layout::ProfileLayout;
use super::{io_error, ProfileError};
use crate::adapter::data::AdapterData;
use crate::fs_safety;
use crate::redact::Scrubber;

impl WorldPlan {
    /// Writes the plan into the session's agent home: folders created
    /// without following links, files scrubbed and written atomically,
    /// skill folders no longer configured removed.
    pub fn write(
        &self,
        layout: &ProfileLayout,
        data: &AdapterData,
        scrubber: &Scrubber,
    ) -> Result<(), ProfileError> {
        layout.ensure()?;
        let home = &layout.agent_home;
        let kept = keep::with_agent_keys(self, layout, data)?;
        let kept = trust::with_agent_file(&kept, layout, data)?;
        let kept = state_file::over_agent_file(&kept, layout, data)?;
        for file in kept.scrubbed(scrubber)? {
            let target = home.join(&file.relative);
            // One no-follow walk from the project down to the file: a
            // folder swapped for a link after a check cannot redirect it.
            fs_safety::write_beneath(&layout.project, &target, file.text.as_bytes(), 0o600, 0o700)?;
        }
        match &data.session.skills {
            Some(skills) => {
                let dir = planned::data_path(&skills.dir, "skills.dir")?;
                self.remove_stale_skills(layout, &home.join(dir), &skills.agent_owned)
            }
            None => Ok(()),
        }
    }

    /// Removes the entries of `skills` (oneworks-owned) that no configured
    /// skill uses. The folder is checked (and created) without following
    /// links first: listing a linked `skills` would delete whatever it
    /// points at. Only plain folders and files are removed; a link or
    /// special entry inside is refused, not followed or deleted. Entries
    /// the agent writes itself (`agent_owned`, from its data) are left as
    /// they are.
    fn remove_stale_skills(
        &self,
        layout: &ProfileLayout,
        skills: &Path,
        agent_owned: &[String],
    ) -> Result<(), ProfileError> {
        // Listed and removed relative to the folder opened without
        // following links: a `skills` swapped for a link after the open
        // cannot point the removal elsewhere.
        let dir = fs_safety::open_dir_path_beneath(&layout.project, skills, 0o700)?;
        let mut stale = Vec::new();
        for (name, kind) in fs_safety::list_dir(&dir).map_err(io_error("list", skills))? {
            if self.skill_dirs.iter().any(|kept| name == kept.as_str())
                || agent_owned.iter().any(|owned| name == owned.as_str())
            {
                continue;
            }
            let path = skills.join(&name);
            match kind {
                "directory" | "regular file" => stale.push((name, path)),
                "symbolic link" => {
                    return Err(ProfileError::Unsafe(fs_safety::UnsafePath::Symlink {
                        path,
                    }))
                }
                found => {
                    return Err(ProfileError::Unsafe(fs_safety::UnsafePath::WrongType {
                        path,
                        found,
                        expected: "skill folder",
                    }))
                }
            }
        }
        for (name, path) in stale {
            fs_safety::remove_tree_at(&dir, &name, &path)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod agents_tests;
#[cfg(test)]
mod gemini_tests;
#[cfg(test)]
mod world_tests;
