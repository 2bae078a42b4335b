//! The `oneworks` binary: parse, set up logging, run, map the outcome to an
//! exit code. Everything else lives in the library.

use std::process::ExitCode;

fn main() -> ExitCode {
    // Before anything is printed, usage errors included.
    oneworks::run::install_startup_scrubber();
    let cli = match oneworks::cli::parse() {
        Ok(cli) => cli,
        Err(code) => return ExitCode::from(code),
    };
    oneworks::logging::init(cli.global.quiet, cli.global.verbose);
    let json = cli.wants_json();
    let outcome = oneworks::run::run(cli);
    // The log goes out whole before the final error or the exit.
    oneworks::output::finish_log();
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            oneworks::output::report_error(&error, json);
            ExitCode::from(error.kind().exit_code())
        }
    }
}
