//! Computing a [`WorldPlan`]: what the agent's home should hold, from the
//! config, the adapter's `session:` data and the [`Context`] (version,
//! project, environment, signal hook). Reads skill sources; writes
//! nothing.

use std::path::Path;

use serde_json::{Map, Value};

use super::mcp::{self, Target};
use super::settings_file::{self, SettingsMap};
use super::{agent, auth, document, hooks, skill_source, skills, state_file, trust};
use crate::adapter::data::AdapterData;
use crate::adapter::session_data::Place;
use crate::config::AdapterConfig;
use crate::launch::profile::ProfileError;
use crate::locations::Environment;

pub(super) use super::planned::data_path;
pub use super::planned::{Generated, PlannedFile, WorldPlan};

/// What a world depends on besides the config and the adapter data.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The agent's home (`KIRO_HOME`, `GEMINI_CLI_HOME`).
    pub home: &'a Path,
    pub target: Target,
    /// The agent's version, when known: gates skills.
    pub version: Option<&'a str>,
    /// The project folder, for the trusted-folders file.
    pub project: Option<&'a Path>,
    /// The environment the agent starts from: which credential variables
    /// are set decides an implied login method (only the method is
    /// written).
    pub env: Option<&'a Environment>,
    /// The command line of the adapter's signal hook
    /// (`tui.signals.hook`: `oneworks session hook`), when a session
    /// supervisor asks for it (`session start`, never `run`).
    pub signal_hook_command: Option<&'a str>,
}

impl<'a> Context<'a> {
    pub fn new(home: &'a Path, target: Target) -> Self {
        Self {
            home,
            target,
            version: None,
            project: None,
            env: None,
            signal_hook_command: None,
        }
    }

    pub fn version(mut self, version: &'a str) -> Self {
        self.version = Some(version);
        self
    }

    pub fn project(mut self, project: &'a Path) -> Self {
        self.project = Some(project);
        self
    }

    pub fn env(mut self, env: &'a Environment) -> Self {
        self.env = Some(env);
        self
    }

