//! The `oneworks` binary: parse, set up logging, run, map the outcome to an
//! exit code. Everything else lives in the library.

use std::process::ExitCode;

fn main() -> ExitCode {
    // The one read of the process's variables.
    let env = oneworks::env_options::environment::Environment::capture();
    // Before anything is printed, usage errors included.
    oneworks::dispatch::install_startup_scrubber(env.clone());
    let cli = match oneworks::cli::parse() {
        Ok(cli) => cli,
        Err(code) => return ExitCode::from(code),
    };
    let options = oneworks::env_options::EnvOptions::parse(&env);
    let rust_log = options
        .as_ref()
        .ok()
        .and_then(|options| options.rust_log.as_deref());
    oneworks::logging::init(cli.global.quiet, cli.global.verbose, rust_log);
    let json = cli.wants_json();
    let outcome = oneworks::dispatch::run(cli, env, options);
    // The log goes out whole before the final error or the exit.
    oneworks::output::finish_log();
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let message = error.message();
            let failure = oneworks::output::Failure {
                kind: error.kind(),
                message: &message,
                hint: error.hint(),
            };
            oneworks::output::report_error(&failure, json);
            ExitCode::from(error.kind().exit_code())
        }
    }
}
