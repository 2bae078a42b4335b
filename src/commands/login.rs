//! `oneworks adapter login kiro --session NAME`: runs Kiro's own login in
//! the user's terminal with the session profile's environment, so a login
//! Kiro keeps in files lands inside the profile, never in the real HOME.

use crate::cli::{AdapterName, PrepareArgs};
use crate::error::{Error, ErrorKind};
use crate::profile::environment::ChildEnvironment;
use crate::profile::layout::ProfileLayout;
use crate::profile::materialize::{self, mcp::Target};
use crate::profile::temp_home::TempHome;
use crate::settings::Settings;

pub fn run(settings: &Settings, name: &str) -> Result<(), Error> {
    let kiro = &settings.config.config.adapters.kiro;
    let cli = crate::commands::prepare::resolve(
        settings,
        &PrepareArgs {
            adapter: AdapterName::Kiro,
            offline: false,
            force: false,
            locked: false,
            json: false,
        },
    )?;
    let layout = ProfileLayout::new(&settings.project, &settings.locations, name);
    let remote = crate::profile::remote_mcp_in_agent_file(&settings.data, Some(&cli.version));
    let plan = materialize::plan(
        kiro,
        &settings.data,
        &layout.kiro_home,
        Target::Tui {
            remote_supported: remote,
        },
    )?;
    for diagnostic in &plan.diagnostics {
        eprintln!("note: {diagnostic}");
    }
    let scrubber = crate::profile::scrubber_for(&settings.env, &settings.data, kiro);
    plan.write(&layout, &settings.data, &scrubber)?;
    let runtime = layout.ensure_runtime()?;
    let home = TempHome::create(runtime)?;
    let environment =
        ChildEnvironment::build(&settings.env, &settings.data, kiro, &layout, home.path());
    let mut command = std::process::Command::new(&cli.path);
    command
        .args(&settings.data.session.login_command)
        .current_dir(&layout.project);
    environment.apply(&mut command);
    let status = command.status().map_err(|error| {
        Error::new(ErrorKind::AgentFailed, error)
            .with_hint(format!("could not start `{}`", cli.path.display()))
    })?;
    drop(home);
    if status.success() {
        Ok(())
    } else {
        Err(Error::msg(
            ErrorKind::AgentFailed,
            format!(
                "`{} {}` failed: {status}",
                cli.path.display(),
                settings.data.session.login_command.join(" ")
            ),
        ))
    }
}
