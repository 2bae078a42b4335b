//! `oneworks config check`, `config render ADAPTER`, and `config trust` /
//! `config untrust`, with the one note a command prints when
//! an untrusted project config had keys ignored.

use crate::config::{ConfigError, ProjectLayer};
use crate::error::{Error, ErrorKind};
use crate::launch::profile::layout::ProfileLayout;
use crate::launch::profile::materialize::{self, mcp::Target};
use crate::output;
use crate::settings::{Adapter, CliUse, Settings, TrustSettings};

/// Everything `render` checks, without writing: the config (loaded with
/// the settings), the default session's folders, and the plan — skill
/// sources included.
pub fn check(settings: &Settings) -> Result<(), Error> {
    // Every configured adapter (an adapter the files do not name runs
    // with its defaults: nothing of it to check, and no notes to print).
    let names: Vec<String> = settings.config.config.adapters.keys().cloned().collect();
    let mut summaries = Vec::new();
    for name in names {
        let adapter = settings.load_adapter(&name, CliUse::Inspect)?;
        // What this adapter's plan prints passes its scrubber (its
        // config's `${VAR}` references included).
        output::set_scrubber(std::sync::Arc::clone(&adapter.scrubber));
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
    if let Some(layer) = &settings.config.project_layer {
        print_project_layer(settings.quiet, layer);
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
        for file in plan.scrubbed(scrubber)? {
            output::print_text(&output::sanitize(&format!(
                "--- {}\n{}",
                file.relative.display(),
                file.text
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

/// The command that trusts `layer`'s file.
fn trust_command(layer: &ProjectLayer) -> String {
    if layer.explicit {
        format!("oneworks config trust --config {}", layer.path.display())
    } else {
        "oneworks config trust".to_owned()
    }
}

/// The one note of a command whose project config was not trusted and had
/// keys ignored (nothing when nothing was ignored).
pub fn note_untrusted(settings: &Settings) {
    let Some(layer) = &settings.config.project_layer else {
        return;
    };
    if layer.ignored.is_empty() {
        return;
    }
    let keys: Vec<&str> = layer.ignored.iter().map(|item| item.key.as_str()).collect();
    output::human(format_args!(
        "note: the project config `{}` is not trusted, so its keys that run code or move credentials (agent settings not listed as safe among them) are ignored: {}; read the file, then run `{}` to apply them (`oneworks config check` says why each was ignored)",
        layer.path.display(),
        keys.join(", "),
        trust_command(layer),
    ));
}

/// `config check`'s account of the project's own file.
fn print_project_layer(quiet: bool, layer: &ProjectLayer) {
    let path = layer.path.display();
    let real = match &layer.real {
        Some(real) if real != &layer.path => format!(" (real path `{}`)", real.display()),
        _ => String::new(),
    };
    if layer.trusted {
        output::say(
            quiet,
            format!(
                "trusted: project config `{path}`{real}, sha256 {}",
                layer.sha256
            ),
        );
        return;
    }
    output::say(
        quiet,
        format!(
            "untrusted: project config `{path}`{real}, sha256 {} (not trusted, or changed since it was trusted)",
            layer.sha256
        ),
    );
    if layer.ignored.is_empty() {
        output::say(quiet, "nothing in it needs trust; it applies as written");
        return;
    }
    output::say(
        quiet,
        format!("ignored until you run `{}`:", trust_command(layer)),
    );
    for item in &layer.ignored {
        output::say(quiet, format!("  {}: {}", item.key, item.reason));
    }
}

/// `oneworks config trust [--config FILE]`: records the file's real path
/// and the sha256 of the bytes it checked.
pub fn trust(settings: &TrustSettings) -> Result<(), Error> {
    crate::fs_safety::check_project_dot_dir(&settings.dot_dir)?;
    let inspected = match crate::config::inspect(&settings.file, &settings.registry) {
        Err(ConfigError::Missing { path }) if !settings.explicit => {
            return Err(Error::msg(
                ErrorKind::Config,
                format!(
                    "there is no project config to trust: `{}` does not exist",
                    path.display()
                ),
            )
            .with_hint("run this in the project, or name the file with `--config FILE`"))
        }
        other => other?,
    };
    settings.store.trust(&inspected.real, &inspected.sha256)?;
    let shown = if inspected.real == settings.file {
        format!("`{}`", inspected.real.display())
    } else {
        format!(
            "`{}` (real path `{}`)",
            settings.file.display(),
            inspected.real.display()
        )
    };
    output::say(
        settings.quiet,
        format!(
            "trusted {shown}, sha256 {}: all of its keys apply until the file changes",
            inspected.sha256
        ),
    );
    Ok(())
}

/// `oneworks config untrust [--config FILE]`: forgets the file's record.
pub fn untrust(settings: &TrustSettings) -> Result<(), Error> {
    // A file that is gone can still be untrusted by the path it had.
    let real = fs_err::canonicalize(&settings.file).unwrap_or_else(|_| {
        std::path::absolute(&settings.file).unwrap_or_else(|_| settings.file.clone())
    });
    let removed = settings.store.untrust(&real)?;
    let message = if removed {
        format!("`{}` is no longer trusted", real.display())
    } else {
        format!("`{}` was not trusted; nothing to do", real.display())
    };
    output::say(settings.quiet, message);
    Ok(())
}
