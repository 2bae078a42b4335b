//! Tests of the command-line types.
use clap::CommandFactory;

use super::{Cli, ErrorKind};

/// Every argument a person can see says what it is: its own help, or
/// (an enum) the help of each of its values.
#[test]
fn every_visible_argument_has_help() {
    fn walk(command: &clap::Command, path: &str, missing: &mut Vec<String>) {
        for arg in command.get_arguments().filter(|arg| !arg.is_hide_set()) {
            let values = arg.get_possible_values();
            let described = arg.get_help().is_some()
                || (!values.is_empty() && values.iter().all(|value| value.get_help().is_some()));
            if !described {
                missing.push(format!("{path} {}", arg.get_id()));
            }
        }
        for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
            walk(sub, &format!("{path} {}", sub.get_name()), missing);
        }
    }
    let mut missing = Vec::new();
    let mut command = Cli::command();
    command.build();
    walk(&command, "oneworks", &mut missing);
    assert!(missing.is_empty(), "arguments without help: {missing:?}");
}

#[test]
fn help_lists_every_exit_code() {
    let help = Cli::command()
        .get_after_help()
        .map(ToString::to_string)
        .unwrap_or_default();
    let codes = ErrorKind::ALL.into_iter().map(ErrorKind::exit_code);
    for code in codes {
        assert!(
            help.contains(&format!(" {code} ")),
            "exit code {code} missing from: {help}"
        );
    }
}