    pub fn signal_hook_command(mut self, command: &'a str) -> Self {
        self.signal_hook_command = Some(command);
        self
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

pub(super) use super::document::to_json;

/// Whether `version` is at least `since` (an unknown version is assumed
/// to be).
fn at_least(version: Option<&str>, since: Option<&str>) -> bool {
    let parse = |text: &str| semver::Version::parse(text).ok();
    match (version.and_then(parse), since.and_then(parse)) {
        (Some(version), Some(since)) => version >= since,
        _ => true,
    }
}

/// Computes what `agent_home` should hold for `target`, knowing nothing
/// else (no version, project or environment): see [`plan_in`].
pub fn plan(
    config: &AdapterConfig,
    data: &AdapterData,
    agent_home: &Path,
    target: Target,
) -> Result<WorldPlan, ProfileError> {
    plan_in(config, data, &Context::new(agent_home, target))
}

/// Computes what the agent's home should hold.
pub fn plan_in(
    config: &AdapterConfig,
    data: &AdapterData,
    context: &Context<'_>,
) -> Result<WorldPlan, ProfileError> {
    let session = &data.session;
    let root = format!("adapters.{}", data.id);
    let home = context.home;
    let mut plan = WorldPlan::default();
    let mut generated = Generated::default();

    let settings_path = data_path(&session.settings.path, "settings.path")?;
    let settings_format = session.settings.format;
    let mut settings = SettingsMap::from_config(config.config_content.as_ref(), &root)?;
    let set_value =
        |settings: &mut SettingsMap, generated: &mut Generated, key: &str, value: Value| -> bool {
            generated.values.push((
                settings_path.clone(),
                settings_file::path_of(key, settings_format),
                value.clone(),
            ));
            settings.force(key, value)
        };
    for (key, value) in &session.settings.forced {
        if set_value(&mut settings, &mut generated, key, value.clone()) {
            plan.diagnostics.push(format!(
                "`{root}.configContent.{key}` is set by oneworks to `{value}`; the config's value is not used"
            ));
        }
    }
    if !matches!(context.target, Target::Acp) {
        for (key, value) in crate::launch::profile::tui_credentials::settings(data, context.env) {
            set_value(&mut settings, &mut generated, key, value.clone());
        }
    }
    if let Some(auth) = &session.auth {
        match auth::method(auth, config.auth.method.as_deref(), context.env) {
            Some(auth::Method::Configured(method)) => {
                let replaced = set_value(
                    &mut settings,
                    &mut generated,
                    &auth.settings_key,
                    Value::String(method.clone()),
                );
                if replaced {
                    plan.diagnostics.push(format!(
                        "`{root}.configContent.{}` is replaced by `{root}.auth.method` (`{method}`)",
                        auth.settings_key
                    ));
                }
            }
            Some(auth::Method::Implied { method, .. })
                if settings.get(&auth.settings_key).is_none() =>
            {
                set_value(
                    &mut settings,
                    &mut generated,
                    &auth.settings_key,
                    Value::String(method),
                );
            }
            _ => {}
        }
    }

    let mut resources = Vec::new();
    let prompt = config
        .system_prompt
        .as_deref()
        .filter(|prompt| !prompt.trim().is_empty());
    match &session.system_prompt {
        None if prompt.is_some() => plan.diagnostics.push(format!(
            "`{root}.systemPrompt` skipped: {} reads no prompt file oneworks writes",
            data.display_name
        )),
        None => {}
        Some(prompt_data) if prompt.is_some() || prompt_data.always => {
            let relative = data_path(&prompt_data.path, "systemPrompt.path")?;
            let front = front_matter(prompt_data.front_matter.as_deref());
            let contents = match prompt {
                Some(prompt) => {
                    resources.push(format!("file://{}", home.join(&relative).display()));
                    prompt_text(&front, prompt)
                }
                None => String::new(),
            };
            generated.steering_file = Some(relative.clone());
            generated.front_matter = front;
            plan.files.push(PlannedFile { relative, contents });
        }
        Some(_) => {}
    }

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
            &root,
        )?);
    }
    match &session.skills {
        _ if staged.is_empty() => {}
        None => plan.diagnostics.push(format!(
            "skills skipped: {} reads no skills folder (`{root}.skills`)",
            data.display_name
        )),
        Some(skills) if !at_least(context.version, skills.since.as_deref()) => {
            plan.diagnostics.push(format!(
                "skills skipped: {} {} reads skills from {} on",
                data.display_name,
                context.version.unwrap_or_default(),
                skills.since.as_deref().unwrap_or_default()
            ))
        }
        Some(skills) => {
            let skills_dir = data_path(&skills.dir, "skills.dir")?;
            for (dir, contents) in names.iter().zip(staged) {
                let relative = skills_dir.join(dir).join("SKILL.md");
                resources.push(format!("skill://{}", home.join(&relative).display()));
                plan.files.push(PlannedFile { relative, contents });
            }
            plan.skill_dirs = names;
        }
    }

    let (mut agent_hooks, mut agent_mcp) = (Map::new(), Map::new());
    match &session.hooks {
        Some(hooks_data) => {
            // Without `tui.signals.hook` the supervisor reads the pane
            // (or the recorder): nothing to register, nothing to say.
            let signal = context
                .signal_hook_command
                .zip(data.tui.signals.hook.as_ref())
                .map(|(command, hook)| (hook, command));
            let hooks = hooks::build(&config.hooks, hooks_data.shape, signal);
            match hooks_data.place {
                Place::AgentFile => agent_hooks = hooks,
                Place::OwnFile => {
                    return Err(ProfileError::Config {
                        key: "session.hooks.place".to_owned(),
                        message: "hooks are written into the settings or the agent file".to_owned(),
                    })
                }
                Place::Settings => {
                    let key = &hooks_data.key;
                    if settings.remove(key) {
                        plan.diagnostics.push(format!(
                            "`{root}.configContent.{key}` is not used: oneworks writes the hooks of `{root}.hooks`"
                        ));
                    }
                    if !hooks.is_empty() {
                        for (key, value) in &hooks_data.enable {
                            set_value(&mut settings, &mut generated, key, value.clone());
                        }
                        settings.force(key, Value::Object(hooks));
                    }
                }
            }
        }
        // The config loader refuses hooks for such an adapter; a plan
        // made from an unchecked config says so too.
        None if !config.hooks.is_empty() => {
            return Err(ProfileError::Config {
                key: format!("{root}.hooks"),
                message: format!("{} has no hooks", data.display_name),
            })
        }
        None => {
            if context.signal_hook_command.is_some() && data.tui.signals.hook.is_some() {
                plan.diagnostics.push(format!(
                    "{} has a signal hook but no hooks map: approvals are read from the pane only",
                    data.display_name
                ));
            }
        }
    }

    match &session.mcp_servers {
        Some(mcp_data) => {
            let file_label = match mcp_data.place {
                Place::AgentFile => "agent files".to_owned(),
                Place::Settings => format!("`{}`", session.settings.path),
                Place::OwnFile => format!("`{}`", mcp_data.file.as_deref().unwrap_or_default()),
            };
            let placement = mcp::place(
                &config.mcp_servers,
                context.target,
                mcp_data.shape,
                &data.display_name,
                &file_label,
            );
            plan.diagnostics.extend(placement.diagnostics);
            match mcp_data.place {
                Place::AgentFile => agent_mcp = placement.agent,
                Place::OwnFile => {
                    let file = mcp_data.file.as_deref().unwrap_or_default();
                    let relative = data_path(file, "mcpServers.file")?;
                    let mut document = Map::new();
                    document.insert(mcp_data.key.clone(), Value::Object(placement.agent));
                    plan.files.push(PlannedFile {
                        relative,
                        contents: to_json(&Value::Object(document)),
                    });
                }
                Place::Settings => {
                    let key = &mcp_data.key;
                    if settings.remove(key) {
                        plan.diagnostics.push(format!(
                            "`{root}.configContent.{key}` is not used: oneworks writes the servers of `{root}.mcpServers`"
                        ));
                    }
                    if !placement.agent.is_empty() {
                        settings.force(key, Value::Object(placement.agent));
                    }
                }
            }
        }
        None => plan.diagnostics.extend(mcp::unplaced(
            &config.mcp_servers,
            context.target,
            &data.display_name,
        )),
    }

    let mut settings = settings.render(settings_format, &root)?;
    if let Some(keys) = session
        .trust
        .as_ref()
        .and_then(|trust| trust::settings_keys(trust, config.trust_workspace, context.project))
    {
        let level = Value::String(
            session
                .trust
                .as_ref()
                .map(|t| t.level.clone())
                .unwrap_or_default(),
        );
        generated
            .values
            .push((settings_path.clone(), keys.clone(), level.clone()));
        trust::insert(&mut settings, &keys, level);
    }
    plan.files.insert(
        0,
        PlannedFile {
            relative: settings_path,
            contents: document::render(settings_format, &settings, &root)?,
        },
    );

    if let Some(agent_file) = &session.agent_file {
        // The agent's name is a file name too.
        let file_name = format!("{}.json", session.agent_name);
        data_path(&file_name, "agentName")?;
        if session.agent_name.is_empty() {
            return Err(ProfileError::Config {
                key: "session.agentName".to_owned(),
                message: "an adapter with an agent file needs an agent name".to_owned(),
            });
        }
        let agent = agent::build(agent::AgentInputs {
            name: &session.agent_name,
            description: &agent_file.description,
            resources: resources.clone(),
            hooks: agent_hooks,
            mcp_servers: agent_mcp,
            agent_config: config.agent_config.as_ref(),
        });
        let relative = data_path(&agent_file.dir, "agentFile.dir")?.join(file_name);
        plan.files.push(PlannedFile {
            relative: relative.clone(),
            contents: to_json(&agent),
        });
        generated.agent_file = relative;
        generated.agent_name = session.agent_name.clone();
        generated.resources = resources;
    }

    if session.agent_file.is_none() && config.agent_config.is_some() {
        plan.diagnostics.push(format!(
            "`{root}.agentConfig` is not used: {} has no agent file",
            data.display_name
        ));
    }

    if let Some(trust) = &session.trust {
        let (document, warning) = trust::document(
            trust,
            config.trust_workspace,
            context.project,
            &data.display_name,
            &data.id,
        );
        plan.diagnostics.extend(warning);
        if let Some(path) = &trust.path {
            let relative = data_path(path, "trust.path")?;
            if let Value::Object(folders) = &document {
                for (folder, level) in folders {
                    generated
                        .values
                        .push((relative.clone(), vec![folder.clone()], level.clone()));
                }
            }
            plan.files.push(PlannedFile {
                relative,
                contents: to_json(&document),
            });
        }
    }

    for (index, extra) in session.extra_files.iter().enumerate() {
        plan.files.push(PlannedFile {
            relative: data_path(&extra.path, &format!("extraFiles[{index}].path"))?,
            contents: extra.contents.clone(),
        });
    }

    if let Some(state) = &session.state_file {
        plan.files.push(state_file::planned(
            state,
            config.trust_workspace,
            context.project,
            &mut generated,
        )?);
    }

    plan.generated = generated;
    Ok(plan)
}
