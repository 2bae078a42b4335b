//! Placeholder until the launch resolver lands (helper branch h-install).

use crate::cli::{AdapterName, PrepareArgs};
use crate::commands::prepare::PrepareReport;
use crate::error::Error;
use crate::settings::Settings;

pub fn resolve_for_launch(settings: &Settings) -> Result<PrepareReport, Error> {
    crate::commands::prepare::resolve(
        settings,
        &PrepareArgs {
            adapter: AdapterName::Kiro,
            offline: false,
            force: false,
            locked: false,
            json: false,
        },
    )
}
