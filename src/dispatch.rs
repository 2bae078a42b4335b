//! Dispatch: from parsed arguments to the command that handles them.

use crate::cli::{AdapterCommand, Cli, Command, ConfigCommand, GlobalArgs, SessionCommand};
use crate::commands;
use crate::env_options::environment::Environment;
use crate::env_options::error::EnvError;
use crate::env_options::EnvOptions;
use crate::error::Error;
use crate::settings::{HookSettings, Settings, TrustSettings};

/// Until a command knows its adapter (and the command edge makes that
/// adapter's scrubber the print scrubber), everything printed is scrubbed of the credential
/// variables of this process's environment under every known adapter's
/// rules. Built lazily: most runs print one line.
pub fn install_startup_scrubber(env: Environment) {
    crate::output::set_scrubber_source(move || {
        // The adapters of `ONEWORKS_ADAPTERS_DIR` too, where it can be read.
        let adapters_dir = EnvOptions::parse(&env)
            .ok()
            .and_then(|options| options.adapters_dir);
        let registry =
            crate::adapter::registry::Registry::discover(adapters_dir.as_deref(), |_| None)
                .unwrap_or_else(|_| crate::adapter::registry::Registry::builtin());
        let all: Vec<_> = registry
            .names()
            .iter()
            .filter_map(|name| registry.credentials(name))
            .collect();
        let rules = crate::redact::rules::CredentialRules::union(all.iter());
        let secrets: Vec<(String, String)> = env
            .iter()
            .filter(|(name, value)| {
                !value.is_empty() && all.iter().any(|rules| rules.is_credential_name(name))
            })
            .map(|(name, value)| (name.to_owned(), value.to_owned()))
            .collect();
        Some(crate::redact::Scrubber::new(secrets, &rules))
    });
}

/// The settings of `command`, and the one note naming what an untrusted
/// project config had ignored. The adapter's scrubber becomes
/// the print scrubber here, at the command edge, in plain sight: reading
/// settings has no side effect.
fn settings(
    env: Environment,
    options: EnvOptions,
    global: &GlobalArgs,
    command: &Command,
) -> Result<Settings, Error> {
    let settings = Settings::resolve(env, options, global, command)?;
    if let Some(adapter) = &settings.adapter {
        crate::output::set_scrubber(std::sync::Arc::clone(&adapter.scrubber));
    }
    if !matches!(command, Command::Config(ConfigCommand::Check)) && !running_sessions_only(command)
    {
        commands::config::note_untrusted(&settings);
    }
    Ok(settings)
}

fn running_sessions_only(command: &Command) -> bool {
    matches!(command, Command::Session(command) if command.reaches_running_sessions_only())
}

/// Runs `cli` with the process's variables `env`, parsed into `options`:
/// a bad one fails every command that takes settings, before it starts.
pub fn run(
    mut cli: Cli,
    env: Environment,
    options: Result<EnvOptions, EnvError>,
) -> Result<(), Error> {
    match &cli.command {
        Command::Completions { shell } => return commands::completions::print(*shell),
        // The agent waits for its hook: no settings, no config, no runtime.
        Command::Session(SessionCommand::Hook) => {
            return commands::session_hook::run(&HookSettings::resolve(options.as_ref().ok()))
        }
        _ => {}
    }
    let options = options?;
    // `--config` wins over `ONEWORKS_CONFIG`; from here on, the one value
    // (a child `oneworks` is handed it as `--config`).
    if cli.global.config.is_none() {
        cli.global.config = options.config.clone();
    }
    let command = &cli.command;
    match command {
        // `trust` and `untrust` judge one file and load no config.
        Command::Config(ConfigCommand::Trust) => {
            commands::config::trust(&TrustSettings::resolve(&cli.global, &options)?)
        }
        Command::Config(ConfigCommand::Untrust) => {
            commands::config::untrust(&TrustSettings::resolve(&cli.global, &options)?)
        }
        _ => {
            let settings = settings(env, options, &cli.global, command)?;
            dispatch(&settings, &cli.global, cli.command)
        }
    }
}

/// The commands that run on resolved [`Settings`].
fn dispatch(settings: &Settings, global: &GlobalArgs, command: Command) -> Result<(), Error> {
    match command {
        Command::Adapter(command) => match command {
            AdapterCommand::Prepare(args) => {
                commands::prepare::run(settings, settings.adapter()?, &args)
            }
            AdapterCommand::Status { json, .. } => {
                commands::status::status(settings.adapter()?, json)
            }
            AdapterCommand::List { json } => commands::status::list(settings, json),
            AdapterCommand::Prune { keep, .. } => {
                commands::prune::run(settings, settings.adapter()?, keep)
            }
            AdapterCommand::Login { session, .. } => {
                commands::login::run(settings, settings.adapter()?, &session)
            }
        },
        Command::Run(args) => commands::run::run(settings, settings.adapter()?, global, &args),
        Command::Session(command) => commands::session::run(settings, global, command),
        // `check` lists what was ignored itself.
        Command::Config(ConfigCommand::Check) => commands::config::check(settings),
        Command::Config(ConfigCommand::Render {
            session, dry_run, ..
        }) => commands::config::render(settings, settings.adapter()?, &session, dry_run),
        Command::Config(ConfigCommand::Trust | ConfigCommand::Untrust)
        | Command::Completions { .. } => Err(Error::msg(
            crate::error::ErrorKind::Internal,
            "this command runs without settings",
        )),
    }
}
