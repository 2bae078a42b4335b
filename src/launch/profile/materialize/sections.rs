//! The sections of a [`WorldPlan`], one [`Planner`] method each, in the
//! words of the adapter's `session:` data: the settings keys oneworks sets,
//! the prompt file, skills, hooks, MCP servers, the settings file itself,
//! the agent file, trust, extra files and the agent's state file.
//! `plan::plan_in` calls them in order.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::context::Context;
use super::mcp::{self, Target};
use super::planned::{data_path, Contents, PlannedFile, WorldPlan};
use super::settings_file::{self, SettingsMap};
use super::{agent, hooks, login_method, skill_source, skills, state_file, trust};
use crate::adapter::data::AdapterData;
use crate::adapter::session_data::{AgentResources, Place};
use crate::config::AdapterConfig;
use crate::launch::profile::ProfileError;

/// A [`WorldPlan`] being built, with what its sections hand each other:
/// the settings (written last, once every section had its say), and the
/// resources, hooks and MCP servers bound for the agent file.
pub(super) struct Planner<'a> {
    config: &'a AdapterConfig,
    data: &'a AdapterData,
    context: &'a Context<'a>,
    /// `adapters.<id>`, the config key notes and errors name.
    root: String,
    pub(super) plan: WorldPlan,
    settings_path: PathBuf,
    settings: SettingsMap,
    resources: Vec<String>,
    agent_hooks: Map<String, Value>,
    agent_mcp: Map<String, Value>,
}

impl<'a> Planner<'a> {
    pub(super) fn new(
        config: &'a AdapterConfig,
        data: &'a AdapterData,
        context: &'a Context<'a>,
    ) -> Result<Self, ProfileError> {
        let root = format!("adapters.{}", data.id);
        let settings_path = data_path(&data.session.settings.path, "settings.path")?;
        let settings = SettingsMap::from_config(config.config_content.as_ref(), &root)?;
        Ok(Self {
            config,
            data,
            context,
            root,
            plan: WorldPlan::default(),
            settings_path,
            settings,
            resources: Vec::new(),
            agent_hooks: Map::new(),
            agent_mcp: Map::new(),
        })
    }

    /// Lists the file at `relative` (in the agent's home) in the agent
    /// file, named as the data's `entry` template of its kind says; an
    /// agent file that lists no files (or no agent file) takes none.
    fn add_resource(&mut self, entry: impl Fn(&AgentResources) -> &String, relative: &Path) {
        let listed = self.data.session.agent_file.as_ref();
        if let Some(listed) = listed.and_then(|file| file.resources.as_ref()) {
            let path = self.context.home.join(relative);
            self.resources
                .push(AgentResources::entry(entry(listed), &path));
        }
    }

    /// Sets a settings key to a value oneworks decided, recorded as
    /// generated so scrubbing puts it back; returns whether the config said
    /// something else there.
    fn set(&mut self, key: &str, value: Value) -> bool {
        let format = self.data.session.settings.format;
        self.plan.generated.values.push((
            self.settings_path.clone(),
            settings_file::path_of(key, format),
            value.clone(),
        ));
        self.settings.force(key, value)
    }

    fn note(&mut self, note: String) {
        self.plan.diagnostics.push(note);
    }

    /// The data's forced settings keys, over the config's.
    pub(super) fn forced_settings(&mut self) {
        let data = self.data;
        for (key, value) in &data.session.settings.forced {
            if self.set(key, value.clone()) {
                let root = &self.root;
                self.note(format!(
                    "`{root}.configContent.{key}` is set by oneworks to `{value}`; the config's value is not used"
                ));
            }
        }
    }

    /// The settings a TUI needs for the credentials it is started with
    /// (an ACP run passes them otherwise).
    pub(super) fn tui_credentials(&mut self) {
        if matches!(self.context.target, Target::Acp) {
            return;
        }
        for (key, value) in
            crate::launch::profile::tui_credentials::settings(self.data, self.context.env)
        {
            self.set(key, value.clone());
        }
    }

