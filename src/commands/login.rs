//! `oneworks adapter login kiro --session NAME`: runs Kiro's own login in
//! the user's terminal with the session profile's environment, so a login
//! Kiro keeps in files lands inside the profile, never in the real HOME.
//! It needs a terminal, and resolves the CLI like `run` does: no request
//! when a version is installed.

use std::io::IsTerminal;

use crate::error::{Error, ErrorKind};
use crate::output;
use crate::process::{self, child::ManagedChild, signals::Interrupts};
use crate::profile::world::{self, Purpose};
use crate::settings::Settings;

pub fn run(settings: &Settings, name: &str) -> Result<(), Error> {
    if !std::io::stdin().is_terminal() {
        return Err(Error::msg(
            ErrorKind::Usage,
            "`adapter login` needs a terminal on standard input",
        )
        .with_hint(
            "in CI, set `KIRO_API_KEY` in the environment instead of logging in; \
             it reaches Kiro as is",
        ));
    }
    let cli = crate::adapter::resolve::resolve_for_launch(settings)?;
    let world = world::enter(settings, name, &cli.version, Purpose::Interactive)?;
    for diagnostic in &world.diagnostics {
        output::human(format_args!("note: {diagnostic}"));
    }
    let spec = world
        .child(&cli.path)
        .args(&settings.data.session.login_command)
        .interactive();
    let runtime = process::runtime().map_err(|error| Error::new(ErrorKind::Internal, error))?;
    let status = runtime.block_on(async {
        // Ctrl-C belongs to Kiro's login while it runs (it shares the
        // terminal); oneworks only must not die first and leak the HOME.
        let mut interrupts = Interrupts::install()?;
        let mut child = ManagedChild::spawn_attached(&spec, "kiro-cli login")?;
        loop {
            tokio::select! {
                status = child.wait() => return status,
                _ = interrupts.recv() => {}
            }
        }
    });
    drop(world);
    let status = status.map_err(|error| {
        Error::new(ErrorKind::AgentFailed, error)
            .with_hint(format!("could not start `{}`", cli.path.display()))
    })?;
    if status.success() {
        Ok(())
    } else {
        Err(Error::msg(
            ErrorKind::AgentFailed,
            format!("`{}` failed: {status}", spec.display()),
        ))
    }
}
