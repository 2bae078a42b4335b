//! `oneworks completions SHELL`: shell completions generated from the clap
//! definition (the checked-in `completions/` folder is kept equal by a test).

use clap::CommandFactory;

pub fn print(shell: clap_complete::Shell) {
    let mut command = crate::cli::Cli::command();
    clap_complete::generate(shell, &mut command, "oneworks", &mut std::io::stdout());
}
