//! Dispatch: from parsed arguments to the command that handles them.

use crate::cli::{AdapterCommand, Cli, Command, ConfigCommand};
use crate::commands;
use crate::error::Error;
use crate::settings::Settings;

pub fn run(cli: Cli) -> Result<(), Error> {
    match cli.command {
        Command::Completions { shell } => {
            commands::completions::print(shell);
            Ok(())
        }
        Command::Adapter(command) => {
            let settings = Settings::resolve(&cli.global)?;
            match command {
                AdapterCommand::Prepare(args) => commands::prepare::run(&settings, &args),
                AdapterCommand::Status { json, .. } => commands::status::status(&settings, json),
                AdapterCommand::List { json } => commands::status::list(&settings, json),
                AdapterCommand::Prune { keep, .. } => commands::prune::run(&settings, keep),
                AdapterCommand::Login { session, .. } => commands::login::run(&settings, &session),
            }
        }
        Command::Config(command) => {
            let settings = Settings::resolve(&cli.global)?;
            match command {
                ConfigCommand::Check => commands::config::check(&settings),
                ConfigCommand::Render {
                    session, dry_run, ..
                } => commands::config::render(&settings, &session, dry_run),
            }
        }
    }
}
