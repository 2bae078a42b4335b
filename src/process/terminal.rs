//! The person's terminal while oneworks shows a prompt on it. The prompt
//! library puts the terminal in raw mode (no echo, no line editing, the caret
//! hidden) while it waits for a key, and puts it back when the key comes;
//! a prompt still open when the run ends — turn end, agent crash,
//! `--timeout`, cancel, panic — would leave the terminal raw.
//!
//! [`PromptOpen`] spans one prompt and saves the terminal's settings from
//! before the first one; [`restore`] puts them back (and shows the caret)
//! while a prompt is still open. The run calls it when a turn ends or is
//! cancelled, [`RestoreOnDrop`] when the run returns, and a panic hook
//! (installed with the first prompt) on a panic.

use std::io::{IsTerminal, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, Once};

use rustix::termios::{OptionalActions, Termios};

/// The settings to put back, and a handle on the terminal they belong to.
struct Saved {
    terminal: OwnedFd,
    settings: Termios,
}

static SAVED: Mutex<Option<Saved>> = Mutex::new(None);
/// Prompts whose thread has not returned yet.
static OPEN: AtomicUsize = AtomicUsize::new(0);
static PANIC_HOOK: Once = Once::new();

/// Shows the caret again (the prompt hides it while it runs).
const SHOW_CARET: &[u8] = b"\x1b[?25h";

/// One prompt on the terminal, from before it draws until its thread
/// returns. Create it before the prompt starts, so the saved settings are
/// the person's own and not the prompt's raw mode.
#[derive(Debug)]
pub struct PromptOpen(());

impl PromptOpen {
    /// A prompt on the terminal of stdin.
    pub fn begin() -> Self {
        Self::begin_on(std::io::stdin().as_fd())
    }

    /// A prompt on the terminal `fd` (a test's pseudo-terminal).
    pub fn begin_on(fd: std::os::fd::BorrowedFd<'_>) -> Self {
        if let Ok(mut saved) = SAVED.lock() {
            if saved.is_none() && rustix::termios::isatty(fd) {
                if let (Ok(settings), Ok(terminal)) =
                    (rustix::termios::tcgetattr(fd), fd.try_clone_to_owned())
                {
                    *saved = Some(Saved { terminal, settings });
                }
            }
        }
        PANIC_HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                restore();
                previous(info);
            }));
        });
        OPEN.fetch_add(1, Ordering::SeqCst);
        PromptOpen(())
    }
}

impl Drop for PromptOpen {
    fn drop(&mut self) {
        OPEN.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Puts the terminal back as it was before the first prompt, and shows the
/// caret, when a prompt is still open. Safe to call on every way out (and
/// more than once): with no prompt open it does nothing.
pub fn restore() {
    if OPEN.load(Ordering::SeqCst) == 0 {
        return;
    }
    // A panic while the lock was held must not stop the restore.
    let saved = SAVED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(saved) = saved.as_ref() {
        let _ = rustix::termios::tcsetattr(&saved.terminal, OptionalActions::Now, &saved.settings);
        // The prompt draws on stderr.
        let mut stderr = std::io::stderr();
        if stderr.is_terminal() {
            let _ = stderr.write_all(SHOW_CARET);
            let _ = stderr.flush();
        }
    }
}

/// Calls [`restore`] when dropped: held for the length of a run, so no
/// return path leaves a prompt's raw mode behind.
#[derive(Debug, Default)]
pub struct RestoreOnDrop;

impl Drop for RestoreOnDrop {
    fn drop(&mut self) {
        restore();
    }
}

#[cfg(test)]
mod tests {
    use std::os::fd::AsFd;

    use rustix::pty::{grantpt, openpt, ptsname, unlockpt, OpenptFlags};
    use rustix::termios::{tcgetattr, tcsetattr, LocalModes, OptionalActions};

    use super::*;

    fn cooked(terminal: &fs_err::File) -> bool {
        let modes = tcgetattr(terminal).expect("tcgetattr").local_modes;
        modes.contains(LocalModes::ECHO) && modes.contains(LocalModes::ICANON)
    }

    /// A panic while a prompt holds the terminal raw puts it back (the
    /// hook runs before any unwinding, and with `panic = "abort"` too).
    #[test]
    fn a_panic_while_a_prompt_is_open_restores_the_terminal() {
        let controller = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).expect("openpt");
        grantpt(&controller).expect("grantpt");
        unlockpt(&controller).expect("unlockpt");
        let name = ptsname(&controller, Vec::new()).expect("ptsname");
        let terminal = fs_err::OpenOptions::new()
            .read(true)
            .write(true)
            .open(name.to_str().expect("utf-8"))
            .expect("open the terminal");
        assert!(cooked(&terminal));
        let open = PromptOpen::begin_on(terminal.as_fd());
        // What the prompt does while it waits for a key.
        let mut raw = tcgetattr(&terminal).expect("tcgetattr");
        raw.make_raw();
        tcsetattr(&terminal, OptionalActions::Now, &raw).expect("tcsetattr");
        assert!(!cooked(&terminal));
        let panicked = std::panic::catch_unwind(|| panic!("a bug while the prompt is open"));
        assert!(panicked.is_err());
        assert!(cooked(&terminal), "the terminal stayed raw");
        drop(open);
        // With no prompt open, restoring does nothing.
        tcsetattr(&terminal, OptionalActions::Now, &raw).expect("tcsetattr");
        restore();
        assert!(!cooked(&terminal));
    }
}