    /// The login method: the configured one wins over `configContent`,
    /// which wins over one a credential variable implies.
    pub(super) fn auth_method(&mut self) {
        let (config, data) = (self.config, self.data);
        let Some(auth) = &data.session.auth else {
            return;
        };
        let key = &auth.settings_key;
        match login_method::method(auth, config.auth.method.as_deref(), self.context.env) {
            Some(login_method::Method::Configured(method)) => {
                let replaced = self.set(key, Value::String(method.clone()));
                if replaced {
                    let root = &self.root;
                    self.note(format!(
                        "`{root}.configContent.{key}` is replaced by `{root}.auth.method` (`{method}`)"
                    ));
                }
            }
            Some(login_method::Method::Implied { method, .. })
                if self.settings.get(key).is_none() =>
            {
                self.set(key, Value::String(method));
            }
            _ => {}
        }
    }

    /// The system prompt file, with the data's front matter; an empty one
    /// when the data always wants the file.
    pub(super) fn system_prompt(&mut self) -> Result<(), ProfileError> {
        let prompt = self
            .config
            .system_prompt
            .as_deref()
            .filter(|prompt| !prompt.trim().is_empty());
        let prompt_data = match &self.data.session.system_prompt {
            None if prompt.is_some() => {
                let note = format!(
                    "`{}.systemPrompt` skipped: {} reads no prompt file oneworks writes",
                    self.root, self.data.display_name
                );
                self.note(note);
                return Ok(());
            }
            Some(prompt_data) if prompt.is_some() || prompt_data.always => prompt_data,
            _ => return Ok(()),
        };
        let relative = data_path(&prompt_data.path, "systemPrompt.path")?;
        let front = front_matter(prompt_data.front_matter.as_deref());
        let text = match prompt {
            Some(prompt) => {
                self.add_resource(|listed| &listed.prompt, &relative);
                prompt_text(&front, prompt)
            }
            None => String::new(),
        };
        self.plan.generated.steering_file = Some(relative.clone());
        self.plan.generated.front_matter = front;
        self.plan.files.push(PlannedFile {
            relative,
            contents: Contents::Text(text),
        });
        Ok(())
    }

    /// The configured skills, staged in the data's skills folder when the
    /// agent (at its version) reads one.
    pub(super) fn skills(&mut self) -> Result<(), ProfileError> {
        let (config, data, root) = (self.config, self.data, &self.root);
        let names = skills::assign_dir_names(config.skills.iter().map(|skill| skill.name.as_str()));
        let mut staged = Vec::new();
        for (index, skill) in config.skills.iter().enumerate() {
            // Read (and checked) even when not staged: `config check`, an
            // agent without skills and a version without them see the same
            // refusals.
            staged.push(skill_source::read_skill(
                index,
                skill,
                &data.credentials,
                root,
            )?);
        }
        let version = self.context.version;
        match &data.session.skills {
            _ if staged.is_empty() => {}
            None => self.note(format!(
                "skills skipped: {} reads no skills folder (`{root}.skills`)",
                data.display_name
            )),
            Some(skills) if !at_least(version, skills.since.as_deref()) => self.note(format!(
                "skills skipped: {} {} reads skills from {} on",
                data.display_name,
                version.unwrap_or_default(),
                skills.since.as_deref().unwrap_or_default()
            )),
            Some(skills) => {
                let skills_dir = data_path(&skills.dir, "skills.dir")?;
                for (dir, text) in names.iter().zip(staged) {
                    let relative = skills_dir.join(dir).join("SKILL.md");
                    self.add_resource(|listed| &listed.skill, &relative);
                    self.plan.files.push(PlannedFile {
                        relative,
                        contents: Contents::Text(text),
                    });
                }
                self.plan.skill_dirs = names;
            }
        }
        Ok(())
    }

