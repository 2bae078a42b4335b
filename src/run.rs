//! Dispatch: from parsed arguments to the command that handles them.

use crate::cli::{AdapterCommand, Cli, Command, ConfigCommand};
use crate::commands;
use crate::error::Error;
use crate::settings::Settings;

/// Resolves the settings and, from then on, scrubs everything printed with
/// the config's secrets too (referenced `${VAR}`s, `webhookAuthEnv`).
fn settings(global: &crate::cli::GlobalArgs) -> Result<Settings, Error> {
    let settings = Settings::resolve(global)?;
    let env = settings.env.clone();
    let data = settings.data.clone();
    let kiro = settings.config.config.adapters.kiro.clone();
    crate::output::set_scrubber_source(move || {
        Some(crate::profile::scrubber_for(&env, &data, &kiro))
    });
    Ok(settings)
}

pub fn run(cli: Cli) -> Result<(), Error> {
    match cli.command {
        Command::Completions { shell } => {
            commands::completions::print(shell);
            Ok(())
        }
        Command::Adapter(command) => {
            let settings = settings(&cli.global)?;
            match command {
                AdapterCommand::Prepare(args) => commands::prepare::run(&settings, &args),
                AdapterCommand::Status { json, .. } => commands::status::status(&settings, json),
                AdapterCommand::List { json } => commands::status::list(&settings, json),
                AdapterCommand::Prune { keep, .. } => commands::prune::run(&settings, keep),
                AdapterCommand::Login { session, .. } => commands::login::run(&settings, &session),
            }
        }
        Command::Run(args) => commands::run::run(&settings(&cli.global)?, &args),
        Command::Session(command) => {
            commands::session::run(&settings(&cli.global)?, &cli.global, command)
        }
        Command::Config(command) => {
            let settings = settings(&cli.global)?;
            match command {
                ConfigCommand::Check => commands::config::check(&settings),
                ConfigCommand::Render {
                    session, dry_run, ..
                } => commands::config::render(&settings, &session, dry_run),
            }
        }
    }
}
