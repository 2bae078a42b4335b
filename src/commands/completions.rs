//! `oneworks completions SHELL`: shell completions generated from the clap
//! definition (the checked-in `completions/` folder is kept equal by a test).
//! Hidden subcommands (the supervisor's own entry point) are left out: the
//! generators list every subcommand, hidden or not.

use clap::{Command, CommandFactory};

use crate::error::Error;

/// Generated into memory first: clap_complete panics on a failed write, and
/// a closed pipe or a full disk must end like every other command's output.
pub fn print(shell: clap_complete::Shell) -> Result<(), Error> {
    let mut command = without_hidden(crate::cli::Cli::command());
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "oneworks", &mut script);
    Ok(crate::output::print_bytes(&script)?)
}

/// `command` without its hidden subcommands, at every level. clap cannot
/// remove a subcommand, so a level that has a hidden one is rebuilt from
/// what completions use (name, help, arguments, visible subcommands).
fn without_hidden(command: Command) -> Command {
    let names: Vec<String> = command
        .get_subcommands()
        .map(|sub| sub.get_name().to_owned())
        .collect();
    let command = names.iter().fold(command, |command, name| {
        command.mut_subcommand(name, without_hidden)
    });
    if !command.get_subcommands().any(Command::is_hide_set) {
        return command;
    }
    let mut rebuilt = Command::new(command.get_name().to_owned())
        .hide(command.is_hide_set())
        .subcommand_required(command.is_subcommand_required_set())
        .arg_required_else_help(command.is_arg_required_else_help_set())
        .args(command.get_arguments().cloned())
        .subcommands(
            command
                .get_subcommands()
                .filter(|sub| !sub.is_hide_set())
                .cloned(),
        );
    if let Some(about) = command.get_about() {
        rebuilt = rebuilt.about(about.clone());
    }
    if let Some(about) = command.get_long_about() {
        rebuilt = rebuilt.long_about(about.clone());
    }
    if let Some(version) = command.get_version() {
        rebuilt = rebuilt.version(version.to_owned());
    }
    for alias in command.get_all_aliases() {
        rebuilt = rebuilt.alias(alias.to_owned());
    }
    rebuilt
}
