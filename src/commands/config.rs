//! `oneworks config check` and `oneworks config render kiro`.

use crate::error::{Error, ErrorKind};
use crate::output;
use crate::settings::Settings;

pub fn check(settings: &Settings) -> Result<(), Error> {
    let files = &settings.config.files;
    if files.is_empty() {
        output::say(settings.quiet, "no config files found; using defaults (source: managed, version: latest)");
    }
    for file in files {
        output::say(settings.quiet, format!("ok: {}", file.display()));
    }
    let cli = &settings.config.config.adapters.kiro.cli;
    output::say(settings.quiet, format!("kiro: source {}, version {}", cli.source, cli.version));
    Ok(())
}

pub fn render(_settings: &Settings, _session: &str, _dry_run: bool) -> Result<(), Error> {
    Err(Error::msg(ErrorKind::Internal, "config render is not built yet"))
}
