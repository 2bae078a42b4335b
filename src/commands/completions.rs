//! `oneworks completions SHELL`: shell completions generated from the clap
//! definition (the checked-in `completions/` folder is kept equal by a test).

use clap::CommandFactory;

use crate::error::Error;

/// Generated into memory first: clap_complete panics on a failed write, and
/// a closed pipe or a full disk must end like every other command's output.
pub fn print(shell: clap_complete::Shell) -> Result<(), Error> {
    let mut command = crate::cli::Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "oneworks", &mut script);
    crate::output::print_bytes(&script)
}
