//! `oneworks adapter login ADAPTER --session NAME`: runs the agent's own
//! login in the user's terminal with the session profile's environment, so
//! a login the agent keeps in files lands inside the profile, never in the
//! real HOME.
//! It needs a terminal, and resolves the CLI like `run` does: no request
//! when a version is installed.

use std::io::IsTerminal;

use crate::error::{Error, ErrorKind};
use crate::launch::profile::world::{self, Purpose};
use crate::output;
use crate::process::child::{ManagedChild, StopBounds};
use crate::process::interrupts::{Interrupt, Interrupts};
use crate::process::{self};
use crate::settings::{Adapter, Settings};

pub fn run(settings: &Settings, adapter: &Adapter, name: &str) -> Result<(), Error> {
    let data = &adapter.data;
    if !std::io::stdin().is_terminal() {
        let error = Error::msg(
            ErrorKind::Usage,
            "`adapter login` needs a terminal on standard input",
        );
        return Err(match data.credentials.names.first() {
            Some(variable) => error.with_hint(format!(
                "in CI, set `{variable}` in the environment instead of logging in; \
                 it reaches {} as is",
                data.display_name
            )),
            None => error,
        });
    }
    let cli = crate::launch::resolve::resolve_for_launch(&super::resolver(adapter))?;
    let mut world = world::enter(
        &settings.world(adapter),
        name,
        &cli.version,
        Purpose::Interactive,
    )?;
    world.use_runtime(cli.runtime_path.as_deref());
    for diagnostic in &world.diagnostics {
        output::human(format_args!("note: {diagnostic}"));
    }
    let spec = world
        .child(&cli.path)
        .args(&data.session.login_command)
        .interactive();
    let runtime = process::runtime().map_err(|error| Error::new(ErrorKind::Internal, error))?;
    let outcome = runtime.block_on(async {
        // Ctrl-C reaches the agent's login too (it shares the terminal's
        // group) and the agent decides; a second one forces it. A SIGTERM is meant for
        // oneworks alone: it stops the login within bounds. Either way
        // oneworks must not die first and leak the HOME.
        let mut interrupts = Interrupts::install()?;
        let what = format!("{} login", data.binary.name);
        let mut child = ManagedChild::spawn_attached(&spec, &what)?;
        let mut interrupted = false;
        loop {
            tokio::select! {
                status = child.wait() => return status.map(|status| (status, interrupted)),
                which = interrupts.recv() => {
                    interrupted = true;
                    match which {
                        Interrupt::Interrupt if interrupts.received() < 2 => {}
                        Interrupt::Interrupt => child.kill_now(),
                        Interrupt::Terminate => {
                            let stopped = child.stop(StopBounds::default()).await?;
                            return Ok((stopped.status(), true));
                        }
                    }
                }
            }
        }
    });
    drop(world);
    let (status, interrupted) = outcome.map_err(|error| {
        Error::new(ErrorKind::AgentFailed, error)
            .with_hint(format!("could not start `{}`", cli.path.display()))
    })?;
    if status.success() {
        Ok(())
    } else if interrupted {
        Err(Error::msg(
            ErrorKind::Interrupted,
            format!("interrupted: `{}` was stopped", spec.display()),
        ))
    } else {
        Err(Error::msg(
            ErrorKind::AgentFailed,
            format!("`{}` {}", spec.display(), process::exit_description(status)),
        ))
    }
}
