//! `oneworks session hook` (hidden): the command an agent's approval hook
//! runs in a supervised session (registered by `session start`, never by
//! `run`). It hands the hook's stdin payload to the supervisor and exits 0
//! at once, printing nothing: no decision, so the agent's own prompt stays
//! the one place the person answers. It reads no config and starts no
//! runtime (the agent may wait for it before it draws its box).

use crate::error::Error;
use crate::settings::HookSettings;

pub fn run(settings: &HookSettings) -> Result<(), Error> {
    crate::session::signals::hook::forward(std::io::stdin().lock(), settings.socket.as_deref());
    Ok(())
}
