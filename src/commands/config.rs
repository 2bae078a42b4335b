//! `oneworks config check` and `oneworks config render ADAPTER`.

use crate::error::Error;
use crate::launch::profile::layout::ProfileLayout;
use crate::launch::profile::materialize::{self, mcp::Target};
use crate::output;
use crate::settings::{Adapter, Settings};

/// Everything `render` checks, without writing: the config (loaded with
/// the settings), the default session's folders, and the plan — skill
/// sources included.
pub fn check(settings: &Settings) -> Result<(), Error> {
    // Every configured adapter (an adapter the files do not name runs
    // with its defaults: nothing of it to check, and no notes to print).
    let names: Vec<String> = settings.config.config.adapters.keys().cloned().collect();
    let mut summaries = Vec::new();
    for name in names {
        let adapter = settings.adapter(&name)?;
        let layout = ProfileLayout::new(
            &settings.project,
            &settings.locations,
            "default",
            &adapter.data.id,
        );
        layout.check()?;
        let context = materialize::Context::new(&layout.agent_home, Target::Render)
            .project(&layout.project)
            .env(&settings.env);
        let plan = materialize::plan_in(&adapter.config, &adapter.data, &context)?;
        print_notes(&plan.diagnostics);
        let cli = &adapter.config.cli;
        summaries.push(format!(
            "{name}: source {}, version {}",
            cli.source, cli.version
        ));
    }
    let files = &settings.config.files;
    if files.is_empty() {
        output::say(
            settings.quiet,
            "no config files found; using defaults (source: managed, version: latest)",
        );
    }
    for file in files {
        output::say(settings.quiet, format!("ok: {}", file.display()));
    }
    for summary in summaries {
        output::say(settings.quiet, summary);
    }
    Ok(())
}

/// Writes (or prints) what session `name` gets from the config.
pub fn render(
    settings: &Settings,
    adapter: &Adapter,
    name: &str,
    dry_run: bool,
) -> Result<(), Error> {
    let data = &adapter.data;
    let layout = ProfileLayout::new(&settings.project, &settings.locations, name, &data.id);
    layout.check()?;
    let context = materialize::Context::new(&layout.agent_home, Target::Render)
        .project(&layout.project)
        .env(&settings.env);
    let plan = materialize::plan_in(&adapter.config, data, &context)?;
    let scrubber = &adapter.scrubber;
    print_notes(&plan.diagnostics);
    if dry_run {
        // What the files would hold comes from the project (config values,
        // skill bodies): shown without terminal controls.
        output::print_text(&output::sanitize(&format!(
            "# {}={}\n",
            data.session.home_variable,
            layout.agent_home.display()
        )))?;
        for file in plan.scrubbed(scrubber) {
            output::print_text(&output::sanitize(&format!(
                "--- {}\n{}",
                file.relative.display(),
                file.contents
            )))?;
        }
        return Ok(());
    }
    plan.write(&layout, data, scrubber)?;
    output::say(
        settings.quiet,
        format!(
            "rendered {} file(s) for session `{name}` into {}",
            plan.files.len(),
            layout.agent_home.display()
        ),
    );
    Ok(())
}

/// Render notes on stderr, through `output` (scrubbed: they may quote
/// config values; sanitized: server names come from the config).
fn print_notes(diagnostics: &[String]) {
    for diagnostic in diagnostics {
        output::human(format_args!("note: {diagnostic}"));
    }
}