    /// The configured hooks and the signal hook, in the agent file or the
    /// settings (with the keys that turn hooks on).
    pub(super) fn hooks(&mut self) -> Result<(), ProfileError> {
        let (config, data, root) = (self.config, self.data, &self.root);
        let Some(hooks_data) = &data.session.hooks else {
            // The config loader refuses hooks for such an adapter; a plan
            // made from an unchecked config says so too.
            if !config.hooks.is_empty() {
                return Err(ProfileError::Config {
                    key: format!("{root}.hooks"),
                    message: format!("{} has no hooks", data.display_name),
                });
            }
            if self.context.signal_hook_command.is_some() && data.tui.signals.hook.is_some() {
                self.note(format!(
                    "{} has a signal hook but no hooks map: approvals are read from the pane only",
                    data.display_name
                ));
            }
            return Ok(());
        };
        // Without `tui.signals.hook` the supervisor reads the pane (or the
        // recorder): nothing to register, nothing to say.
        let signal = self
            .context
            .signal_hook_command
            .zip(data.tui.signals.hook.as_ref())
            .map(|(command, hook)| (hook, command));
        let hooks = hooks::build(&config.hooks, hooks_data.shape, signal);
        match hooks_data.place {
            Place::AgentFile => self.agent_hooks = hooks,
            Place::OwnFile => {
                return Err(ProfileError::Config {
                    key: "session.hooks.place".to_owned(),
                    message: "hooks are written into the settings or the agent file".to_owned(),
                })
            }
            Place::Settings => {
                let key = &hooks_data.key;
                if self.settings.remove(key) {
                    self.note(format!(
                        "`{root}.configContent.{key}` is not used: oneworks writes the hooks of `{root}.hooks`"
                    ));
                }
                if !hooks.is_empty() {
                    for (enable, value) in &hooks_data.enable {
                        self.set(enable, value.clone());
                    }
                    self.settings.force(key, Value::Object(hooks));
                }
            }
        }
        Ok(())
    }

    /// The configured MCP servers the target takes, in the agent file, the
    /// settings or a file of their own.
    pub(super) fn mcp_servers(&mut self) -> Result<(), ProfileError> {
        let (config, data, context) = (self.config, self.data, self.context);
        let Some(mcp_data) = &data.session.mcp_servers else {
            let notes = mcp::unplaced(&config.mcp_servers, context.target, &data.display_name);
            self.plan.diagnostics.extend(notes);
            return Ok(());
        };
        let own_file = mcp_data.file.as_deref().unwrap_or_default();
        let file_label = match mcp_data.place {
            Place::AgentFile => "agent files".to_owned(),
            Place::Settings => format!("`{}`", data.session.settings.path),
            Place::OwnFile => format!("`{own_file}`"),
        };
        let placement = mcp::place(
            &config.mcp_servers,
            context.target,
            mcp_data.shape,
            &data.display_name,
            &file_label,
        );
        self.plan.diagnostics.extend(placement.diagnostics);
        match mcp_data.place {
            Place::AgentFile => self.agent_mcp = placement.agent,
            Place::OwnFile => {
                let relative = data_path(own_file, "mcpServers.file")?;
                let mut document = Map::new();
                document.insert(mcp_data.key.clone(), Value::Object(placement.agent));
                self.plan.files.push(PlannedFile {
                    relative,
                    contents: Contents::Json(Value::Object(document)),
                });
            }
            Place::Settings => {
                let key = &mcp_data.key;
                if self.settings.remove(key) {
                    let root = &self.root;
                    self.note(format!(
                        "`{root}.configContent.{key}` is not used: oneworks writes the servers of `{root}.mcpServers`"
                    ));
                }
                if !placement.agent.is_empty() {
                    self.settings.force(key, Value::Object(placement.agent));
                }
            }
        }
        Ok(())
    }

    /// The settings document, with the project's trust level for an agent
    /// that keeps it there; the first file of the plan.
    pub(super) fn settings_file(&mut self) -> Result<(), ProfileError> {
        let (config, session) = (self.config, &self.data.session);
        let format = session.settings.format;
        let mut document = self.settings.render(format, &self.root)?;
        if let Some(trust) = &session.trust {
            if let Some(keys) =
                trust::settings_keys(trust, config.trust_workspace, self.context.project)
            {
                let level = Value::String(trust.level.clone());
                self.plan.generated.values.push((
                    self.settings_path.clone(),
                    keys.clone(),
                    level.clone(),
                ));
                trust::insert(&mut document, &keys, level);
            }
        }
        let settings = PlannedFile {
            relative: self.settings_path.clone(),
            contents: Contents::document(format, document, &self.root)?,
        };
        self.plan.files.insert(0, settings);
        Ok(())
    }

