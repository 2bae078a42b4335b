//! SIGINT and SIGTERM as awaitable values. Once [`Interrupts::install`] has
//! run, neither signal ends oneworks by itself: the command decides — the
//! first runs its cancel sequence, a second one stops the child at once —
//! and then exits 130.

use tokio::signal::unix::{signal, Signal, SignalKind};

/// Which signal arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interrupt {
    /// Ctrl-C at the terminal.
    Interrupt,
    /// SIGTERM (a service manager, `kill`).
    Terminate,
}

#[derive(Debug)]
pub struct Interrupts {
    interrupt: Signal,
    terminate: Signal,
    received: u32,
}

impl Interrupts {
    /// Registers the handlers. Call inside the tokio runtime, before the
    /// child starts, so no signal is missed.
    pub fn install() -> std::io::Result<Self> {
        Ok(Self {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
            received: 0,
        })
    }

    /// Waits for the next SIGINT or SIGTERM.
    pub async fn recv(&mut self) -> Interrupt {
        let which = tokio::select! {
            _ = self.interrupt.recv() => Interrupt::Interrupt,
            _ = self.terminate.recv() => Interrupt::Terminate,
        };
        self.received += 1;
        which
    }

    /// How many signals arrived so far (the second one means "now").
    pub fn received(&self) -> u32 {
        self.received
    }
}
