//! `oneworks config check` and `oneworks config render kiro`.

use crate::error::Error;
use crate::output;
use crate::profile::layout::ProfileLayout;
use crate::profile::materialize::{self, mcp::Target};
use crate::settings::Settings;

/// Everything `render` checks, without writing: the config (loaded with
/// the settings), the default session's folders, and the plan — skill
/// sources included.
pub fn check(settings: &Settings) -> Result<(), Error> {
    let kiro = &settings.config.config.adapters.kiro;
    let layout = ProfileLayout::new(&settings.project, &settings.locations, "default");
    layout.check()?;
    let plan = materialize::plan(kiro, &settings.data, &layout.agent_home, Target::Render)?;
    print_notes(&plan.diagnostics);
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
    let cli = &settings.config.config.adapters.kiro.cli;
    output::say(
        settings.quiet,
        format!("kiro: source {}, version {}", cli.source, cli.version),
    );
    Ok(())
}

/// Writes (or prints) what session `name` gets from the config.
pub fn render(settings: &Settings, name: &str, dry_run: bool) -> Result<(), Error> {
    let kiro = &settings.config.config.adapters.kiro;
    let layout = ProfileLayout::new(&settings.project, &settings.locations, name);
    layout.check()?;
    let plan = materialize::plan(kiro, &settings.data, &layout.agent_home, Target::Render)?;
    let scrubber = crate::profile::scrubber_for(&settings.env, &settings.data, kiro);
    print_notes(&plan.diagnostics);
    if dry_run {
        // What the files would hold comes from the project (config values,
        // skill bodies): shown without terminal controls.
        output::print_text(&output::sanitize(&format!(
            "# KIRO_HOME={}\n",
            layout.agent_home.display()
        )))?;
        for file in plan.scrubbed(&scrubber) {
            output::print_text(&output::sanitize(&format!(
                "--- {}\n{}",
                file.relative.display(),
                file.contents
            )))?;
        }
        return Ok(());
    }
    plan.write(&layout, &settings.data, &scrubber)?;
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
