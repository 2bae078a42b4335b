//! `oneworks adapter login kiro --session NAME`.

use crate::error::{Error, ErrorKind};
use crate::settings::Settings;

pub fn run(_settings: &Settings, _session: &str) -> Result<(), Error> {
    Err(Error::msg(ErrorKind::Internal, "login is not built yet"))
}