    /// The agent file (name, description, resources, hooks, MCP servers,
    /// the config's `agentConfig` over them), for an agent that reads one.
    pub(super) fn agent_file(&mut self) -> Result<(), ProfileError> {
        let (config, data) = (self.config, self.data);
        let session = &data.session;
        let Some(agent_file) = &session.agent_file else {
            if config.agent_config.is_some() {
                self.note(format!(
                    "`{}.agentConfig` is not used: {} has no agent file",
                    self.root, data.display_name
                ));
            }
            return Ok(());
        };
        // The agent's name is a file name too.
        let file_name = format!("{}.json", session.agent_name);
        data_path(&file_name, "agentName")?;
        if session.agent_name.is_empty() {
            return Err(ProfileError::Config {
                key: "session.agentName".to_owned(),
                message: "an adapter with an agent file needs an agent name".to_owned(),
            });
        }
        let in_agent_file = |place: Option<(Place, &'a str)>| {
            place.and_then(|(place, key)| (place == Place::AgentFile).then_some(key))
        };
        let hooks = in_agent_file(session.hooks.as_ref().map(|h| (h.place, h.key.as_str())));
        let mcp = in_agent_file(
            session
                .mcp_servers
                .as_ref()
                .map(|m| (m.place, m.key.as_str())),
        );
        let agent = agent::build(agent::AgentInputs {
            name: &session.agent_name,
            file: agent_file,
            resources: self.resources.clone(),
            hooks: hooks.map(|key| (key, std::mem::take(&mut self.agent_hooks))),
            mcp_servers: mcp.map(|key| (key, std::mem::take(&mut self.agent_mcp))),
            agent_config: config.agent_config.as_ref(),
        });
        let relative = data_path(&agent_file.dir, "agentFile.dir")?.join(file_name);
        self.plan.files.push(PlannedFile {
            relative: relative.clone(),
            contents: Contents::Json(agent),
        });
        let generated = &mut self.plan.generated;
        generated.agent_file = relative;
        generated.agent_name = session.agent_name.clone();
        generated.resources = std::mem::take(&mut self.resources);
        generated.agent_forced = agent_file.forced.clone();
        generated.resources_key = agent_file.resources.as_ref().map(|r| r.key.clone());
        Ok(())
    }

    /// The trusted-folders file, for an agent that keeps one.
    pub(super) fn trust_file(&mut self) -> Result<(), ProfileError> {
        let (config, data) = (self.config, self.data);
        let Some(trust) = &data.session.trust else {
            return Ok(());
        };
        let (document, warning) = trust::document(
            trust,
            config.trust_workspace,
            self.context.project,
            &data.display_name,
            &data.id,
        );
        self.plan.diagnostics.extend(warning);
        let Some(path) = &trust.path else {
            return Ok(());
        };
        let relative = data_path(path, "trust.path")?;
        if let Value::Object(folders) = &document {
            for (folder, level) in folders {
                self.plan.generated.values.push((
                    relative.clone(),
                    vec![folder.clone()],
                    level.clone(),
                ));
            }
        }
        self.plan.files.push(PlannedFile {
            relative,
            contents: Contents::Json(document),
        });
        Ok(())
    }

    /// The data's extra files, as they are.
    pub(super) fn extra_files(&mut self) -> Result<(), ProfileError> {
        for (index, extra) in self.data.session.extra_files.iter().enumerate() {
            self.plan.files.push(PlannedFile {
                relative: data_path(&extra.path, &format!("extraFiles[{index}].path"))?,
                contents: Contents::Text(extra.contents.clone()),
            });
        }
        Ok(())
    }

    /// oneworks' keys of the agent's own state file.
    pub(super) fn state_file(&mut self) -> Result<(), ProfileError> {
        if let Some(state) = &self.data.session.state_file {
            let file = state_file::planned(
                state,
                self.config.trust_workspace,
                self.context.project,
                &mut self.plan.generated,
            )?;
            self.plan.files.push(file);
        }
        Ok(())
    }
}

/// The prompt file's front matter from the data's (`inclusion: always`).
pub(super) fn front_matter(data: Option<&str>) -> String {
    data.map(|text| format!("---\n{}\n---\n\n", text.trim_end_matches('\n')))
        .unwrap_or_default()
}

/// The prompt file's exact bytes: front matter, the prompt, one newline.
pub fn prompt_text(front_matter: &str, prompt: &str) -> String {
    let mut text = format!("{front_matter}{}", prompt.trim_end_matches('\n'));
    text.push('\n');
    text
}

/// Whether `version` is at least `since` (an unknown version is assumed
/// to be).
fn at_least(version: Option<&str>, since: Option<&str>) -> bool {
    let parse = |text: &str| semver::Version::parse(text).ok();
    match (version.and_then(parse), since.and_then(parse)) {
        (Some(version), Some(since)) => version >= since,
        _ => true,
    }
}
