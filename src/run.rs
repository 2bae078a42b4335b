//! Dispatch: from parsed arguments to the command that handles them.

use crate::cli::{AdapterCommand, Cli, Command, ConfigCommand};
use crate::commands;
use crate::error::Error;
use crate::settings::{Settings, TrustSettings};

/// Until a command knows its adapter (and `Settings::adapter` installs that
/// adapter's scrubber), everything printed is scrubbed of the credential
/// variables of this process's environment under every known adapter's
/// rules. Built lazily: most runs print one line.
pub fn install_startup_scrubber() {
    crate::output::set_scrubber_source(|| {
        let env = crate::locations::Environment::from_process();
        // The adapters of `ONEWORKS_ADAPTERS_DIR` too, where it can be read.
        let registry = crate::adapter::registry::Registry::discover(
            env.path("ONEWORKS_ADAPTERS_DIR").as_deref(),
            |_| None,
        )
        .unwrap_or_else(|_| crate::adapter::registry::Registry::builtin());
        let all: Vec<_> = registry
            .names()
            .iter()
            .filter_map(|name| registry.load(name).ok())
            .collect();
        let rules =
            crate::redact::rules::CredentialRules::union(all.iter().map(|data| &data.credentials));
        let secrets: Vec<(String, String)> = env
            .iter()
            .filter(|(name, value)| {
                !value.is_empty()
                    && all
                        .iter()
                        .any(|data| data.credentials.is_credential_name(name))
            })
            .map(|(name, value)| (name.to_owned(), value.to_owned()))
            .collect();
        Some(crate::redact::Scrubber::new(secrets, &rules))
    });
}

/// The settings of a command, and the one note naming what an untrusted
/// project config had ignored (SPEC §2.1).
fn settings(global: &crate::cli::GlobalArgs) -> Result<Settings, Error> {
    let settings = Settings::resolve(global)?;
    commands::config::note_untrusted(&settings);
    Ok(settings)
}

pub fn run(cli: Cli) -> Result<(), Error> {
    match cli.command {
        Command::Completions { shell } => commands::completions::print(shell),
        Command::Adapter(command) => {
            let settings = settings(&cli.global)?;
            match command {
                AdapterCommand::Prepare(args) => {
                    let adapter = settings.adapter(args.adapter.as_str())?;
                    commands::prepare::run(&settings, &adapter, &args)
                }
                AdapterCommand::Status { adapter, json } => {
                    let adapter = settings.adapter(adapter.as_str())?;
                    commands::status::status(&settings, &adapter, json)
                }
                AdapterCommand::List { json } => commands::status::list(&settings, json),
                AdapterCommand::Prune { adapter, keep } => {
                    let adapter = settings.adapter(adapter.as_str())?;
                    commands::prune::run(&settings, &adapter, keep)
                }
                AdapterCommand::Login { adapter, session } => {
                    let adapter = settings.adapter(adapter.as_str())?;
                    commands::login::run(&settings, &adapter, &session)
                }
            }
        }
        Command::Run(args) => {
            let settings = settings(&cli.global)?;
            let mut adapter = settings.adapter(args.adapter.as_str())?;
            adapter.config.trust_workspace |= args.trust_workspace;
            commands::run::run(&settings, &adapter, &args)
        }
        // The agent waits for its hook: no settings, no config, no runtime.
        Command::Session(crate::cli::SessionCommand::Hook) => {
            commands::session_hook::run(&crate::settings::HookSettings::resolve())
        }
        Command::Session(command) => {
            commands::session::run(&settings(&cli.global)?, &cli.global, command)
        }
        // `check` lists what was ignored itself; `trust` and `untrust`
        // judge one file and load no config.
        Command::Config(command) => match command {
            ConfigCommand::Check => commands::config::check(&Settings::resolve(&cli.global)?),
            ConfigCommand::Trust => commands::config::trust(&TrustSettings::resolve(&cli.global)?),
            ConfigCommand::Untrust => {
                commands::config::untrust(&TrustSettings::resolve(&cli.global)?)
            }
            ConfigCommand::Render {
                adapter,
                session,
                dry_run,
            } => {
                let settings = settings(&cli.global)?;
                let adapter = settings.adapter(adapter.as_str())?;
                commands::config::render(&settings, &adapter, &session, dry_run)
            }
        },
    }
}
